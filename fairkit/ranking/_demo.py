"""The ranking demo for ``fairkit demo``: selective ranking vs Borda on synthetic votes."""

from fairkit.datasets import make_preference_profiles
from fairkit.metrics import abstention_rate, disagreement_rate
from fairkit.ranking._baselines import borda
from fairkit.ranking._selective import SelectiveRanker


def demo(*, quick=False):
    """Disagreement with the judges of Borda's total order and of the majority selective ranking.

    Judges rate 8 items on a 5-point scale, around a common ranking (noisy Mallows model),
    so they often tie items. The selective ranking at the largest dissent level of its
    path (just under 1/2) overrules fewer of the judges' preferences than Borda by
    abstaining on the pairs where too many judges tie or disagree.
    """
    X, _ = make_preference_profiles(200 if quick else 2000, 8, kind="ratings", dispersion=0.8,
                                    random_state=0)
    path = SelectiveRanker(input_type="ratings").path(X)
    selective = path.at(path.taus[-1])
    return {
        "metric": "disagreement rate (lower is better)",
        "before": disagreement_rate(X, borda(X, input_type="ratings"), input_type="ratings"),
        "after": disagreement_rate(X, selective, input_type="ratings"),
        "note": (f"Borda vs SelectiveRanker(tau={path.taus[-1]:.3f}), which abstains on "
                 f"{abstention_rate(selective):.0%} of pairs"),
    }
