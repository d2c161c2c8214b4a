"""fairkit-robust measured: the paper's experiment (fairness under attack), and the cost of the attacks.

"On the Alignment between Fairness and Accuracy: from the Perspective of Adversarial
Robustness" (ICML 2025, OpenReview ckcXwR8cQS; an earlier version: J. Chai and X. Wang,
arXiv:2304.00061) claims that a model that looks fair loses its fairness under a small
perturbation of its inputs, that robustness to the accuracy attack helps against the
fairness attack, and that adversarial training on both terms gives a model robust in both.

**The experiment** (``models``, ``curves``, ``claim_a``, ``claim_b``, ``claim_c``,
``verdicts``). Data sets (the sensitive attribute is not a feature; rows with missing
values dropped; numbers standardised on the training part, categories one-hot):

* ``adult_race``: Adult (``fetch_adult``), White and Black people only, group Black, as the
  paper's code (its ``adult_reconstruction`` differs slightly from fairkit's Adult); the
  paper's code's features: ``fnlwgt`` and ``education-num`` (which repeats ``education``)
  dropped, age, capital gain, capital loss and hours per week standardised, ``sex`` kept as
  a one-hot feature;
* ``adult_sex``: every Adult row, group Female, the same features with ``race`` one-hot
  instead of ``sex`` (the notion of fairness most studies of Adult use);
* ``compas``: COMPAS (``fetch_compas``), Caucasian and African-American defendants, group
  African-American; age and the four counts standardised; sex, age category and charge
  degree one-hot.

Per data set, 5 random 75/25 splits (the paper's code's ``train_test_split``), the same
for every model. Models, all ``FairAdversarialClassifier`` with one hidden layer of 64
ReLU units (the paper's code: 512, 512), Adam at 1e-3, batch 256, 20 epochs on Adult and
60 on COMPAS (the paper's code: SGD, 100 and 60), a training attack of 10 PGD steps on the
cross-entropy (the paper's code: 40), the one-hot columns never perturbed, bounds from the
training data: ``ERM`` (``lambda_fair=0, eps=0``: a plain MLP), ``fair`` (``lambda_fair=λ,
eps=0``: fairness-regularised, no adversary), ``adv_acc`` (``lambda_fair=0, eps=ε_train``:
adversarial training on accuracy alone) and ``unified`` (``lambda_fair=λ, eps=ε_train``,
the paper's training). λ and ε_train are the paper's code's on Adult (0.4 and 0.1); on
COMPAS its ε_train = 0.05 with λ = 1, because its λ ≈ 0.15 leaves the gap of this training
where ERM's is (a fair model needs λ ≈ 1 here).

Each model's test part is attacked at ε ∈ {0, 0.01, 0.02, 0.05, 0.1, 0.2} (L∞, in standard
deviations of the standardised features, only those moved; per-feature bounds: the
training part's minimum and maximum, widened to hold the test part) by ``AccuracyAttack``
and ``FairnessAttack`` (equalized odds; 40 steps of ``2.5 ε / 40``, random start, the best
point kept, as the attacks' defaults), and by random noise of the same size with the same
mask and bounds: ``uniform_noise`` (each moved feature shifted by U(-ε, ε)) and
``sign_noise`` (by ±ε, a corner of the ball, as far as the attacks' sign steps go).
For ``ERM`` and ``fair`` only, the forks' attacks as well, which move the one-hot columns
too (within [0, 1], their data bounds): ``accuracy_all_features``,
``fairness_all_features``, to show how much of the forks' effect comes from them.
Measures on the hard predictions: accuracy; ``eod``, fairkit's
``equalized_odds_difference`` (the larger of |ΔTPR| and |ΔFPR|) with its exact 95 %
simultaneous interval (``eod_ci_low``, ``eod_ci_high``: means over splits of each split's
ends); ``eod_sum``, the paper's code's EOd = 100 (|ΔTPR| + |ΔTNR|), in 0-200, to compare
with the forks' numbers (Adult ERM: accuracy ≈ 0.84, EOd ≈ 25). ``curves`` gives the
mean over splits of each with its 95 % t interval (``_low``, ``_high``).

The claims, each per (data set, ε, gap measure), the differences paired over splits with
their 95 % t intervals:

* (a) ``claim_a``: for ``fair``, the rise of the gap (attacked − clean) under the fairness
  attack against its rise under each noise; ``holds`` when both paired differences are
  above 0 (interval) and the attack's rise is at least ``FAR`` = 2 times the larger
  noise's (``weaker`` when above 0 but less than twice, ``no`` otherwise); ``times_noise``
  is the attack's rise over the larger noise's (none when noise does not raise the gap);
* (b) ``claim_b``: the gap of ``adv_acc`` under the fairness attack minus ERM's (and the
  same for their rises); ``holds`` when the interval is below 0, ``contradicted`` when above,
  ``noise`` otherwise;
* (c) ``claim_c``: ``unified`` against the best of the other three models: accuracy under
  the accuracy attack, gap under the fairness attack; per measure ``best`` (the best mean,
  the interval to the runner-up excludes 0), ``best_ns`` (the best mean, not significant),
  ``tied`` (not the best mean, but not significantly worse than the best), ``worse``;
  ``holds`` when both are the best mean, ``not_worse`` when neither is ``worse``, ``no``
  otherwise.

``verdicts`` counts, per claim, data set and gap measure, the ε > 0 at which it holds.

**Speed** (``attack_speed``, ``epoch_cost``). One 40-step attack on 10,000 Adult rows
(``adult_race``, standardised), the median of 5 repeats, for the MLP above (trained), the
paper's network (512, 512) and a ``LogisticRegression`` (closed-form gradient), against
the issue's target of 2 s on 2 cores (the attacks run on one thread). The adversarial
training epoch (``attack_steps`` = 10 and 40) against a clean one (the same estimator
with ``eps=0``), both from skorch's per-epoch ``dur`` (median over the epochs after the
first, over repeats, the fits interleaved), on the training part of a split of
``adult_race`` at batch 256: the ratio against the issue's bound ``attack_steps + 2``.

The (data set, split) evaluations run in two single-threaded processes, after the speed
section, which runs alone. A quick run (a smoke test) takes 2 splits of 3,000 random
``adult_race`` rows and of COMPAS, 3 and 10 epochs, and 2,000 rows for the speed section.

    python -m benchmarks run robust [--quick]
"""

import statistics
import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import stats
from sklearn.linear_model import LogisticRegression

from benchmarks._common import main, median_time
from fairkit.datasets import fetch_adult, fetch_compas
from fairkit.metrics import equalized_odds_difference
from fairkit_robust._attacks import AccuracyAttack, FairnessAttack
from fairkit_robust._training import FairAdversarialClassifier

PACKAGES = ("fairkit", "fairkit-robust", "torch", "skorch", "numpy", "scipy", "scikit-learn")
EPS_GRID = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)
ATTACKS = ("accuracy", "fairness", "uniform_noise", "sign_noise")
#: the forks' attacks, which move the one-hot columns too (within [0, 1]): on ERM and fair only
ALL_FEATURE_ATTACKS = ("accuracy_all_features", "fairness_all_features")
ALL_FEATURE_MODELS = ("ERM", "fair")
NOISES = ("uniform_noise", "sign_noise")
GAPS = ("eod", "eod_sum")
LEVEL = 0.95
FAR = 2.0  # claim (a): the attack's rise at least this many times the noise's
TEST_SIZE = 0.25
N_SEEDS, QUICK_SEEDS = 5, 2
QUICK_ROWS = 3000
HIDDEN = (64,)
TRAINING = dict(batch_size=256, lr=1e-3, attack="accuracy", attack_steps=10)
#: per data set: λ, ε_train, epochs (full run, quick run)
SETTINGS = {"adult_race": (0.4, 0.1, 20, 3), "adult_sex": (0.4, 0.1, 20, 3), "compas": (1.0, 0.05, 60, 10)}
QUICK_DATA = ("adult_race", "compas")
MODELS = ("ERM", "fair", "adv_acc", "unified")
ATTACK_TARGET_S = 2.0  # the bound on one 40-step attack of 10,000 Adult rows
SPEED_ROWS, QUICK_SPEED_ROWS = 10_000, 2_000


# ----------------------------------------------------------------------------- data
def load(name, n_rows=None):
    """One data set: (features, y, groups, numeric columns); ``n_rows`` random rows of it (a quick run).

    ``features`` is a DataFrame without the sensitive attribute, ``y`` the 0/1 labels and
    ``groups`` 1 for the protected group (Black, Female, African-American), 0 for the other.
    """
    if name in ("adult_race", "adult_sex"):
        bunch = fetch_adult(as_frame=True)
        frame = bunch.data.assign(label=bunch.target.to_numpy()).dropna()
        if name == "adult_race":
            frame = frame[frame["race"].isin(["White", "Black"])]
            groups, sensitive = frame["race"] == "Black", "race"
        else:
            groups, sensitive = frame["sex"] == "Female", "sex"
        features = frame.drop(columns=[sensitive, "label", "fnlwgt", "education-num"])
    elif name == "compas":
        bunch = fetch_compas(as_frame=True)
        frame = bunch.data.assign(label=bunch.target.to_numpy())
        frame = frame[frame["race"].isin(["Caucasian", "African-American"])]
        groups, features = frame["race"] == "African-American", frame.drop(columns=["race", "label"])
    else:
        raise ValueError(f"unknown data set {name!r}; expected one of {sorted(SETTINGS)}")
    y, groups = frame["label"].to_numpy().astype(int), groups.to_numpy().astype(int)
    features = features.reset_index(drop=True)
    if n_rows is not None:
        rows = np.random.default_rng(0).choice(len(y), n_rows, replace=False)
        features, y, groups = features.iloc[rows].reset_index(drop=True), y[rows], groups[rows]
    numeric = [column for column in features.columns if pd.api.types.is_numeric_dtype(features[column])]
    return features, y, groups, numeric


def encode(features, numeric):
    """The numeric columns first, then every category one-hot (0/1); the mask of the numeric columns."""
    categorical = [column for column in features.columns if column not in numeric]
    one_hot = pd.get_dummies(features[categorical].astype(str), dtype=float)
    X = np.hstack([features[numeric].to_numpy(dtype=float), one_hot.to_numpy()])
    mask = np.zeros(X.shape[1], dtype=bool)
    mask[:len(numeric)] = True
    return X, mask


def split(X, y, groups, mask, seed, test_size=TEST_SIZE):
    """A random split; the ``mask`` columns standardised with the training part's mean and deviation.

    Returns a dict of ``X_train``, ``X_test``, ``y_train``, ``y_test``, ``a_train``,
    ``a_test`` and ``bounds`` (per feature: the training part's minimum and maximum,
    widened to hold the test part, so that the attacks accept its rows).
    """
    order = np.random.default_rng(seed).permutation(len(y))
    test, train = np.split(order, [int(round(test_size * len(y)))])
    X = X.copy()
    shift, scale = X[train][:, mask].mean(axis=0), X[train][:, mask].std(axis=0)
    X[:, mask] = (X[:, mask] - shift) / np.where(scale > 0, scale, 1.0)
    lower = np.minimum(X[train].min(axis=0), X[test].min(axis=0))
    upper = np.maximum(X[train].max(axis=0), X[test].max(axis=0))
    return {"X_train": X[train], "X_test": X[test], "y_train": y[train], "y_test": y[test],
            "a_train": groups[train], "a_test": groups[test], "bounds": (lower, upper)}


def noise(X, eps, mask, bounds, kind, rng):
    """``X`` with random noise of L∞ size ``eps`` on the ``mask`` columns, then clipped into ``bounds``.

    ``kind`` ``"uniform_noise"``: each moved feature shifted by U(-eps, eps);
    ``"sign_noise"``: by +eps or -eps with equal probability (a corner of the ball).
    """
    draw = rng.uniform(-1.0, 1.0, size=X.shape)
    if kind == "sign_noise":
        draw = np.where(draw < 0, -1.0, 1.0)
    elif kind != "uniform_noise":
        raise ValueError(f"unknown noise {kind!r}; expected one of {NOISES}")
    return np.clip(X + eps * draw * mask, *bounds)


# ----------------------------------------------------------------------------- measures
def eod_sum(y_true, y_pred, groups):
    """The paper's code's EOd: 100 (|ΔTPR| + |ΔTNR|) between two groups, in 0-200."""
    return 200 * equalized_odds_difference(y_true, y_pred, sensitive_features=groups, agg="mean")


def measures(y_true, y_pred, groups):
    """Accuracy, fairkit's equalized-odds gap with its 95 % interval, and the paper's code's EOd."""
    eod = equalized_odds_difference(y_true, y_pred, sensitive_features=groups, ci=LEVEL)
    return {"accuracy": float(np.mean(y_true == y_pred)), "eod": eod.value, "eod_ci_low": eod.low,
            "eod_ci_high": eod.high, "eod_sum": eod_sum(y_true, y_pred, groups)}


def mean_interval(values, level=LEVEL):
    """Mean of ``values`` and its t interval; (mean, None, None) for a single value."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return mean, None, None
    half = stats.t.ppf((1 + level) / 2, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return mean, float(mean - half), float(mean + half)


def paired(ours, theirs, level=LEVEL):
    """The mean of the paired differences ``ours - theirs`` and its t interval: (diff, low, high)."""
    return mean_interval(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float), level)


# ----------------------------------------------------------------------------- one split
def models(name, quick):
    """The four models of a data set, unfitted."""
    lambda_fair, eps_train, epochs, quick_epochs = SETTINGS[name]
    points = {"ERM": (0.0, 0.0), "fair": (lambda_fair, 0.0), "adv_acc": (0.0, eps_train),
              "unified": (lambda_fair, eps_train)}
    return {model: FairAdversarialClassifier(HIDDEN, lambda_fair=lam, eps=eps,
                                             max_epochs=quick_epochs if quick else epochs, **TRAINING)
            for model, (lam, eps) in points.items()}


def attacked(model, kind, eps, part, mask, seed):
    """The test part attacked by ``kind`` at ``eps``."""
    X, y, a = part["X_test"], part["y_test"], part["a_test"]
    if eps == 0:
        return X
    if kind in NOISES:
        return noise(X, eps, mask, part["bounds"], kind, np.random.default_rng(seed))
    attack = AccuracyAttack if kind.startswith("accuracy") else FairnessAttack
    moved = None if kind.endswith("_all_features") else mask
    attacker = attack(eps=eps, feature_mask=moved, bounds=part["bounds"], random_state=seed)
    return attacker.perturb(model, X, y, a)


def evaluate_split(name, seed, quick):
    """Fit the four models on one split and measure them under every attack; (curve rows, fit rows)."""
    import torch

    torch.set_num_threads(1)
    features, y, groups, numeric = load(name, QUICK_ROWS if quick and name != "compas" else None)
    X, mask = encode(features, numeric)
    part = split(X, y, groups, mask, seed)
    rows, fits = [], []
    warm_up = FairAdversarialClassifier((4,), max_epochs=1, eps=0.0, random_state=0)
    warm_up.fit(part["X_train"][:64], part["y_train"][:64], sensitive_features=part["a_train"][:64])
    for model_name, model in models(name, quick).items():
        model.set_params(feature_mask=mask, random_state=seed)
        start = time.perf_counter()
        model.fit(part["X_train"], part["y_train"], sensitive_features=part["a_train"])
        fits.append({"data": name, "seed": seed, "model": model_name, "fit_s": time.perf_counter() - start})
        for kind in ATTACKS + (ALL_FEATURE_ATTACKS if model_name in ALL_FEATURE_MODELS else ()):
            for eps in EPS_GRID:
                X_adv = attacked(model, kind, eps, part, mask, seed)
                rows.append({"data": name, "seed": seed, "model": model_name, "attack": kind, "eps": eps,
                             **measures(part["y_test"], model.predict(X_adv), part["a_test"])})
    print(f"{name} split {seed}: done", flush=True)
    return rows, fits


# ----------------------------------------------------------------------------- tables
def curves(frame):
    """Per (data, model, attack, ε): the means over splits with their t intervals."""
    records = []
    for (data, model, kind, eps), group in frame.groupby(["data", "model", "attack", "eps"], sort=False):
        record = {"data": data, "model": model, "attack": kind, "eps": eps, "splits": len(group)}
        for column in ("accuracy", "eod"):
            record |= dict(zip((column, f"{column}_low", f"{column}_high"), mean_interval(group[column]),
                               strict=True))
        record |= {"eod_ci_low": group["eod_ci_low"].mean(), "eod_ci_high": group["eod_ci_high"].mean()}
        record |= dict(zip(("eod_sum", "eod_sum_low", "eod_sum_high"), mean_interval(group["eod_sum"]),
                           strict=True))
        records.append(record)
    return records


def _values(frame, data, model, kind, eps, column):
    """One measure per split (ordered by seed) for (data, model, attack, ε)."""
    rows = frame[(frame["data"] == data) & (frame["model"] == model) & (frame["attack"] == kind)
                 & np.isclose(frame["eps"], eps)]
    return rows.sort_values("seed")[column].to_numpy()


def _interval(prefix, diff_low_high):
    return dict(zip((prefix, f"{prefix}_low", f"{prefix}_high"), diff_low_high, strict=True))


def _significance(low, high):
    """+1 when an interval lies above 0, -1 below, 0 when it holds 0 (or is undefined)."""
    if low is None or high is None:
        return 0
    return 1 if low > 0 else -1 if high < 0 else 0


def claim_a_verdict(attack_rise, noise_rises, significances):
    """Claim (a) at one point: ``holds``, ``weaker`` or ``no`` (see the module docstring)."""
    if not all(sign > 0 for sign in significances):
        return "no"
    return "holds" if attack_rise >= FAR * max(max(noise_rises), 0.0) else "weaker"


def claim_a(frame, data, eps, gap):
    """Claim (a) for ``fair``: the gap's rise under the fairness attack against its rise under noise."""
    clean = _values(frame, data, "fair", "fairness", 0.0, gap)
    attack = _values(frame, data, "fair", "fairness", eps, gap)
    record = {"data": data, "eps": eps, "gap": gap, "clean": clean.mean(),
              "attack_rise": (attack - clean).mean()}
    rises, signs = [], []
    for kind in NOISES:
        noisy = _values(frame, data, "fair", kind, eps, gap)
        rises.append((noisy - clean).mean())
        record[f"{kind}_rise"] = rises[-1]
        difference = paired(attack, noisy)
        record |= _interval(f"vs_{kind}", difference)
        signs.append(_significance(*difference[1:]))
    record["times_noise"] = record["attack_rise"] / max(rises) if max(rises) > 0 else None
    record["verdict"] = claim_a_verdict(record["attack_rise"], rises, signs)
    return record


def claim_b_verdict(low, high):
    """Claim (b) at one point, from the interval of adv_acc − ERM: ``holds``, ``contradicted``, ``noise``."""
    return {-1: "holds", 1: "contradicted", 0: "noise"}[_significance(low, high)]


def claim_b(frame, data, eps, gap):
    """Claim (b): the gap of ``adv_acc`` under the fairness attack against ERM's, and their rises."""
    erm, adv = (_values(frame, data, model, "fairness", eps, gap) for model in ("ERM", "adv_acc"))
    erm_clean, adv_clean = (_values(frame, data, model, "fairness", 0.0, gap) for model in ("ERM", "adv_acc"))
    difference = paired(adv, erm)
    return {"data": data, "eps": eps, "gap": gap, "ERM": erm.mean(), "adv_acc": adv.mean(),
            **_interval("diff", difference),
            **_interval("rise_diff", paired(adv - adv_clean, erm - erm_clean)),
            "verdict": claim_b_verdict(*difference[1:])}


def rank_verdict(ours, others, higher_is_better):
    """``best``, ``best_ns``, ``tied`` or ``worse``: ``ours`` (per split) against the best of ``others``.

    ``others`` maps each other model to its values per split; the best is the best mean.
    Returns (verdict, the best other model, the paired difference ours − best).
    """
    sign = 1 if higher_is_better else -1
    best = max(others, key=lambda model: sign * others[model].mean())
    difference = paired(ours, others[best])
    significance = sign * _significance(*difference[1:])
    if sign * (ours.mean() - others[best].mean()) >= 0:
        return ("best" if significance > 0 else "best_ns"), best, difference
    return ("worse" if significance < 0 else "tied"), best, difference


def claim_c_verdict(accuracy_verdict, gap_verdict):
    """Claim (c) at one point: ``holds`` (the best mean in both), ``not_worse`` (not significantly
    worse than the best in either), ``no``."""
    verdicts = (accuracy_verdict, gap_verdict)
    if "worse" in verdicts:
        return "no"
    return "holds" if set(verdicts) <= {"best", "best_ns"} else "not_worse"


def claim_c(frame, data, eps, gap):
    """Claim (c): ``unified`` against the best other model, in accuracy and in gap under attack."""
    record = {"data": data, "eps": eps, "gap": gap}
    for measure, kind, column, higher in (("accuracy", "accuracy", "accuracy", True),
                                          ("gap", "fairness", gap, False)):
        values = {model: _values(frame, data, model, kind, eps, column) for model in MODELS}
        ours = values.pop("unified")
        verdict, best, difference = rank_verdict(ours, values, higher)
        record |= {f"{measure}_unified": ours.mean(), f"{measure}_best_other": best,
                   f"{measure}_other": values[best].mean(), **_interval(f"{measure}_diff", difference),
                   f"{measure}_verdict": verdict}
    record["verdict"] = claim_c_verdict(record["accuracy_verdict"], record["gap_verdict"])
    return record


def claims(frame):
    """The claims' tables and the count of ε > 0 at which each holds."""
    tables = {"claim_a": [], "claim_b": [], "claim_c": []}
    for data in frame["data"].unique():
        for gap in GAPS:
            for eps in EPS_GRID:
                if eps > 0:
                    tables["claim_a"].append(claim_a(frame, data, eps, gap))
                tables["claim_b"].append(claim_b(frame, data, eps, gap))
                tables["claim_c"].append(claim_c(frame, data, eps, gap))
    counts = []
    for claim, rows in tables.items():
        for (data, gap), group in pd.DataFrame(rows).groupby(["data", "gap"], sort=False):
            attacked_rows = group[group["eps"] > 0]
            counts.append({"claim": claim[-1], "data": data, "gap": gap,
                           "holds_at": int((attacked_rows["verdict"] == "holds").sum()),
                           "of_eps": len(attacked_rows),
                           "verdicts": ", ".join(f"{eps:g}: {verdict}" for eps, verdict
                                                 in zip(attacked_rows["eps"], attacked_rows["verdict"],
                                                        strict=True))})
    return tables, counts


def model_table(fits, frame, quick):
    """Per (data, model): the settings, the fit time and the clean measures."""
    records = []
    for (data, model), group in pd.DataFrame(fits).groupby(["data", "model"], sort=False):
        lambda_fair, eps_train, epochs, quick_epochs = SETTINGS[data]
        clean = frame[(frame["data"] == data) & (frame["model"] == model) & (frame["eps"] == 0)
                      & (frame["attack"] == "accuracy")]
        records.append({"data": data, "model": model,
                        "lambda_fair": lambda_fair if model in ("fair", "unified") else 0.0,
                        "eps_train": eps_train if model in ("adv_acc", "unified") else 0.0,
                        "epochs": quick_epochs if quick else epochs, "splits": len(group),
                        "fit_s": group["fit_s"].mean(), "clean_accuracy": clean["accuracy"].mean(),
                        "clean_eod": clean["eod"].mean(), "clean_eod_sum": clean["eod_sum"].mean()})
    return records


def data_table(names, quick):
    """Per data set: rows, share of the protected group, features and moved features."""
    records = []
    for name in names:
        features, y, groups, numeric = load(name, QUICK_ROWS if quick and name != "compas" else None)
        X, mask = encode(features, numeric)
        records.append({"data": name, "rows": len(y), "protected_share": groups.mean(),
                        "positive_share": y.mean(), "features": X.shape[1],
                        "moved_features": int(mask.sum())})
    return records


# ----------------------------------------------------------------------------- speed
def _speed_data(n_rows):
    """``n_rows`` of adult_race, standardised, the mask and bounds; and the training part of a split."""
    features, y, groups, numeric = load("adult_race")
    X, mask = encode(features, numeric)
    part = split(X, y, groups, mask, seed=0)
    rows = np.random.default_rng(0).choice(len(part["y_test"]) + len(part["y_train"]), n_rows, replace=False)
    X_all = np.vstack([part["X_test"], part["X_train"]])
    y_all, a_all = np.concatenate([part["y_test"], part["y_train"]]), np.concatenate([part["a_test"],
                                                                                      part["a_train"]])
    return X_all[rows], y_all[rows], a_all[rows], mask, part


def attack_speed(quick):
    """Seconds of one 40-step attack on ``SPEED_ROWS`` Adult rows, per model and attack."""
    n_rows, repeats = (QUICK_SPEED_ROWS, 2) if quick else (SPEED_ROWS, 5)
    X, y, a, mask, part = _speed_data(n_rows)
    bounds = (X.min(axis=0), X.max(axis=0))
    trained = {f"MLP {hidden}": FairAdversarialClassifier(hidden, lambda_fair=0.0, eps=0.0,
                                                          max_epochs=1 if quick else epochs, batch_size=256,
                                                          random_state=0)
               for hidden, epochs in ((HIDDEN, 20), ((512, 512), 3))}
    trained["LogisticRegression"] = LogisticRegression(max_iter=2000)
    records = []
    for model_name, model in trained.items():
        model.fit(part["X_train"], part["y_train"], **({} if "Logistic" in model_name
                                                         else {"sensitive_features": part["a_train"]}))
        for kind, attack in (("fairness", FairnessAttack), ("accuracy", AccuracyAttack)):
            attacker = attack(eps=0.1, n_iter=40, feature_mask=mask, bounds=bounds, random_state=0)
            attacker.perturb(model, X[:100], y[:100], a[:100])  # warm-up: lazy imports
            seconds, _ = median_time(lambda attacker=attacker, model=model: attacker.perturb(model, X, y, a),
                                     repeats)
            records.append({"model": model_name, "attack": kind, "rows": n_rows, "n_iter": 40,
                            "seconds": seconds, "target_s": ATTACK_TARGET_S,
                            "within_target": bool(seconds < ATTACK_TARGET_S)})
            print(f"attack speed: {records[-1]}", flush=True)
    return records


def _epoch_seconds(model, X, y, a):
    """skorch's per-epoch ``dur`` of one fit, the first epoch left out."""
    model.fit(X, y, sensitive_features=a)
    return [epoch["dur"] for epoch in model.history_[1:]]


def epoch_cost(quick):
    """The adversarial training epoch against a clean one (``eps=0``), from the same run."""
    _, _, _, mask, part = _speed_data(QUICK_SPEED_ROWS if quick else SPEED_ROWS)
    X, y, a = part["X_train"], part["y_train"], part["a_train"]
    if quick:
        X, y, a = X[:QUICK_SPEED_ROWS], y[:QUICK_SPEED_ROWS], a[:QUICK_SPEED_ROWS]
    steps, epochs, repeats = ((10,), 2, 1) if quick else ((10, 40), 3, 3)
    common = dict(lambda_fair=0.4, feature_mask=mask, max_epochs=epochs, random_state=0, **TRAINING)
    fits = {"clean": FairAdversarialClassifier(HIDDEN, eps=0.0, **common)}
    fits |= {n: FairAdversarialClassifier(HIDDEN, eps=0.1, **{**common, "attack_steps": n}) for n in steps}
    durations = {name: [] for name in fits}
    for _ in range(repeats):  # interleaved, so that a slow spell of the machine hits them all
        for name, model in fits.items():
            durations[name] += _epoch_seconds(model, X, y, a)
    clean = statistics.median(durations["clean"])
    records = []
    for n in steps:
        adversarial = statistics.median(durations[n])
        records.append({"training": f"{n}-step PGD", "rows": len(y), "batch_size": TRAINING["batch_size"],
                        "attack_steps": n,
                        "clean_epoch_s": clean, "adversarial_epoch_s": adversarial,
                        "adversarial_over_clean_ratio": adversarial / clean, "bound": n + 2,
                        "within_bound": bool(adversarial / clean <= n + 2)})
        print(f"epoch cost: {records[-1]}", flush=True)
    return records


# ----------------------------------------------------------------------------- run
def run(quick=False, n_jobs=2):
    """Every section of the benchmark; returns its named tables."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        speed, cost = attack_speed(quick), epoch_cost(quick)
    finally:
        torch.set_num_threads(threads)
    names = QUICK_DATA if quick else tuple(SETTINGS)
    seeds = range(QUICK_SEEDS if quick else N_SEEDS)
    tasks = [(name, seed) for name in names for seed in seeds]  # Adult first: the longest tasks
    parts = Parallel(n_jobs=n_jobs)(delayed(evaluate_split)(name, seed, quick) for name, seed in tasks)
    frame = pd.DataFrame([row for rows, _ in parts for row in rows])
    fits = [fit for _, part_fits in parts for fit in part_fits]
    tables, counts = claims(frame)
    return {"quick": quick, "splits": len(seeds), "eps_grid": list(EPS_GRID), "far": FAR,
            "data": data_table(names, quick), "models": model_table(fits, frame, quick),
            "verdicts": counts, **tables,
            "curves": {name: [row for row in curves(frame) if row["data"] == name] for name in names},
            "attack_speed": speed, "epoch_cost": cost}


if __name__ == "__main__":
    main("robust", run, PACKAGES)
