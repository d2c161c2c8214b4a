"""fairkit-viashap measured: the speed, accuracy and predictive quality of ViaSHAP, and its training cost.

ViaSHAP (A. Alkhatib, R. Bresson, H. Boström, M. Vazirgiannis, "Prediction via Shapley Value
Regression", ICML 2025, arXiv:2505.04775) learns the Shapley values φ(x) of its own
prediction and predicts by summing them, so that every prediction carries its explanation.
The issue's evidence, in four sections. Every ViaSHAP model here is ``ViaSHAPClassifier`` or
``ViaSHAPRegressor`` at its defaults (hidden layers 64, 128, 64; 32 coalitions; α = 1,
β = 10; batch 64; Adam at 1e-3; at most 300 epochs, early stopping on 15 % of the training
part with patience 10), with ``random_state`` the split's seed, unless said otherwise;
torch runs on one thread.

**Data.** ``Adult`` (``fetch_adult``, all 14 columns, its 8 categorical ones through
ViaSHAP's embeddings and HistGradientBoosting's native categories, label income > 50K);
``COMPAS`` (``fetch_compas``, all 9 columns, 4 categorical, label two-year recidivism);
``breast cancer`` (scikit-learn, 30 features); ``diabetes`` (scikit-learn, 10 features,
regression). For the exact Shapley values, which enumerate the 2^d coalitions, sets with
d ≤ 8 numeric features: ``diabetes (8)`` (age, sex, bmi, bp, s3, s4, s5, s6: s1 and s2
left out), ``COMPAS numeric (7)`` (age, the four counts, sex = Male and charge degree = F
as 0/1; race left out), ``Adult numeric (7)`` (age, fnlwgt, education-num, capital gain,
capital loss, hours per week, sex = Male as 0/1; 6,000 random rows) and ``synthetic (8)``
(4,000 rows of 8 standard normal features, label drawn with probability
sigmoid(2x0 − x1 + x2·x3 + sin 2x4 + x5·x6·x7 / 2), so with interactions up to order 3).
A split is a random 75/25 train/test split of the rows (stratified for classification)
seeded by the split's seed, 0, 1, 2.

**Speed** (``speed``). A model of the speed section is ViaSHAPClassifier trained for
``SPEED_EPOCHS`` = 10 epochs (how well it is trained does not change the cost of
explaining it) on ``Adult numeric (7)`` (10,000 random rows to explain, 10,000 others to
train) and on ``breast cancer`` (d = 30; the 10,000 rows to explain drawn with
replacement from its 569, as timing needs no new rows). ``viashap_seconds``:
``shap_values`` of the 10,000 rows, the median of 5 calls (measured). ``kernel``:
``shap.KernelExplainer`` on the same model's link-scale output (``decision_function``) with
100 random training rows as background (``shap.sample``) and its default sampling
(``nsamples="auto"`` = 2d + 2048 coalitions, all 2^d − 2 when fewer; its default
``l1_reg``), run on ``KERNEL_ROWS`` = 30 of those rows (measured:
``kernel_measured_seconds``, ``kernel_seconds_per_row``), and its time for the 10,000
rows extrapolated as 10,000 × its seconds per row (not measured: a
KernelExplainer run on 10,000 rows takes hours; called ``kernel_seconds_extrapolated``
in the table). ``speedup_ratio`` = the extrapolated
KernelExplainer time / ViaSHAP's measured time, against the issue's target of 1,000
(``target``, ``within_target``); ``kernel_model_rows_per_row`` = the rows its model
evaluates per explained row (coalitions × background rows).

**Accuracy of the explanations** (``accuracy``, ``accuracy_summary``). Per d ≤ 8 set and
split, the model trained on the training part; on up to 500 rows of the test part, the
exact Shapley values of the model's own value function v(S) = f(x_S) (f its link-scale
output: ``decision_function``, ``predict`` for the regressor; x_S is x on S and the model's
baseline ``baseline_`` elsewhere: zero in its standardised space, the training mean of
each feature) by ``fairkit_viashap.exact_shapley_values`` (every coalition), against
``shap_values``: the cosine similarity per row, its median and quartiles (``cosine_*``)
and the share of rows at or above 0.95. As a reference point, ``shap.KernelExplainer`` on
the same f with the baseline row as its single background row, default sampling (for
d ≤ 8 it enumerates every coalition), on the first ``KERNEL_ACCURACY_ROWS`` = 50 of those
rows: its median cosine with the exact values (``kernel_cosine_median``) and its largest
absolute difference from them (``kernel_max_abs_diff``, a check of the exact values against
the shap package). ``accuracy_summary`` per set: the median over every row of every split,
the worst split's median, and whether that is ≥ 0.95, the issue's target.

**Predictive quality** (``quality``, ``quality_summary``). Per set, split and model, the
test score: ROC AUC for the classifiers, R² for diabetes. Models: ``ViaSHAP mlp`` and
``ViaSHAP kan`` (``backbone="kan"``, the paper's best variant) at their defaults, and
``HistGradientBoosting`` (``HistGradientBoostingClassifier`` / ``Regressor`` at defaults,
``random_state`` the seed). Adult is cut to 8,000 random rows (``Adult (8000)``): ViaSHAP
trains at about 0.15 ms per row and epoch with the MLP on one thread, ten times that with
the KAN (more with Adult's 8 embedded columns), for 50-100 epochs, which at 48,842 rows
would take the run far over its budget. The KAN is trained on the two small sets and on
2,000 random rows of Adult and of COMPAS (``Adult (2000)``, ``COMPAS (2000)``, with the MLP
and HistGradientBoosting on the same splits), to keep the run near 20 minutes on two idle
cores. ``quality_summary`` per set and model: the mean
score over the 3 splits with its corrected resampled 95 % t interval
(``fairkit.metrics.resampled_interval``, Nadeau & Bengio 2003, n_test / n_train = 1/3), the
mean fit seconds and epochs, and the paired gap to HistGradientBoosting on the same splits,
in points (100 × the score difference; negative: ViaSHAP is worse) with its interval;
``within_1_point``: the mean gap ≥ −1 point, the issue's target.

**Training cost** (``epoch_cost``). The epoch of ViaSHAPClassifier (32 coalitions, no
validation split) against a plain MLP of the same hidden layers (64, 128, 64), a skorch
``NeuralNet`` of ``fairkit.utils.nn.MLP`` with the cross-entropy, the same ``Minibatches``,
Adam at 1e-3, batch 64, one torch thread, on the same standardized rows of the training
part of ``Adult numeric (7)`` (10,000 rows). An epoch's time is (fit time with 4 epochs −
fit time with 1) / 3, the median over 5 repeats, after a warm-up fit, the two interleaved
in every repeat, so the per-fit costs cancel. ``ratio`` = ViaSHAP's epoch / the plain
MLP's, against the issue's bound n_coalitions + 2 = 34 (``within_bound``); ``dur_ratio``
is the same from the medians of skorch's per-epoch ``dur``.

The timing sections (speed, training cost) run first and alone; then accuracy and quality
fits run in two single-threaded processes, the KAN's last. A quick run (a smoke test)
takes one split, 2,000-row data sets (Adult numeric: 4,000), 3 epochs at most per fit,
1,000 rows to explain, 5 KernelExplainer rows, and epochs (1, 2) with 2 repeats.
Floats are rounded to 4 significant digits.

    python -m benchmarks run viashap [--quick]
"""

import statistics
import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from benchmarks._common import main
from fairkit.datasets import fetch_adult, fetch_compas
from fairkit.metrics import resampled_interval
from fairkit_viashap._exact import exact_shapley_values
from fairkit_viashap._viashap import ViaSHAPClassifier, ViaSHAPRegressor

PACKAGES = ("fairkit", "fairkit-viashap", "torch", "skorch", "shap", "numpy", "scikit-learn")
TEST_SIZE = 0.25
SEEDS, QUICK_SEEDS = (0, 1, 2), (0,)
QUICK_ROWS, QUICK_EPOCHS = 2000, 3
SPEEDUP_TARGET, COSINE_TARGET, GAP_TARGET_POINTS = 1000.0, 0.95, 1.0
N_COALITIONS = 32
SPEED_ROWS, QUICK_SPEED_ROWS = 10_000, 1_000
SPEED_EPOCHS, KERNEL_BACKGROUND = 10, 100
KERNEL_ROWS, QUICK_KERNEL_ROWS = 30, 5
ACCURACY_ROWS, KERNEL_ACCURACY_ROWS = 500, 50
HIDDEN = (64, 128, 64)  # ViaSHAP's default hidden layers, given to the plain MLP too
BATCH_SIZE, LR = 64, 1e-3  # ViaSHAP's defaults
EPOCHS, REPEATS = (1, 4), 5
COST_ROWS = 10_000
ADULT_QUALITY_ROWS, KAN_ROWS, ADULT_NUMERIC_ROWS = 8000, 2000, 6000


# ----------------------------------------------------------------------------- data
def _sample(X, y, n_rows, seed=0):
    """``n_rows`` random rows of (X, y) (all of them when ``n_rows`` is None or not smaller)."""
    if n_rows is None or n_rows >= len(y):
        return X, y
    rows = np.random.default_rng(seed).choice(len(y), n_rows, replace=False)
    return (X.iloc[rows].reset_index(drop=True) if hasattr(X, "iloc") else X[rows]), y[rows]


def adult(n_rows=None):
    """Adult's 14 columns (a DataFrame, 8 categorical) and the 0/1 income label."""
    bunch = fetch_adult(as_frame=True)
    return _sample(bunch.data, bunch.target.to_numpy().astype(int), n_rows)


def compas(n_rows=None):
    """COMPAS's 9 columns (a DataFrame, 4 categorical) and the 0/1 two-year recidivism label."""
    bunch = fetch_compas(as_frame=True)
    return _sample(bunch.data, bunch.target.to_numpy().astype(int), n_rows)


def adult_numeric(n_rows=None):
    """Adult's 6 numeric columns and sex = Male as 0/1: a float array (n, 7), and the label."""
    X, y = adult()
    numeric = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    features = np.column_stack([X[numeric].to_numpy(dtype=float), (X["sex"] == "Male").to_numpy(float)])
    return _sample(features, y, n_rows)


def compas_numeric(n_rows=None):
    """COMPAS's age and four counts, sex = Male and charge degree = F as 0/1 (race left out): (n, 7)."""
    X, y = compas()
    numeric = ["age", "juv_fel_count", "juv_misd_count", "juv_other_count", "priors_count"]
    features = np.column_stack([X[numeric].to_numpy(dtype=float), (X["sex"] == "Male").to_numpy(float),
                                (X["c_charge_degree"] == "F").to_numpy(float)])
    return _sample(features, y, n_rows)


def diabetes8(n_rows=None):
    """scikit-learn's diabetes without s1 and s2: (442, 8), and the disease progression."""
    X, y = load_diabetes(return_X_y=True)
    return _sample(X[:, [0, 1, 2, 3, 6, 7, 8, 9]], y, n_rows)


def synthetic8(n_rows=4000):
    """8 standard normal features and a label with interactions up to order 3 (see the docstring)."""
    rng = np.random.default_rng(12345)
    X = rng.normal(size=(n_rows, 8))
    logit = (2 * X[:, 0] - X[:, 1] + X[:, 2] * X[:, 3] + np.sin(2 * X[:, 4])
             + X[:, 5] * X[:, 6] * X[:, 7] / 2)
    return X, (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(int)


def breast_cancer(n_rows=None):
    X, y = load_breast_cancer(return_X_y=True)
    return _sample(X, y, n_rows)


def diabetes(n_rows=None):
    X, y = load_diabetes(return_X_y=True)
    return _sample(X, y, n_rows)


#: name -> (loader, rows of the full run, task)
ACCURACY_DATA = {"diabetes (8)": (diabetes8, None, "regression"),
                 "COMPAS numeric (7)": (compas_numeric, None, "classification"),
                 "Adult numeric (7)": (adult_numeric, ADULT_NUMERIC_ROWS, "classification"),
                 "synthetic (8)": (synthetic8, 4000, "classification")}
QUALITY_DATA = {"Adult (8000)": (adult, ADULT_QUALITY_ROWS, "classification"),
                "COMPAS": (compas, None, "classification"),
                "breast cancer": (breast_cancer, None, "classification"),
                "diabetes": (diabetes, None, "regression"),
                "Adult (2000)": (adult, KAN_ROWS, "classification"),
                "COMPAS (2000)": (compas, KAN_ROWS, "classification")}
#: the sets the KAN is trained on (see the docstring)
KAN_DATA = ("breast cancer", "diabetes", "Adult (2000)", "COMPAS (2000)")
QUICK_QUALITY_DATA = ("COMPAS (2000)", "diabetes")


def load(table, name, quick):
    loader, n_rows, task = table[name]
    rows = QUICK_ROWS if quick and (n_rows is None or n_rows > QUICK_ROWS) else n_rows
    if quick and name == "Adult numeric (7)":
        rows = 2 * QUICK_ROWS  # enough positives for a stratified split
    return (*(loader(rows) if rows is not None else loader()), task)


def split(X, y, task, seed):
    """A random 75/25 split, stratified for classification: X_train, X_test, y_train, y_test."""
    return train_test_split(X, y, test_size=TEST_SIZE, random_state=seed,
                            stratify=y if task == "classification" else None)


def categorical_columns(X):
    """The names of a DataFrame's categorical columns, None for an array."""
    if not hasattr(X, "columns"):
        return None
    return [column for column in X.columns if isinstance(X[column].dtype, pd.CategoricalDtype)] or None


def viashap(task, quick, **params):
    """ViaSHAP at its defaults (``params`` override them); 3 epochs at most in a quick run."""
    model = ViaSHAPRegressor if task == "regression" else ViaSHAPClassifier
    return model(**({"max_epochs": QUICK_EPOCHS} if quick else {}), **params)


def link_output(model):
    """The model's link-scale output: its value function f."""
    return model.predict if isinstance(model, ViaSHAPRegressor) else model.decision_function


def _single_threaded_torch():
    import torch

    torch.set_num_threads(1)


# ----------------------------------------------------------------------------- speed
def kernel_explainer(f, background):
    """``shap.KernelExplainer`` of ``f`` with ``background``; its ``shap_values(rows)`` at defaults."""
    import shap

    explainer = shap.KernelExplainer(f, background)
    return lambda rows: np.asarray(explainer.shap_values(rows, silent=True))


def speed_case(name, X_train, y_train, X_explain, quick):
    """Seconds of ``shap_values`` on the rows to explain against KernelExplainer's, extrapolated."""
    import shap

    model = ViaSHAPClassifier(max_epochs=QUICK_EPOCHS if quick else SPEED_EPOCHS, random_state=0)
    model.fit(X_train, y_train)
    model.shap_values(X_explain[:10])  # warm-up
    times = []
    for _ in range(2 if quick else 5):
        start = time.perf_counter()
        model.shap_values(X_explain)
        times.append(time.perf_counter() - start)
    viashap_seconds = statistics.median(times)
    background = shap.sample(X_train, KERNEL_BACKGROUND, random_state=0)
    explain = kernel_explainer(model.decision_function, background)
    explain(X_explain[:1])  # warm-up
    n_kernel = QUICK_KERNEL_ROWS if quick else KERNEL_ROWS
    start = time.perf_counter()
    explain(X_explain[:n_kernel])
    kernel_seconds = time.perf_counter() - start
    d = X_train.shape[1]
    per_row = kernel_seconds / n_kernel
    extrapolated = per_row * len(X_explain)
    record = {"data": name, "d": d, "rows_explained": len(X_explain), "viashap_seconds": viashap_seconds,
              "kernel_rows_measured": n_kernel, "kernel_measured_seconds": kernel_seconds,
              "kernel_seconds_per_row": per_row,
              "kernel_seconds_extrapolated": extrapolated,
              "kernel_model_rows_per_row": min(2 * d + 2048, 2 ** d - 2) * len(background),
              "speedup_ratio": extrapolated / viashap_seconds, "target": SPEEDUP_TARGET,
              "within_target": bool(extrapolated / viashap_seconds >= SPEEDUP_TARGET)}
    print(f"speed: {record}", flush=True)
    return record


def speed(quick):
    """The ``speed`` table: Adult numeric (7) and breast cancer (30)."""
    n_explain = QUICK_SPEED_ROWS if quick else SPEED_ROWS
    X, y = adult_numeric()
    rows = np.random.default_rng(0).permutation(len(y))
    explain, train = rows[:n_explain], rows[n_explain:n_explain + (QUICK_ROWS if quick else SPEED_ROWS)]
    records = [speed_case("Adult numeric (7)", X[train], y[train], X[explain], quick)]
    X, y = load_breast_cancer(return_X_y=True)
    explain = np.random.default_rng(0).choice(len(y), n_explain, replace=True)
    records.append(speed_case("breast cancer (30)", X, y, X[explain], quick))
    return records


# ----------------------------------------------------------------------------- training cost
def fit_plain(X32, y, epochs):
    """A plain MLP of ViaSHAP's hidden layers in skorch; returns its per-epoch ``dur``."""
    import torch
    from skorch import NeuralNet

    from fairkit.utils.nn import MLP, Minibatches, seeded

    net = NeuralNet(MLP, torch.nn.CrossEntropyLoss, module__n_inputs=X32.shape[1], module__n_outputs=2,
                    module__hidden_layer_sizes=HIDDEN, optimizer=torch.optim.Adam, lr=LR, max_epochs=epochs,
                    batch_size=BATCH_SIZE, train_split=None, iterator_train=Minibatches,
                    iterator_train__shuffle=True, verbose=0)
    with seeded(0):
        net.fit({"x": X32}, y.astype(np.int64))
    return net.history[:, "dur"]


def fit_viashap(X, y, epochs):
    """ViaSHAPClassifier with 32 coalitions and no validation split; returns its per-epoch ``dur``."""
    model = ViaSHAPClassifier(n_coalitions=N_COALITIONS, max_epochs=epochs, validation_fraction=None,
                              random_state=0).fit(X, y)
    return [epoch["dur"] for epoch in model.history_]


def epoch_cost(quick):
    """The ``epoch_cost`` table: ViaSHAP's epoch against the plain MLP's, by the difference of two fits."""
    X, y = adult_numeric()
    X_train, _, y_train, _ = split(X, y, "classification", 0)
    n_rows = QUICK_ROWS if quick else COST_ROWS
    X_train, y_train = X_train[:n_rows], y_train[:n_rows]
    X32 = StandardScaler().fit_transform(X_train).astype(np.float32)
    (first, last), repeats = ((1, 2), 2) if quick else (EPOCHS, REPEATS)
    fits = {"viashap": lambda epochs: fit_viashap(X_train, y_train, epochs),
            "plain": lambda epochs: fit_plain(X32, y_train, epochs)}
    for fit in fits.values():  # warm-up: lazy imports, allocator
        fit(1)
    per_epoch = {name: [] for name in fits}
    durations = {name: [] for name in fits}
    for _ in range(repeats):
        for name, fit in fits.items():  # interleaved, so that a slow spell of the machine hits both
            start = time.perf_counter()
            fit(first)
            middle = time.perf_counter()
            durations[name] += list(fit(last))
            per_epoch[name].append(((time.perf_counter() - middle) - (middle - start)) / (last - first))
    epoch = {name: statistics.median(times) for name, times in per_epoch.items()}
    dur = {name: statistics.median(times) for name, times in durations.items()}
    ratio = epoch["viashap"] / epoch["plain"]
    record = {"data": "Adult numeric (7)", "rows": len(y_train), "batch_size": BATCH_SIZE,
              "n_coalitions": N_COALITIONS, "viashap_epoch_s": epoch["viashap"],
              "plain_epoch_s": epoch["plain"], "ratio": ratio, "dur_ratio": dur["viashap"] / dur["plain"],
              "bound": N_COALITIONS + 2, "within_bound": bool(ratio <= N_COALITIONS + 2)}
    print(f"epoch cost: {record}", flush=True)
    return [record]


# ----------------------------------------------------------------------------- accuracy
def cosines(a, b):
    """The cosine similarity of each row of ``a`` with the same row of ``b``."""
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def accuracy_split(name, seed, quick):
    """One (d ≤ 8 set, split): ViaSHAP's values and KernelExplainer's against the exact ones."""
    _single_threaded_torch()
    X, y, task = load(ACCURACY_DATA, name, quick)
    X_train, X_test, y_train, _ = split(X, y, task, seed)
    model = viashap(task, quick, random_state=seed).fit(X_train, y_train)
    held_out = X_test[:ACCURACY_ROWS]
    f = link_output(model)
    exact = exact_shapley_values(f, held_out, model.baseline_)
    cosine = cosines(model.shap_values(held_out), exact)
    n_kernel = QUICK_KERNEL_ROWS if quick else KERNEL_ACCURACY_ROWS
    kernel = kernel_explainer(f, model.baseline_[None, :])(held_out[:n_kernel])
    q25, median, q75 = np.quantile(cosine, [0.25, 0.5, 0.75])
    record = {"data": name, "seed": seed, "d": X.shape[1], "rows": len(held_out), "epochs": model.n_epochs_,
              "cosine_median": median, "cosine_q25": q25, "cosine_q75": q75,
              "share_at_least_0.95": float(np.mean(cosine >= COSINE_TARGET)),
              "kernel_rows": n_kernel,
              "kernel_cosine_median": float(np.median(cosines(kernel, exact[:n_kernel]))),
              "kernel_max_abs_diff": float(np.abs(kernel - exact[:n_kernel]).max())}
    print(f"accuracy: {record}", flush=True)
    return record, cosine


def accuracy_summary(records, cosine_by_split):
    """Per set: the median over every row of every split, the worst split's median, the target."""
    summary = []
    for name in dict.fromkeys(record["data"] for record in records):
        mine = [(record, cosine) for record, cosine in zip(records, cosine_by_split, strict=True)
                if record["data"] == name]
        pooled = np.concatenate([cosine for _, cosine in mine])
        worst = min(record["cosine_median"] for record, _ in mine)
        summary.append({"data": name, "splits": len(mine), "rows": len(pooled),
                        "cosine_median": float(np.median(pooled)),
                        "cosine_q25": float(np.quantile(pooled, 0.25)),
                        "cosine_q75": float(np.quantile(pooled, 0.75)),
                        "worst_split_median": worst, "target": COSINE_TARGET,
                        "within_target": bool(worst >= COSINE_TARGET),
                        "kernel_cosine_median": float(np.median([record["kernel_cosine_median"]
                                                                 for record, _ in mine]))})
    return summary


# ----------------------------------------------------------------------------- predictive quality
def quality_fit(name, seed, model_name, quick):
    """One (set, split, model): its test AUC or R², fit seconds and epochs."""
    _single_threaded_torch()
    X, y, task = load(QUALITY_DATA, name, quick)
    X_train, X_test, y_train, y_test = split(X, y, task, seed)
    if model_name == "HistGradientBoosting":
        model = (HistGradientBoostingRegressor if task == "regression"
                 else HistGradientBoostingClassifier)(random_state=seed)
    else:
        model = viashap(task, quick, backbone=model_name.split()[-1], random_state=seed,
                        categorical_features=categorical_columns(X))
    start = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    if task == "regression":
        score, metric = r2_score(y_test, model.predict(X_test)), "R2"
    else:
        score, metric = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]), "AUC"
    record = {"data": name, "seed": seed, "model": model_name, "metric": metric, "score": float(score),
              "fit_seconds": seconds, "epochs": getattr(model, "n_epochs_", None)}
    print(f"quality: {record}", flush=True)
    return record


def quality_models(name):
    return ("HistGradientBoosting", "ViaSHAP mlp", *(("ViaSHAP kan",) if name in KAN_DATA else ()))


def quality_summary(records):
    """Per set and model: mean score with its interval, and the paired gap to HistGradientBoosting."""
    frame = pd.DataFrame(records)
    test_fraction = TEST_SIZE / (1 - TEST_SIZE)
    summary = []
    for (name, model_name), group in frame.groupby(["data", "model"], sort=False):
        group = group.sort_values("seed")
        reference = frame[(frame["data"] == name) & (frame["model"] == "HistGradientBoosting")]
        reference = reference.sort_values("seed")
        score = resampled_interval(group["score"].to_numpy(), test_fraction=test_fraction)
        gap = resampled_interval(100 * (group["score"].to_numpy() - reference["score"].to_numpy()),
                                 test_fraction=test_fraction)
        record = {"data": name, "model": model_name, "metric": group["metric"].iloc[0], "splits": len(group),
                  "score": score.value, "score_low": score.low, "score_high": score.high,
                  "fit_seconds": group["fit_seconds"].mean(),
                  "epochs": None if group["epochs"].isna().all() else float(group["epochs"].mean())}
        if model_name != "HistGradientBoosting":
            record |= {"gap_points": gap.value, "gap_low": gap.low, "gap_high": gap.high,
                       "within_1_point": bool(gap.value >= -GAP_TARGET_POINTS)}
        summary.append(record)
    return summary


# ----------------------------------------------------------------------------- run
def run(quick=False, n_jobs=2):
    """Every section of the benchmark; returns its named tables."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the timings single-threaded, as the estimators' evaluation
    try:
        speed_table, cost = speed(quick), epoch_cost(quick)
    finally:
        torch.set_num_threads(threads)
    seeds = QUICK_SEEDS if quick else SEEDS
    accuracy_tasks = [delayed(accuracy_split)(name, seed, quick) for name in ACCURACY_DATA for seed in seeds]
    quality_names = QUICK_QUALITY_DATA if quick else tuple(QUALITY_DATA)
    tasks = [(name, seed, model) for name in quality_names for seed in seeds
             for model in quality_models(name)]
    tasks.sort(key=lambda task: task[2] == "ViaSHAP kan")  # the KAN's fits last (stable: else in order)
    quality_tasks = [delayed(quality_fit)(*task, quick) for task in tasks]
    results = Parallel(n_jobs=n_jobs)(accuracy_tasks + quality_tasks)
    accuracy = results[:len(accuracy_tasks)]
    quality = results[len(accuracy_tasks):]
    accuracy_records = [record for record, _ in accuracy]
    return {
        "quick": quick, "speedup_target": SPEEDUP_TARGET, "cosine_target": COSINE_TARGET,
        "gap_target_points": GAP_TARGET_POINTS,
        "worst_speedup_ratio": min(record["speedup_ratio"] for record in speed_table),
        "epoch_cost_ratio": cost[0]["ratio"],
        "speed": speed_table, "epoch_cost": cost,
        "accuracy_summary": accuracy_summary(accuracy_records, [cosine for _, cosine in accuracy]),
        "accuracy": accuracy_records,
        "quality_summary": quality_summary(quality), "quality": quality}


if __name__ == "__main__":
    main("viashap", run, PACKAGES)
