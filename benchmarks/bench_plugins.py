"""The first-party plugins against their peers: abcvoting (JR check, greedy coverage), torchmetrics (ECE/MCE).

* ``is_justified`` against abcvoting's ``properties.check_JR`` on the same profile and committee;
* ``JustifiedRepresentationRanker`` (greedy, both stages) against abcvoting's sequential
  Chamberlin-Courant ``compute_seqcc`` (the greedy coverage rule of its first stage) for the same k;
* ``expected_calibration_error`` / ``max_calibration_error`` against torchmetrics'
  ``multiclass_calibration_error`` (norm ``l1`` / ``max``) on the same probabilities.

Ratios are peer time / fairkit time (above 1: fairkit is faster), medians of repeats in one run.
Run from the repository root: ``python -m benchmarks.bench_plugins [--quick]``.
"""

from functools import partial

import numpy as np

from benchmarks._common import main, median_time

PACKAGES = ("fairkit", "fairkit-deliberation", "fairkit-uncertainty", "abcvoting", "torchmetrics", "torch",
            "numpy", "scipy")


def approval_profile(n_users, n_comments, seed=0):
    """Users in five camps, each approving its camp's comments with probability 0.4 and others' with 0.05."""
    rng = np.random.default_rng(seed)
    camp, comment_camp = rng.integers(0, 5, n_users), rng.integers(0, 5, n_comments)
    p = np.where(camp[:, None] == comment_camp[None, :], 0.4, 0.05)
    return (rng.random((n_users, n_comments)) < p).astype(np.int8)


def bench_deliberation(n_users, n_comments, k=10, repeats=3):
    from abcvoting import abcrules, properties
    from abcvoting.preferences import Profile

    from fairkit_deliberation import JustifiedRepresentationRanker, is_justified

    X = approval_profile(n_users, n_comments)
    profile = Profile(n_comments)
    profile.add_voters([set(np.flatnonzero(row).tolist()) for row in X])
    top = np.argsort(-X.sum(axis=0), kind="stable")[:k]
    ours_check, ours_verdict = median_time(lambda: is_justified(X, top), repeats)
    peer_check, peer_verdict = median_time(lambda: properties.check_JR(profile, set(top.tolist())), repeats)
    assert ours_verdict == peer_verdict
    ours_rank, _ = median_time(lambda: JustifiedRepresentationRanker(k=k).fit(X), repeats)
    peer_rank, _ = median_time(lambda: abcrules.compute_seqcc(profile, k), repeats)
    return {"n_users": n_users, "n_comments": n_comments, "k": k, "top_k_justified": bool(ours_verdict),
            "is_justified_s": ours_check, "abcvoting_check_JR_s": peer_check,
            "check_speedup": peer_check / ours_check, "greedy_ranker_s": ours_rank,
            "abcvoting_seqcc_s": peer_rank, "ranking_speedup": peer_rank / ours_rank}


def bench_calibration(n_samples, n_classes=10, n_bins=15, repeats=5):
    import torch
    from torchmetrics.functional.classification import multiclass_calibration_error

    from fairkit_uncertainty import expected_calibration_error, max_calibration_error

    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.full(n_classes, 0.5), size=n_samples)
    y = rng.integers(0, n_classes, n_samples)
    proba_t, y_t = torch.tensor(proba), torch.tensor(y)
    row = {"n_samples": n_samples, "n_classes": n_classes, "n_bins": n_bins}
    for norm, ours in (("l1", expected_calibration_error), ("max", max_calibration_error)):
        ours_s, ours_value = median_time(partial(ours, y, proba, n_bins=n_bins), repeats)
        peer_s, peer_value = median_time(lambda norm=norm: multiclass_calibration_error(
            proba_t, y_t, n_classes, n_bins=n_bins, norm=norm).item(), repeats)
        assert abs(ours_value - peer_value) < 1e-5
        row.update({f"{norm}_fairkit_s": ours_s, f"{norm}_torchmetrics_s": peer_s,
                    f"{norm}_speedup": peer_s / ours_s})
    return row


def run(quick=False):
    """Time both plugins against their peers; returns the results as a dict."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # both sides single-threaded
    try:
        return {
            "deliberation": [bench_deliberation(n_users, n_comments) for n_users, n_comments
                             in ([(300, 300)] if quick else [(300, 300), (3000, 1000)])],
            "calibration": [bench_calibration(n) for n in ([10_000] if quick else [10_000, 1_000_000])],
        }
    finally:
        torch.set_num_threads(threads)


if __name__ == "__main__":
    main("plugins", run, PACKAGES)
