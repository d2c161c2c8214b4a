"""How sure a group metric is: exact simultaneous intervals and noise floors.

Every group metric is a function of each group's weighted confusion counts
(:mod:`fairkit.metrics._confusion`).

* Intervals. Each group's rate gets an exact binomial (Clopper–Pearson) interval, at a
  level raised (Šidák) so that the intervals of all the group rates a metric compares hold
  at once with probability at least ``ci``; the metric's interval is the range of values
  the metric takes when every rate lies in its interval. Its coverage is at least ``ci``
  for any number of groups, tiny groups and exact parity, where a percentile bootstrap of
  a largest-minus-smallest gap fails (it covered the true gap 13% of the time for ten
  groups of similar rates, and half the time at parity): the price is width.
* Noise floors. A rule that is exactly fair (the same selection rate in every group, or
  the same true and false positive rates) decides every sample independently at the
  pooled rate; the metric's distribution over such draws, on the observed group sizes
  and label counts, is what noise alone produces. Without sample weights each group's
  counts are binomial, drawn for all groups and draws at once in O(n_groups · n_draws);
  with weights the samples are drawn in blocks of draws, O(n_samples · n_draws).
"""

import numbers
from typing import NamedTuple

import numpy as np
from scipy.stats import beta
from scipy.stats import t as student_t
from sklearn.utils import Bunch, check_scalar

from fairkit.metrics._confusion import (
    DEFINITIONS,
    FN,
    FP,
    RATE_CELLS,
    TN,
    TP,
    confusion,
    rate,
    warn_undefined,
)
from fairkit.utils._random import local_generator

__all__ = ["Estimate", "clopper_pearson", "fairness_floor", "resampled_interval"]

# Entries of the (draws x samples) arrays held at once when the fair rule decides every sample.
_BLOCK_ENTRIES = 1 << 22


class Estimate(NamedTuple):
    """A metric's value with a confidence interval (``ci=`` of the group metrics)."""

    value: float
    """The metric on the data."""
    low: float
    """Lower end of the interval."""
    high: float
    """Upper end of the interval."""


def resampled_interval(values, *, test_fraction, ci=0.95):
    """The mean of a score over resampled train/test splits, with a corrected t interval.

    Splits of one data set share their rows, so their scores are correlated and the usual
    t interval of their mean is too narrow. Nadeau & Bengio (Machine Learning 52, 2003)
    correct the variance of the mean of k scores from s²/k to (1/k + n_test/n_train) s²,
    for random splits and K-fold cross-validation alike. Scores may be differences between
    two models fitted and scored on the same splits (a paired comparison).

    Parameters
    ----------
    values : array-like of shape (k,)
        One score per split (NaN-free).
    test_fraction : float >= 0
        n_test / n_train of the splits (their mean if sizes differ); 0 gives the plain t
        interval, right for scores on independent data sets.
    ci : float in (0, 1), default=0.95
        The interval's level.

    Returns
    -------
    estimate : Estimate
        The mean and the interval's ends; NaN ends for a single split.

    Examples
    --------
    >>> from fairkit.metrics import resampled_interval
    >>> resampled_interval([0.80, 0.82, 0.78, 0.81, 0.79], test_fraction=0.25)  # 5-fold CV
    ... # doctest: +ELLIPSIS
    Estimate(value=0.8, low=0.77..., high=0.82...)
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or len(values) == 0 or not np.all(np.isfinite(values)):
        raise ValueError("values must be a non-empty 1-D array of finite scores, one per split; got "
                         f"{values!r}.")
    check_scalar(test_fraction, "test_fraction", numbers.Real, min_val=0)
    check_level(ci, "ci")
    mean, k = float(values.mean()), len(values)
    if k == 1:
        return Estimate(mean, float("nan"), float("nan"))
    half = student_t.ppf((1 + ci) / 2, k - 1) * np.sqrt((1 / k + test_fraction) * values.var(ddof=1))
    return Estimate(mean, float(mean - half), float(mean + half))


def check_level(value, name):
    """Validate a confidence level or quantile in (0, 1)."""
    check_scalar(value, name, numbers.Real, min_val=0, max_val=1, include_boundaries="neither")


def _equal_weights(weights):
    return bool(np.all(weights == weights[0]))


def fair_rule_cells(data, n_draws, rng):
    """Cells of ``n_draws`` decisions of an exactly fair rule, shape (n_draws, n_groups, 4).

    Each sample is decided 1 independently with the pooled rate of its label: the pooled
    true positive rate for positives and false positive rate for negatives (a metric that
    ignores ``y_true`` counts every sample as a negative, so this is the pooled selection
    rate). Group sizes and label counts stay those observed.
    """
    pooled = data.cells().sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_positive = np.nan_to_num(pooled[TP] / (pooled[TP] + pooled[FN]))
        p_negative = np.nan_to_num(pooled[FP] / (pooled[FP] + pooled[TN]))
    if _equal_weights(data.weights):
        counts = data.cells(power=0).astype(np.int64)
        n_positive, n_negative = counts[:, TP] + counts[:, FN], counts[:, FP] + counts[:, TN]
        tp = rng.binomial(n_positive, p_positive, size=(n_draws, data.n_groups))
        fp = rng.binomial(n_negative, p_negative, size=(n_draws, data.n_groups))
        return np.stack([tp, n_positive - tp, fp, n_negative - fp], axis=-1) * data.weights[0]
    # every sample is drawn, in blocks of draws whose (draws x samples) arrays hold _BLOCK_ENTRIES
    is_positive = (data.cell == TP) | (data.cell == FN)
    chance = np.where(is_positive, p_positive, p_negative)
    n_samples, n_groups = len(chance), data.n_groups
    per_block = max(1, _BLOCK_ENTRIES // n_samples)
    out = np.empty((n_draws, n_groups, 4))
    for start in range(0, n_draws, per_block):
        decided = rng.random((min(per_block, n_draws - start), n_samples)) < chance
        cell = np.where(is_positive, np.where(decided, TP, FN), np.where(decided, FP, TN))
        n_block = len(decided)
        flat = (np.arange(n_block)[:, None] * n_groups + data.codes) * 4 + cell
        out[start:start + n_block] = np.bincount(flat.ravel(), np.tile(data.weights, n_block),
                                                 minlength=n_block * n_groups * 4).reshape(-1, n_groups, 4)
    return out


def clopper_pearson(successes, trials, ci):
    """Exact binomial (Clopper–Pearson) intervals of success rates, vectorised.

    Parameters
    ----------
    successes : array-like of float
        Successes of each rate.
    trials : array-like of float
        Trials of each rate (of the shape of ``successes``); may be an effective,
        non-integer count (a Kish effective sample size).
    ci : float
        The level of each interval, in (0, 1). For intervals that hold at once over
        ``m`` independent rates, raise it as fairkit's group metrics do (Šidák):
        ``ci ** (1 / m)``.

    Returns
    -------
    low, high : ndarray of float
        The lower and upper ends; NaN where ``trials`` is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.metrics import clopper_pearson
    >>> low, high = clopper_pearson(np.array([0, 8]), np.array([10, 10]), 0.95)
    >>> np.round(low, 4).tolist(), np.round(high, 4).tolist()
    ([0.0, 0.4439], [0.3085, 0.9748])
    """
    check_level(ci, "ci")
    successes, trials = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    if successes.shape != trials.shape or (successes < 0).any() or (successes > trials).any():
        raise ValueError("successes and trials must have the same shape, with 0 <= successes <= trials.")
    alpha = 1 - ci
    low, high = np.zeros_like(trials, dtype=float), np.ones_like(trials, dtype=float)
    some, short = (successes > 0) & (trials > 0), (successes < trials) & (trials > 0)
    low[some] = beta.ppf(alpha / 2, successes[some], trials[some] - successes[some] + 1)
    high[short] = beta.ppf(1 - alpha / 2, successes[short] + 1, trials[short] - successes[short])
    empty = trials <= 0
    low[empty], high[empty] = np.nan, np.nan
    return low, high


def _extreme_bounds(low, high):
    """Bounds of (largest, smallest) rate when each rate lies in [low, high] (defined ones only)."""
    return low.max(), high.max(), low.min(), high.min()


def _gap_bounds(low, high, weights):
    top_low, top_high, bottom_low, bottom_high = _extreme_bounds(low, high)
    return max(0.0, top_low - bottom_high), top_high - bottom_low


def _ratio_bounds(low, high, weights):
    top_low, top_high, bottom_low, bottom_high = _extreme_bounds(low, high)
    with np.errstate(over="ignore"):  # a tiny largest rate: the ratio's upper end is 1
        lower = 1.0 if top_high == 0 else bottom_low / top_high
        upper = 1.0 if top_low == 0 else min(1.0, bottom_high / top_low)
    return lower, upper


def _deviation_bounds(low, high, weights):
    """Bounds of Σ_g |r_g − r̄| with r̄ = Σ_g w_g r_g / Σ_g w_g the pooled rate."""
    pooled_low, pooled_high = weights @ low / weights.sum(), weights @ high / weights.sum()
    lower = np.maximum(0.0, np.maximum(low - pooled_high, pooled_low - high)).sum()
    upper = np.maximum(high - pooled_low, pooled_high - low).sum()
    return lower, upper


def _combine(name, bounds, agg="worst_case"):
    """The metric's bounds from the bounds of each rate's term."""
    lows, highs = np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
    if name == "equalized_odds_deviation":
        return lows.sum(), highs.sum()
    if agg == "mean":
        return lows.mean(), highs.mean()
    return lows.max(), highs.max()


_TERM_BOUNDS = {
    "demographic_parity_difference": _gap_bounds,
    "demographic_parity_ratio": _ratio_bounds,
    "true_positive_rate_difference": _gap_bounds,
    "false_positive_rate_difference": _gap_bounds,
    "equalized_odds_difference": _gap_bounds,
    "equalized_odds_deviation": _deviation_bounds,
}


def rate_intervals(cells, squares, name, level):
    """Each group's Clopper–Pearson interval of the rate ``name`` at ``level``, and its support.

    With sample weights the binomial count is the Kish effective size (Σw)²/Σw² of the
    samples the rate conditions on. Returns low, high (NaN where the rate is undefined)
    and the weight each group's rate conditions on.
    """
    condition, _ = RATE_CELLS[name]
    total = cells[..., list(condition)].sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = np.where(total > 0, total ** 2 / squares[..., list(condition)].sum(-1), 0.0)
    low, high = clopper_pearson(np.nan_to_num(rate(cells, name)) * effective, effective, level)
    return low, high, total


def metric_interval(name, cells, squares, ci, **params):
    """An interval holding the metric's population value with probability at least ``ci``.

    ``cells`` and ``squares`` are ``data.cells()`` and ``data.cells(power=2)`` of the samples'
    :class:`~fairkit.metrics._confusion.Confusion`.
    """
    check_level(ci, "ci")
    rates = DEFINITIONS[name].rates
    n_defined = sum(int((~np.isnan(rate(cells, r))).sum()) for r in rates)
    if n_defined == 0:
        return float("nan"), float("nan")
    level = ci ** (1 / n_defined)  # Šidák: the groups' counts are independent
    bounds = []
    for name_of_rate in rates:
        low, high, support = rate_intervals(cells, squares, name_of_rate, level)
        defined = ~np.isnan(low)
        if defined.any():
            bounds.append(_TERM_BOUNDS[name](low[defined], high[defined], support[defined]))
    lower, upper = _combine(name, bounds, **params)
    return float(lower), float(upper)


def fairness_floor(metric, y_true, y_pred, *, sensitive_features, pos_label=None, sample_weight=None,
                   n_draws=1000, quantile=0.95, random_state=None, **params):
    """The noise floor of a group metric: its distribution under an exactly fair rule.

    A rule whose population rates are exactly equal across groups still shows a gap on a
    finite sample, larger for smaller groups. This simulates such a rule on the observed
    group sizes (and label counts): every sample is decided independently at the pooled
    observed rate of its label (the selection rate for the demographic-parity metrics; the
    true and false positive rates for the others) and the metric is computed on each draw.
    An observed value inside that distribution cannot be told from noise.

    Parameters
    ----------
    metric : str or callable
        A group metric of :mod:`fairkit.metrics`, by name or function:
        ``demographic_parity_difference``, ``demographic_parity_ratio``,
        ``true_positive_rate_difference``, ``false_positive_rate_difference``,
        ``equalized_odds_difference`` or ``equalized_odds_deviation``.
    y_true : array-like of shape (n_samples,) or None
        True labels (ignored by the demographic-parity metrics, which also take None).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=None
        The positive label; ``None`` requires labels in {0, 1} or {-1, 1} and takes 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (each sample keeps its weight in every draw).
    n_draws : int, default=1000
        Number of draws of the fair rule.
    quantile : float in (0, 1), default=0.95
        The level of the reported quantile. For a ratio (1 is parity) it is the lower tail:
        the value at ``1 - quantile``.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.
    **params
        Further parameters of the metric (``agg`` of ``equalized_odds_difference``).

    Returns
    -------
    floor : :class:`~sklearn.utils.Bunch`
        ``observed`` (the metric on the data), ``mean`` and ``quantile`` (of the metric
        under the fair rule), ``pvalue`` (the share of fair-rule draws at least as unfair
        as the observed value) and ``draws`` (every draw's value; NaN where the metric is
        undefined on a draw, which the summaries leave out).

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.metrics import fairness_floor
    >>> rng = np.random.default_rng(0)
    >>> group = np.repeat(["a", "b"], [40, 400])
    >>> y_pred = rng.random(440) < 0.3  # one rule for everyone: a gap that is noise
    >>> floor = fairness_floor("demographic_parity_difference", None, y_pred,
    ...                        sensitive_features=group, random_state=0)
    >>> floor.observed <= floor.quantile, floor.pvalue > 0.05
    (True, True)
    """
    name = _metric_name(metric)
    definition = DEFINITIONS[name]
    check_level(quantile, "quantile")
    check_scalar(n_draws, "n_draws", numbers.Integral, min_val=1)
    data = confusion(y_true, y_pred, sensitive_features, sample_weight, pos_label,
                     uses_y_true=definition.uses_y_true)
    cells = data.cells()
    warn_undefined(definition, cells, data.groups)
    observed = float(definition.compute(cells, **params))
    draws = definition.compute(fair_rule_cells(data, n_draws, local_generator(random_state)), **params)
    defined = draws[~np.isnan(draws)]
    if definition.greater_is_fairer:
        level, as_unfair = 1 - quantile, defined <= observed
    else:
        level, as_unfair = quantile, defined >= observed
    return Bunch(observed=observed, mean=float(defined.mean()) if defined.size else float("nan"),
                 quantile=float(np.quantile(defined, level)) if defined.size else float("nan"),
                 pvalue=float(as_unfair.mean()) if defined.size else float("nan"), draws=draws)


def _metric_name(metric):
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", None)
    if name not in DEFINITIONS:
        raise ValueError(f"metric must be one of the group metrics {sorted(DEFINITIONS)} (a name or "
                         f"the function), got {metric!r}.")
    return name
