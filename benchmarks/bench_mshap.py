"""fairkit-mshap measured: M^Shap against no payments (M0) at equilibrium, on a power law and on digits.

M^Shap (A. Murhekar, J. Song, P. Shahkar, B. Ray Chaudhury, R. Mehta, "You Get What You Give:
Reciprocally Fair Federated Learning", ICML 2025) pays each agent her Shapley share of the total
accuracy gain minus the gain she receives (``ShapleyPaymentMechanism``); M0 pays nothing
(``NoPaymentMechanism``). Each agent chooses how much data to contribute, at a linear cost
``γ_i s_i``. Both mechanisms run ``best_response_dynamics`` with exact best responses (one agent
drawn per round, ``s0`` = every agent contributing 1, the same seed for both) and the profile it
reaches is checked with ``deviation_gains`` (each agent's best unilateral gain; an equilibrium
needs at most 1e-6). The paper's full text could not be read: its figures below (data gains
3.89–31.18×, accuracy gains 1.02–1.36×, on MNIST, Fashion-MNIST, CIFAR-10 and a synthetic
regression with 30 agents) are **second-hand** (an automatic summary of the paper), and its
α, β, cost distribution and dynamics are unknown; they are printed beside ours for orientation,
not as a target — the set-ups differ.

**Metrics** (per run, at the profile reached): ``total_data`` Σ s_i; ``mean_accuracy`` the mean
over agents of a_i(s); ``welfare`` Σ (a_i − γ_i s_i) (payments cancel); ``min_reciprocity`` the
smallest (a_i − a_i(0) + p_i) / φ_i over agents with φ_i ≠ 0, φ the Shapley values of the same
game (under M0, p = 0: free-riders have φ_i = 0 and are left out, so under the power law M0's is
that of its one contributor, 1/n); ``max_abs_payment_sum`` the largest |Σ p_i| over seeds (budget
balance); ``max_deviation_gain`` the largest entry of ``deviation_gains`` over agents and seeds,
``equilibrium`` whether it is ≤ 1e-6 in every seed; ``rounds`` the dynamics' rounds (mean),
``converged`` in how many seeds every agent's last best response was her own contribution;
``free_riders`` agents with s_i = 0 (mean); ``seconds`` the dynamics' wall time and
``check_seconds`` that of the checks (summary, reciprocity, deviation gains), means over seeds.
``data_gain`` and ``accuracy_gain`` are the M^Shap / M0 ratios per seed, ``welfare_difference``
M^Shap − M0. Every other figure is the mean over seeds with its 95 % t interval
(``fairkit.metrics.resampled_interval``: ``test_fraction`` 0 for the power law, whose seeds are
independent draws of the costs; 3/7 for digits, whose seeds re-split the same 1,797 images, the
Nadeau–Bengio correction), ``_low`` / ``_high``.

* ``power_law`` / ``power_law_gains``: ``PowerLawAccuracy`` a(s) = 1 − α (‖s‖₁ + 1)^(−β), α = 1,
  β ∈ {0.3, 0.5, 1.0}, 10 agents, γ_i ~ U[1e-3, 1e-2] (seeds 0–4), contributions in [0, 1e4].
  ``S0`` is M0's closed form (only the cheapest agent contributes), mean over seeds:
  S0 = max(0, (αβ / γ_min)^(1/(β+1)) − 1); ``S0_rel_error`` the largest |Σ s − S0| / S0 over seeds.
* ``digits`` / ``digits_summary`` / ``digits_seeds`` (one row per seed): ``load_digits`` (no
  download) split into 10 non-IID agents: the rows shuffled by the seed, agent sizes 60 + a
  Dirichlet(2, …, 2) share of the other rows, each agent's 8×8 images rotated by 0° (agents 0–3),
  90° (4–6) or 180° (7–9), the first 70 % of an agent's rows her training data, the rest her test
  rows (a_i = accuracy on her own test rows). ``LearningAccuracy(RidgeClassifier(), levels=(0, .25,
  .5, .75, 1), n_jobs=2)``, retrained for each profile (cached). Costs per unit fraction: γ_i = g ·
  u_i, u_i ~ U[0.5, 2] (seed 1000 + the seed's), g = ``own_gain``, the median over agents of the
  accuracy an agent gains on her own test rows by contributing all her data rather than none while
  everyone else contributes all. Costs of the order of that gain make some agents' data not worth
  its cost to themselves, so M0 has free-riders (``free_riders``: agents with s_i = 0 at the profile
  reached; the plan's fixed U[0.02, 0.1] left none at seed 2). A total is at most 10 (every agent
  contributing all her data), which caps the data gain at 10 / M0's total. M0 runs first, then
  M^Shap on the same ``LearningAccuracy`` (its fit cache included); ``n_fits`` counts each phase's
  new fits (dynamics and checks). At most 300 rounds: the learning game is discrete and noisy, and
  M0 can cycle without converging; ``converged`` and ``max_deviation_gain`` say so when it does.
  ``learning_seconds`` (the whole section) against the issue's 5-minute target on 2 cores.
* ``speed``: ``shapley_values`` on a weighted-majority game (weights ~ U[0, 1], quota half their
  sum): exact for 15 players, vectorised and with a per-coalition Python callable; permutation
  sampling for 30 players with 102 permutations (51 antithetic pairs, the ⌊30 ln 30⌋ of the
  paper's experiments, second-hand); exact against permutation (default 100 permutations) for 12
  players, the internal ratio. Medians of 5 runs. No package computes M^Shap; the peer for the
  Shapley values is ``shap`` (installed here): ``shap.explainers.Exact`` and
  ``shap.explainers.Permutation`` explain the game written as a model of 0/1 features with an
  all-zero background, so a masked input is a coalition; ``Permutation`` with
  ``max_evals = 51 (2n + 1)`` draws 51 forward-and-backward orders, as ours. shap's first call
  (``shap_cold_seconds``) includes its one-time set-up; its median is of later calls.
  ``ratio`` = peer time / fairkit time.

Everything runs single-threaded (BLAS) in the main process; the digits fits in 2 joblib workers.
A quick run (a smoke test) takes 6 agents, β = 0.5, 2 seeds on the power law; 6 digits agents
(2 per rotation), levels (0, .5, 1), 1 seed; 10 players exact, 1 repeat. Floats are rounded to
4 significant digits.

    python -m benchmarks run mshap [--quick]
"""

import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import RidgeClassifier
from threadpoolctl import threadpool_limits

from benchmarks._common import main, median_time
from fairkit.metrics import resampled_interval
from fairkit_mshap import (
    LearningAccuracy,
    NoPaymentMechanism,
    PowerLawAccuracy,
    ShapleyPaymentMechanism,
    best_response_dynamics,
    deviation_gains,
    shapley_values,
)

PACKAGES = ("fairkit", "fairkit-mshap", "numpy", "scipy", "scikit-learn", "joblib", "shap")
MECHANISMS = {"M0": NoPaymentMechanism, "MShap": ShapleyPaymentMechanism}
EQUILIBRIUM_TOL = 1e-6
ALPHA, COST_RANGE = 1.0, (1e-3, 1e-2)
DIGITS_COST_FACTORS, DIGITS_TEST_SHARE, DIGITS_MIN_ROWS, DIGITS_ROUNDS = (0.5, 2.0), 0.3, 60, 300
LEARNING_TARGET_S, EXACT_TARGET_S = 300.0, 1.0
N_JOBS = 2
PAPER = {"paper_data_gain_min": 3.89, "paper_data_gain_max": 31.18,  # second-hand, see the docstring
         "paper_accuracy_gain_min": 1.02, "paper_accuracy_gain_max": 1.36}
METRICS = ("total_data", "mean_accuracy", "welfare", "min_reciprocity")


def sizes(quick):
    """Agents, seeds and sizes of each section."""
    if quick:
        return dict(power_agents=6, betas=(0.5,), power_seeds=(0, 1), rotations=(0, 0, 1, 1, 2, 2),
                    levels=(0.0, 0.5, 1.0), digits_seeds=(0,), exact_players=10, repeats=1)
    return dict(power_agents=10, betas=(0.3, 0.5, 1.0), power_seeds=(0, 1, 2, 3, 4),
                rotations=(0, 0, 0, 0, 1, 1, 1, 2, 2, 2), levels=(0.0, 0.25, 0.5, 0.75, 1.0),
                digits_seeds=(0, 1, 2), exact_players=15, repeats=5)


def interval(values, name, test_fraction):
    """``name``, ``name_low``, ``name_high``: the mean over seeds and its 95 % interval."""
    estimate = resampled_interval(np.asarray(values, dtype=float), test_fraction=test_fraction)
    return {name: estimate.value, f"{name}_low": estimate.low, f"{name}_high": estimate.high}


def equilibrium_run(mechanism, costs, s0, seed, n_iter=1000):
    """Best-response dynamics from ``s0``, then the checks at the profile reached: one run's metrics."""
    start = time.perf_counter()
    result = best_response_dynamics(mechanism, costs, s0, n_iter=n_iter, random_state=seed)
    seconds = time.perf_counter() - start
    s = result.contributions
    summary = mechanism.summary(s, costs)
    gain = float(deviation_gains(mechanism, costs, s).max())
    return {"total_data": summary["total_contribution"], "mean_accuracy": summary["mean_accuracy"],
            "welfare": summary["welfare"], "min_reciprocity": summary["min_reciprocity"],
            "payment_sum": summary["payment_sum"], "max_deviation_gain": gain, "rounds": result.n_iter,
            "converged": result.converged, "seconds": seconds,
            "check_seconds": time.perf_counter() - start - seconds, "free_riders": int((s == 0).sum()),
            "max_contribution": float(s.max())}


def aggregate(runs, test_fraction):
    """One record per mechanism from its per-seed runs, and the paired M^Shap / M0 gains."""
    records = []
    for name in MECHANISMS:
        rows = [run[name] for run in runs]
        record = {"mechanism": name, "seeds": len(rows)}
        for metric in METRICS:
            record |= interval([row[metric] for row in rows], metric, test_fraction)
        record |= {"max_abs_payment_sum": max(abs(row["payment_sum"]) for row in rows),
                   "max_deviation_gain": max(row["max_deviation_gain"] for row in rows),
                   "equilibrium": all(row["max_deviation_gain"] <= EQUILIBRIUM_TOL for row in rows),
                   "converged": sum(row["converged"] for row in rows),
                   "rounds": float(np.mean([row["rounds"] for row in rows])),
                   "free_riders": float(np.mean([row["free_riders"] for row in rows])),
                   "seconds": float(np.mean([row["seconds"] for row in rows])),
                   "check_seconds": float(np.mean([row["check_seconds"] for row in rows]))}
        records.append(record)
    gains = interval([run["MShap"]["total_data"] / run["M0"]["total_data"] for run in runs], "data_gain",
                     test_fraction)
    gains |= interval([run["MShap"]["mean_accuracy"] / run["M0"]["mean_accuracy"] for run in runs],
                      "accuracy_gain", test_fraction)
    gains |= interval([run["MShap"]["welfare"] - run["M0"]["welfare"] for run in runs], "welfare_difference",
                      test_fraction)
    return records, gains


# ----------------------------------------------------------------------------- power law
def closed_form_m0(beta, costs):
    """M0's equilibrium total under the power law with linear costs: only the cheapest agent contributes."""
    return max(0.0, (ALPHA * beta / costs.min()) ** (1 / (beta + 1)) - 1)


def power_law(quick):
    """M0 against M^Shap on the analytic model, per β."""
    config = sizes(quick)
    n_agents, records, gain_records = config["power_agents"], [], []
    for beta in config["betas"]:
        accuracy = PowerLawAccuracy(alpha=ALPHA, beta=beta)
        runs, errors = [], []
        for seed in config["power_seeds"]:
            costs = np.random.default_rng(seed).uniform(*COST_RANGE, size=n_agents)
            run = {name: equilibrium_run(mechanism(accuracy), costs, np.ones(n_agents), seed)
                   for name, mechanism in MECHANISMS.items()}
            closed = closed_form_m0(beta, costs)
            errors.append(abs(run["M0"]["total_data"] - closed) / closed)
            runs.append(run)
            print(f"power law beta={beta} seed={seed}: S0={closed:.4g}, "
                  + "; ".join(f"{name} {row}" for name, row in run.items()), flush=True)
        mechanism_records, gains = aggregate(runs, test_fraction=0.0)
        for record in mechanism_records:
            largest = max(run[record["mechanism"]]["max_contribution"] for run in runs)
            records.append({"beta": beta, "n_agents": n_agents, **record, "largest_contribution": largest})
        gain_records.append({"beta": beta, "n_agents": n_agents, "seeds": len(runs), **gains,
                             "S0": float(np.mean([closed_form_m0(beta, np.random.default_rng(seed).uniform(
                                 *COST_RANGE, size=n_agents)) for seed in config["power_seeds"]])),
                             "S0_rel_error": max(errors), **PAPER})
    return records, gain_records


# ----------------------------------------------------------------------------- digits
def digits_agents(seed, rotations):
    """Digits split into non-IID agents: partitions, test rows, test row owners, agent sizes."""
    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(seed)
    n_agents = len(rotations)
    order = rng.permutation(len(y))
    shares = rng.dirichlet(np.full(n_agents, 2.0))
    counts = DIGITS_MIN_ROWS + np.floor(shares * (len(y) - DIGITS_MIN_ROWS * n_agents)).astype(int)
    ends = np.cumsum(counts)
    partitions, X_test, y_test, test_agents = [], [], [], []
    for agent, (rows, quarter_turns) in enumerate(zip(np.split(order, ends[:-1]), rotations, strict=True)):
        rows = rows[:counts[agent]]
        images = np.rot90(X[rows].reshape(-1, 8, 8), k=quarter_turns, axes=(1, 2)).reshape(len(rows), -1)
        n_train = int(round((1 - DIGITS_TEST_SHARE) * len(rows)))
        partitions.append((images[:n_train], y[rows[:n_train]]))
        X_test.append(images[n_train:])
        y_test.append(y[rows[n_train:]])
        test_agents.append(np.full(len(rows) - n_train, agent))
    return partitions, np.concatenate(X_test), np.concatenate(y_test), np.concatenate(test_agents), counts


def own_gain(accuracy):
    """Median over agents of a_i(everyone contributes) − a_i(all but i do): her own data's worth to her."""
    n_agents = accuracy.n_agents
    profiles = np.vstack([np.ones(n_agents), 1.0 - np.eye(n_agents)])
    values = accuracy(profiles)
    return float(np.median(values[0] - np.diag(values[1:])))


def digits(quick):
    """M0 against M^Shap on digits with a retrained ridge classifier."""
    config = sizes(quick)
    runs, seed_records, start = [], [], time.perf_counter()
    for seed in config["digits_seeds"]:
        seed_start = time.perf_counter()
        partitions, X_test, y_test, test_agents, counts = digits_agents(seed, config["rotations"])
        n_agents = len(partitions)
        accuracy = LearningAccuracy(RidgeClassifier(), partitions, X_test, y_test, test_agents=test_agents,
                                    levels=config["levels"], n_jobs=N_JOBS, random_state=seed)
        gain = own_gain(accuracy)
        costs = gain * np.random.default_rng(1000 + seed).uniform(*DIGITS_COST_FACTORS, size=n_agents)
        run = {}
        for name, mechanism in MECHANISMS.items():
            fits = accuracy.n_fits_
            run[name] = equilibrium_run(mechanism(accuracy), costs, np.ones(n_agents), seed,
                                        n_iter=DIGITS_ROUNDS)
            run[name]["n_fits"] = accuracy.n_fits_ - fits
        runs.append(run)
        seed_records.append({"seed": seed, "n_agents": n_agents, "smallest_agent": int(counts.min()),
                             "largest_agent": int(counts.max()), "own_gain": gain,
                             "cost_min": float(costs.min()), "cost_max": float(costs.max()),
                             **{f"{name}.{key}": run[name][key] for name in MECHANISMS
                                for key in ("total_data", "mean_accuracy", "free_riders", "converged",
                                            "n_fits", "seconds")},
                             "seconds": time.perf_counter() - seed_start})
        print(f"digits seed={seed}: {seed_records[-1]}", flush=True)
    learning_seconds = time.perf_counter() - start
    records, gains = aggregate(runs, test_fraction=DIGITS_TEST_SHARE / (1 - DIGITS_TEST_SHARE))
    for record in records:
        record["n_fits"] = float(np.mean([run[record["mechanism"]]["n_fits"] for run in runs]))
    summary = {"levels": len(config["levels"]), "n_jobs": N_JOBS, "learning_seconds": learning_seconds,
               "target_s": LEARNING_TARGET_S, "within_target": bool(learning_seconds < LEARNING_TARGET_S),
               **gains}
    return records, summary, seed_records


# ----------------------------------------------------------------------------- speed
def weighted_majority(n_players, seed=0):
    """A vectorised weighted-majority game: a coalition wins (1) when its weight reaches half the total."""
    weights = np.random.default_rng(seed).uniform(0.0, 1.0, n_players)
    return lambda masks: (np.asarray(masks, dtype=float) @ weights >= weights.sum() / 2).astype(float)


def shap_explainer(kind, game, n_players):
    """``shap.explainers.Exact`` or ``Permutation`` of ``game`` as a model of 0/1 features, background 0."""
    import shap

    masker = shap.maskers.Independent(np.zeros((1, n_players)), max_samples=1)
    return getattr(shap.explainers, kind)(lambda X: game(X != 0), masker)


def speed(quick):
    """Exact and permutation Shapley values against shap, and exact against permutation."""
    config = sizes(quick)
    repeats, records = config["repeats"], []
    n = config["exact_players"]
    game = weighted_majority(n)
    ours, exact = median_time(lambda: shapley_values(game, n, method="exact", vectorized=True), repeats)
    explainer = shap_explainer("Exact", game, n)
    cold, _ = median_time(lambda: explainer(np.ones((1, n))), 1)
    theirs, explanation = median_time(lambda: explainer(np.ones((1, n))), repeats)
    records.append({"case": "exact, vectorised game", "n_players": n, "evaluations": exact.n_evaluations,
                    "seconds": ours, "target_s": EXACT_TARGET_S, "within_target": bool(ours < EXACT_TARGET_S),
                    "shap_seconds": theirs, "shap_cold_seconds": cold, "ratio": theirs / ours,
                    "max_abs_difference": float(np.abs(explanation.values[0] - exact.values).max())})
    single = lambda mask: float(game(mask[None])[0])  # noqa: E731
    seconds, result = median_time(lambda: shapley_values(single, n, method="exact"), repeats)
    records.append({"case": "exact, per-coalition callable", "n_players": n,
                    "evaluations": result.n_evaluations, "seconds": seconds, "target_s": EXACT_TARGET_S,
                    "within_target": bool(seconds < EXACT_TARGET_S),
                    "max_abs_difference": float(np.abs(result.values - exact.values).max())})
    n, pairs = 30, 51
    game = weighted_majority(n)
    ours, sampled = median_time(lambda: shapley_values(game, n, method="permutation",
                                                       n_permutations=2 * pairs, vectorized=True,
                                                       random_state=0), repeats)
    explainer = shap_explainer("Permutation", game, n)
    explain = lambda: explainer(np.ones((1, n)), max_evals=pairs * (2 * n + 1))  # noqa: E731
    cold, _ = median_time(explain, 1)
    theirs, explanation = median_time(explain, repeats)
    records.append({"case": "permutation, vectorised game", "n_players": n, "permutations": 2 * pairs,
                    "evaluations": sampled.n_evaluations, "seconds": ours, "shap_seconds": theirs,
                    "shap_cold_seconds": cold, "ratio": theirs / ours,
                    "max_abs_difference": float(np.abs(explanation.values[0] - sampled.values).max()),
                    "max_std_error": float(sampled.std_error.max())})
    n = 12
    game = weighted_majority(n)
    exact_seconds, exact = median_time(lambda: shapley_values(game, n, method="exact", vectorized=True),
                                       repeats)
    sampled_seconds, sampled = median_time(lambda: shapley_values(game, n, method="permutation",
                                                                  vectorized=True, random_state=0), repeats)
    records.append({"case": "exact vs permutation", "n_players": n, "permutations": sampled.n_permutations,
                    "evaluations": exact.n_evaluations, "seconds": exact_seconds,
                    "permutation_seconds": sampled_seconds, "permutation_evaluations": sampled.n_evaluations,
                    "exact_over_permutation": exact_seconds / sampled_seconds,
                    "max_abs_difference": float(np.abs(sampled.values - exact.values).max()),
                    "max_std_error": float(sampled.std_error.max())})
    for record in records:
        print(f"speed: {record}", flush=True)
    return records


# ----------------------------------------------------------------------------- run
def run(quick=False):
    """Every section; returns its named tables."""
    start = time.perf_counter()
    results = {"quick": quick, "alpha": ALPHA, "equilibrium_tol": EQUILIBRIUM_TOL}
    with threadpool_limits(1):
        results["speed"] = speed(quick)
        results["power_law"], results["power_law_gains"] = power_law(quick)
        results["digits"], results["digits_summary"], results["digits_seeds"] = digits(quick)
    print(f"bench_mshap: {time.perf_counter() - start:.0f} s", flush=True)
    return results


if __name__ == "__main__":
    main("mshap", run, PACKAGES)
