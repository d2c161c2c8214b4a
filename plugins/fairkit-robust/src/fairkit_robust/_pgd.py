"""The torch side of the attacks: the soft group gap, projected gradient ascent, models as torch functions.

The gap and the attack follow "On the Alignment between Fairness and Accuracy: from the
Perspective of Adversarial Robustness" (ICML 2025, OpenReview ckcXwR8cQS; an earlier version:
J. Chai and X. Wang, arXiv:2304.00061). Imported only when an attack or an adversarially
trained estimator runs, so that ``import fairkit_robust`` never imports torch.
"""

import copy
from typing import NamedTuple

import numpy as np
import pandas as pd
import torch
from sklearn.base import is_classifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from fairkit.utils.nn import single_threaded  # noqa: F401 (the attacks run under it, through this module)
from fairkit_robust._attacks import NORMS, NOTIONS

__all__ = ["NOTIONS", "Scorer", "accuracy_objective", "fairness_objective", "is_fairkit_network",
           "projected_gradient_ascent", "scorer", "soft_gap"]


def _conditions(y, notion):
    """Each sample's condition index (-1: left out) and the number of conditions of ``notion``."""
    if notion == "demographic_parity":
        return torch.zeros_like(y, dtype=torch.int64), 1
    if notion == "equal_opportunity":
        return torch.where(y == 1, 0, -1).to(torch.int64), 1
    if notion == "equalized_odds":
        return y.to(torch.int64), 2
    raise ValueError(f"notion must be one of {', '.join(map(repr, NOTIONS))}; got {notion!r}.")


def soft_gap(scores, y, groups, notion):
    """The soft (probability-based) group-fairness gap of the paper's unified form.

    Every notion is a difference of group-conditional mean scores: with the condition c
    (all samples for demographic parity; ``y = 1`` for equal opportunity; ``y = 1`` and
    ``y = 0`` for equalized odds) and ``m_{g,c}`` the mean of ``scores`` over the samples
    of group g in condition c, a condition contributes ``max_g m_{g,c} - min_g m_{g,c}``
    over its non-empty cells (``|m_{1,c} - m_{0,c}|`` for two groups), and the gap is the
    sum over conditions. For equalized odds this is the notebooks'
    ``|ΔTPR| + |ΔTNR|`` on soft scores: the TNR gap on ``p0 = 1 - p1`` equals the FPR
    gap on ``p1``. A condition with fewer than two non-empty groups contributes 0, so a
    batch that misses a (group, label) cell gives a finite gap (the forks give NaN).

    Parameters
    ----------
    scores : Tensor of shape (n_samples,)
        P(Ŷ = 1) of each sample, usually with its gradient.
    y : Tensor of shape (n_samples,)
        The 0/1 labels (unused for demographic parity).
    groups : Tensor of int64 of shape (n_samples,)
        Each sample's group code, in ``[0, n_groups)``.
    notion : {"demographic_parity", "equal_opportunity", "equalized_odds"}

    Returns
    -------
    gap : Tensor of shape ()
        Differentiable in ``scores`` (through the max and min), in ``[0, n_conditions]``.

    Examples
    --------
    >>> import torch
    >>> scores = torch.tensor([0.9, 0.7, 0.2, 0.4])
    >>> y, groups = torch.tensor([1, 0, 1, 0]), torch.tensor([0, 0, 1, 1])
    >>> round(float(soft_gap(scores, y, groups, "demographic_parity")), 6)  # |0.8 - 0.3|
    0.5
    >>> round(float(soft_gap(scores, y, groups, "equalized_odds")), 6)  # |0.9 - 0.2| + |0.7 - 0.4|
    1.0
    """
    condition, n_conditions = _conditions(y, notion)
    if groups.numel() == 0:
        return scores.sum() * 0.0
    n_groups = int(groups.max()) + 1
    keep = condition >= 0
    cells = (condition * n_groups + groups)[keep]
    size = n_conditions * n_groups
    counts = torch.bincount(cells, minlength=size).reshape(n_conditions, n_groups)
    sums = scores.new_zeros(size).index_add(0, cells, scores[keep]).reshape(n_conditions, n_groups)
    means = sums / counts.clamp(min=1)  # empty cells: 0 / 1, never 0 / 0
    present = counts > 0
    highest = means.masked_fill(~present, -torch.inf).amax(dim=1)
    lowest = means.masked_fill(~present, torch.inf).amin(dim=1)
    terms = torch.where(present.sum(dim=1) >= 2, highest - lowest, 0.0)
    return terms.sum()


def _row_norms(values):
    """The l2 norm of each row, as a column, never 0 (so that dividing by it is safe)."""
    return values.flatten(1).norm(dim=1).clamp(min=torch.finfo(values.dtype).tiny).unsqueeze(1)


def _random_start(X, eps, norm, movable, generator):
    """A perturbation drawn uniformly in the ε-ball of the movable features."""
    n_samples, n_features = X.shape
    if norm == "linf":
        delta = (2 * torch.rand(X.shape, generator=generator, dtype=X.dtype, device=X.device) - 1) * eps
        return delta * movable
    # uniform in the l2 ball of the k movable dimensions: a uniform direction, radius eps * U^(1/k)
    direction = torch.randn(X.shape, generator=generator, dtype=X.dtype, device=X.device) * movable
    k = max(int(movable.sum()), 1)
    radius = eps * torch.rand((n_samples, 1), generator=generator, dtype=X.dtype, device=X.device) ** (1 / k)
    return direction / _row_norms(direction) * radius


def _project(X_adv, X, eps, norm, lower, upper):
    """Onto the ε-ball around X, then into the per-feature bounds.

    For linf the two clamps give the exact projection onto their intersection. For l2,
    clamping into the bounds after rescaling into the ball keeps the point in the ball
    (each coordinate moves towards X's, which lies within the bounds), so the result is
    feasible, though not always the nearest feasible point.
    """
    delta = X_adv - X
    delta = delta.clamp(-eps, eps) if norm == "linf" else delta * (eps / _row_norms(delta)).clamp(max=1.0)
    X_adv = X + delta
    if lower is not None or upper is not None:
        X_adv = X_adv.clamp(min=lower, max=upper)
    return X_adv


def projected_gradient_ascent(objective, X, *, eps, norm, step, n_iter, mask=None, lower=None, upper=None,
                              random_start=True, generator=None):
    """Projected gradient ascent (PGD, Madry et al., ICLR 2018) on a scalar objective of the whole batch.

    Each step moves ``X_adv`` by ``step`` along the sign of the gradient (``"linf"``) or
    along the gradient normalised per sample (``"l2"``), then projects onto the ε-ball
    around ``X`` (per sample) and into the per-feature bounds; features outside ``mask``
    never move. There is no blanket clamp to ``[0, 1]`` (the forks' defect on
    standardised data): only the bounds given. This is the attack of the paper above,
    for the fairness objective (the soft gap) as for the accuracy one (the loss).

    The result is the best point evaluated, not the last iterate: the objective couples
    the samples (a group gap is not a sum over samples), so the iterates do not rise
    monotonically, and keeping the best costs one more evaluation. The candidates
    include ``X`` itself, which lies in the ball, so ``objective(X_adv) >=
    objective(X)`` always holds: the attack never reports a smaller worst case than the
    clean one.

    Parameters
    ----------
    objective : callable
        ``objective(X_adv)`` returns a scalar Tensor to maximise, differentiable in ``X_adv``.
    X : Tensor of shape (n_samples, n_features)
        The clean inputs; they must lie within ``lower`` and ``upper``.
    eps : float
        The radius of the ball (``>= 0``).
    norm : {"linf", "l2"}
    step : float
        The step size (linf: per coordinate; l2: per sample).
    n_iter : int
        The number of gradient steps (``>= 1``).
    mask : Tensor of bool of shape (n_features,) or None, default=None
        The features that may move; None: all.
    lower, upper : Tensor of shape (n_features,) or None, default=None
        Per-feature bounds (entries may be infinite); None: unbounded on that side.
    random_start : bool, default=True
        Start from a point drawn uniformly in the ball (in the movable features) rather
        than from ``X``.
    generator : torch.Generator or None, default=None
        The source of the random start; None: a fresh generator seeded from the operating
        system (torch's global generator is never used).

    Returns
    -------
    X_adv : Tensor of shape (n_samples, n_features)
        Detached, with the dtype and device of ``X``.

    Examples
    --------
    >>> import torch
    >>> X = torch.zeros(3, 2)
    >>> X_adv = projected_gradient_ascent(lambda Z: Z.sum(), X, eps=0.5, norm="linf", step=0.2, n_iter=5,
    ...                                   mask=torch.tensor([True, False]), random_start=False)
    >>> X_adv.tolist()
    [[0.5, 0.0], [0.5, 0.0], [0.5, 0.0]]
    """
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {', '.join(map(repr, NORMS))}; got {norm!r}.")
    X = X.detach()
    if eps == 0:
        return X.clone()
    movable = torch.ones(X.shape[1], dtype=X.dtype, device=X.device)
    if mask is not None:
        movable = mask.to(device=X.device, dtype=X.dtype)
    with torch.no_grad():
        best, best_value = X, objective(X).item()
    X_adv = X
    if random_start:
        if generator is None:
            generator = torch.Generator(device=X.device)
            generator.seed()
        X_adv = _project(X + _random_start(X, eps, norm, movable, generator), X, eps, norm, lower, upper)
    for _ in range(n_iter):
        X_adv = X_adv.clone().requires_grad_(True)
        value = objective(X_adv)
        (gradient,) = torch.autograd.grad(value, X_adv)
        if value.item() > best_value:
            best, best_value = X_adv.detach(), value.item()
        gradient = gradient * movable
        direction = gradient.sign() if norm == "linf" else gradient / _row_norms(gradient)
        with torch.no_grad():
            X_adv = _project(X_adv.detach() + step * direction, X, eps, norm, lower, upper)
    with torch.no_grad():
        if objective(X_adv).item() > best_value:
            best = X_adv
    return best.detach()


# Models as torch functions: the log-odds of class 1, differentiable in X --------------------------


class Scorer(NamedTuple):
    """A binary classifier seen as a torch function of its input columns.

    ``logit(X)`` maps a float64 Tensor of shape (n_samples, n_features) on ``device`` to the
    log-odds of class 1, shape (n_samples,), differentiable in X (for a black-box model
    through an estimated gradient). ``classes`` are the model's labels, class 1 last
    (None: the labels are 0 and 1).
    """

    logit: object
    classes: object
    black_box: bool
    device: object


def is_fairkit_network(model):
    """Whether ``model`` is a fitted fairkit network classifier (FairICPClassifier, GroupDROClassifier).

    Such an estimator reads ``X`` without its ``sensitive_cols``, standardised by its
    ``x_scaler_``, into ``net_.module_``, whose outputs are the logits of its classes.
    """
    return hasattr(model, "x_scaler_") and hasattr(getattr(model, "net_", None), "module_")


def _log_odds(output, kind, model):
    """The log-odds of class 1 from a module's output: logits or probabilities, 1 or 2 columns."""
    output = output.reshape(len(output), -1)
    if output.shape[1] not in (1, 2):
        raise ValueError(f"{type(model).__name__} returns {output.shape[1]} outputs per sample; the attacks "
                         "handle binary classification only (1 logit, or 2 logits or probabilities).")
    if kind == "probabilities":
        tiny = torch.finfo(output.dtype).tiny
        if output.shape[1] == 1:  # P(class 1): log p - log(1 - p)
            return torch.log(output[:, 0].clamp(min=tiny)) - torch.log((1 - output[:, 0]).clamp(min=tiny))
        output = torch.log(output.clamp(min=tiny))
    return output[:, 0] if output.shape[1] == 1 else output[:, 1] - output[:, 0]


def _module_scorer(model, module, classes, kind="logits", scaler=None):
    """A copy of a torch module in eval mode; ``scaler`` (a StandardScaler) standardises X first.

    The module runs in its own dtype (float32, usually: twice as fast as float64 on a CPU),
    the rest of the attack in float64.
    """
    module = copy.deepcopy(module).eval().requires_grad_(False)
    parameter = next(module.parameters(), torch.empty(0, dtype=torch.float64))
    shift, scale = _standard_scaling(scaler, parameter.device)

    def logit(X):
        output = module(((X - shift) / scale).to(parameter.dtype))
        return _log_odds(output.to(torch.float64), kind, model)

    return Scorer(logit, classes, False, parameter.device)


def _standard_scaling(scaler, device=None):
    """The shift and scale of a fitted StandardScaler, as float64 tensors (0 and 1 for None)."""
    shift = scale = None
    if scaler is not None:
        if not isinstance(scaler, StandardScaler):
            raise TypeError(f"expected a StandardScaler, got {type(scaler).__name__}.")
        shift = scaler.mean_ if scaler.with_mean else None
        scale = scaler.scale_ if scaler.with_std else None
    as_tensor = lambda values, default: torch.as_tensor(  # noqa: E731
        default if values is None else values, dtype=torch.float64, device=device)
    return as_tensor(shift, 0.0), as_tensor(scale, 1.0)


def _linear_scorer(model, linear, scalers=()):
    """The closed-form log-odds ``x·w + b`` of a binary linear model, its StandardScalers folded in."""
    weights = np.asarray(linear.coef_.toarray() if hasattr(linear.coef_, "toarray") else linear.coef_,
                         dtype=np.float64)
    intercept = np.asarray(linear.intercept_, dtype=np.float64).reshape(-1)
    if weights.shape[0] != 1 or len(linear.classes_) != 2:
        raise ValueError(f"{type(model).__name__} has {len(linear.classes_)} classes; the attacks handle "
                         "binary classification only.")
    weights, intercept = weights[0], intercept[0]
    for scaler in reversed(scalers):  # w·(x - m)/s + b = (w/s)·x + (b - (w/s)·m)
        shift, scale = (tensor.numpy() for tensor in _standard_scaling(scaler))
        weights = weights / scale
        intercept = intercept - np.sum(weights * shift)
    weights, intercept = torch.as_tensor(weights), torch.as_tensor(intercept)

    def logit(X):
        return X @ weights + intercept

    return Scorer(logit, np.asarray(model.classes_), False, torch.device("cpu"))


def _linear_parts(model):
    """(StandardScalers, linear model) if ``model`` is a binary linear classifier, maybe after scalers."""
    steps = [model]
    if isinstance(model, Pipeline):
        steps = [step for _, step in model.steps if step not in (None, "passthrough")]
        if not all(isinstance(step, StandardScaler) for step in steps[:-1]):
            return None
    linear = steps[-1]
    if all(hasattr(linear, name) for name in ("coef_", "intercept_", "classes_")) and is_classifier(linear):
        return steps[:-1], linear
    return None


class _EstimatedProbability(torch.autograd.Function):
    """P(class 1) of a black-box model, with a gradient estimated by antithetic NES."""

    @staticmethod
    def forward(ctx, X, black_box):
        ctx.black_box = black_box
        ctx.save_for_backward(X)
        probability = black_box.probability(X.detach().cpu().numpy())
        return torch.as_tensor(probability, dtype=X.dtype, device=X.device)

    @staticmethod
    def backward(ctx, grad_output):
        (X,) = ctx.saved_tensors
        gradient = torch.as_tensor(ctx.black_box.gradient(X.detach().cpu().numpy()), dtype=X.dtype,
                                   device=X.device)
        return grad_output.unsqueeze(1) * gradient, None


class _BlackBox:
    """``predict_proba`` of a classifier and a natural-evolution-strategies estimate of its gradient.

    The gradient of the Gaussian smoothing of p at x, ``(1 / (2 σ q)) Σ_k [p(x + σ u_k) -
    p(x - σ u_k)] u_k`` with q antithetic pairs of standard normal directions u_k on the
    movable features (Ilyas et al., "Black-box Adversarial Attacks with Limited Queries
    and Information", ICML 2018): unbiased for the smoothed p, whatever the model (a tree
    ensemble included, whose own gradient is 0 almost everywhere).
    """

    def __init__(self, model, columns, movable, sigma, n_pairs, seed):
        self.model, self.columns, self.sigma, self.n_pairs = model, columns, sigma, n_pairs
        self.movable = np.asarray(movable, dtype=np.float64)
        self.rng = np.random.default_rng(seed)

    def probability(self, X):
        X = X if self.columns is None else pd.DataFrame(X, columns=self.columns)
        return self.model.predict_proba(X)[:, 1]

    def gradient(self, X):
        gradient = np.zeros_like(X)
        for _ in range(self.n_pairs):
            direction = self.rng.standard_normal(X.shape) * self.movable
            probabilities = self.probability(np.concatenate([X + self.sigma * direction,
                                                             X - self.sigma * direction]))
            gradient += (probabilities[:len(X)] - probabilities[len(X):])[:, None] * direction
        return gradient / (2 * self.sigma * self.n_pairs)


def _black_box_scorer(model, columns, movable, sigma, n_pairs, seed):
    black_box = _BlackBox(model, columns, movable, sigma, n_pairs, seed)
    tiny = 1e-6  # log-odds of p through log(p + tiny) - log(1 - p + tiny): finite at p = 0 or 1, no clamp

    def logit(X):
        probability = _EstimatedProbability.apply(X, black_box)
        return torch.log(probability + tiny) - torch.log(1 - probability + tiny)

    return Scorer(logit, np.asarray(model.classes_), True, torch.device("cpu"))


def scorer(model, *, columns=None, movable=None, sigma=None, n_pairs=10, seed=None):
    """The :class:`Scorer` of a fitted binary classifier.

    The kinds of model, tried in this order: a fairkit network classifier
    (:func:`is_fairkit_network`); a skorch net, its module's output read by its criterion
    (``CrossEntropyLoss``, ``BCEWithLogitsLoss``: logits; ``NLLLoss``, skorch's default,
    and ``BCELoss``: probabilities); a torch module returning logits (1 or 2 per sample;
    log-probabilities, as the paper's network returns, do as well); a binary linear
    scikit-learn classifier (``coef_``, ``intercept_``), alone or after StandardScalers in
    a Pipeline, through its closed form ``x·w + b``; any other classifier with
    ``predict_proba``, as a black box whose gradient is estimated. Modules run on a copy,
    in eval mode.

    Parameters
    ----------
    model : fitted binary classifier
    columns : Index or None, default=None
        Black box only: the column names its ``predict_proba`` expects (None: an array).
    movable : ndarray of bool of shape (n_features,), default=None
        Black box only: the features its gradient is estimated on.
    sigma : float, default=None
        Black box only: the scale of the probes.
    n_pairs : int, default=10
        Black box only: the antithetic pairs of probes per sample and evaluation of the gradient.
    seed : int, default=None
        Black box only: the seed of the probes.

    Returns
    -------
    scorer : Scorer

    Raises
    ------
    TypeError
        If ``model`` is none of these kinds.
    ValueError
        If it has more than two classes.
    """
    if is_fairkit_network(model):
        return _module_scorer(model, model.net_.module_, np.asarray(model.classes_), scaler=model.x_scaler_)
    try:
        from skorch import NeuralNet
    except ImportError:  # skorch is optional here: no skorch, no skorch nets to score
        NeuralNet = ()
    if isinstance(model, NeuralNet):
        criterion = getattr(model, "criterion_", None)
        if isinstance(criterion, torch.nn.CrossEntropyLoss | torch.nn.BCEWithLogitsLoss):
            kind = "logits"
        elif isinstance(criterion, torch.nn.NLLLoss | torch.nn.BCELoss):
            kind = "probabilities"
        else:
            raise TypeError(f"{type(model).__name__} has criterion {type(criterion).__name__}, so what its "
                            "module returns is unknown; pass its module (net.module_) if it returns logits.")
        classes = getattr(model, "classes_", None)
        return _module_scorer(model, model.module_, None if classes is None else np.asarray(classes), kind)
    if isinstance(model, torch.nn.Module):
        return _module_scorer(model, model, None)
    parts = _linear_parts(model)
    if parts is not None:
        return _linear_scorer(model, parts[1], parts[0])
    if hasattr(model, "predict_proba") and hasattr(model, "classes_"):
        if len(model.classes_) != 2:
            raise ValueError(f"{type(model).__name__} has {len(model.classes_)} classes; the attacks handle "
                             "binary classification only.")
        return _black_box_scorer(model, columns, movable, sigma, n_pairs, seed)
    raise TypeError(f"cannot attack a {type(model).__name__}: expected a torch module returning logits, a "
                    "skorch net, a fairkit network classifier, or a fitted scikit-learn classifier with "
                    "coef_ and intercept_ (binary linear) or with predict_proba (attacked as a black box).")


def fairness_objective(logit, y, groups, notion):
    """``X ↦ soft_gap(sigmoid(logit(X)), y, groups, notion)``: what the fairness attack maximises."""
    return lambda X: soft_gap(torch.sigmoid(logit(X)), y, groups, notion)


def accuracy_objective(logit, y):
    """``X ↦`` the mean cross-entropy of the labels ``y`` (0/1): what the accuracy attack maximises."""
    targets = y.to(torch.float64)
    return lambda X: torch.nn.functional.binary_cross_entropy_with_logits(logit(X), targets)
