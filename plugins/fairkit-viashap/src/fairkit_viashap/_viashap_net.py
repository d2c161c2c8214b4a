"""The torch side of the ViaSHAP estimators: the Shapley network, its loss and a skorch net trained on it.

Imported only when an estimator fits, predicts or explains, so that ``import fairkit_viashap``
never imports torch or skorch.
"""

import copy

import torch
from skorch import NeuralNet
from skorch.callbacks import ProgressBar
from skorch.dataset import Dataset  # noqa: F401 (for the estimators)
from skorch.helper import predefined_split  # noqa: F401 (for the estimators)
from torch import nn

from fairkit.utils.nn import (  # noqa: F401 (the estimators reach the building blocks through this module)
    MLP,
    Minibatches,
    check_device,
    check_net_params,
    forward,
    load_state_arrays,
    seeded,
    single_threaded,
    state_arrays,
)
from fairkit_viashap._coalitions import sample_coalitions
from fairkit_viashap._kan import KAN

__all__ = ["ShapleyNetwork", "ViaSHAPNet", "shap_values", "viashap_loss"]


class ShapleyNetwork(nn.Module):
    """The ViaSHAP model: g(x) = φ(x) ∈ R^{d×k}, output ``Σ_j φ_j(x) + v0`` on the link scale.

    Parameters
    ----------
    n_inputs : int
        d, the number of features.
    n_outputs : int
        k, the outputs on the link scale (1 for binary and regression, one per class otherwise).
    hidden_layer_sizes : tuple of int
        Hidden layers of the backbone.
    backbone : {"mlp", "kan"}
        A ReLU network (:class:`fairkit.utils.nn.MLP`) or a Kolmogorov-Arnold network
        (:class:`fairkit_viashap._kan.KAN`).
    basis : {"rbf", "bspline"}
        The KAN's basis (unused by the MLP).
    categories : tuple of (int, int) pairs, default=()
        The categorical columns, as (column, number of categories): their values are codes,
        1 to the number of categories, 0 for an absent value; each enters g through an
        ``nn.Embedding`` of ``embedding_dim`` (code 0 its own row, as in the reference). The
        other columns enter as they are.
    embedding_dim : int, default=32
        Size of each categorical column's embedding (the reference's 32).
    """

    def __init__(self, n_inputs, n_outputs, hidden_layer_sizes=(64,), backbone="mlp", basis="rbf",
                 categories=(), embedding_dim=32):
        super().__init__()
        self.n_inputs, self.n_outputs = n_inputs, n_outputs
        self.categorical = [int(column) for column, _ in categories]
        self.numeric = [j for j in range(n_inputs) if j not in self.categorical]
        self.embeddings = nn.ModuleList(nn.Embedding(int(n_categories) + 1, embedding_dim)
                                        for _, n_categories in categories)
        width, sizes = len(self.numeric) + embedding_dim * len(self.categorical), tuple(hidden_layer_sizes)
        if backbone == "kan":
            self.g = KAN(width, n_inputs * n_outputs, sizes, basis=basis)
        else:
            self.g = MLP(width, n_inputs * n_outputs, sizes)
        self.v0 = nn.Parameter(torch.zeros(n_outputs))

    def encode(self, x):
        """g's input: the numeric columns, then the embedding of each categorical column's code."""
        if not self.categorical:
            return x
        pairs = zip(self.categorical, self.embeddings, strict=True)
        embedded = [embedding(x[:, column].long()) for column, embedding in pairs]
        return torch.cat([x[:, self.numeric], *embedded], dim=1)

    def phi(self, x):
        """The Shapley values φ(x): (n, d, k)."""
        return self.g(self.encode(x)).reshape(len(x), self.n_inputs, self.n_outputs)

    def forward(self, x):
        """The prediction on the link scale: ``Σ_j φ_j(x) + v0``, (n, k)."""
        return self.phi(x).sum(dim=1) + self.v0


def viashap_loss(module, x, prediction_loss, masks, baseline, alpha, beta):
    """The ViaSHAP training loss of a batch: ``alpha * prediction_loss + beta * shapley_loss``.

    The Shapley loss (Alkhatib et al., ICML 2025, arXiv:2505.04775, and ``kanshap.train_model``
    of the reference code) is the mean over samples, coalitions S and outputs of
    ``(f(b) + Σ_{j∈S} φ_j(x) − f(x_S))²`` on the link scale, where ``x_S`` is x on S and the
    baseline b elsewhere and f(b) the model's own prediction at the baseline (the reference's
    ``null``), the value of the empty coalition. Both sides carry gradients (self-consistency,
    no detach, as in the reference).

    Parameters
    ----------
    module : ShapleyNetwork
        The network.
    x : Tensor of shape (n, d)
        Standardised samples.
    prediction_loss : Tensor of shape ()
        The prediction loss of the batch.
    masks : bool Tensor of shape (n, n_coalitions, d)
        The coalitions S of each sample (True: the feature is in S).
    baseline : Tensor of shape (d,)
        b, the value of an absent feature.
    alpha, beta : float
        Weights of the prediction and Shapley losses.

    Returns
    -------
    loss : Tensor of shape ()
    """
    n, n_coalitions, d = masks.shape
    partial = torch.einsum("ncd,ndk->nck", masks.to(x.dtype), module.phi(x))
    masked = torch.where(masks, x[:, None, :], baseline).reshape(n * n_coalitions, d)
    targets = module(masked).reshape(n, n_coalitions, -1)
    null = module(baseline[None, :])
    return alpha * prediction_loss + beta * ((null + partial - targets) ** 2).mean()


class ViaSHAPNet(NeuralNet):
    """A skorch net trained with :func:`viashap_loss`.

    ``X`` is a dict with ``"x"`` (standardised features). ``task`` chooses the prediction
    loss on the link-scale output: ``"binary"`` (logistic loss of the single logit),
    ``"multiclass"`` (cross-entropy of the logits), ``"squared"`` (mean squared error
    against ``y``, a float matrix of shape (n, k): one-hot classes or regression targets).
    Coalitions are drawn by :func:`fairkit_viashap._coalitions.sample_coalitions` from a
    generator seeded from torch's global one when training starts.
    """

    def __init__(self, module, *args, criterion=nn.MSELoss, task="squared", n_coalitions=32, alpha=1.0,
                 beta=10.0, baseline=None, **kwargs):
        super().__init__(module, criterion, *args, **kwargs)
        self.task = task
        self.n_coalitions = n_coalitions
        self.alpha = alpha
        self.beta = beta
        self.baseline = baseline

    def get_default_callbacks(self):
        callbacks = super().get_default_callbacks()
        return [*callbacks, ("progress_bar", ProgressBar())] if self.verbose else callbacks

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        super().on_train_begin(net, X, y, **kwargs)
        self.generator_ = torch.Generator().manual_seed(int(torch.randint(2**62, ()).item()))

    def infer(self, x, **fit_params):
        return self.module_(x["x"].to(self.device), **fit_params)

    def prediction_loss(self, y_pred, y_true):
        """The prediction loss of link-scale outputs ``y_pred`` (n, k) against ``y_true``."""
        y_true = y_true.to(self.device)
        if self.task == "binary":
            return nn.functional.binary_cross_entropy_with_logits(y_pred[:, 0], y_true.to(y_pred.dtype))
        if self.task == "multiclass":
            return nn.functional.cross_entropy(y_pred, y_true.long())
        return self.criterion_(y_pred, y_true.to(y_pred.dtype).reshape(y_pred.shape))

    def get_loss(self, y_pred, y_true, X=None, training=False):
        """α × the prediction loss + β × the Shapley loss, on fresh coalitions."""
        x = X["x"].to(self.device)
        if x.shape[1] < 2:  # one feature: no proper coalition, φ_1(x) = f(x) - v0 needs no loss
            return self.alpha * self.prediction_loss(y_pred, y_true)
        masks = sample_coalitions(len(x), x.shape[1], self.n_coalitions, self.generator_).to(self.device)
        baseline = torch.as_tensor(self.baseline, dtype=x.dtype, device=self.device)
        return viashap_loss(self.module_, x, self.prediction_loss(y_pred, y_true), masks, baseline,
                            self.alpha, self.beta)


def shap_values(net, X, chunk_size=65536):
    """φ(X) of the trained net, (n, d, k), computed in float64 (as :func:`fairkit.utils.nn.forward`)."""
    module = copy.deepcopy(net.module_).double().eval()
    with single_threaded(), torch.no_grad():
        chunks = torch.split(torch.as_tensor(X, dtype=torch.float64, device=net.device), chunk_size)
        return torch.cat([module.phi(chunk) for chunk in chunks]).cpu().numpy()
