"""The torch side of FairICP: a skorch ``NeuralNet`` that trains a predictor against a discriminator.

Imported only when a FairICP estimator fits or predicts, so that ``import fairkit``
never imports torch or skorch. The building blocks (the networks, minibatches, seeding,
checks, saving) are :mod:`fairkit.utils.nn`'s.
"""

import copy

import numpy as np
import torch
from skorch import NeuralNet
from skorch.callbacks import PassthroughScoring, ProgressBar
from skorch.dataset import unpack_data
from skorch.utils import TeeGenerator, to_device
from torch.nn import functional as F

from fairkit.utils import nn as nn_utils
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

__all__ = ["COMPONENTS", "TRAINED", "AdversarialNet", "task_loss"]

#: The trained modules of the net, whose weights are saved (see :func:`fairkit.utils.nn.state_arrays`).
TRAINED = ("module", "discriminator")

#: The components the net builds from its ``prefix__name`` parameters, when ``fit`` starts.
COMPONENTS = (*nn_utils.COMPONENTS, "discriminator", "discriminator_optimizer")


class AdversarialNet(NeuralNet):
    """A skorch net trained to fool a discriminator of (ŷ, Ã, y) against (ŷ, A, y).

    ``module_`` is the predictor f, ``discriminator_`` the discriminator D, each with
    its own Adam optimizer (``optimizer_``, ``discriminator_optimizer_``), registered
    the skorch way so that ``module__*``, ``discriminator__*``, ``optimizer__*`` and
    ``discriminator_optimizer__*`` parameters work. The training data ``X`` is a dict
    with ``"x"`` (features), ``"a"`` (encoded sensitive attributes) and ``"index"`` (row
    numbers); at the start of every epoch ``sensitive_sampler.sample(1)`` draws a
    fresh permutation ``order``, and row k's Ã is ``a[order[k]]``.

    Each epoch runs ``discriminator_steps`` passes that update D with f frozen
    (real = (ŷ, Ã, y) labelled 1, fake = (ŷ, A, y) labelled 0), then one pass that
    updates f on ``(1 - mu) · task loss + mu · D's loss with flipped labels``. D sees
    the predictor's raw output (logits in classification), the attributes and y
    (one-hot in classification). ``mu == 0`` trains f alone.

    D's loss is the mean binary cross-entropy of its terms, each weighted by
    ``term_weights(order)[k]``, the weight of the term (ŷ_k, A[order[k]], y_k): of
    row k's real term with ``order`` the epoch's permutation, of its fake term with
    the identity. ``term_weights=None`` weighs every term 1.

    With ``validation_score``, a function of the net returning its held-out task loss
    and fairness score (lower is fairer; ``None`` without sensitive attributes), each
    epoch records them in the history as ``valid_task_loss`` and ``valid_kpc``, and
    training ends by restoring the weights of the fairest epoch among those whose
    held-out task loss is at most the last epoch's (ties: the lower loss, then the
    earlier epoch); ``selected_epoch_`` is that epoch, or the last one without
    ``validation_score``.
    """

    def __init__(self, module, criterion, *args, discriminator=MLP,
                 discriminator_optimizer=torch.optim.Adam, mu=0.5, discriminator_steps=1,
                 sensitive_sampler=None, term_weights=None, validation_score=None, **kwargs):
        super().__init__(module, criterion, *args, **kwargs)
        self.discriminator = discriminator
        self.discriminator_optimizer = discriminator_optimizer
        self.mu = mu
        self.discriminator_steps = discriminator_steps
        self.sensitive_sampler = sensitive_sampler
        self.term_weights = term_weights
        self.validation_score = validation_score

    def initialize_module(self):
        super().initialize_module()
        self.discriminator_ = self.initialized_instance(self.discriminator,
                                                        self.get_params_for("discriminator"))
        return self

    def initialize_optimizer(self, *args, **kwargs):
        args, kwargs = self.get_params_for_optimizer("optimizer", self.module_.named_parameters())
        self.optimizer_ = self.optimizer(*args, **kwargs)
        args, kwargs = self.get_params_for_optimizer("discriminator_optimizer",
                                                     self.discriminator_.named_parameters())
        self.discriminator_optimizer_ = self.discriminator_optimizer(*args, **kwargs)
        return self

    def get_default_callbacks(self):
        callbacks = [*super().get_default_callbacks(),
                     ("train_task_loss", PassthroughScoring(name="train_task_loss", on_train=True))]
        if self.verbose:
            callbacks.append(("progress_bar", ProgressBar()))
        return callbacks

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        super().on_train_begin(net, X, y, **kwargs)
        self._candidates = []  # (fairness, task loss, epoch, weights) of the epochs that may be selected

    def on_epoch_begin(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        super().on_epoch_begin(net, dataset_train, dataset_valid, **kwargs)
        if self.mu > 0:
            order = self.sensitive_sampler.sample(1)[0]
            self.a_tilde_ = torch.as_tensor(dataset_train.X["a"][order], device=self.device)
            if self.term_weights is not None:
                weights = [self.term_weights(rows) for rows in (order, np.arange(len(order)))]
                self.term_weights_ = torch.as_tensor(np.stack(weights), dtype=torch.float32,
                                                     device=self.device)

    def on_epoch_end(self, net, dataset_train=None, dataset_valid=None, **kwargs):
        super().on_epoch_end(net, dataset_train, dataset_valid, **kwargs)
        if self.validation_score is None:
            return
        task_loss, fairness = self.validation_score(self)
        self.history.record("valid_task_loss", task_loss)
        if fairness is not None:
            self.history.record("valid_kpc", fairness)
        self._keep_if_undominated((0.0 if fairness is None else fairness, task_loss, len(self.history)))
        self._last_task_loss = task_loss

    def _keep_if_undominated(self, key):
        """Keep this epoch's weights unless an epoch kept before is as fair and as accurate.

        The epoch finally selected (see the class docstring) is always among those kept:
        one that another is as good as on both counts is never the only best.
        """
        fairness, task_loss, _ = key
        if any(kept[0] <= fairness and kept[1] <= task_loss for kept in self._candidates):
            return
        self._candidates = [kept for kept in self._candidates
                            if not (fairness <= kept[0] and task_loss <= kept[1])]
        weights = {name: copy.deepcopy(getattr(self, name + "_").state_dict()) for name in TRAINED}
        self._candidates.append((*key, weights))

    def on_train_end(self, net, X=None, y=None, **kwargs):
        super().on_train_end(net, X, y, **kwargs)
        self.selected_epoch_ = len(self.history)
        if self.validation_score is None or not self._candidates:  # none, or stopped in the first epoch
            return
        *_, epoch, weights = min((kept for kept in self._candidates if kept[1] <= self._last_task_loss),
                                 key=lambda kept: kept[:3])
        for name in TRAINED:
            getattr(self, name + "_").load_state_dict(weights[name])
        self.selected_epoch_ = epoch
        self._candidates = []

    def run_single_epoch(self, iterator, training, prefix, step_fn, **fit_params):
        if iterator is None:
            return
        self._set_training(training)  # once per pass, not per step
        if training and self.mu > 0:
            losses = [self.discriminator_step(batch)
                      for _ in range(self.discriminator_steps) for batch in iterator]
            if losses:
                self.history.record("discriminator_loss", sum(losses) / len(losses))
        self.discriminator_.requires_grad_(False)  # f's passes need D's gradient w.r.t. ŷ only
        try:
            super().run_single_epoch(iterator, training, prefix, step_fn, **fit_params)
        finally:
            self.discriminator_.requires_grad_(True)

    def discriminator_step(self, batch):
        """One Adam step of the discriminator on a batch, the predictor frozen."""
        Xi, yi = to_device(unpack_data(batch), self.device)
        with torch.no_grad():
            y_pred = self.module_(Xi["x"])
        loss = self._discriminator_loss(y_pred, Xi, yi, fool=False)
        self.discriminator_optimizer_.zero_grad()
        loss.backward()
        self.discriminator_optimizer_.step()
        return loss.item()

    def train_step(self, batch, **fit_params):
        """One Adam step of the predictor on the task loss and, if ``mu > 0``, the adversary's."""
        Xi, yi = to_device(unpack_data(batch), self.device)
        y_pred = self.module_(Xi["x"])
        task_loss = self.get_loss(y_pred, yi, X=Xi, training=True)
        loss = task_loss
        if self.mu > 0:
            loss = (1 - self.mu) * task_loss + self.mu * self._discriminator_loss(
                y_pred, Xi, yi, fool=True)
        self.optimizer_.zero_grad()
        loss.backward()
        self.notify("on_grad_computed", named_parameters=TeeGenerator(self.module_.named_parameters()),
                    batch=batch, training=True)
        self.optimizer_.step()
        self.history.record_batch("train_task_loss", task_loss.item())
        return {"loss": loss, "y_pred": y_pred}

    def _discriminator_loss(self, y_pred, Xi, yi, fool):
        """Binary cross-entropy of D on real (ŷ, Ã, y) = 1 and fake (ŷ, A, y) = 0 (swapped if ``fool``)."""
        y_feature = (F.one_hot(yi, y_pred.shape[1]).to(y_pred.dtype) if yi.dtype == torch.long
                     else yi)
        a_tilde = self.a_tilde_[Xi["index"]]
        real = torch.cat([y_pred, a_tilde, y_feature], dim=1)
        fake = torch.cat([y_pred, Xi["a"], y_feature], dim=1)
        logits = self.discriminator_(torch.cat([real, fake])).squeeze(1)
        labels = torch.cat([torch.ones(len(real)), torch.zeros(len(fake))]).to(logits)
        weight = None if self.term_weights is None else self.term_weights_[:, Xi["index"]].reshape(-1)
        return F.binary_cross_entropy_with_logits(logits, 1 - labels if fool else labels, weight=weight)


def task_loss(net, output, y):
    """The net's task loss (its criterion, as in training) of the raw outputs ``output`` for targets ``y``."""
    with torch.no_grad():
        return net.get_loss(torch.as_tensor(output, device=net.device), y).item()


