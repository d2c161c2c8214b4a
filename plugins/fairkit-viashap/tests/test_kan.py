import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = pytest.importorskip("torch.nn.functional")
interpolate = pytest.importorskip("scipy.interpolate")

from fairkit_viashap._kan import KAN, bspline_basis, rbf_basis  # noqa: E402


def uniform_knots(low, high, grid_size, order):
    step = (high - low) / grid_size
    return low + step * np.arange(-order, grid_size + order + 1)


@pytest.mark.parametrize("basis", ["rbf", "bspline"])
@pytest.mark.parametrize("hidden", [(), (7,), (5, 3)])
def test_output_shape(basis, hidden):
    net = KAN(4, 3, hidden, basis=basis, grid_size=5)
    assert net(torch.randn(6, 4)).shape == (6, 3)
    assert len(net.layers) == len(hidden) + 1


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_bspline_basis_matches_scipy_and_sums_to_one(order):
    low, high, grid_size = -2.0, 2.0, 5
    knots = uniform_knots(low, high, grid_size, order)
    x = np.linspace(low, high, 41)[:-1]  # scipy's design matrix is right-open at the last knot in range
    expected = interpolate.BSpline.design_matrix(x, knots, order).toarray()
    got = bspline_basis(torch.tensor(x[:, None]), torch.tensor(knots), order)[:, 0].numpy()
    assert got.shape == (40, grid_size + order)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_bspline_derivative_matches_scipy(order):
    knots = uniform_knots(-1.0, 1.0, 5, order)
    coefficients = np.random.default_rng(order).normal(size=5 + order)
    x = torch.tensor(np.random.default_rng(0).uniform(-1.0, 1.0, size=(50, 1)), requires_grad=True)
    spline = bspline_basis(x, torch.tensor(knots), order)[:, 0] @ torch.tensor(coefficients)
    (gradient,) = torch.autograd.grad(spline.sum(), x)
    expected = interpolate.BSpline(knots, coefficients, order).derivative()(x.detach().numpy()[:, 0])
    np.testing.assert_allclose(gradient.numpy()[:, 0], expected, rtol=1e-9, atol=1e-9)


def test_bspline_basis_at_and_beyond_the_knots_matches_scipy():
    knots = uniform_knots(-2.0, 2.0, 4, 2)  # extended grid -4 to 4, step 1
    x = np.array([-5.0, -4.0, -3.5, -1.0, 0.0, 2.0, 3.99, 4.0, 7.0])
    got = bspline_basis(torch.tensor(x[:, None]), torch.tensor(knots), 2)[:, 0].numpy()
    # each B-spline on its own support [knots[j], knots[j + 3]), zero (scipy: nan) elsewhere
    elements = [interpolate.BSpline.basis_element(knots[j : j + 4], extrapolate=False) for j in range(6)]
    expected = np.nan_to_num(np.stack([element(x) for element in elements], axis=1))
    np.testing.assert_allclose(got, expected, atol=1e-12)
    assert np.all(got[[0, -2, -1]] == 0.0)  # outside [-4, 4): every B-spline vanishes


def test_bspline_layer_uses_the_extended_uniform_grid():
    net = KAN(2, 1, (), basis="bspline", grid_size=4, grid_range=(-1.0, 3.0), spline_order=2)
    layer = net.layers[0]
    np.testing.assert_allclose(layer.grid.numpy(), np.arange(-3.0, 6.0))
    x = torch.tensor([[-1.0, 0.3], [2.99, 1.5]])
    basis = layer.expand(x)
    assert basis.shape == (2, 2, 6)
    np.testing.assert_allclose(basis.sum(-1).numpy(), 1.0, atol=1e-6)
    # outside the extended grid every B-spline vanishes
    assert float(layer.expand(torch.tensor([[-10.0, 10.0]])).abs().max()) == 0.0


def test_rbf_basis_matches_numpy_formula():
    x = np.array([[-1.5, 0.2, 3.0]])
    centers = np.linspace(-2, 2, 6)
    width = 0.8
    expected = np.exp(-(((x[..., None] - centers) / width) ** 2))
    got = rbf_basis(torch.tensor(x), torch.tensor(centers), width).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_rbf_layer_normalises_then_expands_on_fastkan_grid():
    net = KAN(3, 2, (), basis="rbf", grid_size=5, grid_range=(-2.0, 2.0))
    layer = net.layers[0]
    x = np.array([[1.0, 2.0, 6.0], [-1.0, 0.0, 0.5]], dtype=np.float32)
    normed = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    centers, width = np.linspace(-2, 2, 5), 1.0  # spacing (2 - (-2)) / (5 - 1)
    expected = np.exp(-(((normed[..., None] - centers) / width) ** 2))
    np.testing.assert_allclose(layer.expand(torch.tensor(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("basis", ["rbf", "bspline"])
def test_layer_output_is_base_plus_spline(basis):
    torch.manual_seed(0)
    layer = KAN(3, 2, (), basis=basis, grid_size=3).layers[0]
    x = torch.randn(5, 3)
    with torch.no_grad():
        silu = x * torch.sigmoid(x)
        basis_values = layer.expand(x)  # (5, 3, n_basis)
        coefficients = layer.spline.weight.reshape(2, 3, -1)  # (output, input, basis function)
        if basis == "bspline":  # efficient-KAN's scale per (output, input)
            coefficients = coefficients * layer.spline_scale.weight[..., None]
        splines = torch.einsum("nib,oib->no", basis_values, coefficients)
        expected = silu @ layer.base.weight.T + splines
        if basis == "rbf":
            expected = expected + layer.base.bias
        np.testing.assert_allclose(layer(x).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("basis", ["rbf", "bspline"])
def test_gradients_reach_every_parameter(basis):
    torch.manual_seed(0)
    net = KAN(3, 2, (4,), basis=basis, grid_size=4)
    x = torch.randn(16, 3, requires_grad=True)
    net(x).pow(2).sum().backward()
    assert x.grad is not None and x.grad.abs().sum() > 0
    for name, parameter in net.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name


def rbf_layer_count(n_in, n_out, grid_size):
    layernorm = 2 * n_in if n_in > 1 else 0
    return layernorm + n_in * grid_size * n_out + n_in * n_out + n_out


def bspline_layer_count(n_in, n_out, grid_size, order):
    return n_in * (grid_size + order) * n_out + 2 * n_in * n_out  # coefficients, spline scales, base


def test_parameter_counts():
    count = lambda net: sum(p.numel() for p in net.parameters())  # noqa: E731
    rbf = KAN(5, 2, (7, 3), basis="rbf", grid_size=6)
    assert count(rbf) == rbf_layer_count(5, 7, 6) + rbf_layer_count(7, 3, 6) + rbf_layer_count(3, 2, 6)
    spline = KAN(5, 2, (7,), basis="bspline", grid_size=4, spline_order=2)
    assert count(spline) == bspline_layer_count(5, 7, 4, 2) + bspline_layer_count(7, 2, 4, 2)
    one_input = KAN(1, 1, (), basis="rbf", grid_size=3)  # no LayerNorm on a single input (as FastKAN)
    assert count(one_input) == rbf_layer_count(1, 1, 3)


@pytest.mark.parametrize("basis", ["rbf", "bspline"])
def test_seeded_init_is_reproducible(basis):
    def weights(seed):
        torch.manual_seed(seed)
        return [p.detach().clone() for p in KAN(3, 2, (4,), basis=basis).parameters()]

    assert all(torch.equal(a, b) for a, b in zip(weights(1), weights(1), strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(weights(1), weights(2), strict=True))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"basis": "spline"}, "basis must be one of"),
        ({"grid_size": 1}, "grid_size must be an integer >= 2"),
        ({"basis": "bspline", "grid_size": 0}, "grid_size must be an integer >= 1"),
        ({"grid_range": (1.0, -1.0)}, "low < high"),
        ({"grid_range": (-np.inf, 1.0)}, "finite"),
        ({"grid_range": 3.0}, "pair of numbers"),
        ({"spline_order": -1}, "spline_order must be an integer >= 0"),
        ({"hidden_layer_sizes": (4, 0)}, "hidden_layer_sizes must be a sequence of positive integers"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        KAN(3, 2, **kwargs)


@pytest.mark.parametrize(("n_inputs", "n_outputs"), [(0, 1), (2, 0), (2.5, 1)])
def test_bad_widths_are_refused(n_inputs, n_outputs):
    with pytest.raises(ValueError, match="n_inputs|n_outputs"):
        KAN(n_inputs, n_outputs)


def test_default_grids_are_fastkan_and_efficient_kan():
    rbf = KAN(3, 2, basis="rbf").layers[0]
    np.testing.assert_allclose(rbf.grid.numpy(), np.linspace(-2.0, 2.0, 8), rtol=1e-6)
    assert rbf.width == pytest.approx(4.0 / 7.0)
    spline = KAN(3, 2, basis="bspline").layers[0]  # the reference's ekan.KAN(grid_size=5, spline_order=3)
    np.testing.assert_allclose(spline.grid.numpy(), uniform_knots(-1.0, 1.0, 5, 3), atol=1e-6)
    assert spline.expand(torch.zeros(1, 3)).shape == (1, 3, 8)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_bspline_init_interpolates_small_noise_at_the_knots(order):
    # efficient-KAN: each initial spline passes through uniform noise of half-width 0.05 / grid_size at
    # the grid_size + 1 knots of grid_range (before the scale per input and output)
    torch.manual_seed(order)
    grid_size = 4
    layer = KAN(6, 5, (), basis="bspline", grid_size=grid_size, spline_order=order).layers[0]
    knots = np.linspace(-1.0, 1.0, grid_size + 1)
    design = interpolate.BSpline(layer.grid.double().numpy(), np.eye(grid_size + order), order)(knots)
    coefficients = layer.spline.weight.detach().double().numpy().reshape(5, 6, -1)
    values = coefficients @ design.T  # (output, input, knot)
    half_width = 0.05 / grid_size
    assert np.abs(values).max() <= half_width + 1e-7
    assert np.abs(values).max() > 0.5 * half_width  # noise, not zeros
    # the coefficients of least norm through those values: orthogonal to the null space of the design
    null_space = np.linalg.svd(design)[2][grid_size + 1 :]
    np.testing.assert_allclose(coefficients @ null_space.T, 0.0, atol=1e-7)


@pytest.mark.parametrize("basis", ["rbf", "bspline"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_untrained_deep_kan_has_small_smooth_outputs(basis, seed):
    # ViaSHAP sums the d * k outputs of the default (64, 128, 64) backbone into a logit; FastKAN's
    # spline init of std 0.1 made that sum of std 2 to 4 and its Shapley loss large, and training stalled
    torch.manual_seed(seed)
    d = 30
    net = KAN(d, d, (64, 128, 64), basis=basis)
    x = torch.randn(512, d)
    with torch.no_grad():
        logit = net(x).sum(1)
        for layer in net.layers:
            base, output = layer.base(F.silu(x)), layer(x)
            assert (output - base).std() < base.std() + 0.1  # the spline branch: a small perturbation
            x = output
    assert logit.std() < 1.0
