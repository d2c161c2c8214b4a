# The paper's MNIST cells: label Y and pseudo-attribute S balanced, artefact A = Y for 95 % of S = M
# and 80 % of S = F in training; which grouping should mitigation balance?
import itertools

import pandas as pd

from fairkit_subgroups import subgroup_kl_diagnostic

agree = {"M": 0.95, "F": 0.8}
cells = pd.DataFrame([{"Y": y, "S": s, "A": a, "count": 100 * (agree[s] if a == y else 1 - agree[s])}
                      for y, s, a in itertools.product([0, 1], ["M", "F"], [0, 1])])
groupings = {"Y": ["Y"], "S": ["S"], "A": ["A"], "SY": ["S", "Y"], "AY": ["A", "Y"], "YAS": ["Y", "A", "S"]}
for method in ("resampling", "gdro"):
    result = subgroup_kl_diagnostic(cells, groupings, method=method)
    print(method, result["kl"].round(6).to_dict())
