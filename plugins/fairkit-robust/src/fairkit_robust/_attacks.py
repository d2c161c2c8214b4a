"""Adversarial attacks against fairness and against accuracy: projected gradient ascent on X.

From "On the Alignment between Fairness and Accuracy: from the Perspective of Adversarial
Robustness" (ICML 2025, OpenReview ckcXwR8cQS; an earlier version: J. Chai and X. Wang,
arXiv:2304.00061): a model that looks fair can lose its fairness when its inputs are
nudged within a small ε-ball, and the attacks against the usual group-fairness notions
are one attack. The torch side (the gap, the ascent, the models as torch functions) lives
in :mod:`fairkit_robust._pgd`, imported on the first attack.
"""

import importlib
import numbers

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from fairkit.exceptions import FairkitWarning
from fairkit.utils import local_random_state
from fairkit.utils._sklearn_compat import Interval, StrOptions
from fairkit.utils._warnings import warn_user
from fairkit.utils.validation import (
    check_2d,
    check_numeric_features,
    check_same_index,
    drop_sensitive_cols,
    encode_groups,
    model_features,
    resolve_sensitive_features,
)

__all__ = ["AccuracyAttack", "FairnessAttack"]

NOTIONS = ("demographic_parity", "equal_opportunity", "equalized_odds")
NORMS = ("linf", "l2")

#: Antithetic pairs of probes per sample and step with which a black-box model's gradient is estimated.
BLACK_BOX_PAIRS = 10


def _torch_side():
    """The private module with the torch side of the attacks, imported on the first attack."""
    try:
        return importlib.import_module("fairkit_robust._pgd")
    except ImportError as error:
        raise ImportError('The fairkit-robust attacks need torch: pip install "fairkit-robust[nn]"'
                          ) from error


_PARAMETER_CONSTRAINTS = {
    "eps": [Interval(numbers.Real, 0, None, closed="left")],
    "norm": [StrOptions(set(NORMS))],
    "step": [None, Interval(numbers.Real, 0, None, closed="neither")],
    "n_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    "feature_mask": [None, "array-like", str, numbers.Integral],
    "bounds": [None, StrOptions({"data"}), tuple, list],
    "random_start": ["boolean"],
    "random_state": ["random_state"],
}


class _Problem:
    """One attack, set up: the model's input columns as a Tensor, the objective, the ascent's arguments.

    ``write_back(X_adv)`` puts the perturbed columns into a copy of the user's ``X``.
    """

    def __init__(self, X, inputs, moved, X_model, objective, pgd_params):
        self.X, self.inputs, self.moved = X, inputs, moved
        self.X_model, self.objective, self.pgd_params = X_model, objective, pgd_params

    def write_back(self, X_adv):
        values = X_adv.detach().cpu().numpy()[:, self.moved]
        columns = self.inputs[self.moved]
        if isinstance(self.X, pd.DataFrame):
            out = self.X.copy()
            for position, column in zip(columns, values.T, strict=True):
                dtype = out.dtypes.iloc[position]
                out.isetitem(position, column.astype(dtype if dtype.kind == "f" else np.float64))
            return out
        dtype = self.X.dtype if self.X.dtype.kind in "fO" else np.float64
        out = self.X.astype(dtype, copy=True)
        out[:, columns] = values
        return out


class _BaseAttack(BaseEstimator):
    """What the two attacks share: validation at the boundary, the model's adapter, PGD, the result."""

    _parameter_constraints = _PARAMETER_CONSTRAINTS

    def perturb(self, model, X, y, sensitive_features=None):
        """Perturb ``X`` within the ε-ball to maximise the attack's objective on ``model``.

        Parameters
        ----------
        model : fitted binary classifier
            A torch module returning logits (1 or 2 per sample), a skorch net, a fairkit
            network classifier (``FairICPClassifier``, ``GroupDROClassifier``), a
            binary linear scikit-learn classifier (alone or after StandardScalers in a
            Pipeline), or any scikit-learn classifier with ``predict_proba`` (attacked as a
            black box, a weaker attack: a ``FairkitWarning`` says so).
        X : array-like or DataFrame of shape (n_samples, n_features)
            The samples, as the model reads them (with its ``sensitive_cols``, if any).
        y : array-like of shape (n_samples,)
            Their labels, among the model's two classes (0 and 1 for a torch module).
        sensitive_features : array-like, Series or DataFrame, default=None
            The sensitive groups (several columns: intersectional groups); or none, when
            the model has ``sensitive_cols``. Rows are paired with ``X`` by position, and
            differing pandas indexes are refused.

        Returns
        -------
        X_adv : ndarray or DataFrame of shape (n_samples, n_features)
            The perturbed samples: a DataFrame with the index and columns of ``X`` for a
            DataFrame (the moved columns as floats), else an array of ``X``'s float dtype
            (float64 for integer ``X``). The result lies in the ε-ball around ``X`` and in
            the bounds (up to floating-point rounding), and its fixed features equal ``X``'s.
        """
        self._validate_params()
        torch_side = _torch_side()
        with torch_side.single_threaded():  # as fairkit's networks: more threads only contend
            problem = self._problem(torch_side, model, X, y, sensitive_features)
            X_adv = torch_side.projected_gradient_ascent(problem.objective, problem.X_model,
                                                         **problem.pgd_params)
        return problem.write_back(X_adv)

    def _problem(self, torch_side, model, X, y, sensitive_features):
        """Validate everything, then set the attack up (see :class:`_Problem`)."""
        import torch

        if sparse.issparse(X):
            raise TypeError("X is a sparse matrix; the attacks need a dense array or a DataFrame "
                            "(X.toarray()).")
        check_same_index(X=X, y=y, sensitive_features=sensitive_features)
        X = X if isinstance(X, pd.DataFrame) else np.asarray(X)
        check_2d(self, X)
        if isinstance(model, BaseEstimator):
            check_is_fitted(model)
        groups = self._groups(resolve_sensitive_features(model, X, sensitive_features))
        sensitive = _sensitive_positions(model, X)
        fairkit_network = torch_side.is_fairkit_network(model)
        inputs = np.arange(X.shape[1])
        if fairkit_network:  # its network reads X without the sensitive columns
            inputs = np.setdiff1d(inputs, sensitive)
        X_model = _model_input(model, X, fairkit_network)
        movable = self._movable(X, sensitive)[inputs]
        lower, upper = self._bounds(X, X_model, inputs, movable)

        start_seed, probe_seed = local_random_state(self.random_state).randint(np.iinfo(np.int32).max, size=2)
        scale = self.eps if self.norm == "linf" else self.eps / np.sqrt(np.count_nonzero(movable))
        names = X.columns if isinstance(X, pd.DataFrame) and hasattr(model, "feature_names_in_") else None
        scorer = torch_side.scorer(model, columns=names, movable=movable, sigma=scale,
                                   n_pairs=BLACK_BOX_PAIRS, seed=probe_seed)
        X_tensor = torch.tensor(X_model, dtype=torch.float64, device=scorer.device)  # a copy: X stays X
        _probe(scorer, model, X_tensor)
        labels = self._labels(y, X.shape[0], scorer.classes)
        if scorer.black_box:
            warn_user(f"{type(model).__name__} has no closed-form gradient: {type(self).__name__} "
                      f"estimates it from predict_proba ({BLACK_BOX_PAIRS} antithetic pairs of probes per "
                      "sample and step), a weaker attack: the gap or loss it reaches is a lower bound of "
                      "the worst case within eps. Attack a differentiable model (torch, skorch, linear) "
                      "for the full attack.", FairkitWarning)

        def as_tensor(values):
            return None if values is None else torch.as_tensor(values, device=scorer.device)

        objective = self._objective(torch_side, scorer.logit, as_tensor(labels), as_tensor(groups))
        pgd_params = dict(eps=float(self.eps), norm=self.norm, n_iter=self.n_iter,
                          step=float(2.5 * self.eps / self.n_iter if self.step is None else self.step),
                          mask=as_tensor(movable), lower=as_tensor(lower), upper=as_tensor(upper),
                          random_start=self.random_start,
                          generator=torch.Generator(device=scorer.device).manual_seed(int(start_seed)))
        return _Problem(X, inputs, movable, X_tensor, objective, pgd_params)

    def _movable(self, X, sensitive):
        """The features (columns of X) the attack may move: ``feature_mask`` without the sensitive columns."""
        n_features = X.shape[1]
        if self.feature_mask is None:
            movable = np.ones(n_features, dtype=bool)
            movable[sensitive] = False
            return movable
        mask = np.asarray(self.feature_mask)
        if mask.dtype == bool:
            if mask.shape != (n_features,):
                raise ValueError(f"feature_mask is a boolean array of shape {mask.shape}; it must have one "
                                 f"entry per feature of X, shape ({n_features},).")
            movable = mask.copy()
        else:
            movable = np.zeros(n_features, dtype=bool)
            movable[_column_positions(self.feature_mask, X)] = True
        if movable[sensitive].any():
            raise ValueError(f"feature_mask lets the model's sensitive_cols={_names(X, sensitive)} move, "
                             "but the attacks never perturb the sensitive attributes; leave them out of "
                             "feature_mask.")
        if not movable.any():
            raise ValueError("feature_mask leaves no feature for the attack to move; mark at least one.")
        return movable

    def _bounds(self, X, X_model, inputs, movable):
        """Per-feature bounds of the model's input columns (None: unbounded); fixed features are unbounded."""
        if self.bounds is None:
            return None, None
        if isinstance(self.bounds, str):  # "data"
            lower, upper = X_model.min(axis=0), X_model.max(axis=0)
        else:
            if len(self.bounds) != 2:
                raise ValueError(f"bounds must be None, 'data' or a pair (lower, upper); got a sequence of "
                                 f"{len(self.bounds)} items.")
            lower = _bound(self.bounds[0], "lower", -np.inf, X.shape[1])[inputs]
            upper = _bound(self.bounds[1], "upper", np.inf, X.shape[1])[inputs]
        lower, upper = np.where(movable, lower, -np.inf), np.where(movable, upper, np.inf)
        if np.any(lower > upper):
            j = int(np.argmax(lower > upper))
            raise ValueError(f"bounds have lower > upper for feature {int(inputs[j])} "
                             f"({lower[j]} > {upper[j]}).")
        outside = (X_model < lower) | (X_model > upper)
        if outside.any():
            row, j = np.argwhere(outside)[0]
            raise ValueError(f"X lies outside bounds: X[{row}, {int(inputs[j])}] = {X_model[row, j]} is "
                             f"not in [{lower[j]}, {upper[j]}] ({np.count_nonzero(outside)} entries "
                             "outside). Widen the bounds, or use bounds='data'.")
        return lower, upper

    def _labels(self, y, n_samples, classes):
        """``y`` as 0/1 (1: the model's second class), validated."""
        if y is None:
            raise ValueError(f"{type(self).__name__} needs the labels y.")
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != n_samples:
            raise ValueError(f"y must be 1-D with one label per sample of X ({n_samples}); "
                             f"got shape {y.shape}.")
        classes = np.array([0, 1]) if classes is None else classes
        known = np.isin(y, classes)
        if not known.all():
            raise ValueError(f"y holds labels that are not among the model's classes {classes.tolist()}, "
                             f"e.g. {y[~known][0]!r}; the attacks handle binary classification only.")
        return (y == classes[1]).astype(np.int64)


def _names(X, positions):
    """The sensitive columns at ``positions`` of X, by name for a DataFrame."""
    return list(X.columns[positions]) if isinstance(X, pd.DataFrame) else [int(p) for p in positions]


def _sensitive_positions(model, X):
    """The positions of ``model.sensitive_cols`` in X (checked by resolve_sensitive_features first)."""
    if getattr(model, "sensitive_cols", None) is None:
        return np.array([], dtype=np.intp)
    n_features = X.shape[1]
    row = (pd.DataFrame([np.arange(n_features)], columns=X.columns) if isinstance(X, pd.DataFrame)
           else np.arange(n_features)[None, :])
    return np.setdiff1d(np.arange(n_features), np.asarray(drop_sensitive_cols(model, row)).ravel())


def _model_input(model, X, fairkit_network):
    """The columns the model reads, as float64, validated as the model's own ``predict`` would."""
    if fairkit_network:
        return model_features(model, X, reset=False)
    if isinstance(model, BaseEstimator) and hasattr(model, "n_features_in_"):
        validate_data(model, X, reset=False, skip_check_array=True)
    check_numeric_features(model, X)
    return check_array(X, dtype=np.float64)


def _column_positions(columns, X):
    """Positions in X of column names or positions (one or a list)."""
    columns = [columns] if isinstance(columns, str | numbers.Integral) else list(columns)
    n_features = X.shape[1]
    positions = []
    for column in columns:
        if isinstance(column, numbers.Integral):
            if not -n_features <= column < n_features:
                raise ValueError(f"feature_mask position {column} is out of range for X with {n_features} "
                                 "columns.")
            positions.append(int(column) % n_features)
        elif isinstance(X, pd.DataFrame) and column in X.columns:
            positions.append(X.columns.get_loc(column))
        else:
            where = f"X has columns {list(X.columns)}" if isinstance(X, pd.DataFrame) else "X has no names"
            raise ValueError(f"feature_mask names column {column!r}, which X does not have ({where}).")
    return positions


def _bound(values, name, unbounded, n_features):
    """One side of ``bounds`` (None, a number, or one per feature of X) as floats, one per feature."""
    if values is None:
        return np.full(n_features, unbounded)
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"bounds' {name} side must be numbers; got {values!r}.") from error
    if values.ndim == 0:
        values = np.full(n_features, values)
    if values.shape != (n_features,):
        raise ValueError(f"bounds' {name} side has shape {values.shape}; give None, a number, or one per "
                         f"feature of X, shape ({n_features},).")
    if np.isnan(values).any():
        raise ValueError(f"bounds' {name} side holds NaN; use {unbounded} for a feature unbounded on "
                         "that side.")
    return values


def _probe(scorer, model, X_tensor):
    """Score one sample, so that a model that cannot read X fails here with a clear message."""
    import torch

    try:
        with torch.no_grad():
            scorer.logit(X_tensor[:1])
    except RuntimeError as error:
        raise ValueError(f"{type(model).__name__} could not score X of {X_tensor.shape[1]} feature(s): "
                         f"{error}") from error


_SHARED_PARAMETERS = """eps : float, default=0.1
        The radius of the ball around each sample, in the units of ``X`` as the model
        reads it (standard deviations for standardised features).
    norm : {"linf", "l2"}, default="linf"
        The ball: each feature moves by at most eps (``"linf"``: sign steps, as the
        paper), or each sample by at most eps in Euclidean norm (``"l2"``: steps along
        the gradient normalised per sample).
    step : float, default=None
        The step size; None takes ``2.5 * eps / n_iter`` (Madry et al., ICLR 2018), which
        can cross the ball from the centre in 40 % of the steps. The forks' 2/255 with 40
        steps, meant for images in [0, 1], is about this at eps = 0.1.
    n_iter : int, default=40
        The number of gradient steps (the paper's 40).
    feature_mask : bool array of shape (n_features,), column name or position, or list of them, default=None
        The features the attack may move (True, or listed); the others stay exactly as
        they are, e.g. one-hot columns, which a small perturbation cannot move
        meaningfully. None: every feature. The model's ``sensitive_cols`` never move,
        and a mask that lets them move is refused.
    bounds : None, "data" or (lower, upper), default=None
        Per-feature bounds on the perturbed values: None, unbounded; ``"data"``, the
        minimum and maximum of each feature in the ``X`` attacked (for small batches,
        give the training data's instead); or a pair, each side None, a number or one
        value per feature of ``X`` (±inf: unbounded). There is no blanket clamp to
        [0, 1], which on standardised features (the forks' defect) moves most samples
        by more than eps.
    random_start : bool, default=True
        Start from a point drawn uniformly in the ball (Madry et al.) rather than from X.
    random_state : int, RandomState instance or None, default=None
        The random start, and a black-box model's probes."""

_SHARED_NOTES = f"""The ascent keeps the best point it evaluated, ``X`` included, so the objective
    at the result is never below its value at ``X`` (the objective couples the samples,
    and the iterates need not rise monotonically). A model without a closed-form gradient
    (any scikit-learn classifier other than a linear one) is attacked as a black box:
    its gradient is estimated by antithetic natural evolution strategies (Ilyas et al.,
    ICML 2018) on ``predict_proba``, with {BLACK_BOX_PAIRS} antithetic pairs of Gaussian probes per
    sample and step at the scale of eps (per step, {BLACK_BOX_PAIRS} calls to ``predict_proba`` on
    ``2 × n_samples`` rows). That attack is weaker, and a ``FairkitWarning`` says so: what
    it finds bounds the worst case from below. Binary classification only."""


class FairnessAttack(_BaseAttack):
    __doc__ = f"""Adversarial attack against group fairness: PGD on the soft group gap.

    Chai and Wang's fairness attack ("On the Alignment between Fairness and Accuracy:
    from the Perspective of Adversarial Robustness", ICML 2025; arXiv:2304.00061):
    projected gradient ascent on X, within an ε-ball around each sample, of the soft
    (probability-based) gap of the chosen notion. In the paper's unified form every
    notion is a difference of group-conditional mean scores ``m_(g,c)``, the mean of
    P(Ŷ = 1) over the samples of group g in condition c: all samples (demographic
    parity), ``y = 1`` (equal opportunity), or ``y = 1`` and ``y = 0`` (equalized odds,
    the two gaps summed: the notebooks' ``|ΔTPR| + |ΔTNR|`` on soft scores). With more
    than two groups a gap is the largest minus the smallest mean. A (group, label) cell
    without samples is left out, not NaN (the forks' defect).

    Parameters
    ----------
    notion : {{"equalized_odds", "demographic_parity", "equal_opportunity"}}, default="equalized_odds"
        The group-fairness notion whose gap the attack raises.
    {_SHARED_PARAMETERS}

    Notes
    -----
    {_SHARED_NOTES}

    See Also
    --------
    AccuracyAttack : the same ascent on the cross-entropy.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit.metrics import equalized_odds_difference
    >>> from fairkit_robust import FairnessAttack
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 500)
    >>> X = rng.normal(size=(500, 3))
    >>> y = (X[:, 0] + rng.normal(size=500) > 0).astype(int)
    >>> model = LogisticRegression().fit(X, y)
    >>> X_adv = FairnessAttack(eps=0.3, random_state=0).perturb(model, X, y, sensitive_features=group)
    >>> bool(np.abs(X_adv - X).max() <= 0.3 + 1e-12)
    True
    >>> gap = lambda X: equalized_odds_difference(y, model.predict(X), sensitive_features=group)
    >>> print(f"{{gap(X):.2f}} -> {{gap(X_adv):.2f}}")
    0.01 -> 0.27
    """

    _parameter_constraints = {**_PARAMETER_CONSTRAINTS, "notion": [StrOptions(set(NOTIONS))]}

    def __init__(self, notion="equalized_odds", eps=0.1, norm="linf", step=None, n_iter=40, feature_mask=None,
                 bounds=None, random_start=True, random_state=None):
        self.notion = notion
        self.eps = eps
        self.norm = norm
        self.step = step
        self.n_iter = n_iter
        self.feature_mask = feature_mask
        self.bounds = bounds
        self.random_start = random_start
        self.random_state = random_state

    def _groups(self, frame):
        if frame is None:
            raise ValueError("FairnessAttack needs the sensitive groups: pass sensitive_features=..., or "
                             "attack a model constructed with sensitive_cols=...")
        groups, codes = encode_groups(frame)
        if len(groups) < 2:
            raise ValueError(f"sensitive_features holds a single group ({groups[0]!r}); a fairness gap needs "
                             "at least two.")
        return codes.astype(np.int64)

    def _labels(self, y, n_samples, classes):
        if y is None and self.notion == "demographic_parity":  # demographic parity needs no labels
            return np.zeros(n_samples, dtype=np.int64)
        return super()._labels(y, n_samples, classes)

    def _objective(self, torch_side, logit, labels, groups):
        return torch_side.fairness_objective(logit, labels, groups, self.notion)


class AccuracyAttack(_BaseAttack):
    __doc__ = f"""Adversarial attack against accuracy: PGD on the cross-entropy (Madry et al., ICLR 2018).

    The accuracy attack of Chai and Wang ("On the Alignment between Fairness and Accuracy:
    from the Perspective of Adversarial Robustness", ICML 2025; arXiv:2304.00061), with the
    interface of :class:`FairnessAttack`: projected gradient ascent on X, within an ε-ball
    around each sample, of the mean cross-entropy of the labels under the model's
    P(Ŷ = 1).

    Parameters
    ----------
    {_SHARED_PARAMETERS}

    Notes
    -----
    {_SHARED_NOTES}

    ``sensitive_features`` is accepted, and validated, so that both attacks are called
    alike; the accuracy attack does not use it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit_robust import AccuracyAttack
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = (X[:, 0] + rng.normal(size=500) > 0).astype(int)
    >>> model = LogisticRegression().fit(X, y)
    >>> X_adv = AccuracyAttack(eps=0.5, random_state=0).perturb(model, X, y)
    >>> print(f"{{model.score(X, y):.2f}} -> {{model.score(X_adv, y):.2f}}")
    0.74 -> 0.47
    """

    def __init__(self, eps=0.1, norm="linf", step=None, n_iter=40, feature_mask=None, bounds=None,
                 random_start=True, random_state=None):
        self.eps = eps
        self.norm = norm
        self.step = step
        self.n_iter = n_iter
        self.feature_mask = feature_mask
        self.bounds = bounds
        self.random_start = random_start
        self.random_state = random_state

    def _groups(self, frame):
        return None

    def _objective(self, torch_side, logit, labels, groups):
        return torch_side.accuracy_objective(logit, labels)
