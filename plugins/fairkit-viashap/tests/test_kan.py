import numpy as np
import pytest

torch = pytest.importorskip("torch")
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


def test_layer_output_is_base_plus_spline():
    torch.manual_seed(0)
    layer = KAN(3, 2, (), basis="bspline", grid_size=3).layers[0]
    x = torch.randn(5, 3)
    with torch.no_grad():
        silu = x * torch.sigmoid(x)
        basis = layer.expand(x).reshape(5, -1)
        expected = silu @ layer.base.weight.T + basis @ layer.spline.weight.T
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
    return n_in * (grid_size + order) * n_out + n_in * n_out


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
