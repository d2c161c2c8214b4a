"""A Kolmogorov-Arnold network (KAN) in plain torch: the backbone of ViaSHAP.

ViaSHAP (A. Alkhatib, R. Bresson, H. Boström, M. Vazirgiannis, "Prediction via Shapley Value
Regression", ICML 2025, arXiv:2505.04775) uses a KAN as its best backbone; its code
(amrmalkhatib/ViaSHAP) takes the layers from efficient-KAN (B-splines) or FastKAN (Gaussian radial
basis functions). Both are written here from their published formulas, with no third-party KAN package.

Each layer maps ``x`` (n, n_in) to ``base(silu(x)) + spline(basis(x))``, where ``basis`` expands
every input into ``n_basis`` functions on a fixed grid and ``spline`` is a linear map of the
``n_in * n_basis`` values (one learnable univariate function per input and output).
"""

import math
import numbers

import torch
from torch import nn
from torch.nn import functional as F

from fairkit.utils.validation import check_layer_sizes

__all__ = ["KAN", "bspline_basis", "rbf_basis"]

_BASES = ("rbf", "bspline")


def bspline_basis(x, grid, spline_order):
    """B-spline basis functions of ``x`` by the Cox-de Boor recursion, vectorised.

    Parameters
    ----------
    x : Tensor of shape (n, n_in)
    grid : Tensor of shape (n_knots,)
        Increasing knots, shared by every input.
    spline_order : int
        The degree of the splines (3: cubic).

    Returns
    -------
    Tensor of shape (n, n_in, n_knots - spline_order - 1)

    Examples
    --------
    >>> import torch
    >>> grid = torch.arange(-3.0, 4.0)  # 4 intervals on [-1, 2], extended by 2 knots each side
    >>> bspline_basis(torch.tensor([[0.5]]), grid, 2).sum().item()
    1.0
    """
    x = x.unsqueeze(-1)
    bases = ((x >= grid[:-1]) & (x < grid[1:])).to(x.dtype)
    for k in range(1, spline_order + 1):
        left = (x - grid[: -(k + 1)]) / (grid[k:-1] - grid[: -(k + 1)])
        right = (grid[k + 1 :] - x) / (grid[k + 1 :] - grid[1:-k])
        bases = left * bases[..., :-1] + right * bases[..., 1:]
    return bases


def rbf_basis(x, centers, width):
    """Gaussian radial basis functions ``exp(-((x - c) / width) ** 2)`` of ``x``, one per center.

    Parameters
    ----------
    x : Tensor of shape (n, n_in)
    centers : Tensor of shape (n_centers,)
    width : float

    Returns
    -------
    Tensor of shape (n, n_in, n_centers)

    Examples
    --------
    >>> import torch
    >>> rbf_basis(torch.tensor([[0.0]]), torch.tensor([0.0, 1.0]), 1.0)
    tensor([[[1.0000, 0.3679]]])
    """
    return torch.exp(-(((x.unsqueeze(-1) - centers) / width) ** 2))


class _KANLayer(nn.Module):
    """One KAN layer: a SiLU base branch plus a linear map of the basis expansion.

    ``basis="rbf"`` follows FastKAN: LayerNorm (when ``n_in > 1``) before ``grid_size`` Gaussians
    centred on ``linspace(*grid_range, grid_size)`` with width the spacing, spline weights drawn
    from a truncated normal of std 0.1, a base ``Linear`` with bias. ``basis="bspline"`` follows
    efficient-KAN: B-splines of ``spline_order`` on ``grid_size`` uniform intervals of ``grid_range``
    extended by ``spline_order`` knots each side (``grid_size + spline_order`` functions per input, a
    partition of unity on ``grid_range``), base ``Linear`` without bias, spline weights initialised
    as for ``"rbf"``; efficient-KAN's standalone spline scaler (a reparametrisation of the spline
    weights), its least-squares initialisation and its grid update are left out.
    """

    def __init__(self, n_in, n_out, basis, grid_size, grid_range, spline_order):
        super().__init__()
        self.basis = basis
        self.spline_order = spline_order
        low, high = grid_range
        if basis == "rbf":
            self.layernorm = nn.LayerNorm(n_in) if n_in > 1 else nn.Identity()
            self.register_buffer("grid", torch.linspace(low, high, grid_size))
            self.width = (high - low) / (grid_size - 1)
            n_basis = grid_size
        else:
            step = (high - low) / grid_size
            knots = torch.arange(-spline_order, grid_size + spline_order + 1) * step + low
            self.register_buffer("grid", knots.to(torch.get_default_dtype()))
            n_basis = grid_size + spline_order
        self.spline = nn.Linear(n_in * n_basis, n_out, bias=False)
        nn.init.trunc_normal_(self.spline.weight, std=0.1)
        self.base = nn.Linear(n_in, n_out, bias=basis == "rbf")

    def expand(self, x):
        """The basis expansion of ``x``: (n, n_in, n_basis)."""
        if self.basis == "rbf":
            return rbf_basis(self.layernorm(x), self.grid, self.width)
        return bspline_basis(x, self.grid, self.spline_order)

    def forward(self, x):
        return self.base(F.silu(x)) + self.spline(self.expand(x).flatten(1))


def _check_positive_int(name, value, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


class KAN(nn.Module):
    """A Kolmogorov-Arnold network: KAN layers ``n_inputs -> *hidden_layer_sizes -> n_outputs``.

    The backbone of ViaSHAP (Alkhatib et al., "Prediction via Shapley Value Regression", ICML 2025,
    arXiv:2505.04775), written in plain torch after FastKAN (``basis="rbf"``) and efficient-KAN
    (``basis="bspline"``). There is no grid update: inputs are expected to be standardised, so most
    values fall in ``grid_range`` (outside it the B-splines vanish and only the base branch acts).

    Parameters
    ----------
    n_inputs, n_outputs : int
        Input and output widths.
    hidden_layer_sizes : sequence of int, default=(64,)
        Widths of the hidden layers (empty: one KAN layer).
    basis : {"rbf", "bspline"}, default="rbf"
        Gaussian radial basis functions (FastKAN) or B-splines (efficient-KAN).
    grid_size : int, default=8
        Number of Gaussians (``"rbf"``, at least 2) or of grid intervals (``"bspline"``, at least 1).
    grid_range : (float, float), default=(-2.0, 2.0)
        The interval the grid covers.
    spline_order : int, default=3
        Degree of the B-splines (``"bspline"`` only).

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> net = KAN(5, 3, hidden_layer_sizes=(16,), basis="bspline")
    >>> net(torch.randn(4, 5)).shape
    torch.Size([4, 3])
    """

    def __init__(self, n_inputs, n_outputs, hidden_layer_sizes=(64,), *, basis="rbf", grid_size=8,
                 grid_range=(-2.0, 2.0), spline_order=3):
        super().__init__()
        n_inputs = _check_positive_int("n_inputs", n_inputs, 1)
        n_outputs = _check_positive_int("n_outputs", n_outputs, 1)
        sizes = check_layer_sizes("hidden_layer_sizes", hidden_layer_sizes)
        if basis not in _BASES:
            raise ValueError(f"basis must be one of {_BASES}, got {basis!r}.")
        grid_size = _check_positive_int("grid_size", grid_size, 2 if basis == "rbf" else 1)
        spline_order = _check_positive_int("spline_order", spline_order, 0)
        low, high = _check_range(grid_range)
        widths = (n_inputs, *sizes, n_outputs)
        self.layers = nn.ModuleList(
            _KANLayer(n_in, n_out, basis, grid_size, (low, high), spline_order)
            for n_in, n_out in zip(widths[:-1], widths[1:], strict=True)
        )

    def forward(self, x):
        """Outputs of shape (n, n_outputs) for inputs ``x`` of shape (n, n_inputs)."""
        for layer in self.layers:
            x = layer(x)
        return x


def _check_range(grid_range):
    try:
        low, high = (float(v) for v in grid_range)
    except (TypeError, ValueError):
        raise ValueError(f"grid_range must be a pair of numbers (low, high), got {grid_range!r}.") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"grid_range must be finite with low < high, got {grid_range!r}.")
    return low, high
