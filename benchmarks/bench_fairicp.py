"""FairICP measured the paper's way, against ExponentiatedGradient, Fair Dummies and a constant.

Data (sensitive: race and sex on COMPAS, sex and race White / other on Adult), random
60/40 splits, every method on the same features (sensitive columns removed, categories
one-hot, numbers standardized on the training part):

* ``compas``: African-American and Caucasian defendants (5,278 rows, as in the paper),
  fairkit's loader's features;
* ``compas_ref``: the same rows with the reference repository's features
  (``yuhenglai/FairICP``, ``get_dataset.py``): log(age − min age + 1) standardized, the
  age category (3 values), priors in 3 bins (0, 1–3, more than 3) and the charge degree
  (2 values), one-hot, so that results can be put beside the paper's;
* ``adult``: rows without missing values (45,222).

Per split and method, the paper's measures first: the kernel partial correlation
ρ²(Ŷ, A | Y) of the predicted probabilities and the ICP test's p-value
(:func:`fairkit.metrics.equalized_odds_test`, 100 ICP copies); then the equalized-odds
deviation (DEO, summed over labels and intersectional groups) of the hard predictions
with its 95 % simultaneous interval (``ci=0.95``: exact per-group intervals, not a
bootstrap) and its noise floor (:func:`fairkit.metrics.fairness_floor`: DEO of an exactly
fair rule on the same groups and label counts); accuracy and fit time.

Splits: 10 on each COMPAS variant, 5 on Adult, 3 on Communities. Tables: per data set
and operating point, the means over splits (``curves``: ``deo_low`` and ``deo_high`` are
the means of each split's interval ends, ``deo_floor_q95`` the mean of its floor's 95 %
quantile, ``share_deo_above_floor`` the share of splits whose DEO an exactly fair rule
exceeds less than 5 % of the time); the paired comparison across splits of every
FairICP point against every peer point (``paired``: mean difference FairICP − peer and
its 95 % t-interval over the splits' paired differences; ``real`` when the interval
excludes 0, ``noise`` when it does not), and of each μ against the one before it
(``mu_steps``: where μ acts and where it breaks down). Each interval is per comparison,
so about 5 % of the differences that are in truth 0 are still called real; ``verdicts``
counts them.

* FairICP: ``FairICPClassifier`` over μ ∈ {0, 0.3, 0.5, 0.7, 0.9}, extended by 0.95,
  0.99 and 0.999, with the reference scripts' settings (COMPAS: batch 256, 180 epochs;
  Adult: batch 512, 20 epochs; learning rates 1e-3 / 1e-4); with
  ``adversary_weights="cells"`` and ``"sqrt_cells"`` at μ ∈ {0.9, 0.99}.
* Fair Dummies (Romano et al. 2020): the same learner with Ã drawn from the empirical
  law of A given Y instead of by ICP.
* ExponentiatedGradient(EqualizedOdds()) around LogisticRegression and around the same
  MLP (scikit-learn's MLPClassifier: 64 ReLU units, Adam, the same batch size, learning
  rate and epochs), over its ``eps``; the constant (majority) classifier.
* Communities and Crime regression (three continuous race attributes): MSE against KPC
  over μ, with the reference's settings (batch 32, learning rates 1e-4, 60 epochs).

Epoch selection: FairICP at μ = 0.9 on 10 COMPAS splits, without and with
``validation_fraction=0.2``, DEO on the training and the test rows, and the paired
difference (chosen epoch − last epoch) of each and of their gap.

The (data set, split) evaluations run in two single-threaded processes, so fit times
are comparable within a run; the per-split rows are written beside the results file
(``fairicp_splits.csv``). Cost: time and peak memory of fits at 2·10⁵ and 10⁶ synthetic
rows with three sensitive attributes (two categorical, one continuous), each in a fresh
process, split into the density fit, the ICP draws, the discriminator's passes and the
rest of the epochs, and the ratio of μ = 0.9 to μ = 0 (whole fit, and per epoch: the
limit as epochs grow; batch 512, 3 epochs, after a warm-up fit that does the lazy imports),
beside the ratio of their arithmetic (``arithmetic_ratio``: the discriminator of three
64-unit layers costs about eleven times the predictor per row, and a μ > 0 epoch runs it
four times per row);
the ICP sampler against the dense n×n matrix the reference builds.

A quick run (a smoke test) takes 2 COMPAS splits and 1 of each other, a twelfth of the
epochs (at least 3), 6,000 random Adult rows, fewer methods, 19 ICP copies, and costs at
2,000 and 5,000 rows.

    python -m benchmarks run fairicp [--quick]
"""

import functools
import multiprocessing
import time
import warnings

import numpy as np
import pandas as pd
from fairlearn.reductions import EqualizedOdds, ExponentiatedGradient
from joblib import Parallel, delayed
from scipy import stats
from scipy.special import expit
from sklearn.compose import ColumnTransformer
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._common import main, max_rss, results_dir
from fairkit.adversarial import FairICPClassifier, FairICPRegressor
from fairkit.datasets import load_adult, load_communities, load_compas, make_fair_classification
from fairkit.metrics import equalized_odds_deviation, equalized_odds_test, fairness_floor
from fairkit.utils._conditional_density import fit_log_likelihood
from fairkit.utils._icp import ICPSampler

MU_GRID = (0.0, 0.3, 0.5, 0.7, 0.9)
MU_EXTENSION = (0.95, 0.99, 0.999)  # FairICP only: the low-deviation end, and where μ breaks down
WEIGHTED_MUS = (0.9, 0.99)  # FairICP with adversary_weights="cells" and "sqrt_cells"
ADVERSARY_WEIGHTS = ("cells", "sqrt_cells")
SETTINGS = {  # the reference scripts' test-mode settings
    "compas": {"batch_size": 256, "max_epochs": 180, "lr": 1e-3, "lr_discriminator": 1e-4},
    "adult": {"batch_size": 512, "max_epochs": 20, "lr": 1e-3, "lr_discriminator": 1e-4},
    "communities": {"batch_size": 32, "max_epochs": 60, "lr": 1e-4, "lr_discriminator": 1e-4},
}
SETTINGS["compas_ref"] = SETTINGS["compas"]
N_SPLITS = {"compas": 10, "compas_ref": 10, "adult": 5, "communities": 3}
QUICK_SPLITS = {"compas": 2, "compas_ref": 1, "adult": 1, "communities": 1}
QUICK_ROWS = 6000  # a quick run's random subsample of Adult
N_PERMUTATIONS, QUICK_PERMUTATIONS = 100, 19  # ICP copies of the test (100 in the paper)
LEVEL = 0.95  # of every interval
COST_SIZES, QUICK_COST_SIZES = (200_000, 1_000_000), (2_000, 5_000)
COST_MUS = (0.0, 0.9)


# ----------------------------------------------------------------------------- data
def _compas():
    bunch = load_compas(as_frame=True)
    keep = bunch.sensitive["race"].isin(["African-American", "Caucasian"]).to_numpy()
    sensitive = bunch.sensitive[keep].reset_index(drop=True).astype(str)
    features = bunch.data[keep].drop(columns=["race", "sex"]).reset_index(drop=True)
    return features, bunch.target[keep].to_numpy(), sensitive


def compas_reference_features(features):
    """The reference repository's COMPAS features from fairkit's COMPAS columns.

    ``log_age`` = log(age − min age + 1) (the minimum over all rows, as the reference
    takes it; standardized later on the training part), and as categories: ``age_cat``
    (3 values), ``priors`` (``priors_count`` in the bins 0, 1–3 and more than 3) and
    ``c_charge_degree`` (2 values).
    """
    age = features["age"].astype(float)
    priors = pd.cut(features["priors_count"], [-np.inf, 0, 3, np.inf],
                    labels=["0", "1 to 3", "More than 3"])
    return pd.DataFrame({"log_age": np.log(age - age.min() + 1), "age_cat": features["age_cat"],
                         "priors": priors, "c_charge_degree": features["c_charge_degree"]})


def _compas_ref():
    features, y, sensitive = _compas()
    return compas_reference_features(features), y, sensitive


def _adult(n_rows=None):
    """Adult's rows without missing values; ``n_rows`` of them at random (a quick run)."""
    bunch = load_adult(as_frame=True)
    keep = ~bunch.data.isna().any(axis=1).to_numpy()
    sensitive = pd.DataFrame({"sex": bunch.sensitive["sex"][keep].astype(str).to_numpy(),
                              "race": np.where(bunch.sensitive["race"][keep] == "White", "White",
                                               "other")})
    features = bunch.data[keep].drop(columns=["race", "sex"]).reset_index(drop=True)
    y = bunch.target[keep].to_numpy()
    if n_rows is not None:
        rows = np.random.default_rng(0).choice(len(y), n_rows, replace=False)
        features, y, sensitive = (features.iloc[rows].reset_index(drop=True), y[rows],
                                  sensitive.iloc[rows].reset_index(drop=True))
    return features, y, sensitive


def _communities():
    bunch = load_communities(as_frame=True)
    columns = ["racepctblack", "racePctAsian", "racePctHisp"]
    data = bunch.data.fillna(0.0)  # as the reference does
    return data.drop(columns=columns), bunch.target.to_numpy(), data[columns]


def _load(name, quick):
    if name == "adult":
        return _adult(QUICK_ROWS if quick else None)
    return {"compas": _compas, "compas_ref": _compas_ref}[name]()


def _split(features, y, sensitive, seed):
    """A 60/40 split; features one-hot encoded and standardized on the training part."""
    parts = train_test_split(features, y, sensitive, test_size=0.4, random_state=seed)
    X_train, X_test, y_train, y_test, a_train, a_test = parts
    categorical = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    numeric = [c for c in features.columns if c not in categorical]
    encoder = ColumnTransformer([("num", StandardScaler(), numeric),
                                 ("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                                  categorical)]).fit(X_train)
    return (encoder.transform(X_train), encoder.transform(X_test), y_train, y_test,
            a_train.reset_index(drop=True), a_test.reset_index(drop=True))


# -------------------------------------------------------------------------- methods
class _EmpiricalConditionalSampler:
    """Fair Dummies' Ã: for each row, the attributes of a random training row with the same y."""

    def __init__(self, y_codes, seed):
        self.rng = np.random.default_rng(seed)
        self.members = [np.flatnonzero(y_codes == label) for label in range(y_codes.max() + 1)]
        self.y_codes = y_codes

    def sample(self, n_copies=1):
        orders = np.empty((n_copies, len(self.y_codes)), dtype=np.intp)
        for label, members in enumerate(self.members):
            rows = self.y_codes == label
            orders[:, rows] = self.rng.choice(members, size=(n_copies, rows.sum()))
        return orders


class FairDummiesClassifier(FairICPClassifier):
    """The FairICP learner with Fair Dummies' resampling of A from its empirical law given Y."""

    def _sensitive_sampler(self, a, y_density, density_seed, sampler_seed):
        return _EmpiricalConditionalSampler(y_density, sampler_seed)


def _mlp(settings, seed):
    return MLPClassifier(hidden_layer_sizes=(64,), batch_size=settings["batch_size"],
                         learning_rate_init=settings["lr"], max_iter=settings["max_epochs"],
                         random_state=seed)


def _settings(name, quick):
    settings = dict(SETTINGS[name])
    if quick:
        settings["max_epochs"] = max(3, settings["max_epochs"] // 12)
    return settings


def _classification_methods(name, quick, seed):
    """(method, operating point, estimator, takes sensitive features) for one split."""
    settings = _settings(name, quick)
    mus = (0.0, 0.9) if quick else MU_GRID
    weighted_mus = WEIGHTED_MUS[:1] if quick else WEIGHTED_MUS
    eg_eps = (0.01, 0.05) if quick else (0.01, 0.02, 0.05, 0.1, 0.2)
    eg_mlp_eps = () if quick else (0.02, 0.1)
    methods = [("FairICP", mu, FairICPClassifier(mu=mu, random_state=seed, **settings), True)
               for mu in mus + ((0.99,) if quick else MU_EXTENSION)]
    methods += [(f"FairICP[{weights}]", mu,
                 FairICPClassifier(mu=mu, adversary_weights=weights, random_state=seed, **settings), True)
                for weights in ADVERSARY_WEIGHTS for mu in weighted_mus]
    methods += [("FairDummies", mu, FairDummiesClassifier(mu=mu, random_state=seed, **settings), True)
                for mu in mus if mu > 0]
    methods += [("Constant", None, DummyClassifier(), False),
                ("LogisticRegression", None, LogisticRegression(max_iter=1000), False),
                ("MLP", None, _mlp(settings, seed), False)]
    methods += [("EG(LogisticRegression)", eps,
                 ExponentiatedGradient(LogisticRegression(max_iter=1000), EqualizedOdds(), eps=eps),
                 True) for eps in eg_eps]
    methods += [("EG(MLP)", eps, ExponentiatedGradient(_mlp(settings, seed), EqualizedOdds(), eps=eps,
                                                       max_iter=20), True) for eps in eg_mlp_eps]
    return methods


def _probabilities(model, X):
    if isinstance(model, ExponentiatedGradient):
        return np.asarray(model._pmf_predict(X))  # the randomized classifier's P(Ŷ = k | x)
    return model.predict_proba(X)


def _fit_timed(model, X, y, **kwargs):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y, **kwargs)
    return time.perf_counter() - start


def _print(row):
    print(" ".join(f"{key} {value:.4f}" if isinstance(value, float) else f"{key} {value}"
                   for key, value in row.items()), flush=True)


def _fairness_measures(proba, y_pred, y_test, a_test, seed, n_permutations):
    """KPC and the ICP test's p-value of the probabilities; DEO, its interval and noise floor."""
    test = equalized_odds_test(proba, y_test, sensitive_features=a_test,
                               n_permutations=n_permutations, random_state=seed)
    deo = equalized_odds_deviation(y_test, y_pred, sensitive_features=a_test, ci=LEVEL)
    floor = fairness_floor("equalized_odds_deviation", y_test, y_pred, sensitive_features=a_test,
                           quantile=LEVEL, random_state=seed)
    return {"kpc": test.statistic, "pvalue": test.pvalue, "deo": deo.value, "deo_low": deo.low,
            "deo_high": deo.high, "deo_floor_mean": floor.mean, "deo_floor_q95": floor.quantile,
            "deo_floor_pvalue": floor.pvalue}


def _evaluate_classification(name, quick, seed):
    """Every method on one random split of one data set: a list of result rows."""
    n_permutations = QUICK_PERMUTATIONS if quick else N_PERMUTATIONS
    X_train, X_test, y_train, y_test, a_train, a_test = _split(*_load(name, quick), seed)
    rows = []
    for method, point, model, takes_sensitive in _classification_methods(name, quick, seed):
        kwargs = {"sensitive_features": a_train} if takes_sensitive else {}
        fit_time = _fit_timed(model, X_train, y_train, **kwargs)
        y_pred = (model.predict(X_test, random_state=seed)
                  if isinstance(model, ExponentiatedGradient) else model.predict(X_test))
        rows.append({"dataset": name, "split": seed, "method": method, "point": point,
                     "accuracy": float(np.mean(y_pred == y_test)),
                     **_fairness_measures(_probabilities(model, X_test), y_pred, y_test, a_test, seed,
                                          n_permutations),
                     "fit_s": fit_time})
        _print(rows[-1])
    return rows


def _evaluate_regression(quick, n_splits):
    features, y, sensitive = _communities()
    settings = dict(SETTINGS["communities"])
    if quick:
        settings["max_epochs"] = 5
    rows = []
    for seed in range(n_splits):
        X_train, X_test, y_train, y_test, a_train, a_test = _split(features, y, sensitive, seed)
        scale = y_train.std()
        models = [("LinearRegression", None, LinearRegression())]
        models += [("FairICP", mu, FairICPRegressor(mu=mu, random_state=seed, **settings))
                   for mu in ((0.0, 0.9) if quick else MU_GRID)]
        for method, point, model in models:
            kwargs = {} if point is None else {"sensitive_features": a_train}
            fit_time = _fit_timed(model, X_train, y_train, **kwargs)
            y_pred = model.predict(X_test)
            test = equalized_odds_test(y_pred, y_test, sensitive_features=a_test,
                                       n_permutations=QUICK_PERMUTATIONS if quick else N_PERMUTATIONS,
                                       random_state=seed)
            rows.append({"dataset": "communities", "split": seed, "method": method, "point": point,
                         "mse_standardized": float(np.mean((y_pred - y_test) ** 2) / scale**2),
                         "kpc": test.statistic, "pvalue": test.pvalue, "fit_s": fit_time})
            _print(rows[-1])
    return rows


# ----------------------------------------------------------------------- summaries
def _label(method, point):
    if point is None:
        return method
    return f"{method} {'eps' if method.startswith('EG') else 'μ'}={point:g}"


def _points(frame):
    """The (method, point) pairs of a data set's rows, in the order they were run."""
    return list(dict.fromkeys(zip(frame["method"], frame["point"], strict=True)))


def _select(frame, method, point):
    chosen = frame["method"] == method
    chosen &= frame["point"].isna() if point is None else frame["point"] == point
    return frame[chosen]


def _curves(frame):
    """Per operating point: the means over splits, the paper's measures first."""
    records = []
    for method, point in _points(frame):
        rows = _select(frame, method, point)
        records.append({
            "method": _label(method, point), "splits": len(rows),
            "kpc": rows["kpc"].mean(), "kpc_sd": rows["kpc"].std(ddof=1) if len(rows) > 1 else None,
            "pvalue": rows["pvalue"].mean(), "share_p_below_0.05": (rows["pvalue"] < 0.05).mean(),
            "deo": rows["deo"].mean(), "deo_sd": rows["deo"].std(ddof=1) if len(rows) > 1 else None,
            "deo_low": rows["deo_low"].mean(), "deo_high": rows["deo_high"].mean(),
            "deo_floor_mean": rows["deo_floor_mean"].mean(), "deo_floor_q95": rows["deo_floor_q95"].mean(),
            "share_deo_above_floor": (rows["deo_floor_pvalue"] < 1 - LEVEL).mean(),
            "accuracy": rows["accuracy"].mean(),
            "accuracy_sd": rows["accuracy"].std(ddof=1) if len(rows) > 1 else None,
            "fit_s": rows["fit_s"].median()})
    return records


def paired_difference(ours, theirs, level=LEVEL):
    """Mean of the paired differences ``ours - theirs`` over splits and its t-interval.

    Returns ``{"diff", "low", "high", "verdict"}``: the verdict is ``"real"`` when the
    interval excludes 0, ``"noise"`` when it holds 0, ``"n/a"`` with fewer than 2 splits
    or an undefined value on some split (no interval). Equal differences on every split
    give the point interval [d, d].
    """
    differences = np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)
    mean = float(differences.mean())
    if len(differences) < 2 or not np.isfinite(differences).all():
        return {"diff": mean, "low": None, "high": None, "verdict": "n/a"}
    if np.ptp(differences) == 0:
        low = high = mean
    else:
        low, high = stats.ttest_1samp(differences, 0.0).confidence_interval(level)
    return {"diff": mean, "low": float(low), "high": float(high),
            "verdict": "real" if low > 0 or high < 0 else "noise"}


_PAIRED_METRICS = ("kpc", "deo", "accuracy")


def _compare(frame, ours, theirs):
    """The paired comparison of two operating points over the splits both ran."""
    merged = _select(frame, *ours).merge(_select(frame, *theirs), on="split", suffixes=("", "_peer"))
    return {"splits": len(merged),
            **{metric: paired_difference(merged[metric], merged[f"{metric}_peer"])
               for metric in _PAIRED_METRICS}}


def _is_fairicp(method):
    return method.startswith("FairICP")


def _peers(frame, method, point):
    """The peer points one FairICP point is compared with.

    EG around the MLP and around LogisticRegression at each ``eps``, Fair Dummies at the
    same μ, the constant classifier and, for a weighted FairICP, FairICP at the same μ.
    """
    peers = [(m, p) for m, p in _points(frame)
             if m.startswith("EG(") or m == "Constant" or (m == "FairDummies" and p == point)]
    if method != "FairICP":
        peers.append(("FairICP", point))
    return [peer for peer in peers if not _select(frame, *peer).empty]


def _paired(frame):
    return [{"fairicp": _label(*ours), "peer": _label(*peer), **_compare(frame, ours, peer)}
            for ours in _points(frame) if _is_fairicp(ours[0]) for peer in _peers(frame, *ours)]


def _mu_steps(frame):
    """Each FairICP point against the one at the next smaller μ (the same weights)."""
    steps = []
    for method in dict.fromkeys(m for m, _ in _points(frame) if _is_fairicp(m)):
        mus = sorted(p for m, p in _points(frame) if m == method)
        steps += [{"from": _label(method, before), "to": _label(method, after),
                   **_compare(frame, (method, after), (method, before))}
                  for before, after in zip(mus, mus[1:], strict=False)]
    return steps


def _verdicts(records):
    """How many of the paired differences are real, per metric, and how many chance alone makes real."""
    counts = []
    for metric in _PAIRED_METRICS:
        verdicts = [record[metric]["verdict"] for record in records]
        judged = sum(v != "n/a" for v in verdicts)
        counts.append({"metric": metric, "comparisons": judged, "real": verdicts.count("real"),
                       "noise": verdicts.count("noise"),
                       "real_by_chance_if_none_were": round((1 - LEVEL) * judged, 1)})
    return counts


def _frame(rows):
    """The rows as a DataFrame; a method without operating points has point None."""
    frame = pd.DataFrame(rows)
    frame["point"] = frame["point"].astype(object).where(frame["point"].notna(), None)
    return frame


def _summary(rows):
    frame = _frame(rows)
    datasets = list(dict.fromkeys(frame["dataset"]))
    out = {"curves": {}, "paired": {}, "verdicts": {}, "mu_steps": {}}
    for dataset in datasets:
        part = frame[frame["dataset"] == dataset]
        out["curves"][dataset] = _curves(part)
        out["paired"][dataset] = _paired(part)
        out["verdicts"][dataset] = _verdicts(out["paired"][dataset])
        out["mu_steps"][dataset] = _mu_steps(part)
    return out


def _regression_summary(rows):
    frame = _frame(rows)
    return [{"method": _label(method, point), "splits": len(part),
             "mse_standardized": part["mse_standardized"].mean(), "kpc": part["kpc"].mean(),
             "pvalue": part["pvalue"].mean(), "fit_s": part["fit_s"].median()}
            for method, point in _points(frame) for part in [_select(frame, method, point)]]


# ------------------------------------------------------------- epoch selection
EPOCH_SELECTION_SPLITS, QUICK_EPOCH_SELECTION_SPLITS = 10, 2


def _epoch_selection_split(quick, seed):
    """FairICP at μ = 0.9 on one COMPAS split, without and with ``validation_fraction=0.2``."""
    X_train, X_test, y_train, y_test, a_train, a_test = _split(*_load("compas", quick), seed)
    rows = []
    for fraction in (None, 0.2):
        model = FairICPClassifier(mu=0.9, validation_fraction=fraction, random_state=seed,
                                  **_settings("compas", quick))
        model.fit(X_train, y_train, sensitive_features=a_train)
        deo = {part: equalized_odds_deviation(y, model.predict(X), sensitive_features=a)
               for part, X, y, a in (("train", X_train, y_train, a_train), ("test", X_test, y_test, a_test))}
        rows.append({"split": seed, "validation_fraction": fraction, "train_deo": deo["train"],
                     "test_deo": deo["test"], "gap": deo["test"] - deo["train"],
                     "test_accuracy": float(np.mean(model.predict(X_test) == y_test)),
                     "selected_epoch": model.selected_epoch_})
    return rows


def _epoch_selection(quick, n_jobs=2):
    """Does choosing the epoch on held-out KPC narrow COMPAS's train/test DEO gap? Paired over splits."""
    n_splits = QUICK_EPOCH_SELECTION_SPLITS if quick else EPOCH_SELECTION_SPLITS
    with threadpool_limits(1):
        parts = Parallel(n_jobs=n_jobs)(delayed(_epoch_selection_split)(quick, seed)
                                        for seed in range(n_splits))
    frame = pd.DataFrame([row for part in parts for row in part])
    plain, chosen = (frame[frame["validation_fraction"].isna()], frame[frame["validation_fraction"].notna()])
    means = {name: part[["train_deo", "test_deo", "gap", "test_accuracy", "selected_epoch"]].mean().to_dict()
             for name, part in (("last_epoch", plain), ("validation_fraction=0.2", chosen))}
    return {"splits": n_splits, "means": means,
            "chosen_minus_last": {metric: paired_difference(chosen[metric], plain[metric])
                                  for metric in ("train_deo", "test_deo", "gap", "test_accuracy")}}


# ------------------------------------------------------------------------ cost
def _synthetic(n_samples, seed=0):
    """Features, labels and three sensitive attributes: two categorical, one continuous."""
    X, y, group = make_fair_classification(n_samples, 10, n_groups=4, random_state=seed)
    noise = np.random.default_rng(seed).normal(size=n_samples)
    sensitive = pd.DataFrame({"first": np.where(group // 2 == 0, "a", "b"),
                              "second": np.where(group % 2 == 0, "c", "d"),
                              "score": 0.5 * X[:, 0] + noise})
    return X, y, sensitive


def _timed(timings, name, function):
    """``function``, adding the seconds of each call to ``timings[name]`` (a list)."""
    @functools.wraps(function)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            timings.setdefault(name, []).append(time.perf_counter() - start)
    return timed


def _cost_fit(queue, n_samples, mu, max_epochs):
    """One fit in this fresh process, its time split by the functions where it goes."""
    import fairkit.adversarial._fair_icp as fair_icp
    import fairkit.adversarial._net as net  # imports torch before the fit is timed

    timings = {}
    fair_icp.fit_log_likelihood = _timed(timings, "density", fair_icp.fit_log_likelihood)
    ICPSampler.sample = _timed(timings, "icp", ICPSampler.sample)
    net.AdversarialNet.discriminator_step = _timed(timings, "discriminator",
                                                   net.AdversarialNet.discriminator_step)
    X, y, sensitive = _synthetic(n_samples)
    # a first fit imports what torch and skorch import lazily (about a second), not part of a fit's cost
    FairICPClassifier(mu=0.5, max_epochs=1, random_state=0).fit(X[:100], y[:100],
                                                                 sensitive_features=sensitive[:100])
    timings.clear()
    rss_before = max_rss()
    model = FairICPClassifier(mu=mu, max_epochs=max_epochs, batch_size=512, random_state=0)
    start = time.perf_counter()
    model.fit(X, y, sensitive_features=sensitive)
    fit_s = time.perf_counter() - start
    epochs_s = sum(epoch["dur"] for epoch in model.history_)
    icp = timings.get("icp", [])  # the first draw includes the burn-in
    icp_per_epoch = float(np.median(icp[1:])) if len(icp) > 1 else (icp[0] if icp else 0.0)
    queue.put({"setting": f"mu={mu:g}", "n": n_samples, "mu": mu, "epochs": max_epochs, "fit_s": fit_s,
               "predictor_macs": multiply_adds(model.net_.module_),
               "discriminator_macs": multiply_adds(model.net_.discriminator_),
               "density_s": sum(timings.get("density", [])),
               "icp_burn_in_s": icp[0] - icp_per_epoch if icp else 0.0, "icp_per_epoch_s": icp_per_epoch,
               "discriminator_per_epoch_s": sum(timings.get("discriminator", [])) / max_epochs,
               "epoch_s": epochs_s / max_epochs, "peak_rss_bytes": max_rss(),
               "rss_before_fit_bytes": rss_before})


def multiply_adds(module):
    """Multiply-adds per row of one forward pass of ``module``'s linear layers, and of its first."""
    layers = [(layer.in_features * layer.out_features) for layer in module.modules()
              if type(layer).__name__ == "Linear"]
    return sum(layers), layers[0]


def arithmetic_ratio(predictor, discriminator, discriminator_steps=1):
    """Multiply-adds of a μ > 0 epoch over those of a μ = 0 epoch, per training row.

    ``predictor`` and ``discriminator`` are (all layers, first layer) multiply-adds of a
    forward pass (:func:`multiply_adds`). A backward pass costs the forward's again for
    the weights' gradients (of trained modules) and again for the inputs' (but of the
    first layer, whose input needs none unless it is ŷ). μ = 0: f's forward and backward,
    3F − F₁. μ > 0 adds, per discriminator pass, f's forward and D's forward and backward
    on a real and a fake row, F + 2(3D − D₁); and in f's pass D's forward and inputs'
    gradients on both rows (D frozen), 4D.
    """
    (f, f1), (d, d1), s = predictor, discriminator, discriminator_steps
    plain = 3 * f - f1
    return (plain + 4 * d + s * (f + 2 * (3 * d - d1))) / plain


def _in_fresh_process(target, *args):
    """Run ``target(queue, *args)`` in a new process (its peak RSS its own); return what it put."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=target, args=(queue, *args))
    process.start()
    result = queue.get()
    process.join()
    return result


def _cost(quick):
    """Fit time, its parts and peak memory at each size, μ = 0 and 0.9, and their ratios."""
    epochs = 2 if quick else 3
    records = [_in_fresh_process(_cost_fit, n, mu, epochs)
               for n in (QUICK_COST_SIZES if quick else COST_SIZES) for mu in COST_MUS]
    for record in records:
        print(f"cost: {record}", flush=True)
    ratios = []
    for n in dict.fromkeys(record["n"] for record in records):
        plain, fair = (next(r for r in records if r["n"] == n and r["mu"] == mu) for mu in COST_MUS)
        ratios.append({"n": n, "fit_ratio": fair["fit_s"] / plain["fit_s"],
                       "per_epoch_ratio": (fair["epoch_s"] + fair["icp_per_epoch_s"]) / plain["epoch_s"],
                       "arithmetic_ratio": arithmetic_ratio(fair["predictor_macs"],
                                                            fair["discriminator_macs"])})
    return {"fits": records, "mu09_over_mu0": ratios}


def _dense_icp(log_lik_matrix, n_sweeps, n_copies, rng):
    """The reference's way: the n×n matrix L[i, j] = log q(yᵢ | aⱼ), successive chain states."""
    n = len(log_lik_matrix)
    assignment, half = np.arange(n), n // 2
    copies = []
    for _ in range(n_copies + 1):
        for _ in range(n_sweeps):
            pairs = rng.permutation(n)
            i, j = pairs[:half], pairs[half:2 * half]
            yi, yj = assignment[i], assignment[j]
            gain = (log_lik_matrix[yi, j] + log_lik_matrix[yj, i]
                    - log_lik_matrix[yi, i] - log_lik_matrix[yj, j])
            swap = rng.random(half) < expit(gain)
            assignment[i], assignment[j] = np.where(swap, yj, yi), np.where(swap, yi, yj)
        copies.append(np.argsort(assignment))
    return copies[1:]


def _sampler_speed(n_copies, repeats=3):
    """ICP draws for COMPAS's training part: fairkit's O(n·K) sampler vs the dense matrix."""
    features, y, sensitive = _compas()
    _, _, y_train, _, a_train, _ = _split(features, y, sensitive, 0)
    a = OneHotEncoder(sparse_output=False).fit_transform(a_train)
    log_lik = fit_log_likelihood(a, y_train, classification=True, random_state=0)
    n = len(y_train)

    def ours():
        return ICPSampler(log_lik, random_state=0).sample(n_copies)

    def dense():
        matrix = log_lik.log_proba[:, y_train].T  # L[i, j] = log q(yᵢ | aⱼ), n×n
        return _dense_icp(matrix, 50, n_copies, np.random.default_rng(0))

    timings = {}
    for label, fn in (("fairkit", ours), ("dense_matrix", dense)):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        timings[label] = float(np.median(times))
    return {"n": n, "copies": n_copies, "fairkit_s": timings["fairkit"],
            "dense_matrix_s": timings["dense_matrix"],
            "speedup": timings["dense_matrix"] / timings["fairkit"],
            "dense_matrix_bytes": n * n * 8, "dense_matrix_bytes_adult_train": 27133**2 * 8}


def run(quick=False, n_jobs=2):
    """All of the above; the (data set, split) evaluations run in ``n_jobs`` single-threaded processes."""
    n_splits = QUICK_SPLITS if quick else N_SPLITS
    # the longest tasks first, so that the two processes finish together
    tasks = [(name, seed) for name in ("adult", "compas", "compas_ref") for seed in range(n_splits[name])]
    with threadpool_limits(1):
        parts = Parallel(n_jobs=n_jobs)(delayed(_evaluate_classification)(name, quick, seed)
                                        for name, seed in tasks)
        rows = [row for part in parts for row in part]
        regression = _evaluate_regression(quick, n_splits["communities"])
    folder = results_dir(quick)
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows + regression).to_csv(folder / "fairicp_splits.csv", index=False)
    epoch_selection = _epoch_selection(quick, n_jobs)
    cost = _cost(quick)
    sampler = _sampler_speed(3 if quick else 20)
    print(f"ICP sampler: {sampler}", flush=True)
    return {"quick": quick, "splits": n_splits,
            "n_permutations": QUICK_PERMUTATIONS if quick else N_PERMUTATIONS, **_summary(rows),
            "communities": _regression_summary(regression), "epoch_selection": epoch_selection, "cost": cost,
            "icp_sampler": sampler}


if __name__ == "__main__":
    main("fairicp", run, packages=("fairkit", "numpy", "scipy", "scikit-learn", "torch", "skorch",
                                   "fairlearn"))
