"""FairICP through skops.io: the networks are saved as arrays and rebuilt on load, without torch.load."""

import numpy as np
import skops.io as sio
import torch

from fairkit.adversarial import FairICPClassifier

rng = np.random.default_rng(0)
a = rng.integers(0, 2, 400)
X = np.column_stack([rng.normal(size=400) + a, rng.normal(size=400)])
y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0.5).astype(int)
clf = FairICPClassifier(max_epochs=5, random_state=0).fit(X, y, sensitive_features=a)

sio.dump(clf, "fairicp.skops")
print(sio.get_untrusted_types(file="fairicp.skops"))
loaded = sio.load("fairicp.skops", trusted=["fairkit.adversarial._fair_icp.FairICPClassifier"])
print(f"identical probabilities: {np.array_equal(loaded.predict_proba(X), clf.predict_proba(X))}")

# The predictor network alone, for use in torch: its state dict, read back with weights_only=True
torch.save(clf.net_.module_.state_dict(), "predictor.pt")
weights = torch.load("predictor.pt", weights_only=True)
print(sorted(weights))
