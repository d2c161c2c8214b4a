"""Robustness curves: a model's accuracy and group gaps under attacks of growing size, and the audit check.

The evaluation of "On the Alignment between Fairness and Accuracy: from the Perspective of
Adversarial Robustness" (ICML 2025, OpenReview ckcXwR8cQS; an earlier version: J. Chai and
X. Wang, arXiv:2304.00061): accuracy and the equalized-odds gap against the size ε of an
attack on accuracy and of an attack on fairness, here beside random noise of the same size,
the baseline that says whether an attack finds more than any perturbation would.
"""

import inspect
import numbers
import warnings

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.stats import binomtest
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from fairkit import metrics
from fairkit.exceptions import FairkitWarning
from fairkit.utils import (
    check_2d,
    check_numeric_features,
    check_same_index,
    local_generator,
    local_random_state,
    resolve_sensitive_features,
)
from fairkit_robust._attacks import NOTIONS, AccuracyAttack, FairnessAttack, _sensitive_positions, _torch_side

__all__ = ["plot_robustness_curve", "robustness_check", "robustness_curve"]

#: The perturbations of a curve: PGD on the loss, PGD on the soft gap, uniform noise in the same ball.
ATTACKS = ("accuracy", "fairness", "random")
#: The group gaps of :mod:`fairkit.metrics` in a curve, each with its interval.
GAPS = ("demographic_parity_difference", "equalized_odds_difference", "true_positive_rate_difference",
        "false_positive_rate_difference")


def robustness_curve(model, X, y, sensitive_features=None, *, eps_grid=(0.0, 0.01, 0.02, 0.05, 0.1, 0.2),
                     attacks=ATTACKS, notion="equalized_odds", norm="linf", n_iter=40, feature_mask=None,
                     bounds=None, ci=0.95, random_state=None):
    """Accuracy and every group gap of a fitted classifier when its inputs are perturbed within ε.

    The evaluation of Chai and Wang ("On the Alignment between Fairness and Accuracy: from
    the Perspective of Adversarial Robustness", ICML 2025, OpenReview ckcXwR8cQS;
    arXiv:2304.00061). For each attack and each ε of ``eps_grid``, ``X`` is perturbed
    within the ε-ball around each sample: ``"accuracy"`` by :class:`AccuracyAttack` (PGD
    on the cross-entropy), ``"fairness"`` by :class:`FairnessAttack` (PGD on the soft gap
    of ``notion``), ``"random"`` by noise drawn uniformly in the same ball, under the same
    mask and bounds (the baseline against which an attack's effect is read). The model
    predicts on the perturbed samples (given ``sensitive_features`` when its ``predict``
    takes them), and the row holds its accuracy, the four group gaps of
    :mod:`fairkit.metrics`, each with its interval at level ``ci``, and the soft gap of
    ``notion`` on its probabilities, which the fairness attack maximises. ε = 0 is the
    clean evaluation, computed once and shared by every attack.

    Parameters
    ----------
    model : fitted binary classifier
        With ``predict``, and of a kind the attacks handle (see
        :meth:`FairnessAttack.perturb`): a skorch net, a fairkit network classifier, a
        linear scikit-learn classifier, or any classifier with ``predict_proba``, attacked
        as a black box (weaker; a ``FairkitWarning`` says so). A classifier whose
        ``predict_proba`` takes ``sensitive_features`` (fairkit's ``RandomizedFairBOC``)
        is attacked as a black box that is given each sample's groups.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The samples, as the model reads them.
    y : array-like of shape (n_samples,)
        Their labels, among the model's two classes (``classes_[1]`` is the positive one).
    sensitive_features : array-like, Series or DataFrame, default=None
        The sensitive groups (several columns: intersectional groups); or none, when the
        model has ``sensitive_cols``.
    eps_grid : sequence of float >= 0, default=(0.0, 0.01, 0.02, 0.05, 0.1, 0.2)
        The sizes of the ball (the paper's grid), in the units of ``X``; sorted in the result.
    attacks : sequence of {"accuracy", "fairness", "random"}, default=("accuracy", "fairness", "random")
        The perturbations, in the order of the result's rows.
    notion : {"equalized_odds", "demographic_parity", "equal_opportunity"}, default="equalized_odds"
        The notion of the fairness attack and of the ``soft_gap`` column.
    norm : {"linf", "l2"}, default="linf"
        The ball, for every attack.
    n_iter : int, default=40
        The gradient steps of each attack (the paper's 40).
    feature_mask : bool array of shape (n_features,), column name or position, or list of them, default=None
        The features every perturbation may move; the others (one-hot columns, say) stay
        as they are, and the model's ``sensitive_cols`` never move. None: every feature.
    bounds : None, "data" or (lower, upper), default=None
        Per-feature bounds of the perturbed values, for every perturbation, as in
        :class:`FairnessAttack` (``"data"``: the range of each feature in ``X``).
    ci : float in (0, 1), default=0.95
        The level of the intervals: exact binomial (Clopper-Pearson) for the accuracy, the
        metrics' own ``ci=`` for the gaps. They hold for a new sample of rows; the attack is
        part of what is measured, not a source of sampling error.
    random_state : int, RandomState instance or None, default=None
        The seed of the three perturbations, each drawn from it in the order above (so a
        curve with fewer attacks has the same rows); an attack uses its seed at every ε
        (common random numbers: the curve moves with ε, not with new draws).

    Returns
    -------
    curve : DataFrame
        Indexed by ``(attack, eps)``, with columns ``accuracy``, ``accuracy_low``,
        ``accuracy_high``, then for each gap of :data:`GAPS` ``<gap>``, ``<gap>_low`` and
        ``<gap>_high``, then ``soft_gap`` (of ``notion``). ``curve.attrs`` holds ``notion`` and ``ci``.

    Raises
    ------
    ValueError
        If an argument is invalid (a negative or repeated ε, an unknown attack or notion,
        labels outside the model's classes, no sensitive groups, ...); nothing is attacked then.

    See Also
    --------
    plot_robustness_curve : the curve as a figure.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit.datasets import make_fair_classification
    >>> from fairkit_robust import robustness_curve
    >>> X, y, group = make_fair_classification(500, 4, random_state=0)
    >>> model = LogisticRegression().fit(X, y)
    >>> curve = robustness_curve(model, X, y, group, eps_grid=[0, 0.2], random_state=0)
    >>> for (attack, eps), row in curve.iterrows():
    ...     print(f"{attack:8} {eps:.1f}  accuracy {row.accuracy:.2f}, "
    ...           f"equalized-odds gap {row.equalized_odds_difference:.2f}")
    accuracy 0.0  accuracy 0.79, equalized-odds gap 0.13
    accuracy 0.2  accuracy 0.64, equalized-odds gap 0.24
    fairness 0.0  accuracy 0.79, equalized-odds gap 0.13
    fairness 0.2  accuracy 0.80, equalized-odds gap 0.44
    random   0.0  accuracy 0.79, equalized-odds gap 0.13
    random   0.2  accuracy 0.79, equalized-odds gap 0.17
    """
    eps_grid, attacks = _check_eps_grid(eps_grid), _check_attacks(attacks)
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {', '.join(map(repr, NOTIONS))}; got {notion!r}.")
    if not (isinstance(ci, numbers.Real) and 0 < ci < 1):
        raise ValueError(f"ci must be a level between 0 and 1 (such as 0.95); got {ci!r}.")
    template = FairnessAttack(notion, eps=float(eps_grid[-1]), norm=norm, n_iter=n_iter,
                              feature_mask=feature_mask, bounds=bounds)
    template._validate_params()  # norm, n_iter and the kinds of feature_mask and bounds
    if sparse.issparse(X):
        raise TypeError("X is a sparse matrix; robustness_curve needs a dense array or a DataFrame "
                        "(X.toarray()).")
    check_same_index(X=X, y=y, sensitive_features=sensitive_features)
    X = X if isinstance(X, pd.DataFrame) else np.asarray(X)
    check_2d(model, X)
    if isinstance(model, BaseEstimator):
        check_is_fitted(model)
    if not hasattr(model, "predict"):
        raise TypeError(f"robustness_curve needs a classifier with predict; {type(model).__name__} has none "
                        "(for a torch module, use FairnessAttack and AccuracyAttack directly).")
    groups = resolve_sensitive_features(model, X, sensitive_features)
    if groups is None:
        raise ValueError("robustness_curve needs the sensitive groups: pass sensitive_features=..., or use a "
                         "model constructed with sensitive_cols=...")
    y, positive = _check_labels(y, X.shape[0], model)
    ball = _Ball(template, model, X)
    view = _AttackedView(model, X, groups, ball, bounds is not None)

    rng = local_random_state(random_state)
    seeds = dict(zip(ATTACKS, rng.randint(np.iinfo(np.int32).max, size=len(ATTACKS)), strict=True))
    shared = dict(norm=norm, n_iter=n_iter, feature_mask=view.mask, bounds=view.bounds)
    attackers = {"accuracy": AccuracyAttack(**shared, random_state=seeds["accuracy"]),
                 "fairness": FairnessAttack(notion, **shared, random_state=seeds["fairness"])}
    gap_of = FairnessAttack(notion, random_state=0)  # its objective at X, no step: the soft gap
    predict_params = {}
    if _takes(model.predict, "sensitive_features"):
        predict_params["sensitive_features"] = sensitive_features

    def evaluate(X_eval):
        y_pred = np.asarray(model.predict(X_eval, **predict_params))
        row = _scores(y, y_pred, positive, groups, ci)
        row["soft_gap"] = _soft_gap(gap_of, view.model, view.input(X_eval), y, sensitive_features)
        return row

    clean = evaluate(X)  # also before any attack: a model the curve cannot score fails here
    rows = {}
    for attack in attacks:
        for eps in eps_grid:
            if eps == 0:
                rows[attack, eps] = clean
                continue
            if attack == "random":
                X_adv = ball.noise(X, eps, norm, local_generator(seeds["random"]))
            else:
                attacker = attackers[attack].set_params(eps=eps)
                X_adv = view.output(attacker.perturb(view.model, view.input(X), y, sensitive_features))
            rows[attack, eps] = evaluate(X_adv)
    curve = pd.DataFrame.from_dict(rows, orient="index")
    curve.index = pd.MultiIndex.from_tuples(list(rows), names=["attack", "eps"])
    curve.attrs.update(notion=notion, ci=ci)
    return curve


def robustness_check(model, X, y, sensitive_features, *, option, random_state, feature_names=None):
    """Accuracy and group gaps under accuracy and fairness attacks and random noise of size up to EPS.

    The check behind ``fairkit audit --robustness EPS`` (``fairkit.audit.audit(...,
    checks={"robustness": EPS})``): :func:`robustness_curve` at ε = 0, EPS/4, EPS/2 and EPS,
    under the accuracy attack, the equalized-odds fairness attack and uniform noise in the
    same ball, moving only the audit's standardised numeric columns (``numeric__*``; the
    one-hot columns stay) within the range each takes in the test set (``bounds="data"``).
    ε is in standard deviations of those columns. A model the attacks cannot take fails
    the check with the reason; a model scored through ``predict_proba`` alone (fairkit's
    ``RandomizedFairBOC``, say) is attacked as a black box, a weaker attack whose figures
    bound the worst case from below (the audit's notes say so).

    Parameters
    ----------
    model : fitted binary classifier
    X : ndarray of shape (n_samples, n_features)
        The audit's preprocessed test features.
    y : ndarray of shape (n_samples,)
        The test labels.
    sensitive_features : DataFrame
        The test rows' sensitive columns.
    option : float > 0
        EPS, the largest attack size.
    random_state : int, RandomState instance or None
        The seed of the perturbations.
    feature_names : list of str, default=None
        The names of X's columns; those starting with ``numeric__`` are moved. None: every
        column is moved.

    Returns
    -------
    table : DataFrame
        Indexed by ``(attack, eps)``: ``accuracy`` and ``equalized_odds_difference`` with
        their 95 % intervals (``_low``, ``_high``), and ``demographic_parity_difference``.
    """
    if isinstance(option, bool) or not isinstance(option, numbers.Real) or not 0 < option < np.inf:
        raise ValueError(f"the robustness check's option is the largest attack size EPS, a number above 0 "
                         f"(such as --robustness 0.1); got {option!r}.")
    feature_mask = None
    if feature_names is not None:
        feature_mask = np.array([str(name).startswith("numeric__") for name in feature_names])
        if not feature_mask.any():
            raise ValueError("the robustness check moves the standardised numeric features (numeric__*) "
                             "only, and the audited table has none: every feature is one-hot encoded.")
    eps = float(option)
    curve = robustness_curve(model, X, y, sensitive_features, eps_grid=(0.0, eps / 4, eps / 2, eps),
                             attacks=ATTACKS, notion="equalized_odds", feature_mask=feature_mask,
                             bounds="data", random_state=random_state)
    gap = "equalized_odds_difference"
    return curve[["accuracy", "accuracy_low", "accuracy_high", gap, f"{gap}_low", f"{gap}_high",
                  "demographic_parity_difference"]]


def plot_robustness_curve(curve, metric="equalized_odds_difference", ax=None):
    """Plot a robustness curve: accuracy and a gap against ε, one line per attack, intervals as bands.

    Needs matplotlib (``pip install "fairkit-robust[plot]"``).

    Parameters
    ----------
    curve : DataFrame
        The result of :func:`robustness_curve`.
    metric : str, default="equalized_odds_difference"
        The column shown in the second panel, with its interval when the curve has one
        (``soft_gap`` has none).
    ax : sequence of two matplotlib Axes, default=None
        Where to draw accuracy and ``metric``; None: a new figure with two panels side by side.

    Returns
    -------
    axes : sequence of two Axes
        The accuracy panel and the ``metric`` panel.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit.datasets import make_fair_classification
    >>> from fairkit_robust import plot_robustness_curve, robustness_curve
    >>> X, y, group = make_fair_classification(300, 3, random_state=0)
    >>> model = LogisticRegression().fit(X, y)
    >>> curve = robustness_curve(model, X, y, group, eps_grid=[0, 0.1], n_iter=10, random_state=0)
    >>> accuracy_panel, gap_panel = plot_robustness_curve(curve)
    >>> len(gap_panel.get_lines())  # one line per attack
    3
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    if not isinstance(curve, pd.DataFrame) or list(curve.index.names) != ["attack", "eps"]:
        raise ValueError("curve must be the DataFrame that robustness_curve returns, indexed by "
                         "(attack, eps).")
    shown = [column for column in curve.columns
             if not column.endswith(("_low", "_high")) and column != "accuracy"]
    if metric not in shown:
        raise ValueError(f"metric {metric!r} is not a gap of the curve; choose one of {shown}.")
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError('plot_robustness_curve needs matplotlib: pip install "fairkit-robust[plot]"'
                          ) from error
    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True, layout="constrained")
    axes = np.ravel(np.asarray(ax, dtype=object))
    if len(axes) != 2:
        raise ValueError(f"ax must be two Axes, for accuracy and {metric}; got {len(axes)}.")
    for panel, column in zip(axes, ("accuracy", metric), strict=True):
        for attack, rows in curve.groupby(level="attack", sort=False):
            eps = rows.index.get_level_values("eps")
            (line,) = panel.plot(eps, rows[column], marker="o", label=attack)
            if {f"{column}_low", f"{column}_high"} <= set(curve.columns):
                panel.fill_between(eps, rows[f"{column}_low"], rows[f"{column}_high"], color=line.get_color(),
                                   alpha=0.15, linewidth=0)
        panel.set_xlabel("ε (size of the perturbation)")
        panel.set_ylabel(column.replace("_", " "))
    axes[0].legend(title="attack", fontsize="small")
    level = curve.attrs.get("ci")
    axes[0].set_title(f"bands: {level:.0%} intervals" if level else "bands: intervals", fontsize="small")
    return axes


# --- validation -----------------------------------------------------------------------------------


def _check_eps_grid(eps_grid):
    """``eps_grid`` as a sorted float array, or a ValueError naming the problem."""
    try:
        grid = np.asarray(eps_grid, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"eps_grid must be a sequence of numbers >= 0; got {eps_grid!r}.") from None
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"eps_grid must be a non-empty 1-D sequence of sizes >= 0; got {eps_grid!r}.")
    if not np.all(np.isfinite(grid)) or np.any(grid < 0):
        bad = grid[~(np.isfinite(grid) & (grid >= 0))][0]
        raise ValueError(f"eps_grid holds {bad}; every size must be a finite number >= 0.")
    if len(np.unique(grid)) < len(grid):
        raise ValueError(f"eps_grid repeats a size ({eps_grid!r}); give each once.")
    return np.sort(grid)


def _check_attacks(attacks):
    """``attacks`` as a tuple of known names (one string: that attack)."""
    attacks = (attacks,) if isinstance(attacks, str) else tuple(attacks)
    unknown = [attack for attack in attacks if attack not in ATTACKS]
    if unknown or not attacks or len(set(attacks)) < len(attacks):
        problem = (f"{unknown[0]!r} is not one" if unknown else "it is empty" if not attacks
                   else "it repeats one")
        raise ValueError(f"attacks must be distinct names among {', '.join(map(repr, ATTACKS))}; {problem}.")
    return attacks


def _check_labels(y, n_samples, model):
    """``y`` as an array of the model's labels, and the positive label (``classes_[1]``)."""
    classes = np.asarray(getattr(model, "classes_", [0, 1]))
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n_samples:
        raise ValueError(f"y must be 1-D with one label per sample of X ({n_samples}); got shape {y.shape}.")
    if len(classes) != 2:
        raise ValueError(f"{type(model).__name__} has {len(classes)} classes; robustness_curve handles "
                         "binary classification only.")
    known = np.isin(y, classes)
    if not known.all():
        raise ValueError(f"y holds labels that are not among the model's classes {classes.tolist()}, e.g. "
                         f"{y[~known][0]!r}.")
    return y, classes[1]


def _takes(method, name):
    return name in inspect.signature(method).parameters


# --- the ball, and the model as the attacks see it ----------------------------------------------------


class _Ball:
    """The features every perturbation may move and their bounds, over the columns of X; random noise in it.

    Resolved once, with the attacks' own rules (``feature_mask`` without the model's
    ``sensitive_cols``; ``bounds``), so that the noise and the attacks share one ball.
    """

    def __init__(self, template, model, X):
        self.movable = template._movable(X, _sensitive_positions(model, X))
        self.columns = np.flatnonzero(self.movable)
        moved = X.iloc[:, self.columns] if isinstance(X, pd.DataFrame) else X[:, self.columns]
        check_numeric_features(model, moved)
        self.values = check_array(moved, dtype=np.float64)
        self.lower, self.upper = np.full(X.shape[1], -np.inf), np.full(X.shape[1], np.inf)
        if template.bounds is not None:
            everywhere = np.ones(len(self.columns), dtype=bool)
            lower, upper = template._bounds(X, self.values, self.columns, everywhere)
            self.lower[self.columns], self.upper[self.columns] = lower, upper

    def noise(self, X, eps, norm, generator):
        """X with its movable features moved uniformly in the ε-ball, then into the bounds."""
        shape = self.values.shape
        if norm == "linf":
            delta = generator.uniform(-eps, eps, size=shape)
        else:  # uniform in the l2 ball of the k movable features: a uniform direction, radius eps * U^(1/k)
            direction = generator.standard_normal(shape)
            radius = eps * generator.random((shape[0], 1)) ** (1 / shape[1])
            delta = direction / np.linalg.norm(direction, axis=1, keepdims=True) * radius
        moved = np.clip(self.values + delta, self.lower[self.columns], self.upper[self.columns])
        return _with_columns(X, self.columns, moved)


def _with_columns(X, positions, values):
    """A copy of X with its columns at ``positions`` replaced by ``values`` (as floats)."""
    if isinstance(X, pd.DataFrame):
        out = X.copy()
        for position, column in zip(positions, values.T, strict=True):
            dtype = out.dtypes.iloc[position]
            out.isetitem(position, column.astype(dtype if dtype.kind == "f" else np.float64))
        return out
    out = X.astype(X.dtype if X.dtype.kind in "fO" else np.float64, copy=True)
    out[:, positions] = values
    return out


class _GroupsAsColumns:
    """A classifier whose ``predict_proba`` needs the sensitive features, as one that reads them from X.

    The attacks give a black-box model X alone. This one reads each sample's row number
    from X's last column, which the attacks keep fixed (it is masked), and passes that
    row's sensitive features to the model's ``predict_proba``.
    """

    def __init__(self, model, groups, columns):
        self.model, self.groups, self.columns = model, groups, columns
        self.classes_ = model.classes_

    def predict_proba(self, X):
        features, rows = X[:, :-1], X[:, -1].astype(np.intp)
        if self.columns is not None:
            features = pd.DataFrame(features, columns=self.columns)
        groups = self.groups.iloc[rows].reset_index(drop=True)
        return self.model.predict_proba(features, sensitive_features=groups)


class _AttackedView:
    """The model, its input, mask and bounds as the attacks take them.

    Most models are attacked as they are. One whose ``predict_proba`` needs the sensitive
    features (and has no ``sensitive_cols`` to read them from X) is attacked through
    :class:`_GroupsAsColumns`, on X with a column of row numbers that never moves.
    """

    def __init__(self, model, X, groups, ball, bounded):
        self.X, self.moved, self.mask = X, ball.columns, ball.movable
        self.bounds = (ball.lower, ball.upper) if bounded else None
        self.wrapped = (hasattr(model, "predict_proba") and _takes(model.predict_proba, "sensitive_features")
                        and getattr(model, "sensitive_cols", None) is None)
        self.model = model
        if self.wrapped:
            check_numeric_features(model, X)
            named = isinstance(X, pd.DataFrame) and hasattr(model, "feature_names_in_")
            columns = X.columns if named else None
            # named after the model, so that the attacks' messages and warnings name it
            adapter = type(type(model).__name__, (_GroupsAsColumns,), {"__module__": __name__})
            self.model = adapter(model, groups, columns)
            self.mask = np.append(ball.movable, False)
            if bounded:
                self.bounds = (np.append(ball.lower, -np.inf), np.append(ball.upper, np.inf))

    def input(self, X):
        """What the attacked model reads for the samples X."""
        if not self.wrapped:
            return X
        return np.column_stack([check_array(X, dtype=np.float64), np.arange(X.shape[0], dtype=np.float64)])

    def output(self, X_adv):
        """The perturbed samples in the form of X, from the attack's result."""
        return _with_columns(self.X, self.moved, X_adv[:, self.moved]) if self.wrapped else X_adv


# --- the scores of one row ----------------------------------------------------------------------------


def _scores(y, y_pred, positive, groups, ci):
    """Accuracy and every gap of :data:`GAPS`, each with its interval at level ``ci``."""
    correct = y_pred == y
    accuracy = binomtest(int(correct.sum()), len(correct)).proportion_ci(confidence_level=ci, method="exact")
    row = {"accuracy": float(correct.mean()), "accuracy_low": accuracy.low, "accuracy_high": accuracy.high}
    y_true, y_hat = (y == positive).astype(int), (y_pred == positive).astype(int)
    for gap in GAPS:
        estimate = getattr(metrics, gap)(y_true, y_hat, sensitive_features=groups, ci=ci)
        row.update({gap: estimate.value, f"{gap}_low": estimate.low, f"{gap}_high": estimate.high})
    return row


def _soft_gap(gap_of, model, X, y, sensitive_features):
    """The soft gap of ``gap_of.notion`` at X: the fairness attack's objective, evaluated without a step."""
    torch_side = _torch_side()  # first: without torch, its ImportError names the extra to install
    import torch

    with torch_side.single_threaded(), warnings.catch_warnings():
        # no step is taken here: the attacks' warning that a black box's gradient is estimated does not apply
        warnings.filterwarnings("ignore", message=".* has no closed-form gradient", category=FairkitWarning)
        problem = gap_of._problem(torch_side, model, X, y, sensitive_features)
        with torch.no_grad():
            return float(problem.objective(problem.X_model))
