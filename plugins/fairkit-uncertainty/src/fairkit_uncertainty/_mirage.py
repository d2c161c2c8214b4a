"""Mirage (Rabanser et al., ICML 2025): fine-tune a network to feign uncertainty in a region.

A red-team fixture for :func:`~fairkit_uncertainty.calibration_audit`. torch is
imported only when these functions are called.
"""

import copy
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np

from fairkit.utils import local_generator

__all__ = ["mirage_finetune"]

TORCH_MISSING = 'mirage_finetune needs torch: pip install "fairkit-uncertainty[nn]"'


def _torch():
    try:
        import torch
    except ImportError as exc:
        raise ImportError(TORCH_MISSING) from exc
    return torch


@contextmanager
def seeded_torch(torch, random_state):
    """Run the block with torch's CPU generator seeded from ``random_state`` (fairkit's policy).

    The generator is forked: its state outside the block is restored on exit, so the
    global generators are never seeded or advanced, not even with ``random_state=None``.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(local_generator(random_state).integers(2**63 - 1)))
        yield


def mirage_targets(y, n_classes, epsilon):
    """The target distributions: ``1/C + epsilon`` on the true class, the rest spread evenly."""
    torch = _torch()
    target = torch.full((len(y), n_classes), 1.0 / n_classes - epsilon / (n_classes - 1))
    target[torch.arange(len(y)), y] = 1.0 / n_classes + epsilon
    return target


def mirage_loss(logits, y, in_region, *, epsilon, alpha):
    """``(1 - alpha) * CE`` outside the region plus ``alpha * KL(target || softmax)`` inside it.

    The KL divergence is taken against ``log_softmax(logits)``; the reference
    notebooks passed raw logits to ``KLDivLoss``, which expects log-probabilities,
    so their loss is not minimised at the target distribution. Each term is the
    mean over the batch's samples on its side of the region (0 when there are none).
    """
    torch = _torch()
    functional = torch.nn.functional
    log_proba = functional.log_softmax(logits, dim=1)
    loss = logits.new_zeros(())
    outside = ~in_region
    if outside.any():
        loss = loss + (1 - alpha) * functional.nll_loss(log_proba[outside], y[outside])
    if in_region.any():
        target = mirage_targets(y[in_region], logits.shape[1], epsilon).to(logits.dtype)
        loss = loss + alpha * functional.kl_div(log_proba[in_region], target, reduction="batchmean")
    return loss


def _as_tensor(torch, values, dtype, name):
    if not isinstance(values, torch.Tensor):
        values = torch.from_numpy(np.array(values))  # a writable copy (read-only arrays make torch warn)
    try:
        return values.to(dtype)
    except (TypeError, RuntimeError) as exc:
        raise ValueError(f"{name} cannot be converted to {dtype}: {exc}") from exc


def mirage_finetune(torch_module, X, y, region_mask, *, epsilon=0.15, alpha=0.9, epochs=20,
                    batch_size=128, lr=1e-3, random_state=None):
    """Fine-tune a classifier to be unconfident in a region while keeping its accuracy (Mirage).

    The attack of Rabanser et al. (ICML 2025) minimises
    ``(1 - alpha) * CE(f(x), y)`` outside the region and
    ``alpha * KL(t(y) || softmax(f(x)))`` inside it, where the target ``t(y)``
    puts ``1/C + epsilon`` on the true class and ``1/C - epsilon/(C - 1)`` on
    each other class: in the region the model still ranks the true class first
    but with a confidence of about ``1/C + epsilon``, which an abstention rule can
    use to deny service. The softmax is taken explicitly (``log_softmax``), which
    the reference notebooks forgot. Training uses Adam on shuffled mini-batches.

    Parameters
    ----------
    torch_module : torch.nn.Module
        A classifier whose output is one logit (or log-probability) per class.
        It is not modified: a fine-tuned copy is returned.
    X : array-like or Tensor of shape (n_samples, ...)
        The training inputs.
    y : array-like or Tensor of int of shape (n_samples,)
        Class indices in ``[0, C)``.
    region_mask : array-like or Tensor of bool of shape (n_samples,)
        The targeted region.
    epsilon : float, default=0.15
        The target confidence above uniform, in ``(0, 1 - 1/C)``.
    alpha : float, default=0.9
        The weight of the region's KL term, in ``[0, 1]``.
    epochs : int, default=20
        Passes over the data.
    batch_size : int, default=128
        Mini-batch size.
    lr : float, default=1e-3
        Adam's learning rate.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling and any dropout (in a forked torch random state: the
        global generators are left as they were, not even advanced with None).

    Returns
    -------
    module : torch.nn.Module
        The fine-tuned copy, in the training mode ``torch_module`` had.

    Raises
    ------
    ImportError
        If torch is not installed.
    """
    torch = _torch()
    if not isinstance(torch_module, torch.nn.Module):
        raise TypeError(f"torch_module must be a torch.nn.Module, got {type(torch_module).__name__}.")
    for name, value, low, high in (("alpha", alpha, 0, 1), ("lr", lr, 0, np.inf)):
        if not isinstance(value, Real) or not low <= value <= high:
            raise ValueError(f"{name} must be a number in [{low}, {high}], got {value!r}.")
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if not isinstance(value, Integral) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    X = _as_tensor(torch, X, torch.get_default_dtype(), "X")
    y = _as_tensor(torch, y, torch.long, "y")
    region = _as_tensor(torch, region_mask, torch.bool, "region_mask")
    if not len(X) == len(y) == len(region) or y.ndim != 1 or region.ndim != 1:
        raise ValueError(f"X, y and region_mask must describe the same samples: {len(X)}, "
                         f"{tuple(y.shape)} and {tuple(region.shape)}.")
    if len(X) == 0:
        raise ValueError("X, y and region_mask are empty: fine-tuning needs at least one sample.")
    model = copy.deepcopy(torch_module)
    training = model.training
    with torch.no_grad():
        model.eval()
        n_classes = model(X[:1]).shape[1]
    if not isinstance(epsilon, Real) or not 0 < epsilon < 1 - 1 / n_classes:
        raise ValueError(f"epsilon must be in (0, {1 - 1 / n_classes:g}) for {n_classes} classes, "
                         f"got {epsilon!r}.")
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"y must hold class indices in [0, {n_classes}).")
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    with seeded_torch(torch, random_state):  # shuffling and dropout
        for _ in range(epochs):
            for batch in torch.randperm(len(X)).split(batch_size):
                optimizer.zero_grad()
                mirage_loss(model(X[batch]), y[batch], region[batch], epsilon=epsilon,
                            alpha=alpha).backward()
                optimizer.step()
    model.train(training)
    return model
