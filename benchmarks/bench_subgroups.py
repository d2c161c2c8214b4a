"""fairkit-subgroups measured: which grouping to mitigate on (the paper's study), and GroupDRO's cost.

**The study** (``study``, ``rank_agreement``). Alloula et al. (ICML 2025) run each mitigation
method once per grouping of the training samples and score worst-group accuracy on a
balanced test set. Here, with :func:`fairkit_subgroups.compare_groupings` (the same splits
and seeds for every grouping, so differences are paired):

* data: ``digits``, 5 draws of :func:`~fairkit_subgroups.make_digits_artefact` (the
  artefact agrees with the label in 95 % / 80 % of the training images of S = 0 / 1, in
  half of the test images, test cells Y × A × S balanced), pixels scaled to [0, 1];
  ``Adult``, rows without missing values, A = race other than White, S = female, Y =
  income > 50K, ``sex`` and ``race`` not features, 5 random 70/30 splits whose test part is
  cut to the same count in each of the 8 cells (the balanced test set);
* methods: ``reweight`` and ``resample`` (``GroupBalancedClassifier`` around a logistic
  regression), ``GroupDRO`` (``GroupDROClassifier`` on the same linear model, no hidden
  layer; 100 epochs at batch 128 on the digits, 20 at batch 256 on Adult; Adam at 1e-2);
  ERM is each method with one group;
* groupings: Y, A, S, A × Y, S × Y, Y × A × S, 4 random groups, A × Y with 10 % and 50 % of
  the group labels reassigned at random;
* per (data, method, grouping): the KL diagnostic (``resampling`` weights for reweighting
  and resampling, the ``gdro`` proxy for GroupDRO) on the training part, accuracy,
  worst-group accuracy and the accuracy gap over the 8 cells, each the mean over seeds
  with its corrected resampled 95 % t interval; the paired difference to ERM
  (``vs_ERM_*``, ``verdict`` ``higher`` / ``lower`` when the interval excludes 0); per
  (data, method): Spearman's correlation between −KL and worst-group accuracy over the
  10 groupings, with its p-value.

**The cost of GroupDRO** (``gdro_cost``, ``step``): its training epoch against the same
network trained with ERM.

``GroupDROClassifier`` (online GroupDRO, Sagawa et al., ICLR 2020, as in A. Alloula,
C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias Mitigation",
ICML 2025, arXiv:2505.21363) claims an epoch that costs at most 1.3 times the same
network trained with plain empirical risk minimization (ERM). Three skorch nets are
timed on the same float32 standardized data, with the same ``fairkit.utils.nn`` pieces
(the ``MLP`` with one hidden layer of 64 ReLU units, the ``Minibatches`` iterator, Adam at
lr 1e-3, the same batch size, one torch thread):

* ``fairkit``: ``GroupDROClassifier`` itself (``eta=0.01``, ``size_adjustment=1``);
* ``reference``: a skorch ``NeuralNet`` whose loss is the update of the reference
  ``LossComputer`` (``anissa218/subgroups_bias_mit``, ``models/GroupDRO/utils.py``,
  ``compute_group_avg`` and ``compute_robust_loss``), re-expressed: per-group mean losses
  by a one-hot (groups × batch) matrix product, ℓ_g + C/√n_g, q ← q·exp(η·ℓ̃_g)
  renormalised, loss ℓ̃ · q; its running statistics (group accuracies, averages) are left
  out, so its cost is a lower bound of the reference's own;
* ``erm``: a skorch ``NeuralNet`` with the mean cross-entropy, on the features only.

Data: (a) Adult (``fetch_adult``, rows without missing values, 45,222; numbers
standardized, categories one-hot, ``sex`` and ``race`` left out of the features), groups
sex × race × label (20), batch 256 and 512; (b) ``make_fair_classification`` at 10⁵ rows,
20 features, 2, 8 and 32 groups of Zipf-like sizes (probability ∝ 1/rank), batch 256.

An epoch's time (``*_epoch_s``) is (fit time with ``E2`` epochs − fit time with ``E1``)
/ (E2 − E1), the median over repeats, after a warm-up fit, the three nets interleaved
in every repeat; so the per-fit costs (validation, scaling, building the net) cancel.
``*_over_erm_ratio`` = epoch time / ERM's epoch time: a cost, so above 1 means slower
than ERM (the claim: ``fairkit_over_erm_ratio`` ≤ 1.3, ``within_claim``);
``fairkit_over_erm_dur_ratio`` is the same ratio from the medians of skorch's per-epoch
``dur``, as a check.

``step`` takes one batch apart, in µs per batch (medians over repeats of an epoch of bare
steps outside skorch: slice the batch, forward, loss, backward, Adam step): ``erm_step_us``
ERM's step; ``skorch_us`` skorch's own per-batch work on top of it (ERM's epoch per batch
− ``erm_step_us``: callbacks, history, the optimizer closure); per GroupDRO loss,
``*_extra_us`` = its step − ERM's, split into ``*_update_us`` (the same step
backpropagating the mean loss while the group loss and q are computed beside it: the
forward of the group arithmetic) and ``*_autograd_us`` (the rest: recording and
backpropagating through it), and ``*_ops`` the torch operations of one forward and
backward pass of the loss alone (top-level operators and autograd nodes, beyond the mean's);
``skorch_fairkit_extra_us`` is the same extra measured in skorch (the ``gdro_cost`` table).
Before timing, both losses are checked to agree on a batch that holds every group.

A quick run (a smoke test) takes 6,000 random Adult rows at batch 256 and 10⁴
synthetic rows with 2 and 32 groups, 1 and 2 epochs, 3 repeats.

    python -m benchmarks run subgroups [--quick]
"""

import statistics
import time
from types import SimpleNamespace

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from benchmarks._common import main
from fairkit.datasets import fetch_adult, make_fair_classification
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

PACKAGES = ("fairkit", "fairkit-subgroups", "torch", "skorch", "numpy", "scikit-learn")
CLAIM = 1.3  # the bound on GroupDRO's epoch over ERM's
HIDDEN = (64,)
LR = 1e-3
ETA, SIZE_ADJUSTMENT = 0.01, 1.0  # GroupDROClassifier's defaults, given to the reference-style net too
METHODS = ("erm", "fairkit", "reference")


# ----------------------------------------------------------------------------- data
def adult(n_rows=None):
    """Adult's rows without missing values: encoded features, labels and each row's sex, race and label."""
    bunch = fetch_adult(as_frame=True)
    keep = ~bunch.data.isna().any(axis=1).to_numpy()
    features = bunch.data[keep].drop(columns=["sex", "race"]).reset_index(drop=True)
    y = bunch.target[keep].to_numpy()
    cells = pd.DataFrame({"sex": bunch.data["sex"][keep].astype(str).to_numpy(),
                          "race": bunch.data["race"][keep].astype(str).to_numpy(), "label": y.astype(str)})
    if n_rows is not None:
        rows = np.random.default_rng(0).choice(len(y), n_rows, replace=False)
        features, y, cells = features.iloc[rows].reset_index(drop=True), y[rows], cells.iloc[rows]
    categorical = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    numeric = [c for c in features.columns if c not in categorical]
    X = ColumnTransformer([("num", StandardScaler(), numeric),
                           ("cat", OneHotEncoder(sparse_output=False), categorical)]).fit_transform(features)
    return X, np.unique(y, return_inverse=True)[1], cells.reset_index(drop=True)


def adult_groups(n_rows=None):
    """Adult's features, labels and sex × race × label group codes (the cost section's groups)."""
    X, y, cells = adult(n_rows)
    return X, y, cells.groupby(list(cells.columns), observed=True).ngroup().to_numpy()


def synthetic(n_rows, n_groups, n_features=20):
    """``make_fair_classification`` with groups of probability ∝ 1/rank."""
    return make_fair_classification(n_rows, n_features, n_groups=n_groups,
                                    group_weights=1.0 / np.arange(1, n_groups + 1), random_state=0)


# ----------------------------------------------------------------------------- nets
def reference_loss(losses, groups, group_ids, adjustment, adv_probs, eta):
    """The reference ``LossComputer``'s robust loss on a batch, re-expressed; returns (loss, new q).

    Per-group mean losses by the one-hot (groups × batch) map times the losses (an absent
    group's mean is 0), ℓ̃ = mean + ``adjustment`` (C/√n_g), q ← q·exp(eta·ℓ̃) renormalised,
    loss ℓ̃ · q (``group_ids`` is the column ``arange(n_groups)[:, None]``).
    """
    import torch

    group_map = (groups == group_ids).float()
    group_count = group_map.sum(1)
    adjusted = group_map @ losses / (group_count + (group_count == 0).float()) + adjustment
    adv_probs = adv_probs * torch.exp(eta * adjusted.detach())
    adv_probs = adv_probs / adv_probs.sum()
    return adjusted @ adv_probs, adv_probs


def _reference_net_class():
    """A skorch net whose loss is the reference ``LossComputer``'s robust loss (see the module docstring)."""
    import torch
    from skorch import NeuralNet

    class ReferenceGroupDRONet(NeuralNet):
        def __init__(self, *args, group_counts=None, eta=ETA, size_adjustment=SIZE_ADJUSTMENT, **kwargs):
            super().__init__(*args, **kwargs)
            self.group_counts = group_counts
            self.eta = eta
            self.size_adjustment = size_adjustment

        def on_train_begin(self, net, X=None, y=None, **kwargs):
            super().on_train_begin(net, X, y, **kwargs)
            counts = torch.as_tensor(self.group_counts, dtype=torch.float32)
            self.adjustment_ = self.size_adjustment / torch.sqrt(counts)
            self.group_ids_ = torch.arange(len(counts)).unsqueeze(1)
            self.adv_probs_ = torch.ones(len(counts)) / len(counts)

        def infer(self, x, **fit_params):
            return self.module_(x["x"], **fit_params)

        def get_loss(self, y_pred, y_true, X=None, training=False):
            losses = super().get_loss(y_pred, y_true, X=X, training=training)
            loss, adv_probs = reference_loss(losses, X["group"], self.group_ids_, self.adjustment_,
                                             self.adv_probs_, self.eta)
            if training:
                self.adv_probs_ = adv_probs
            return loss

    return ReferenceGroupDRONet


def _net_params(n_inputs, batch_size, epochs):
    import torch

    from fairkit.utils.nn import MLP, Minibatches

    return dict(module=MLP, module__n_inputs=n_inputs, module__n_outputs=2, module__hidden_layer_sizes=HIDDEN,
                optimizer=torch.optim.Adam, lr=LR, max_epochs=epochs, batch_size=batch_size, train_split=None,
                iterator_train=Minibatches, iterator_train__shuffle=True, verbose=0)


def fit_erm(X32, y, groups, batch_size, epochs):
    """The ERM net on the standardized float32 features; returns its per-epoch ``dur``."""
    import torch
    from skorch import NeuralNet

    from fairkit.utils.nn import seeded

    net = NeuralNet(criterion=torch.nn.CrossEntropyLoss, **_net_params(X32.shape[1], batch_size, epochs))
    with seeded(0):
        net.fit({"x": X32}, y.astype(np.int64))
    return net.history[:, "dur"]


def fit_reference(X32, y, groups, batch_size, epochs):
    """The reference-style GroupDRO net; returns its per-epoch ``dur``."""
    import torch

    from fairkit.utils.nn import seeded

    net = _reference_net_class()(criterion=torch.nn.CrossEntropyLoss, criterion__reduction="none",
                                 group_counts=np.bincount(groups),
                                 **_net_params(X32.shape[1], batch_size, epochs))
    with seeded(0):
        net.fit({"x": X32, "group": groups.astype(np.int64)}, y.astype(np.int64))
    return net.history[:, "dur"]


def fit_fairkit(X, y, groups, batch_size, epochs):
    """``GroupDROClassifier`` on the raw features (it standardizes them itself); returns its ``dur``."""
    from fairkit_subgroups._gdro import GroupDROClassifier

    model = GroupDROClassifier(HIDDEN, eta=ETA, size_adjustment=SIZE_ADJUSTMENT, max_epochs=epochs,
                               batch_size=batch_size, lr=LR, random_state=0)
    model.fit(X, y, sensitive_features=groups)
    return [epoch["dur"] for epoch in model.history_]


# ----------------------------------------------------------------------------- epoch cost
def epoch_cost(name, X, y, groups, batch_size, epochs, repeats):
    """Per-epoch time of the three nets by the difference of two fits; one record."""
    first, last = epochs
    X32 = StandardScaler().fit_transform(X).astype(np.float32)
    fits = {"erm": lambda e: fit_erm(X32, y, groups, batch_size, e),
            "fairkit": lambda e: fit_fairkit(X, y, groups, batch_size, e),
            "reference": lambda e: fit_reference(X32, y, groups, batch_size, e)}
    for fit in fits.values():  # warm-up: lazy imports, allocator
        fit(1)
    per_epoch = {method: [] for method in METHODS}
    durations = {method: [] for method in METHODS}
    for _ in range(repeats):
        for method, fit in fits.items():  # interleaved, so that a slow spell of the machine hits all three
            start = time.perf_counter()
            fit(first)
            middle = time.perf_counter()
            durations[method] += fit(last)
            per_epoch[method].append(((time.perf_counter() - middle) - (middle - start)) / (last - first))
    epoch = {method: statistics.median(times) for method, times in per_epoch.items()}
    dur = {method: statistics.median(times) for method, times in durations.items()}
    record = {"data": name, "rows": len(y), "groups": int(groups.max() + 1), "batch_size": batch_size,
              "batches": -(-len(y) // batch_size),
              **{f"{method}_epoch_s": epoch[method] for method in METHODS},
              "fairkit_over_erm_ratio": epoch["fairkit"] / epoch["erm"],
              "reference_over_erm_ratio": epoch["reference"] / epoch["erm"],
              "fairkit_over_erm_dur_ratio": dur["fairkit"] / dur["erm"],
              "within_claim": bool(epoch["fairkit"] / epoch["erm"] <= CLAIM)}
    print(f"epoch cost: {record}", flush=True)
    return record


# ----------------------------------------------------------------------------- one step, taken apart
def _loss_functions(groups):
    """The two GroupDRO losses, ``f(losses, batch_groups, q) -> (loss, new q)``, and their initial q."""
    import torch

    from fairkit_subgroups._gdro_net import group_dro_step

    n_groups = int(groups.max() + 1)
    size_terms = SIZE_ADJUSTMENT / np.sqrt(np.bincount(groups))
    group_ids = torch.arange(n_groups).unsqueeze(1)
    adjustment = torch.as_tensor(size_terms, dtype=torch.float32)
    functions = {
        "fairkit": lambda losses, batch, q: group_dro_step(losses, batch, q, size_terms, ETA),
        "reference": lambda losses, batch, q: reference_loss(losses, batch, group_ids, adjustment, q, ETA)}
    initial = {"fairkit": np.full(n_groups, 1.0 / n_groups),
               "reference": torch.full((n_groups,), 1.0 / n_groups)}
    return functions, initial


def _check_same_update(functions, initial, n_groups):
    """Both losses give the same loss and q on a batch holding every group (where their rules agree)."""
    import torch

    losses, batch_groups = torch.rand(4 * n_groups), torch.arange(n_groups).repeat(4)
    (ours, q_ours), (theirs, q_theirs) = (functions[name](losses, batch_groups, initial[name])
                                          for name in ("fairkit", "reference"))
    assert torch.allclose(ours, theirs, rtol=1e-5) and np.allclose(q_ours, q_theirs.numpy(), rtol=1e-5)


def _op_count(loss_function, weights, batch_groups):
    """Torch operations of one forward and backward pass of a loss on one batch of per-sample losses.

    The top-level operators the profiler records (forward) plus the autograd nodes the
    backward pass runs, less the two any scalar loss has (``ones_like`` and the leaf's
    ``AccumulateGrad``).
    """
    import torch
    from torch.profiler import ProfilerActivity, profile

    losses = torch.rand(len(batch_groups), requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        loss_function(losses, batch_groups, weights)[0].backward()
    top = [event.name for event in profiler.events() if event.cpu_parent is None]
    counted = [name for name in top if name.startswith(("aten::", "autograd::engine"))]
    return len(counted) - 2


def step_breakdown(record, X, y, groups, repeats):
    """µs per batch of bare training steps outside skorch, and the torch operations of each loss."""
    import torch

    from fairkit.utils.nn import MLP, Minibatches, seeded

    batch_size = record["batch_size"]
    X32 = StandardScaler().fit_transform(X).astype(np.float32)
    data = SimpleNamespace(X={"x": X32, "group": groups.astype(np.int64)}, y=y.astype(np.int64))
    functions, initial = _loss_functions(groups)
    _check_same_update(functions, initial, record["groups"])

    def train_epoch(method, backward_through_loss=True):
        """One epoch of bare steps; returns seconds per batch.

        ``method`` None is ERM; otherwise its GroupDRO loss is computed on every batch and,
        unless ``backward_through_loss`` is false (then the step backpropagates the mean
        loss), differentiated.
        """
        module = MLP(X32.shape[1], 2, HIDDEN)
        optimizer = torch.optim.Adam(module.parameters(), lr=LR)
        criterion = torch.nn.CrossEntropyLoss(reduction="mean" if method is None else "none")
        weights, batches = initial.get(method), Minibatches(data, batch_size, shuffle=True)
        start = time.perf_counter()
        for x, target in batches:
            optimizer.zero_grad()
            loss = criterion(module(x["x"]), target)
            if method is not None and backward_through_loss:
                loss, weights = functions[method](loss, x["group"], weights)
            elif method is not None:
                weights = functions[method](loss.detach(), x["group"], weights)[1]
                loss = loss.mean()
            loss.backward()
            optimizer.step()
        return (time.perf_counter() - start) / len(batches)

    variants = {"erm": (None, True), **{name: (name, True) for name in functions},
                **{f"{name}_no_grad": (name, False) for name in functions}}
    times = {name: [] for name in variants}
    with seeded(0):
        for variant in variants.values():  # warm-up
            train_epoch(*variant)
        for _ in range(repeats):
            for name, variant in variants.items():
                times[name].append(train_epoch(*variant))
    us = {name: 1e6 * statistics.median(values) for name, values in times.items()}
    batch_groups = data.X["group"][:batch_size]
    result = {"data": record["data"], "groups": record["groups"], "batch_size": batch_size,
              "erm_step_us": us["erm"],
              "skorch_us": 1e6 * record["erm_epoch_s"] / record["batches"] - us["erm"],
              "skorch_fairkit_extra_us": 1e6 * (record["fairkit_epoch_s"] - record["erm_epoch_s"])
              / record["batches"]}
    for name in functions:
        result |= {f"{name}_ops": _op_count(functions[name], initial[name], torch.as_tensor(batch_groups)),
                   f"{name}_extra_us": us[name] - us["erm"],
                   f"{name}_update_us": us[f"{name}_no_grad"] - us["erm"],
                   f"{name}_autograd_us": us[name] - us[f"{name}_no_grad"]}
    print(f"step: {result}", flush=True)
    return result


# ----------------------------------------------------------------------------- the study
STUDY_SPEC = {"Y": "Y", "A": "A", "S": "S", "AY": ["A", "Y"], "SY": ["S", "Y"], "YAS": ["Y", "A", "S"],
              "Random": RandomGroups(4), "noisy_AY_10": Noisy(["A", "Y"], 0.1),
              "noisy_AY_50": Noisy(["A", "Y"], 0.5)}
STUDY_SEEDS = 5
ADULT_TEST_SIZE = 0.3


def study_methods(quick, gdro_epochs, gdro_batch):
    """Reweighting and resampling around a logistic regression; GroupDRO on the same linear model."""
    return {"reweight": GroupBalancedClassifier(LogisticRegression(max_iter=2000)),
            "resample": GroupBalancedClassifier(LogisticRegression(max_iter=2000), mode="resample"),
            "GroupDRO": GroupDROClassifier((), eta=ETA, max_epochs=2 if quick else gdro_epochs,
                                           batch_size=gdro_batch, lr=1e-2)}


def digits_study_data(n_draws):
    """``n_draws`` draws of the digits with the artefact, stacked; pixels scaled to [0, 1]."""
    data = stack_draws(make_digits_artefact(random_state=seed) for seed in range(n_draws))
    return data.X / 16, data.y, data.attributes, data.cv


def adult_study_data(n_splits, n_rows=None):
    """Adult with A = race other than White, S = female; random splits, each test part balanced.

    Each split holds out ``ADULT_TEST_SIZE`` of the rows and cuts its test part to the same
    count in each of the 8 cells Y × A × S (the balanced test set).
    """
    X, y, cells = adult(n_rows)
    attributes = pd.DataFrame({"Y": y, "A": (cells["race"] != "White").astype(int).to_numpy(),
                               "S": (cells["sex"] == "Female").astype(int).to_numpy()})
    cell = attributes.groupby(["Y", "A", "S"]).ngroup().to_numpy()
    cv = []
    for seed in range(n_splits):
        order = np.random.default_rng(seed).permutation(len(y))
        test, train = np.split(order, [int(ADULT_TEST_SIZE * len(y))])
        per_cell = np.bincount(cell[test]).min()
        balanced = np.concatenate([test[cell[test] == c][:per_cell] for c in range(cell.max() + 1)])
        cv.append((np.sort(train), np.sort(balanced)))
    return X, y, attributes, cv


def study(quick):
    """Every method × grouping on the digits and on Adult: scores, paired differences to ERM, Spearman."""
    n_seeds = 2 if quick else STUDY_SEEDS
    data_sets = {"digits": (digits_study_data(n_seeds), 100, 128),
                 "Adult": (adult_study_data(n_seeds, 6000 if quick else None), 20, 256)}
    rows, agreement = [], []
    for data_name, ((X, y, attributes, cv), epochs, batch) in data_sets.items():
        groupings = {"ERM": np.zeros(len(y)), **make_groupings(attributes, STUDY_SPEC, random_state=0)}
        for method, estimator in study_methods(quick, epochs, batch).items():
            result = compare_groupings(estimator, X, y, groupings, eval_groups=attributes, cv=cv,
                                       random_state=0, n_jobs=2)
            paired = result.paired("ERM").add_prefix("vs_ERM_")
            for name, row in result.summary.iterrows():
                rows.append({"data": data_name, "method": method, "grouping": name, "n_seeds": len(cv),
                             **row.to_dict(), **(paired.loc[name].to_dict() if name in paired.index else {}),
                             "fit_seconds": result.folds.loc[name, "fit_time"].mean()})
            agreement.append({"data": data_name, "method": method, "n_groupings": len(groupings),
                              "n_seeds": len(cv), "spearman": result.spearman,
                              "spearman_pvalue": result.spearman_pvalue})
            print(f"study: {data_name} {method} spearman {result.spearman:.2f}", flush=True)
    return rows, agreement


# ----------------------------------------------------------------------------- run
def gdro_cost(quick):
    """The ``gdro_cost`` and ``step`` tables."""
    if quick:
        datasets = [("adult", adult_groups(6000), 256),
                    *(("synthetic", synthetic(10_000, k), 256) for k in (2, 32))]
        epochs, repeats = (1, 2), 3
    else:
        adult_data = adult_groups()
        datasets = [("adult", adult_data, 256), ("adult", adult_data, 512),
                    *(("synthetic", synthetic(100_000, k), 256) for k in (2, 8, 32))]
        epochs, repeats = (1, 4), 7
    cost, steps = [], []
    for name, (X, y, groups), batch_size in datasets:
        cost.append(epoch_cost(name, X, y, groups, batch_size, epochs, repeats))
        steps.append(step_breakdown(cost[-1], X, y, groups, repeats))
    return cost, steps


def run(quick=False):
    """Every section of the benchmark; returns its named tables."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # every net single-threaded, as the estimator trains
    try:
        cost, steps = gdro_cost(quick)
        rows, agreement = study(quick)
    finally:
        torch.set_num_threads(threads)
    return {"quick": quick, "claim_ratio": CLAIM,
            "worst_fairkit_over_erm_ratio": max(record["fairkit_over_erm_ratio"] for record in cost),
            "gdro_cost": cost, "step": steps, "study": rows, "rank_agreement": agreement}


if __name__ == "__main__":
    main("subgroups", run, PACKAGES)
