"""The paper's central experiment in miniature (digits with a spurious artefact, 5 draws): its claims hold.

Alloula et al. (ICML 2025) find that mitigating on the groups where the disparity shows (S, S × Y),
or on the label or the artefact alone, does no better than no mitigation, while the artefact ×
label grouping (AY, also with 10% of its labels reassigned at random) and the full intersection
(YAS) raise worst-group accuracy on the balanced test set; and that the KL diagnostic orders the
groupings as worst-group accuracy does. benchmarks/bench_subgroups.py runs the same study with more
epochs, on Adult too, and reports every figure.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from fairkit_subgroups import (
    GroupBalancedClassifier,
    GroupDROClassifier,
    Noisy,
    RandomGroups,
    compare_groupings,
    make_digits_artefact,
    make_groupings,
    stack_draws,
)

SPEC = {"Y": "Y", "A": "A", "S": "S", "AY": ["A", "Y"], "SY": ["S", "Y"], "YAS": ["Y", "A", "S"],
        "Random": RandomGroups(4), "noisy_AY_10": Noisy(["A", "Y"], 0.1)}
HELPS = ["AY", "YAS", "noisy_AY_10"]
DOES_NOT_HELP = ["Y", "A", "S", "SY", "Random"]


@pytest.fixture(scope="module")
def digits():
    data = stack_draws(make_digits_artefact(random_state=seed) for seed in range(5))
    groupings = {"ERM": np.zeros(len(data.y)), **make_groupings(data.attributes, SPEC, random_state=0)}
    return data, groupings


@pytest.mark.parametrize("method", ["reweight", "resample", "gdro"])
def test_the_artefact_label_grouping_helps_and_the_kl_diagnostic_orders_the_groupings(digits, method, torch):
    data, groupings = digits
    estimator = (GroupDROClassifier((), max_epochs=30, batch_size=128, lr=1e-2) if method == "gdro"
                 else GroupBalancedClassifier(LogisticRegression(max_iter=2000), mode=method))
    result = compare_groupings(estimator, data.X / 16, data.y, groupings, eval_groups=data.attributes,
                               cv=data.cv, random_state=0)
    verdicts = result.paired("ERM")["verdict"]
    assert (verdicts[HELPS] == "higher").all(), verdicts
    assert (verdicts[DOES_NOT_HELP] != "higher").all(), verdicts
    # the diagnostic separates them: every grouping that helps has a lower KL and a higher worst-group
    # accuracy than every one that does not (the KL ties among the latter make Spearman's rho noisy)
    summary = result.summary
    assert summary.loc[HELPS, "kl"].max() < summary.loc[DOES_NOT_HELP, "kl"].min(), summary
    assert (summary.loc[HELPS, "worst_group_accuracy"].min()
            > summary.loc[DOES_NOT_HELP, "worst_group_accuracy"].max()), summary
    assert result.spearman > 0, summary
