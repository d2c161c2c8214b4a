"""Save a fitted fairkit estimator with skops.io and load it back, trusting only reviewed types."""

import numpy as np
import skops.io as sio

from fairkit.datasets import make_fair_classification
from fairkit.postprocessing import RandomizedFairBOC

X, y, group = make_fair_classification(n_samples=2000, random_state=0)
fair = RandomizedFairBOC(random_state=0).fit(X, y, sensitive_features=group)
sio.dump(fair, "fair_boc.skops")

# Before loading a file: which types would it construct beyond those skops trusts by default
# (Python builtins, numpy, scipy, scikit-learn)? Read the list and compare it with the types
# you trust (fairkit's are listed below); then pass those, never the file's list unread.
print(sio.get_untrusted_types(file="fair_boc.skops"))
TRUSTED = ["fairkit.postprocessing._fair_boc.RandomizedFairBOC"]
loaded = sio.load("fair_boc.skops", trusted=TRUSTED)  # any other type in the file is refused

same = np.array_equal(loaded.predict_proba(X, sensitive_features=group),
                      fair.predict_proba(X, sensitive_features=group))
print(f"identical predictions: {same}")
