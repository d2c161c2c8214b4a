"""Close to the limit at scale: each estimator's fit against its unavoidable core work, in the same run.

Issue 26. Per estimator and size: the fit's time, the time of its *limit* (the core work no
implementation can skip, measured in the same process on the same data), their ratio, and the fit's
peak traced memory (NumPy and Python allocations, ``tracemalloc``). Times are CPU seconds
(``time.process_time``) of one single-threaded process, so a loaded machine disturbs them less than
wall time; a ratio near 1 means the fit does little beyond its limit.

* ``ranker``: ``SelectiveRanker(tau=0.1).fit`` on full rankings of 100 items by 10^4–10^6 judges
  (random permutations). Limit: the bare pairwise count, ``np.less`` on int16 ranks and a uint8
  reduction per block of 255 judges — what counting must do at least. ``counting`` times
  ``profile_counts`` alone (the recoding and the missing-value bookkeeping on top of the limit).
* ``scheduler``: ``MMSScheduler(groups).fit`` on unrelated-machine instances
  (``make_scheduling_instance``) of 100–5,000 jobs. Limit: one solve of the combined assignment LP
  the fit rounds (fairkit's HiGHS method: interior point with crossover from 100,000 edges, dual
  simplex below); ``lp_simplex`` / ``lp_interior`` time that LP with each method, and ``lambda`` is
  the LP's optimum (the same with both).
* ``spectral_dense``: ``FairSpectralClustering(50, affinity="precomputed")`` on a dense rbf affinity
  (50 blobs, 5 groups) of 2,000–10,000 samples, which stays dense. Limit: the unconstrained
  embedding, ``eigsh`` for the 50 smallest eigenpairs of the normalized Laplacian given as a dense
  array (the affinity's own size). ``peak_mb`` is the fit's traced peak, against ``affinity_mb``.
* ``fairicp``: ``FairICPClassifier(mu=0.9)`` against plain training (``mu=0``), batch 512, on
  ``bench_fairicp``'s synthetic data (10 features, two categorical and one continuous sensitive
  attribute) of 2·10^4–10^6 rows, one torch thread. An epoch's CPU is the mean of epochs 2 and 3 of
  a fit, each from the end of the one before (the ICP draw included); ``fixed_s`` is what the first
  epoch costs beyond them (set-up, density, burn-in). Limit: the paper's tensor work of an epoch
  without skorch (one discriminator pass, one predictor pass against the frozen discriminator;
  ``bare_adversarial_epoch``) on copies of the fitted networks; ``limit_ratio_to_plain`` is what
  the method itself costs over plain training. These rows run first, by growing size, and
  ``max_rss_gb`` is the process's peak RSS after each, torch's tensors included.

    python -m benchmarks run scale [--quick]
"""

import copy
import time

import numpy as np
import torch
from scipy.sparse.linalg import eigsh
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel
from skorch.callbacks import Callback
from threadpoolctl import threadpool_limits
from torch.nn import functional as F

import fairkit.scheduling._lp as lp
from benchmarks._common import main, max_rss, peak_traced_memory
from benchmarks.bench_fairicp import _synthetic
from fairkit.adversarial import FairICPClassifier
from fairkit.cluster import FairSpectralClustering
from fairkit.datasets import make_scheduling_instance
from fairkit.ranking import SelectiveRanker
from fairkit.scheduling import MMSScheduler, maximin_shares
from fairkit.utils._preferences import profile_counts

N_ITEMS = 100


def cpu_seconds(fn):
    """CPU seconds of one call of ``fn`` and its result."""
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def bare_counts(ranks):
    """The limit of counting: int16 comparisons and a uint8 reduction per block of 255 judges."""
    wins = np.zeros((N_ITEMS, N_ITEMS), dtype=np.int64)
    block = np.empty((255, N_ITEMS, N_ITEMS), dtype=bool)
    for start in range(0, len(ranks), 255):
        rows = ranks[start:start + 255]
        prefers = block[:len(rows)]
        np.less(rows[:, :, None], rows[:, None, :], out=prefers)
        wins += np.add.reduce(prefers.view(np.uint8), axis=0, dtype=np.uint8)
    return wins


def ranker_row(n_judges):
    rng = np.random.default_rng(0)
    ranks = rng.permuted(np.tile(np.arange(1, N_ITEMS + 1, dtype=np.int16), (n_judges, 1)), axis=1)
    X = ranks.astype(float)
    limit, wins = cpu_seconds(lambda: bare_counts(ranks))
    counting, counts = cpu_seconds(lambda: profile_counts(X))
    fit, ranker = cpu_seconds(lambda: SelectiveRanker(tau=0.1).fit(X))
    peak, _ = peak_traced_memory(lambda: SelectiveRanker(tau=0.1).fit(X))
    assert np.array_equal(counts.wins, wins)
    return {"n_judges": n_judges, "n_items": N_ITEMS, "fit_s": fit, "counting_s": counting, "limit_s": limit,
            "ratio": fit / limit, "counting_over_limit": counting / limit, "peak_mb": peak / 2**20,
            "input_mb": X.nbytes / 2**20, "n_tiers": len(ranker.tiers_)}


def scheduler_row(n_jobs, n_machines, n_groups):
    group = np.repeat(np.arange(n_groups), n_machines // n_groups)
    P = make_scheduling_instance(n_jobs, group, kind="unrelated", random_state=0)
    fit, scheduler = cpu_seconds(lambda: MMSScheduler(group).fit(P))
    thresholds = maximin_shares(P, group)[group]
    job, machine = np.nonzero(thresholds >= P)
    weight = P[job, machine] / thresholds[machine]

    def solve(method_from_edges):
        saved, lp.IPM_FROM_EDGES = lp.IPM_FROM_EDGES, method_from_edges
        try:
            return lp._min_max_load(job, machine, weight, n_jobs, n_machines, vertex=True)[0]
        finally:
            lp.IPM_FROM_EDGES = saved

    limit, lam = cpu_seconds(lambda: solve(lp.IPM_FROM_EDGES))
    simplex, lam_simplex = cpu_seconds(lambda: solve(np.inf))
    interior, lam_interior = cpu_seconds(lambda: solve(0))
    peak, _ = peak_traced_memory(lambda: MMSScheduler(group).fit(P))
    return {"n_jobs": n_jobs, "n_machines": n_machines, "n_groups": n_groups, "n_edges": int(job.size),
            "fit_s": fit, "limit_s": limit, "ratio": fit / limit, "lp_simplex_s": simplex,
            "lp_interior_s": interior, "lambda": lam, "lambda_gap": abs(lam_simplex - lam_interior),
            "guarantee": scheduler.guarantee_, "peak_mb": peak / 2**20}


def spectral_dense_row(n, k=50, h=5):
    rng = np.random.default_rng(0)
    X, blob = make_blobs(n, n_features=10, centers=k, cluster_std=2.0, random_state=0)
    groups = np.where(rng.random(n) < 0.7, blob % h, rng.integers(0, h, n))
    W = rbf_kernel(X, gamma=1 / 80)

    def limit():  # I - D^-1/2 W D^-1/2 without the self-loops of the kernel's diagonal
        scale = 1.0 / np.sqrt(W.sum(axis=1) - np.diag(W))
        laplacian = -scale[:, None] * W * scale[None, :]
        np.fill_diagonal(laplacian, 1.0)
        return eigsh(laplacian, k, which="SA", tol=1e-6, v0=np.random.default_rng(0).uniform(-1, 1, n))

    limit_s, _ = cpu_seconds(limit)
    model = FairSpectralClustering(k, affinity="precomputed", tol=1e-6, random_state=0)
    timed = {}

    def fit():
        timed["fit_s"] = cpu_seconds(lambda: model.fit(W, sensitive_features=groups))[0]

    peak, _ = peak_traced_memory(fit)
    return {"n_samples": n, "n_clusters": k, "n_groups": h, "solver": model.solver_, "fit_s": timed["fit_s"],
            "limit_s": limit_s, "ratio": timed["fit_s"] / limit_s, "peak_mb": peak / 2**20,
            "affinity_mb": W.nbytes / 2**20}


def bare_adversarial_epoch(net, n, mu=0.9, batch_size=512):
    """The limit of a FairICP epoch: the paper's tensor work, without skorch, on copies of ``net``'s modules.

    One discriminator pass (f frozen: D's Adam step on (ŷ, Ã, y) = 1 against (ŷ, A, y) = 0) and one
    predictor pass (f's Adam step on (1 - mu) task loss + mu D's flipped loss), as ``AdversarialNet``
    runs them, over random data of the fit's shapes. Returns CPU seconds of one plain pass (f alone)
    and of one fair epoch, each the faster of two runs after a warm-up.
    """
    f, discriminator = copy.deepcopy(net.module_), copy.deepcopy(net.discriminator_)
    f_optimizer = torch.optim.Adam(f.parameters(), lr=1e-3)
    d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=1e-4)
    generator = torch.Generator().manual_seed(0)
    n_features, n_classes = next(f.parameters()).shape[1], 2
    x = torch.randn(n, n_features, generator=generator)
    a = torch.randn(n, next(discriminator.parameters()).shape[1] - 2 * n_classes, generator=generator)
    y = torch.randint(0, n_classes, (n,), generator=generator)

    def adversary_loss(y_pred, rows, a_tilde, flip):
        y_onehot = F.one_hot(y[rows], n_classes).to(y_pred.dtype)
        logits = discriminator(torch.cat([torch.cat([y_pred, a_tilde[rows], y_onehot], 1),
                                          torch.cat([y_pred, a[rows], y_onehot], 1)])).squeeze(1)
        labels = torch.cat([torch.ones(len(rows)), torch.zeros(len(rows))])
        return F.binary_cross_entropy_with_logits(logits, 1 - labels if flip else labels)

    def step(optimizer, loss):
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    def plain_pass():
        for rows in torch.randperm(n, generator=generator).split(batch_size):
            step(f_optimizer, F.cross_entropy(f(x[rows]), y[rows]))

    def fair_epoch():
        a_tilde = a[torch.randperm(n, generator=generator)]
        for rows in torch.randperm(n, generator=generator).split(batch_size):
            with torch.no_grad():
                y_pred = f(x[rows])
            step(d_optimizer, adversary_loss(y_pred, rows, a_tilde, flip=False))
        discriminator.requires_grad_(False)
        for rows in torch.randperm(n, generator=generator).split(batch_size):
            y_pred = f(x[rows])
            step(f_optimizer, (1 - mu) * F.cross_entropy(y_pred, y[rows])
                 + mu * adversary_loss(y_pred, rows, a_tilde, flip=True))
        discriminator.requires_grad_(True)

    seconds = []
    for run in (plain_pass, fair_epoch):
        run()  # warm-up
        seconds.append(min(cpu_seconds(run)[0] for _ in range(2)))
    return seconds


class _EpochClock(Callback):
    """Process CPU time at the end of each epoch (after the net's own end-of-epoch work)."""

    def on_train_begin(self, net, **kwargs):
        self.ends_ = []

    def on_epoch_end(self, net, **kwargs):
        self.ends_.append(time.process_time())


def timed_fairicp_fit(X, y, sensitive, mu, n_epochs):
    """Fit FairICPClassifier at ``mu``; return it, its CPU seconds per epoch and its fixed cost.

    An epoch is the mean of epochs 2 to ``n_epochs``, each from the end of the one before
    (its ICP draw included); the fixed cost is what the first epoch takes beyond one epoch
    (set-up, density, burn-in).
    """
    clock = _EpochClock()
    model = FairICPClassifier(mu=mu, max_epochs=n_epochs, batch_size=512, random_state=0,
                              net_params={"callbacks": [("epoch_clock", clock)]})
    start = time.process_time()
    model.fit(X, y, sensitive_features=sensitive)
    epoch = (clock.ends_[-1] - clock.ends_[0]) / (n_epochs - 1)
    return model, epoch, clock.ends_[0] - start - epoch


def fairicp_row(n, mu=0.9, n_epochs=3):
    """Per-epoch CPU of FairICPClassifier at ``mu`` and at 0, and of its limit."""
    X, y, sensitive = _synthetic(n)
    _, epoch_plain, _ = timed_fairicp_fit(X, y, sensitive, 0.0, n_epochs)
    fair, epoch, fixed = timed_fairicp_fit(X, y, sensitive, mu, n_epochs)
    limit_plain, limit = bare_adversarial_epoch(fair.net_, n, mu)
    return {"n_samples": n, "epoch_plain_s": epoch_plain, "epoch_s": epoch,
            "ratio_to_plain": epoch / epoch_plain, "limit_plain_s": limit_plain, "limit_s": limit,
            "ratio": epoch / limit, "limit_ratio_to_plain": limit / limit_plain, "fixed_s": fixed,
            "density_n_samples": fair.density_n_samples_, "density_log_loss": fair.density_log_loss_}


def run(quick=False):
    judges = [10_000, 30_000] if quick else [10_000, 100_000, 1_000_000]
    instances = [(500, 20, 4), (1000, 50, 10)]
    if not quick:
        instances = [(100, 50, 10), (200, 50, 10), (1000, 50, 10), (2000, 100, 10), (5000, 200, 20)]
    dense_sizes = [1000] if quick else [2000, 5000, 10_000]
    icp_sizes = [5000] if quick else [20_000, 200_000, 1_000_000]
    records = {"ranker": [], "scheduler": [], "spectral_dense": [], "fairicp": []}
    X, y, sensitive = _synthetic(300)  # a first fit imports what torch and skorch import lazily
    FairICPClassifier(mu=0.5, max_epochs=1).fit(X, y, sensitive_features=sensitive)
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:  # first, and by growing size, so that the process's peak RSS after a row is its largest fit's
        for n in icp_sizes:
            records["fairicp"].append({**fairicp_row(n), "max_rss_gb": max_rss() / 2**30})
            print("fairicp", records["fairicp"][-1], flush=True)
    finally:
        torch.set_num_threads(torch_threads)
    with threadpool_limits(1):
        for n_judges in judges:
            records["ranker"].append(ranker_row(n_judges))
            print("ranker", records["ranker"][-1], flush=True)
        for instance in instances:
            records["scheduler"].append(scheduler_row(*instance))
            print("scheduler", records["scheduler"][-1], flush=True)
        for n in dense_sizes:
            records["spectral_dense"].append(spectral_dense_row(n))
            print("spectral_dense", records["spectral_dense"][-1], flush=True)
    return records


if __name__ == "__main__":
    main("scale", run)
