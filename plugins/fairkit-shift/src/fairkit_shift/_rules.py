"""Readable rules for the subgroups SHIFT detects: a shallow tree fitted to a detector, read as a DNF.

The test of Singh et al., "'Who experiences large model decay and why?' A hierarchical framework for
diagnosing heterogeneous performance drift", ICML 2025 (arXiv:2506.00756), is about a detector
d: X → {0, 1} built from nuisance models; to say *who* the detected subgroup is, a shallow decision
tree is fitted to d on the training halves, and the union of its paths to leaves predicting 1 is the
rule (the reference code reports feature importances instead). The rule is a description of d, not
d itself: its agreement with d on the test halves (``fidelity``) says how faithful it is.
"""

import math
import numbers
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_consistent_length, check_scalar, column_or_1d
from sklearn.utils.validation import check_array

from fairkit.utils import local_random_state

__all__ = ["SUBGROUP_LOSS_COLUMNS", "SubgroupRule", "fit_rule", "subgroup_losses"]

DECOMPOSITIONS = ("covariate", "outcome")

#: Columns of :func:`subgroup_losses` (the diagnoser's ``subgroup_losses_``).
SUBGROUP_LOSS_COLUMNS = ["decomposition", "subgroup", "domain", "mean_loss", "std_error", "n"]


@dataclass(frozen=True)
class _Condition:
    """One feature's condition in a conjunction: its value in (lower, upper], or missing when ``missing``.

    A categorical feature is compared by category: ``categories`` are the allowed ones (in the
    column's order), ``known`` all those seen when the rule was fitted; an unseen category counts
    as missing.
    """

    feature: int
    name: str
    lower: float = -math.inf
    upper: float = math.inf
    missing: bool = True
    categories: tuple | None = None
    known: tuple | None = None

    def holds(self, column):
        """Boolean mask of the rows of ``column`` (one feature's values) that satisfy the condition."""
        if self.categories is None:
            values = np.asarray(column, dtype=np.float64)
            inside = (values > self.lower) & (values <= self.upper)
            return inside | (self.missing & np.isnan(values))
        values = pd.Series(np.asarray(column, dtype=object))
        inside = values.isin(self.categories).to_numpy()
        return inside | (self.missing & ~values.isin(self.known).to_numpy())

    @property
    def is_trivial(self):
        """Whether every row satisfies the condition (it is then left out of the rule)."""
        if self.categories is None:
            return self.missing and self.lower == -math.inf and self.upper == math.inf
        return self.missing and len(self.categories) == len(self.known)

    @property
    def text(self):
        if self.categories is None:
            if self.lower >= self.upper:
                return f"{self.name} is missing"
            if self.lower == -math.inf and self.upper == math.inf:
                return f"{self.name} is not missing"
            if self.lower == -math.inf:
                text = f"{self.name} <= {self.upper:.4g}"
            elif self.upper == math.inf:
                text = f"{self.name} > {self.lower:.4g}"
            else:
                text = f"{self.lower:.4g} < {self.name} <= {self.upper:.4g}"
        elif not self.categories:
            return f"{self.name} is missing"
        elif len(self.categories) == len(self.known):
            return f"{self.name} is not missing"
        elif len(self.categories) == 1:
            text = f"{self.name} == {self.categories[0]!r}"
        else:
            text = f"{self.name} in {{{', '.join(repr(category) for category in self.categories)}}}"
        return text + (" (or missing)" if self.missing else "")


@dataclass(frozen=True)
class SubgroupRule:
    """A detected subgroup as a readable rule: a union of conjunctions of conditions on X.

    Made by :func:`fit_rule`, completed by :meth:`evaluate` (the diagnoser exposes them as
    ``subgroups_``). Conditions are on the columns of X by name: numeric ones as intervals
    ("x1 > 1.27", "0.1 < x2 <= 0.5"), categorical ones (a DataFrame's non-numeric columns) as
    category sets ("marital_status in {'Divorced', 'Separated'}"). "(or missing)" marks a
    condition that missing values (and, for a categorical column, categories not seen when the
    rule was fitted) also satisfy.

    Attributes
    ----------
    decomposition : {"covariate", "outcome"}
        The test whose detector the rule describes.
    text : str
        The rule, e.g. ``"x1 > 1.27 and x3 <= 0.52  or  x1 > 1.27 and x5 > 2"``; ``"everyone"`` or
        ``"none"`` for a detector the tree cannot split.
    fidelity : float
        Share of the held-out rows on which the rule agrees with the detector (NaN before
        :meth:`evaluate`).
    prevalence_source, prevalence_target : float
        Share of each domain's held-out rows in the rule's subgroup (NaN before :meth:`evaluate`).
    feature_names : tuple of str
        The columns the rule takes, in order.
    terms : tuple of tuples of conditions
        The conjunctions whose union is the rule (``()``: none; ``((),)``: everyone).
    names_given : bool
        Whether ``feature_names`` came from the user or a DataFrame (then a DataFrame given to
        :meth:`predicate` must have them); else a DataFrame of the right width is read by position.
    """

    decomposition: str
    terms: tuple = field(repr=False)
    feature_names: tuple = field(repr=False)
    names_given: bool = field(repr=False)
    fidelity: float = math.nan
    prevalence_source: float = math.nan
    prevalence_target: float = math.nan

    @property
    def text(self):
        if not self.terms:
            return "none"
        if self.terms == ((),):
            return "everyone"
        return "  or  ".join(" and ".join(condition.text for condition in term) for term in self.terms)

    def __str__(self):
        return self.text

    def __repr__(self):
        return (f"SubgroupRule({self.decomposition}: {self.text!r}, fidelity={self.fidelity:.3g}, "
                f"prevalence_source={self.prevalence_source:.3g}, "
                f"prevalence_target={self.prevalence_target:.3g})")

    def predicate(self, X):
        """Whether each row of X is in the subgroup.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows with the columns the rule was fitted on: a DataFrame with exactly those column
            names (in any order), or an array with those columns in that order.

        Returns
        -------
        ndarray of bool of shape (n_samples,)
        """
        columns = self._columns(X)
        n_samples = len(columns[0]) if columns else len(X)
        inside = np.zeros(n_samples, dtype=bool)
        for term in self.terms:
            in_term = np.ones(n_samples, dtype=bool)
            for condition in term:
                in_term &= condition.holds(columns[condition.feature])
            inside |= in_term
        return inside

    def evaluate(self, X_source, X_target, detected_source, detected_target):
        """The rule with its fidelity and prevalences on held-out rows (the domains' test halves).

        Parameters
        ----------
        X_source, X_target : DataFrame or array-like of shape (n_source, n_features), (n_target, n_features)
            Held-out rows of each domain.
        detected_source, detected_target : array-like of bool of shape (n_source,), (n_target,)
            The detector on those rows.

        Returns
        -------
        SubgroupRule
            A copy with ``fidelity`` (agreement with the detector over the rows of both domains
            together), ``prevalence_source`` and ``prevalence_target``.
        """
        in_source, in_target = self.predicate(X_source), self.predicate(X_target)
        detected = []
        for name, mask, rows in (("detected_source", detected_source, in_source),
                                 ("detected_target", detected_target, in_target)):
            mask = _check_mask(mask, name)
            if len(mask) != len(rows):
                raise ValueError(f"{name} has {len(mask)} values for {len(rows)} rows of X_{name[9:]}; give "
                                 "the detector on the same rows.")
            detected.append(mask)
        agree = np.concatenate([in_source == detected[0], in_target == detected[1]])
        return replace(self, fidelity=_mean(agree), prevalence_source=_mean(in_source),
                       prevalence_target=_mean(in_target))

    def _columns(self, X):
        """One array per feature of the rule, taken from X by name (DataFrame) or position (array)."""
        expected = list(self.feature_names)
        if isinstance(X, pd.DataFrame):
            names = [str(name) for name in X.columns]
            if sorted(names) == sorted(expected) and len(set(names)) == len(names):
                return [_values(X.iloc[:, names.index(name)]) for name in expected]
            if self.names_given or X.shape[1] != len(expected):
                raise ValueError(f"X must have the columns the rule was fitted on, {expected}; got {names} "
                                 f"(missing {sorted(set(expected) - set(names))}, unexpected "
                                 f"{sorted(set(names) - set(expected))}).")
            X = X.to_numpy()
        categorical = any(condition.categories is not None for term in self.terms for condition in term)
        X = check_array(X, dtype=None if categorical else "numeric",
                        ensure_all_finite=False if categorical else "allow-nan", input_name="X")
        if X.shape[1] != len(expected):
            raise ValueError(f"X has {X.shape[1]} columns; the rule takes {len(expected)}: {expected}, in "
                             "that order.")
        return list(X.T)


def fit_rule(X_train, detected_train, *, decomposition, max_depth=3, min_prevalence, random_state=None,
             feature_names=None):
    """Describe a detector by a rule: a shallow decision tree fitted to it, read as a DNF.

    The tree is ``DecisionTreeClassifier(max_depth, min_samples_leaf=ceil(min_prevalence * n / 4))``
    fitted to the detector on the training rows; the rule is the union of its paths to leaves
    predicting 1, each path reduced to one interval per feature (the tightest bounds), and a split
    whose children both lead only to such leaves is dropped. Categorical columns (a DataFrame's
    non-numeric ones, e.g. pandas ``category`` dtype) enter the tree as codes ordered by the
    detector's mean in each category (with this order a split is the best over all subsets of
    categories, Breiman et al. 1984), so a condition on codes is a set of categories; missing
    values follow the splits of scikit-learn's trees when the feature had missing values in the
    training rows, and satisfy none of its conditions otherwise (the tree's side for them would be
    arbitrary); categories absent from the training rows count as missing.
    Singh et al., ICML 2025 (arXiv:2506.00756).

    Parameters
    ----------
    X_train : DataFrame or array-like of shape (n_samples, n_features)
        The rows the detector was fitted on (NaN allowed).
    detected_train : array-like of bool of shape (n_samples,)
        The detector on those rows.
    decomposition : {"covariate", "outcome"}
        The test the detector belongs to.
    max_depth : int >= 1, default=3
        Depth of the tree: a conjunction has at most ``max_depth`` conditions.
    min_prevalence : float in (0, 0.5]
        ε of the diagnoser; sets the smallest leaf.
    random_state : int, RandomState or None, default=None
        Seed of the tree's tie-breaking among features.
    feature_names : sequence of str, default=None
        Names of the columns; default: a DataFrame's column names, else ``x0, x1, …``.

    Returns
    -------
    SubgroupRule
        The rule, to complete with :meth:`SubgroupRule.evaluate`.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._rules import fit_rule
    >>> X = np.random.default_rng(0).integers(0, 4, size=(2000, 3)).astype(float)
    >>> detected = (X[:, 1] >= 2) & (X[:, 2] == 0)
    >>> rule = fit_rule(X, detected, decomposition="covariate", min_prevalence=0.05, random_state=0)
    >>> rule.text
    'x1 > 1.5 and x2 <= 0.5'
    >>> bool(np.all(rule.predicate(X) == detected))
    True
    """
    if decomposition not in DECOMPOSITIONS:
        raise ValueError(f"decomposition must be one of {DECOMPOSITIONS}; got {decomposition!r}.")
    check_scalar(max_depth, "max_depth", numbers.Integral, min_val=1)
    check_scalar(min_prevalence, "min_prevalence", numbers.Real, min_val=0, max_val=0.5,
                 include_boundaries="right")
    detected = _check_mask(detected_train, "detected_train")
    codes, names, categories, names_given = _encode(X_train, detected, feature_names)
    rule = SubgroupRule(decomposition, (), tuple(names), names_given)
    if not detected.any():
        return rule
    if detected.all():
        return replace(rule, terms=((),))
    min_samples_leaf = math.ceil(min_prevalence * len(detected) / 4)
    tree = DecisionTreeClassifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                                  random_state=local_random_state(random_state)).fit(codes, detected)
    terms = []
    has_missing = np.isnan(codes).any(axis=0)
    for path in _positive_paths(tree.tree_, 0):
        term = tuple(condition for condition in _merge(path, names, categories, has_missing)
                     if not condition.is_trivial)
        if term == ():  # an all-positive tree: everyone
            return replace(rule, terms=((),))
        terms.append(term)
    return replace(rule, terms=tuple(terms))


def subgroup_losses(rules, X_source, loss_source, X_target, loss_target):
    """The mean loss with its standard error, overall and in each rule's subgroup, in each domain.

    Parameters
    ----------
    rules : list of SubgroupRule
        The detected subgroups.
    X_source, X_target : DataFrame or array-like of shape (n_source, n_features), (n_target, n_features)
        Held-out rows of each domain (the test halves).
    loss_source, loss_target : array-like of shape (n_source,), (n_target,)
        The model's loss on those rows.

    Returns
    -------
    DataFrame
        Two rows (``domain`` "source", "target") for everyone (``decomposition`` "all",
        ``subgroup`` "overall") and for each rule (its decomposition and text), with
        ``mean_loss``, ``std_error`` (sample standard deviation / √n; NaN when n < 2) and ``n``.
        This is the diagnoser's ``subgroup_losses_``, drawn by :func:`plot_subgroup_losses`.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._rules import fit_rule, subgroup_losses
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> rule = fit_rule(X, X[:, 0] > 3.5, decomposition="outcome", min_prevalence=0.5)
    >>> table = subgroup_losses([rule], X, np.zeros(8), X, [0, 0, 0, 0, 0, 0, 1, 1])
    >>> table[["subgroup", "domain", "mean_loss", "n"]]
       subgroup  domain  mean_loss  n
    0   overall  source       0.00  8
    1   overall  target       0.25  8
    2  x0 > 3.5  source       0.00  4
    3  x0 > 3.5  target       0.50  4
    """
    losses = []
    for name, values, X in (("loss_source", loss_source, X_source), ("loss_target", loss_target, X_target)):
        values = check_array(values, ensure_2d=False, input_name=name)
        values = column_or_1d(values)
        check_consistent_length(X, values)
        losses.append(values)
    everyone = (np.ones(len(losses[0]), dtype=bool), np.ones(len(losses[1]), dtype=bool))
    groups = [("all", "overall", everyone)]
    groups += [(rule.decomposition, rule.text, (rule.predicate(X_source), rule.predicate(X_target)))
               for rule in rules]
    rows = []
    for decomposition, subgroup, masks in groups:
        for domain, values, mask in zip(("source", "target"), losses, masks, strict=True):
            inside = values[mask]
            n = inside.size
            std_error = inside.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
            rows.append([decomposition, subgroup, domain, _mean(inside), std_error, n])
    return pd.DataFrame(rows, columns=SUBGROUP_LOSS_COLUMNS)


# --- helpers ---------------------------------------------------------------------------------------


def _mean(values):
    return float(np.mean(values)) if len(values) else math.nan


def _values(column):
    """A DataFrame column as an array: float with NaN for a numeric one (nullable dtypes included)."""
    if is_numeric_dtype(column.dtype):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    return column.to_numpy()


def _check_mask(mask, name):
    """``mask`` as a 1-D bool array, or a ValueError naming ``name``."""
    values = column_or_1d(check_array(mask, ensure_2d=False, dtype=None, input_name=name))
    if values.dtype != bool:
        if not np.isin(values, (0, 1)).all():
            raise ValueError(f"{name} must hold booleans (or 0/1): the detector's output; got values "
                             f"{pd.unique(values)[:5].tolist()}.")
        values = values.astype(bool)
    return values


def _encode(X, detected, feature_names):
    """X as a float matrix for the tree: numeric columns as they are, categorical ones as ranked codes.

    Returns the matrix, the feature names, per feature None (numeric) or its categories twice: in
    code order (by the detector's mean, ties by first appearance) and in display order (the
    dtype's order, else sorted), and whether the names came from a DataFrame or ``feature_names``.
    """
    names_given = feature_names is not None or isinstance(X, pd.DataFrame)
    if isinstance(X, pd.DataFrame):
        default_names = [str(name) for name in X.columns]
    else:
        X = pd.DataFrame(check_array(X, ensure_all_finite="allow-nan", input_name="X_train"))
        default_names = [f"x{j}" for j in range(X.shape[1])]
    names = default_names if feature_names is None else [str(name) for name in feature_names]
    if len(names) != X.shape[1] or len(set(names)) != len(names):
        raise ValueError(f"feature_names must be {X.shape[1]} distinct names, one per column of X_train; got "
                         f"{names}.")
    check_consistent_length(X, detected)
    numeric = [j for j, dtype in enumerate(X.dtypes) if is_numeric_dtype(dtype)]
    codes = np.full(X.shape, np.nan)
    if numeric:
        codes[:, numeric] = check_array(X.iloc[:, numeric], ensure_all_finite="allow-nan",
                                        input_name="X_train")
    categories = [None] * X.shape[1]
    for j in sorted(set(range(X.shape[1])) - set(numeric)):
        column = X.iloc[:, j]
        seen, uniques = pd.factorize(column.astype(object))
        observed = seen >= 0
        means = (np.bincount(seen[observed], weights=detected[observed], minlength=len(uniques))
                 / np.bincount(seen[observed], minlength=len(uniques)))
        order = np.argsort(means, kind="stable")
        codes[observed, j] = np.argsort(order)[seen[observed]]
        uniques = uniques.tolist()
        if isinstance(column.dtype, pd.CategoricalDtype):
            display = tuple(category for category in column.cat.categories.tolist() if category in uniques)
        else:
            display = tuple(sorted(uniques, key=str))
        categories[j] = (tuple(uniques[rank] for rank in order), display)
    return codes, names, categories, names_given


def _positive_paths(tree, node):
    """The paths from ``node`` to leaves predicting 1, as tuples of (feature, "<=" or ">", threshold,
    missing values go this way); ``[()]`` when every leaf below ``node`` predicts 1."""
    left, right = tree.children_left[node], tree.children_right[node]
    if left == -1:
        return [()] if np.argmax(tree.value[node, 0]) == 1 else []
    below_left, below_right = _positive_paths(tree, left), _positive_paths(tree, right)
    if below_left == [()] and below_right == [()]:
        return [()]
    feature, threshold = int(tree.feature[node]), float(tree.threshold[node])
    missing_left = bool(tree.missing_go_to_left[node])
    return ([((feature, "<=", threshold, missing_left), *path) for path in below_left]
            + [((feature, ">", threshold, not missing_left), *path) for path in below_right])


def _merge(path, names, categories, has_missing):
    """One condition per feature of ``path``: the tightest bounds; missing values pass if they pass every
    split and the feature had missing values in training (else the tree's side for them is arbitrary)."""
    bounds = {}
    for feature, side, threshold, missing in path:
        lower, upper, passes = bounds.get(feature, (-math.inf, math.inf, True))
        if side == "<=":
            upper = min(upper, threshold)
        else:
            lower = max(lower, threshold)
        bounds[feature] = (lower, upper, passes and missing)
    conditions = []
    for feature in sorted(bounds):
        lower, upper, missing = bounds[feature]
        missing = missing and bool(has_missing[feature])
        if categories[feature] is None:
            conditions.append(_Condition(feature, names[feature], lower, upper, missing))
        else:
            ranked, display = categories[feature]
            allowed = {category for rank, category in enumerate(ranked) if lower < rank <= upper}
            conditions.append(_Condition(feature, names[feature], missing=missing, known=display,
                                         categories=tuple(c for c in display if c in allowed)))
    return conditions
