"""Simulated source/target pairs with a planted subgroup shift of known size and kind.

The designs of H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences
large model decay and why?' A hierarchical framework for diagnosing heterogeneous performance
drift", ICML 2025 (arXiv:2506.00756) plant a subgroup whose loss rises through covariate shift or
through outcome shift. :func:`make_subgroup_shift` builds them so that the truth is known exactly:
the labels are drawn through the fixed model's error rate, so under the 0-1 loss the source's
expected loss given ``x`` is that error rate.
"""

import math
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression
from sklearn.utils import Bunch, check_scalar

from fairkit.utils import local_generator

__all__ = ["make_subgroup_shift"]

DESIGNS = ("none", "sub_tolerance", "covariate", "outcome", "conditional_covariate", "conditional_outcome")
HIGH_ERROR = 0.9  # the model's error rate on G ∩ A in the covariate designs
MODEL_SLOPE = 3.0  # f(x) = σ(3·x2)
MIN_SUBGROUP_ROWS = 20  # n_samples · prevalence must reach this

_DECOMPOSITION = {"none": None, "sub_tolerance": None, "covariate": "covariate", "outcome": "outcome",
                  "conditional_covariate": "covariate", "conditional_outcome": "outcome"}
_COVARIATE_MECHANISM = ("none", "sub_tolerance", "covariate", "conditional_covariate")


def deployed_model(columns):
    """The fixed model f(x) = σ(3·x2) as a fitted :class:`~sklearn.linear_model.LogisticRegression`.

    Its ``coef_``, ``intercept_``, ``classes_`` and feature names are set, not learnt, so it
    needs no training data, pickles and predicts like any fitted logistic regression.
    """
    model = LogisticRegression()
    model.coef_ = np.zeros((1, len(columns)))
    model.coef_[0, 1] = MODEL_SLOPE
    model.intercept_ = np.zeros(1)
    model.classes_ = np.array([0, 1])
    model.n_features_in_ = len(columns)
    model.feature_names_in_ = np.asarray(columns, dtype=object)
    return model


def covariate_shift_mean(rise, error_rate):
    """The mean μ of x3 inside G in the target that raises G's error rate by ``rise``.

    In G, x3 ~ N(μ, 1) in the target and N(0, 1) in the source, and the error rate is
    ``HIGH_ERROR`` where x3 > 0 and ``error_rate`` elsewhere, so the rise is
    (HIGH_ERROR − error_rate)·(Φ(μ) − 1/2), solved for μ.
    """
    return float(norm.ppf(0.5 + rise / (HIGH_ERROR - error_rate)))


def _check_rise(design, rise, error_rate):
    """A ValueError naming the bound when ``design`` cannot plant a rise of ``rise``."""
    if design in ("covariate", "conditional_covariate"):
        bound = (HIGH_ERROR - error_rate) / 2
        if rise >= bound:
            raise ValueError(f"rise={rise!r} is out of reach of design={design!r}: moving x3 inside G "
                             f"raises its error rate by ({HIGH_ERROR} - error_rate)·(Φ(μ) - 1/2), less than "
                             f"({HIGH_ERROR} - error_rate)/2 = {bound:.4g} for error_rate={error_rate!r}; "
                             f"use rise < {bound:.4g} or a smaller error_rate.")
    elif design in ("outcome", "conditional_outcome"):
        factor = 1 if design == "outcome" else 2
        bound = (1 - error_rate) / factor
        if rise > bound:
            where = "G" if design == "outcome" else "G ∩ A (by 2·rise)"
            raise ValueError(f"rise={rise!r} is out of reach of design={design!r}: the target's error rate "
                             f"on {where} would exceed 1; use rise <= {bound:.4g} (that is (1 - error_rate)"
                             f"{'' if factor == 1 else '/2'}) or a smaller error_rate.")


def make_subgroup_shift(design="covariate", *, n_samples=4000, prevalence=0.1, rise=0.2, tolerance=0.05,
                        error_rate=0.1, n_features=5, random_state=None):
    """A source and a target sample in which a planted subgroup's loss rises by a known amount.

    The simulation designs of Singh et al. (ICML 2025) for the two stages of
    :class:`SubgroupShiftDiagnoser`, with the truth known in closed form. In both domains
    the features ``x1, ..., x{n_features}`` are independent N(0, 1), except where a design
    moves ``x3``. The deployed model is fixed, f(x) = σ(3·x2), so it predicts
    ŷ = 1[x2 > 0], and the labels are drawn through its error rate e(x):
    ``Y = ŷ`` with probability 1 − e(x), ``Y = 1 − ŷ`` otherwise. Under the 0-1 loss the
    expected loss given ``x`` is then e(x) exactly (Z₀ = e_S in the paper's notation).
    The planted subgroup is G = {x1 > z}, z = Φ⁻¹(1 − prevalence), and A = {x3 > 0}.

    * ``"none"``: e_S = 0.9 on G ∩ A and ``error_rate`` elsewhere; the target is drawn as
      the source (true rise 0).
    * ``"covariate"``: the same e in both domains; in the target, inside G only,
      x3 ~ N(μ, 1) (true rise ``rise``).
    * ``"sub_tolerance"``: ``"covariate"`` with rise = ``tolerance``/2, a null (below).
    * ``"outcome"``: e_S = ``error_rate``; X is drawn as in the source and
      e_T = ``error_rate`` + ``rise`` on G (true rise ``rise``).
    * ``"conditional_covariate"``: ``"covariate"`` for stage 2: the subset {x3} is
      planted, {x4} unrelated.
    * ``"conditional_outcome"``: e_S = ``error_rate``; X as in the source, e_T =
      ``error_rate`` + 2·``rise`` on G ∩ A and ``error_rate`` on G ∖ A (true rise ``rise``);
      {x3} planted, {x4} unrelated.

    In the covariate designs the rise in G is (0.9 − error_rate)·(Φ(μ) − 1/2), so
    μ = Φ⁻¹(1/2 + rise/(0.9 − error_rate)) (0.674 at the defaults); G keeps its prevalence
    in both domains (x1 does not move). In ``"conditional_outcome"`` the rise in G is
    2·rise·P(A | G) = rise, and the target's labels depend on x3 given the other
    features, which the source's do not.

    ``"sub_tolerance"`` is a null of both tests as long as the diagnoser's ``min_prevalence``
    ε is at least 0.3·prevalence: then no subgroup d with P_S(d), P_T(d) ≥ ε sees its expected
    loss rise by more than τ = ``tolerance`` (the outcome null holds trivially, e is the same in
    both domains). Checked at the defaults by linear programs over every subgroup (a subgroup
    acts only through its share of each (1[G], x3) cell): the largest rise is 0.040 at
    ε = 0.05 = prevalence/2 and 0.049 at ε = 0.03, but 0.052 > τ at ε = 0.025, where a quarter
    of G can combine G ∩ A with the low-x3 tail that the shift empties. The largest rise depends
    on ε only through ε/prevalence; intervals G ∩ {t1 < x3 < t2} never rise more than G itself.

    Parameters
    ----------
    design : {"none", "sub_tolerance", "covariate", "outcome", "conditional_covariate", \
"conditional_outcome"}, default="covariate"
        The mechanism, as in the table. The stage-2 designs are meant for
        ``prevalence=0.2`` and ``n_samples=8000`` (the plan's settings), given explicitly.
    n_samples : int, default=4000
        Rows per domain; at least 20 / ``prevalence``, so that G has 20 rows in expectation.
    prevalence : float, default=0.1
        P(G) in both domains, in (0, 1).
    rise : float, default=0.2
        The rise of the model's error rate in G, ≥ 0. Below (0.9 − error_rate)/2 for the
        covariate designs, at most 1 − error_rate for ``"outcome"`` and
        (1 − error_rate)/2 for ``"conditional_outcome"``. Ignored by ``"none"`` and
        ``"sub_tolerance"``.
    tolerance : float, default=0.05
        The diagnoser's τ, > 0; only ``"sub_tolerance"`` uses it (rise = τ/2).
    error_rate : float, default=0.1
        The model's baseline error rate, in [0, 0.5).
    n_features : int, default=5
        Number of features, at least 4 (x1 defines G, x2 the model, x3 A, x4 is the
        unrelated subset); the others are noise.
    random_state : int, RandomState instance or None, default=None
        Seed of the one generator everything is drawn from (fairkit's ``random_state``
        policy; ``None`` is fresh randomness and never touches numpy's global state).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``X_source``, ``X_target`` : DataFrame of float64, shape (n_samples, n_features),
        columns ``"x1", "x2", ...``;
        ``y_source``, ``y_target`` : Series of int64 in {0, 1} named ``"y"``, with the
        frames' index;
        ``model`` : the fitted :class:`~sklearn.linear_model.LogisticRegression` of f;
        ``subgroup_source``, ``subgroup_target`` : ndarray of bool, membership of G;
        ``error_source``, ``error_target`` : ndarray of float64, each row's e(x) in its domain
        (the expected 0-1 loss of ``model`` given x);
        ``true_rise`` : float, E_T[loss | G] − E_S[loss | G] under the 0-1 loss, in closed form;
        ``decomposition`` : ``"covariate"``, ``"outcome"`` or None, the stage-1 test that
        should reject (None: neither);
        ``planted_subset``, ``unrelated_subset`` : list of column names for the stage-2
        designs (``["x3"]``, ``["x4"]``), None otherwise;
        ``description`` : str, how the data were made.

    Raises
    ------
    ValueError
        If a parameter is out of range, or ``rise`` cannot be planted by the design (the
        message gives the bound). Nothing is drawn then.

    References
    ----------
    H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences large
    model decay and why?' A hierarchical framework for diagnosing heterogeneous performance
    drift", ICML 2025, arXiv:2506.00756.

    Examples
    --------
    >>> from fairkit_shift._datasets import make_subgroup_shift
    >>> data = make_subgroup_shift("covariate", random_state=0)
    >>> data.X_source.shape, data.decomposition, round(data.true_rise, 3)
    ((4000, 5), 'covariate', 0.2)
    >>> loss_s = data.model.predict(data.X_source) != data.y_source
    >>> loss_t = data.model.predict(data.X_target) != data.y_target
    >>> bool(loss_t[data.subgroup_target].mean() > loss_s[data.subgroup_source].mean() + 0.1)
    True
    """
    if not isinstance(design, str) or design not in DESIGNS:
        raise ValueError(f"design must be one of {list(DESIGNS)}, got {design!r}.")
    prevalence = check_scalar(prevalence, "prevalence", Real, min_val=0, max_val=1,
                              include_boundaries="neither")
    n_samples = check_scalar(n_samples, "n_samples", Integral, min_val=1)
    if n_samples * prevalence < MIN_SUBGROUP_ROWS:
        needed = math.ceil(MIN_SUBGROUP_ROWS / prevalence)
        raise ValueError(f"n_samples={n_samples} gives the planted subgroup about "
                         f"{n_samples * prevalence:.3g} rows per domain at prevalence={prevalence}; use "
                         f"n_samples >= {needed} ({MIN_SUBGROUP_ROWS} rows of G in expectation).")
    error_rate = check_scalar(error_rate, "error_rate", Real, min_val=0, max_val=0.5,
                              include_boundaries="left")
    rise = check_scalar(rise, "rise", Real, min_val=0)
    tolerance = check_scalar(tolerance, "tolerance", Real, min_val=0, include_boundaries="neither")
    n_features = check_scalar(n_features, "n_features", Integral, min_val=4)
    if design == "sub_tolerance":
        if tolerance / 2 >= (HIGH_ERROR - error_rate) / 2:
            raise ValueError(f"tolerance={tolerance!r} is too large for design='sub_tolerance': its rise "
                             f"tolerance/2 must stay below ({HIGH_ERROR} - error_rate)/2; use tolerance < "
                             f"{HIGH_ERROR - error_rate:.4g}.")
        rise = tolerance / 2
    elif design == "none":
        rise = 0.0
    else:
        _check_rise(design, rise, error_rate)

    rng = local_generator(random_state)
    columns = [f"x{j}" for j in range(1, n_features + 1)]
    threshold = float(norm.isf(prevalence))
    covariate = design in _COVARIATE_MECHANISM
    shift_mean = covariate_shift_mean(rise, error_rate) if covariate else 0.0

    def draw(target):
        X = rng.standard_normal((n_samples, n_features))
        in_g = X[:, 0] > threshold
        if covariate:
            X[in_g, 2] += shift_mean if target else 0.0  # x3 ~ N(μ, 1) inside G, in the target only
        in_a = X[:, 2] > 0
        error = np.full(n_samples, error_rate)
        if covariate:
            error[in_g & in_a] = HIGH_ERROR
        elif target and design == "outcome":
            error[in_g] += rise
        elif target:  # conditional_outcome
            error[in_g & in_a] += 2 * rise
        predicted = (X[:, 1] > 0).astype(np.int64)  # f(x) > 1/2
        wrong = rng.random(n_samples) < error
        frame = pd.DataFrame(X, columns=columns)
        labels = pd.Series(np.where(wrong, 1 - predicted, predicted), index=frame.index, name="y")
        return frame, labels, in_g, error

    X_source, y_source, g_source, e_source = draw(target=False)
    X_target, y_target, g_target, e_target = draw(target=True)

    if covariate:
        true_rise = (HIGH_ERROR - error_rate) * (norm.cdf(shift_mean) - 0.5)
        mechanism = (f"source and target: e = {HIGH_ERROR} on G ∩ A, {error_rate} elsewhere; target: "
                     f"inside G only, x3 ~ N({shift_mean:.4f}, 1)" if rise > 0 else
                     f"e = {HIGH_ERROR} on G ∩ A, {error_rate} elsewhere in both domains; target = source")
    elif design == "outcome":
        true_rise = rise
        mechanism = f"source: e = {error_rate}; target: X unchanged, e = {error_rate + rise:.4g} on G"
    else:
        true_rise = 2 * rise * 0.5  # 2·rise on G ∩ A, P(A | G) = 1/2
        mechanism = (f"source: e = {error_rate}; target: X unchanged, e = {error_rate + 2 * rise:.4g} on "
                     f"G ∩ A, {error_rate} on G without A")
    stage2 = design.startswith("conditional_")
    description = (
        f"make_subgroup_shift(design={design!r}) (fairkit-shift; Singh et al., ICML 2025, "
        f"arXiv:2506.00756).\n{n_samples} rows per domain, x1..x{n_features} ~ N(0, 1); model f(x) = "
        f"sigmoid(3*x2); labels drawn with P(Y != 1[x2 > 0] | x) = e(x).\nG = {{x1 > {threshold:.4f}}} "
        f"(prevalence {prevalence}), A = {{x3 > 0}}; {mechanism}.\nTrue rise of the expected 0-1 loss in G: "
        f"{true_rise:.4g}; the stage-1 test that should reject: {_DECOMPOSITION[design]}."
        + ("\nStage 2: subset ['x3'] is planted, ['x4'] is unrelated." if stage2 else ""))
    return Bunch(
        X_source=X_source, y_source=y_source, X_target=X_target, y_target=y_target,
        model=deployed_model(columns), subgroup_source=g_source, subgroup_target=g_target,
        error_source=e_source, error_target=e_target, true_rise=float(true_rise),
        decomposition=_DECOMPOSITION[design], planted_subset=["x3"] if stage2 else None,
        unrelated_subset=["x4"] if stage2 else None, description=description,
    )
