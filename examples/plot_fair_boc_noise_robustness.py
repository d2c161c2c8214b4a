"""
Randomized vs deterministic fair Bayes-optimal classifier under malicious noise
===============================================================================

Agarwal, Deshpande, Rajaraman and Sundaram (ICML 2025) show that the accuracy of
the *randomized* fair Bayes-optimal classifier (BOC) is Lipschitz-robust to
malicious noise — training on ``D′ = (1 − α) D + α Q`` costs O(α) accuracy on the
clean ``D`` — while the best *deterministic* fair rule can lose a constant amount
of accuracy for an arbitrarily small α. Their quantity is the worst drop of clean
accuracy relative to α = 0, divided by α.

The population below has four feature values per group (cells, like score buckets)
and its demographic-parity optimum puts both groups at selection rate 1/2, exactly
at a bucket boundary.

*Left*: the adversary replaces a fraction α of 30,000 training samples by copies of
one point of the smaller group with its label flipped
(:func:`fairkit.datasets.inject_malicious_noise`, ``strategy="duplicate"``), one line
per sample (the point copied differs between samples); tolerance 0.02. The
deterministic rule, which must take or leave a bucket as a whole, loses the balanced
pair of thresholds as soon as the shift exceeds the tolerance and jumps to a much
worse one. The randomized rule randomizes inside one bucket and follows the shift.
Its occasional steps are real (``benchmarks/bench_fair_boc_noise.py`` finds them on the
exact population too): the copied point's noisy η′ crosses another bucket's η, which
swaps the order in which the rule fills the group; they stay within O(α) of α = 0.

*Right*: the exact check, without sampling. ``D′`` is computed exactly for every
point-mass adversary ``Q`` (each cell with each label), both rules are fitted on its
exact masses at tolerance 0 and evaluated exactly on ``D``: the deterministic rule's
ratio grows like 1/α (Claim 1), the randomized one's stays below 2/(1 − α)
(Theorem 1).
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import CategoricalNB

from fairkit import FairkitWarning
from fairkit.datasets import inject_malicious_noise
from fairkit.postprocessing import RandomizedFairBOC

# P(Y=1 | bucket, group) and P(bucket | group), buckets from the top; P(group) = 0.7, 0.3.
ETA = np.array([[0.85, 0.7, 0.35, 0.15], [0.75, 0.45, 0.3, 0.1]])
MASS = np.array([[0.2, 0.3, 0.3, 0.2], [0.1, 0.4, 0.3, 0.2]])
GROUP_SHARE = np.array([0.7, 0.3])
CELL_P = (GROUP_SHARE[:, None] * MASS).ravel()  # cell = 4 * group + bucket
CELL_ETA = ETA.ravel()
CELLS = np.arange(len(CELL_P))


def sample(n, rng):
    """``n`` samples of the clean population: the cell as the one feature, labels, groups."""
    cell = rng.choice(len(CELL_P), n, p=CELL_P)
    y = (rng.random(n) < CELL_ETA[cell]).astype(int)
    return cell[:, None], y, cell // 4


def clean_accuracy(fair):
    """Expected accuracy of a fitted rule on the clean population (exact, no test sample)."""
    decision = fair.predict_proba(CELLS[:, None], sensitive_features=CELLS // 4)[:, 1]
    return float(np.sum(CELL_P * (decision * CELL_ETA + (1 - decision) * (1 - CELL_ETA))))


def noise_curves(alphas, seeds, n=50_000, strategy="duplicate", tolerance=0.02):
    """Clean accuracy of both rules fitted on noisy samples: ``{randomized: (n_seeds, n_alphas)}``."""
    curves = {True: np.empty((len(seeds), len(alphas))), False: np.empty((len(seeds), len(alphas)))}
    for i, seed in enumerate(seeds):
        X, y, group = sample(n, np.random.default_rng(seed))
        for j, alpha in enumerate(alphas):
            X_noisy, y_noisy, g_noisy = inject_malicious_noise(
                X, y, group, alpha, strategy=strategy, target_group=1, random_state=seed)
            for randomized in (True, False):
                # CategoricalNB on the cell alone estimates P(Y=1 | cell) by its frequency
                fair = RandomizedFairBOC(CategoricalNB(alpha=1e-9, min_categories=len(CELLS)),
                                         tolerance=tolerance, randomized=randomized)
                fair.fit(X_noisy, y_noisy, sensitive_features=g_noisy)
                curves[randomized][i, j] = clean_accuracy(fair)
    return curves


def duplicated_point(seed, n=50_000):
    """The point ``(cell, label)`` that ``strategy="duplicate"`` copies in the sample of ``seed``.

    It does not depend on α: read it off the rows that one noisy sample changed.
    """
    X, y, group = sample(n, np.random.default_rng(seed))
    X_noisy, y_noisy, _ = inject_malicious_noise(X, y, group, 0.01, target_group=1, random_state=seed)
    changed = np.flatnonzero((X_noisy[:, 0] != X[:, 0]) | (y_noisy != y))[0]
    return int(X_noisy[changed, 0]), int(y_noisy[changed])


def lipschitz_ratio(alphas, accuracy):
    """The paper's quantity, max over α > 0 of (acc(0) − acc(α)) / α, along the last axis."""
    alphas = np.asarray(alphas)
    return np.max((accuracy[..., :1] - accuracy[..., 1:]) / alphas[1:], axis=-1)


class KnownEta(ClassifierMixin, BaseEstimator):
    """A base estimator that knows P(Y=1 | cell) exactly: ``eta[cell]`` for the cell in ``X[:, 0]``."""

    def __init__(self, eta):
        self.eta = eta

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        eta = np.asarray(self.eta)[np.asarray(X)[:, 0]]
        return np.column_stack([1 - eta, eta])


def exact_clean_accuracy(alpha, point, *, randomized, tolerance=0.0, constraint="demographic_parity"):
    """Clean accuracy of the rule fitted on ``D′ = (1 − α) D + α δ_point`` computed exactly.

    ``point`` is ``(cell, label)``. The fit sees every cell twice, once per label,
    weighted by its exact mass in ``D′``, and scores that are the exact η′ of ``D′``.
    """
    cell, label = point
    mass, positive = (1 - alpha) * CELL_P, (1 - alpha) * CELL_P * CELL_ETA
    mass[cell] += alpha
    positive[cell] += alpha * label
    X = np.concatenate([CELLS, CELLS])[:, None]
    y = np.repeat([1, 0], len(CELLS))
    fair = RandomizedFairBOC(KnownEta(positive / mass), constraint=constraint, tolerance=tolerance,
                             randomized=randomized)
    with warnings.catch_warnings():
        # the weights are exact masses, not counts: no sampling error for a support warning to report
        warnings.simplefilter("ignore", FairkitWarning)
        fair.fit(X, y, sensitive_features=X[:, 0] // 4,
                 sample_weight=np.concatenate([positive, mass - positive]))
    return clean_accuracy(fair)


def worst_case_ratio(alpha, *, randomized, tolerance=0.0, constraint="demographic_parity"):
    """Exact (acc(0) − acc(α)) / α for the worst point-mass adversary: every cell, either label."""
    options = {"randomized": randomized, "tolerance": tolerance, "constraint": constraint}
    clean = exact_clean_accuracy(0.0, (0, 0), **options)
    noisy = min(exact_clean_accuracy(alpha, (cell, label), **options) for cell in CELLS for label in (0, 1))
    return (clean - noisy) / alpha


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    alphas = np.round(np.arange(0.0, 0.1001, 0.005), 3)
    seeds = range(6)
    curves = noise_curves(alphas, seeds=seeds, n=30_000)
    exact_alphas = np.logspace(-6, -1, 6)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for randomized, label, color in ((True, "randomized fair BOC", "tab:blue"),
                                     (False, "deterministic fair rule", "tab:orange")):
        left.plot(alphas, curves[randomized].T, color=color, alpha=0.6, marker=".")
        left.plot([], [], color=color, label=label)
        ratios = lipschitz_ratio(alphas, curves[randomized])
        print(f"{label}: per-sample (acc(0) - acc(a)) / a, max over a: {np.round(ratios, 2)}")
        worst = [worst_case_ratio(a, randomized=randomized) for a in exact_alphas]
        right.loglog(exact_alphas, worst, marker="o", color=color, label=label)
        print(f"{label}, exact population, tolerance 0: worst ratio at a = 1e-6, 1e-4, 1e-2: "
              f"{worst[0]:.3g}, {worst[2]:.3g}, {worst[4]:.3g}")
    right.loglog(exact_alphas, 2 / (1 - exact_alphas), "k--", label="bound 2 / (1 − α)")
    left.set_xlabel("malicious noise rate α (copies of one flipped point of the smaller group)")
    left.set_ylabel("accuracy on the clean population")
    left.set_title("Demographic parity, tolerance 0.02, one line per sample")
    left.legend()
    right.set_xlabel("malicious noise rate α")
    right.set_ylabel("worst (acc(0) − acc(α)) / α over point masses Q")
    right.set_title("Exact population, tolerance 0")
    right.legend()
    fig.tight_layout()
    plt.show()
