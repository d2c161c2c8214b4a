"""
Randomized vs deterministic fair Bayes-optimal classifier under malicious noise
===============================================================================

Agarwal, Deshpande, Rajaraman and Sundaram (ICML 2025) show that the accuracy of
the *randomized* fair Bayes-optimal classifier (BOC) is Lipschitz-robust to
malicious noise — training on ``D′ = (1 − α) D + α Q`` costs O(α) accuracy on the
clean ``D`` — while the best *deterministic* fair rule can lose a constant amount
of accuracy for an arbitrarily small α.

The population below has four feature values per group (atoms, like score buckets)
and its demographic-parity optimum puts both groups at selection rate 1/2, exactly
at a bucket boundary. The adversary replaces a fraction α of the training data by
copies of one point of the smaller group with its label flipped
(:func:`fairkit.datasets.inject_malicious_noise`, ``strategy="duplicate"``). The
copies shift the group's bucket masses: the deterministic rule, which must take or
leave a bucket as a whole, loses the balanced pair of thresholds as soon as the
shift exceeds the tolerance and jumps to a much worse one. The randomized rule
randomizes inside one bucket and follows the shift. Accuracy is computed exactly
on the clean population.
"""

import numpy as np
from sklearn.naive_bayes import CategoricalNB

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


def jumps(alphas, mean_accuracy, threshold=0.01):
    """The noise rates at which the mean accuracy drops by more than ``threshold`` in one step."""
    drops = -np.diff(mean_accuracy)
    return [float(a) for a, d in zip(alphas[1:], drops, strict=True) if d > threshold]


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    alphas = np.round(np.arange(0.0, 0.1001, 0.005), 3)
    curves = noise_curves(alphas, seeds=range(6), n=30_000)
    fig, ax = plt.subplots(figsize=(6, 4))
    for randomized, label in ((True, "randomized fair BOC"), (False, "deterministic fair rule")):
        mean, std = curves[randomized].mean(axis=0), curves[randomized].std(axis=0)
        ax.plot(alphas, mean, marker="o", label=label)
        ax.fill_between(alphas, mean - std, mean + std, alpha=0.2)
        print(f"{label}: clean accuracy {mean[0]:.3f} -> {mean[-1]:.3f}, "
              f"one-step drops > 0.01 at alpha = {jumps(alphas, mean)}")
    ax.set_xlabel("malicious noise rate α (duplicated flipped point in the smaller group)")
    ax.set_ylabel("accuracy on the clean population")
    ax.set_title("Demographic parity, tolerance 0.02, mean ± sd over 6 samples")
    ax.legend()
    fig.tight_layout()
    plt.show()
