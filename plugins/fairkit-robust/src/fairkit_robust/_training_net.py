"""The torch side of FairAdversarialClassifier: a skorch net trained on adversarial examples.

Imported only when the estimator fits or predicts, so that ``import fairkit_robust``
never imports torch or skorch. The attack and the soft gap are :mod:`fairkit_robust._pgd`'s,
the building blocks (the network, minibatches, seeding, checks, saving) :mod:`fairkit.utils.nn`'s.
"""

import torch
from skorch import NeuralNet
from skorch.callbacks import PassthroughScoring, ProgressBar
from skorch.dataset import unpack_data

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
from fairkit_robust._pgd import projected_gradient_ascent, soft_gap

__all__ = ["FairAdversarialNet"]


class FairAdversarialNet(NeuralNet):
    """A skorch net trained on the task loss plus ``lambda_fair`` times the soft gap of adversarial examples.

    The unified adversarial training of "On the Alignment between Fairness and Accuracy:
    from the Perspective of Adversarial Robustness" (ICML 2025, OpenReview ckcXwR8cQS;
    earlier J. Chai and X. Wang, arXiv:2304.00061). The training data ``X`` is a dict with
    ``"x"`` (the features, in their own units) and ``"group"`` (each row's group code);
    ``module_`` sees ``(x - x_shift) / x_scale``. On every training batch the net

    1. attacks the batch: ``x_adv`` is :func:`~fairkit_robust._pgd.projected_gradient_ascent`
       in the ``eps``-ball (``norm``) around ``x``, in the features' own units, within
       ``[lower, upper]``, moving only the ``perturbable`` features, ``attack_steps``
       steps of size ``attack_step``, from a random start drawn from a generator seeded
       with ``attack_seed``, on the objective ``attack``: ``"accuracy"`` the criterion
       (cross-entropy), ``"fairness"`` the soft gap of ``notion``, ``"both"`` the
       criterion plus ``lambda_fair`` times the gap (the training loss itself);
       ``attack="none"`` or ``eps == 0`` skips the attack (``x_adv = x``, nothing drawn);
    2. takes an optimizer step on ``criterion(f(x_adv), y) + lambda_fair ·
       soft_gap(P(Ŷ=1 | x_adv), y, group, notion)``.

    The batch's task loss and gap are recorded in the history (``train_task_loss``,
    ``train_gap``; ``train_loss`` is their weighted sum). The criterion must return
    one scalar per batch (its default ``reduction="mean"``).
    """

    def __init__(self, module, criterion, *args, notion="equalized_odds", lambda_fair=0.4, attack="accuracy",
                 eps=0.1, norm="linf", attack_steps=10, attack_step=0.025, x_shift=None, x_scale=None,
                 lower=None, upper=None, perturbable=None, attack_seed=0, **kwargs):
        super().__init__(module, criterion, *args, **kwargs)
        self.notion = notion
        self.lambda_fair = lambda_fair
        self.attack = attack
        self.eps = eps
        self.norm = norm
        self.attack_steps = attack_steps
        self.attack_step = attack_step
        self.x_shift = x_shift
        self.x_scale = x_scale
        self.lower = lower
        self.upper = upper
        self.perturbable = perturbable
        self.attack_seed = attack_seed

    def get_default_callbacks(self):
        callbacks = [*super().get_default_callbacks(),
                     ("train_task_loss", PassthroughScoring(name="train_task_loss", on_train=True)),
                     ("train_gap", PassthroughScoring(name="train_gap", on_train=True))]
        return [*callbacks, ("progress_bar", ProgressBar())] if self.verbose else callbacks

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        super().on_train_begin(net, X, y, **kwargs)

        def tensor(values, dtype=torch.float32):
            return None if values is None else torch.as_tensor(values, dtype=dtype, device=self.device)
        self.x_shift_, self.x_scale_ = tensor(self.x_shift), tensor(self.x_scale)
        self.lower_, self.upper_ = tensor(self.lower), tensor(self.upper)
        self.perturbable_ = tensor(self.perturbable, torch.bool)
        self.attack_generator_ = torch.Generator(device=self.device).manual_seed(int(self.attack_seed))

    def standardize(self, x):
        """The module's input for features ``x`` in their own units."""
        x = x if self.x_shift_ is None else x - self.x_shift_
        return x if self.x_scale_ is None else x / self.x_scale_

    def infer(self, x, **fit_params):
        return self.module_(self.standardize(x["x"].to(self.device)), **fit_params)

    def task_loss(self, logits, y):
        """The criterion (cross-entropy by default) of the batch, a scalar Tensor."""
        loss = self.criterion_(logits, y)
        if loss.ndim != 0:
            raise ValueError(f"The criterion returned a loss of shape {tuple(loss.shape)}; unified "
                             "adversarial training needs one scalar per batch. Construct it with "
                             "reduction='mean' (the default), not net_params criterion__reduction='none'.")
        return loss

    def gap(self, logits, y, groups):
        """The soft gap of ``notion`` of the batch's P(Ŷ = 1), a scalar Tensor."""
        return soft_gap(torch.softmax(logits, dim=1)[:, 1], y, groups, self.notion)

    def attack_objective(self, logits, y, groups):
        """What the attack maximises: the task loss, the soft gap or the training loss (``attack``)."""
        if self.attack == "accuracy":
            return self.task_loss(logits, y)
        gap = self.gap(logits, y, groups)
        return gap if self.attack == "fairness" else self.task_loss(logits, y) + self.lambda_fair * gap

    def adversarial_examples(self, x, y, groups):
        """The batch ``x`` attacked (see the class docstring); ``x`` itself without an attack."""
        if self.attack == "none" or self.eps == 0:
            return x
        return projected_gradient_ascent(
            lambda x_adv: self.attack_objective(self.module_(self.standardize(x_adv)), y, groups), x,
            eps=self.eps, norm=self.norm, step=self.attack_step, n_iter=self.attack_steps,
            mask=self.perturbable_, lower=self.lower_, upper=self.upper_, generator=self.attack_generator_)

    def train_step_single(self, batch, **fit_params):
        """Attack the batch, then compute the training loss on the adversarial examples and its gradient."""
        Xi, yi = unpack_data(batch)
        self._set_training(True)  # the module is attacked as it is trained, as in the reference
        x, y, groups = (tensor.to(self.device) for tensor in (Xi["x"], yi, Xi["group"]))
        x_adv = self.adversarial_examples(x, y, groups)
        return super().train_step_single(({**Xi, "x": x_adv}, yi), **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        """``criterion + lambda_fair · soft gap`` of the batch; recorded in the history when ``training``."""
        y_true = y_true.to(self.device)
        task, gap = self.task_loss(y_pred, y_true), self.gap(y_pred, y_true, X["group"].to(self.device))
        if training:
            self.history.record_batch("train_task_loss", task.item())
            self.history.record_batch("train_gap", gap.item())
        return task + self.lambda_fair * gap
