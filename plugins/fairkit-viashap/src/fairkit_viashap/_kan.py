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
_DEFAULT_GRIDS = {"rbf": (8, (-2.0, 2.0)), "bspline": (5, (-1.0, 1.0))}  # FastKAN's, efficient-KAN's
_SPLINE_NOISE = 0.1  # efficient-KAN's scale_noise


def bspline_basis(x, grid, spline_order):
    """B-spline basis functions of ``x`` on uniform knots, vectorised.

    Only the ``spline_order + 1`` B-splines that are non-zero on the knot interval of each value
    are computed (the Cox-de Boor recursion on uniform knots, in the position ``t`` within the
    interval), then placed among the others, which are zero there.

    Parameters
    ----------
    x : Tensor of shape (n, n_in)
    grid : Tensor of shape (n_knots,)
        Increasing, uniformly spaced knots, shared by every input.
    spline_order : int
        The degree of the splines (3: cubic).

    Returns
    -------
    Tensor of shape (n, n_in, n_knots - spline_order - 1)
        Zero for values outside ``[grid[0], grid[-1])``.

    Examples
    --------
    >>> import torch
    >>> grid = torch.arange(-3.0, 4.0)  # 4 intervals on [-1, 2], extended by 2 knots each side
    >>> bspline_basis(torch.tensor([[0.5]]), grid, 2)
    tensor([[[0.0000, 0.1250, 0.7500, 0.1250]]])
    """
    n_intervals = len(grid) - 1
    interval = torch.searchsorted(grid, x.detach().contiguous(), right=True) - 1  # grid[i] <= x < grid[i + 1]
    inside = (interval >= 0) & (interval < n_intervals)
    interval = interval.clamp(0, n_intervals - 1)
    t = ((x - grid[interval]) / (grid[1] - grid[0])).unsqueeze(-1)
    local = inside.unsqueeze(-1).to(x.dtype)  # degree 0: the indicator of the interval
    for k in range(1, spline_order + 1):
        # local[..., r] holds B_{interval - k + r} of degree k, r = 0, ..., k
        r = torch.arange(k + 1, dtype=x.dtype, device=x.device)
        padded = F.pad(local, (1, 1))
        local = ((t + k - r) * padded[..., :-1] + (r + 1 - t) * padded[..., 1:]) / k
    # B_j sits at column j + spline_order, so that B_{interval - spline_order} (maybe j < 0) fits
    placed = torch.zeros(*x.shape, n_intervals + spline_order, dtype=x.dtype, device=x.device)
    columns = interval.unsqueeze(-1) + torch.arange(spline_order + 1, device=x.device)
    placed = placed.scatter(-1, columns, local)
    return placed[..., spline_order:n_intervals]


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
    centred on ``linspace(*grid_range, grid_size)`` with width the spacing, a base ``Linear`` with
    bias. ``basis="bspline"`` follows efficient-KAN: B-splines of ``spline_order`` on ``grid_size``
    uniform intervals of ``grid_range`` extended by ``spline_order`` knots each side
    (``grid_size + spline_order`` functions per input, a partition of unity on ``grid_range``), a
    base ``Linear`` without bias, and a learnable scale per (output, input) multiplying the
    spline coefficients (efficient-KAN's standalone spline scaler, drawn as a ``Linear`` weight).

    Both start as efficient-KAN does, close to a SiLU layer: the base ``Linear`` has its default
    initialisation and each spline is small noise, the B-spline through uniform noise in
    ``±0.05 / grid_size`` at the knots of ``grid_range`` (its coefficients of least norm), the
    Gaussians' weights of std ``0.1 / grid_size`` (FastKAN draws them of std 0.1: at the default
    depth of ViaSHAP, (64, 128, 64), its untrained network is a rough function whose summed outputs
    have a standard deviation of about 4, and the Shapley loss, about 50 at the start, then takes
    most of training to bring down, at 0.6 to 0.8 test AUC on breast cancer). Efficient-KAN's grid
    update is left out.
    """

    def __init__(self, n_in, n_out, basis, grid_size, grid_range, spline_order):
        super().__init__()
        self.basis = basis
        self.spline_order = spline_order
        low, high = grid_range
        noise = _SPLINE_NOISE / grid_size
        if basis == "rbf":
            self.layernorm = nn.LayerNorm(n_in) if n_in > 1 else nn.Identity()
            self.register_buffer("grid", torch.linspace(low, high, grid_size))
            self.width = (high - low) / (grid_size - 1)
            self.spline = nn.Linear(n_in * grid_size, n_out, bias=False)
            nn.init.trunc_normal_(self.spline.weight, std=noise)
            self.base = nn.Linear(n_in, n_out)
            return
        step = (high - low) / grid_size
        knots = torch.arange(-spline_order, grid_size + spline_order + 1) * step + low
        self.register_buffer("grid", knots.to(torch.get_default_dtype()))
        n_basis = grid_size + spline_order
        # efficient-KAN: the spline through uniform noise at the grid_size + 1 knots of grid_range,
        # the least-squares coefficients of least norm (fewer knots than basis functions)
        in_range = self.grid[spline_order : spline_order + grid_size + 1, None]
        at_knots = bspline_basis(in_range, self.grid, spline_order)[:, 0]  # (knots, basis functions)
        values = (torch.rand(grid_size + 1, n_out * n_in) - 0.5) * noise
        coefficients = torch.linalg.pinv(at_knots) @ values  # (n_basis, n_out * n_in)
        self.spline = nn.Linear(n_in * n_basis, n_out, bias=False)
        with torch.no_grad():
            self.spline.weight.copy_(coefficients.T.reshape(n_out, n_in * n_basis))
        self.spline_scale = nn.Linear(n_in, n_out, bias=False)
        self.base = nn.Linear(n_in, n_out, bias=False)

    def expand(self, x):
        """The basis expansion of ``x``: (n, n_in, n_basis)."""
        if self.basis == "rbf":
            return rbf_basis(self.layernorm(x), self.grid, self.width)
        return bspline_basis(x, self.grid, self.spline_order)

    def spline_weight(self):
        """The weight of the spline branch: (n_out, n_in * n_basis), the scales applied (B-splines)."""
        weight = self.spline.weight
        if self.basis == "rbf":
            return weight
        n_out, n_in = self.spline_scale.weight.shape
        return (weight.reshape(n_out, n_in, -1) * self.spline_scale.weight[..., None]).reshape(n_out, -1)

    def forward(self, x):
        return self.base(F.silu(x)) + F.linear(self.expand(x).flatten(1), self.spline_weight())


def _check_positive_int(name, value, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


class KAN(nn.Module):
    """A Kolmogorov-Arnold network: KAN layers ``n_inputs -> *hidden_layer_sizes -> n_outputs``.

    The backbone of ViaSHAP (Alkhatib et al., "Prediction via Shapley Value Regression", ICML 2025,
    arXiv:2505.04775), written in plain torch after FastKAN (``basis="rbf"``) and efficient-KAN
    (``basis="bspline"``, the layer of the reference code, ``grid_size=5, spline_order=3`` on
    ``[-1, 1]``). Every layer starts close to a SiLU layer (small random splines, see
    ``_KANLayer``), so that a deep KAN starts with small, smooth outputs as an MLP does. There is
    no grid update: inputs are expected to be standardised (outside the extended grid the
    B-splines vanish and only the base branch acts).

    Parameters
    ----------
    n_inputs, n_outputs : int
        Input and output widths.
    hidden_layer_sizes : sequence of int, default=(64,)
        Widths of the hidden layers (empty: one KAN layer).
    basis : {"rbf", "bspline"}, default="rbf"
        Gaussian radial basis functions (FastKAN) or B-splines (efficient-KAN).
    grid_size : int, default=None
        Number of Gaussians (``"rbf"``, at least 2) or of grid intervals (``"bspline"``, at least 1).
        None: FastKAN's 8 for ``"rbf"``, efficient-KAN's 5 for ``"bspline"``.
    grid_range : (float, float), default=None
        The interval the grid covers. None: FastKAN's (-2, 2) for ``"rbf"``, efficient-KAN's
        (-1, 1) for ``"bspline"``.
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

    def __init__(self, n_inputs, n_outputs, hidden_layer_sizes=(64,), *, basis="rbf", grid_size=None,
                 grid_range=None, spline_order=3):
        super().__init__()
        n_inputs = _check_positive_int("n_inputs", n_inputs, 1)
        n_outputs = _check_positive_int("n_outputs", n_outputs, 1)
        sizes = check_layer_sizes("hidden_layer_sizes", hidden_layer_sizes)
        if basis not in _BASES:
            raise ValueError(f"basis must be one of {_BASES}, got {basis!r}.")
        default_size, default_range = _DEFAULT_GRIDS[basis]
        grid_size = _check_positive_int("grid_size", default_size if grid_size is None else grid_size,
                                        2 if basis == "rbf" else 1)
        spline_order = _check_positive_int("spline_order", spline_order, 0)
        low, high = _check_range(default_range if grid_range is None else grid_range)
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
