"""The torch side of GroupDROClassifier: the online GroupDRO loss and a skorch net trained on it.

Imported only when the estimator fits or predicts, so that ``import fairkit_subgroups``
never imports torch or skorch.
"""

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import ProgressBar

from fairkit.utils.nn import (  # noqa: F401 (the estimator reaches the building blocks through this module)
    MLP,
    Minibatches,
    check_device,
    check_net_params,
    forward,
    load_state_arrays,
    seeded,
    state_arrays,
)

__all__ = ["GroupDRONet", "group_dro_step"]

_TINY = np.finfo(np.float64).tiny


def group_dro_step(losses, groups, group_weights, size_terms, eta):
    """One step of online GroupDRO on a batch: the new group weights q and the robust loss.

    As Sagawa et al. (ICLR 2020, Algorithm 1) and the reference ``LossComputer``
    (Alloula et al., ICML 2025): with ℓ_g the mean loss of the batch's samples of
    group g and ℓ̃_g = ℓ_g + C/√n_g (``size_terms`` holds C/√n_g),
    ``q_g ← q_g · exp(eta · ℓ̃_g)``, renormalised, and the loss is ``Σ_g q_g ℓ̃_g`` with
    the new q. The size term enters the loss as well as the update, as in the
    reference, which adds it to the group losses in place; it shifts the loss by a
    constant and leaves its gradient unchanged.

    A group with no sample in the batch keeps its weight and is left out of the loss;
    the groups present share the rest of the mass by the update above. The reference
    instead scores an absent group as if its loss were 0 (ℓ̃_g = C/√n_g, and that term
    enters the loss), as if the network were perfect on it: its weight moves on a loss
    nobody observed, and a small group, absent from many batches, is pulled down for
    being small, against the purpose of GroupDRO. When every group is present the two
    agree.

    The update's arithmetic on the n_groups numbers runs in numpy, and the loss is one
    weighted sum of the per-sample losses (weight q_g / count_g of the batch), plus the
    size terms as a constant: the same value and gradient in three torch operations
    instead of some thirty, whose fixed cost is what shows on small batches.

    Parameters
    ----------
    losses : Tensor of shape (batch_size,)
        Per-sample losses (with their gradient).
    groups : Tensor of int64 of shape (batch_size,)
        Each sample's group code, in ``[0, n_groups)``.
    group_weights : ndarray of float64 of shape (n_groups,)
        The current q, on the simplex.
    size_terms : ndarray of float64 of shape (n_groups,)
        C/√n_g, n_g the training count of group g.
    eta : float
        Step size of the weights' update.

    Returns
    -------
    loss : Tensor of shape ()
        The robust loss, in the dtype of ``losses``.
    group_weights : ndarray of float64 of shape (n_groups,)
        The updated q.
    """
    codes = groups.cpu().numpy()
    counts = np.bincount(codes, minlength=len(group_weights))
    present, per_group = counts > 0, np.maximum(counts, 1)
    sums = np.bincount(codes, losses.detach().cpu().numpy(), minlength=len(counts))
    adjusted = sums / per_group + size_terms
    step = np.where(present, eta * adjusted, -np.inf)
    grown = group_weights * np.exp(step - step.max())  # exp never overflows; absent groups get 0
    mass = group_weights @ present  # the groups present share their mass; the others keep theirs
    new_weights = np.where(present, grown * (mass / max(grown.sum(), _TINY)), group_weights)
    # Σ_g q_g ℓ̃_g over the groups present, as one weighted sum of the per-sample losses
    sample_weights = torch.from_numpy(np.where(present, new_weights / per_group, 0.0)[codes]).to(losses)
    return losses @ sample_weights + float(new_weights @ np.where(present, size_terms, 0.0)), new_weights


class GroupDRONet(NeuralNet):
    """A skorch net trained with the online GroupDRO loss (see :func:`group_dro_step`).

    The training data ``X`` is a dict with ``"x"`` (features) and ``"group"`` (each
    row's group code). The criterion must return one loss per sample
    (``criterion__reduction="none"``). q starts uniform when training starts, is
    updated on every training batch (once per evaluation of the loss) and is recorded
    in the history after each epoch (``"group_weights"``); ``group_weights_`` holds
    the current q.
    """

    def __init__(self, module, criterion, *args, group_counts=None, eta=0.01, size_adjustment=1.0,
                 **kwargs):
        super().__init__(module, criterion, *args, **kwargs)
        self.group_counts = group_counts
        self.eta = eta
        self.size_adjustment = size_adjustment

    def get_default_callbacks(self):
        callbacks = super().get_default_callbacks()
        return [*callbacks, ("progress_bar", ProgressBar())] if self.verbose else callbacks

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        super().on_train_begin(net, X, y, **kwargs)
        counts = np.asarray(self.group_counts, dtype=np.float64)
        self.size_terms_ = self.size_adjustment / np.sqrt(counts)
        self.group_weights_ = np.full(len(counts), 1.0 / len(counts))

    def on_epoch_end(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        super().on_epoch_end(net, dataset_train, dataset_valid, **kwargs)
        self.history.record("group_weights", self.group_weights_.tolist())

    def infer(self, x, **fit_params):
        return self.module_(x["x"].to(self.device), **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        """The GroupDRO loss of the batch; q is updated when ``training``."""
        losses = super().get_loss(y_pred, y_true, X=X, training=training)
        if losses.shape != (len(y_pred),):
            raise ValueError(f"GroupDRO needs one loss per sample from the criterion, got shape "
                             f"{tuple(losses.shape)} for a batch of {len(y_pred)}. Construct the "
                             "criterion with reduction='none' (net_params criterion__reduction='none').")
        groups = X["group"].to(self.device)
        loss, group_weights = group_dro_step(losses, groups, self.group_weights_, self.size_terms_, self.eta)
        if training:
            self.group_weights_ = group_weights
        return loss
