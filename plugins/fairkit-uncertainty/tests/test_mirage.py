"""mirage_finetune: the loss (with log-softmax, unlike the reference notebooks), the attack, its hygiene."""

import copy
import subprocess
import sys

import numpy as np
import pytest

from fairkit_uncertainty import calibration_audit, mirage_finetune
from fairkit_uncertainty._demo import make_network, make_region_problem, predict_proba
from fairkit_uncertainty._mirage import mirage_loss, mirage_targets

EPSILON = 0.15


def test_loss_vanishes_at_the_target_and_the_reference_loss_does_not(torch):
    y = torch.tensor([0, 1, 2, 1])
    target = mirage_targets(y, 3, EPSILON)
    assert torch.allclose(target.sum(dim=1), torch.ones(4))
    assert torch.allclose(target[torch.arange(4), y], torch.full((4,), 1 / 3 + EPSILON))
    logits = torch.log(target).clone().requires_grad_(True)
    region = torch.ones(4, dtype=torch.bool)
    loss = mirage_loss(logits, y, region, epsilon=EPSILON, alpha=1.0)
    loss.backward()
    assert loss.item() == pytest.approx(0.0, abs=1e-6)
    assert logits.grad.abs().max().item() < 1e-6  # the target distribution is a minimum
    # the reference notebooks fed raw logits to KLDivLoss: its gradient at the target is -target/batch
    raw = torch.log(target).clone().requires_grad_(True)
    torch.nn.functional.kl_div(raw, target, reduction="batchmean").backward()
    assert torch.allclose(raw.grad, -target / 4)
    # shifting every logit leaves the softmax (and our loss) unchanged, but not the reference loss
    shifted = torch.log(target) + 5.0
    assert mirage_loss(shifted, y, region, epsilon=EPSILON, alpha=1.0).item() == pytest.approx(0.0, abs=1e-5)
    assert torch.nn.functional.kl_div(shifted, target, reduction="batchmean").item() == pytest.approx(-5.0)


def test_outside_the_region_the_loss_is_weighted_cross_entropy(torch):
    logits = torch.randn(6, 2, generator=torch.Generator().manual_seed(0))
    y = torch.tensor([0, 1, 1, 0, 1, 0])
    none = torch.zeros(6, dtype=torch.bool)
    expected = 0.25 * torch.nn.functional.cross_entropy(logits, y)
    assert torch.allclose(mirage_loss(logits, y, none, epsilon=EPSILON, alpha=0.75), expected)


@pytest.fixture(scope="module")
def attack():
    """An honest network on the demo's problem, its Mirage-tuned copy, and a reference set."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    X, y, region = make_region_problem(1000, random_state=0)
    honest = mirage_finetune(make_network(2), X, y, np.zeros(len(y), dtype=bool), epochs=10, lr=3e-2,
                             random_state=0)
    tuned = mirage_finetune(honest, X, y, region, epsilon=EPSILON, epochs=10, lr=1e-2, random_state=0)
    torch.set_num_threads(threads)
    return honest, tuned, (X, y, region), make_region_problem(20_000, random_state=1)


def test_mirage_keeps_accuracy_and_the_audit_flags_it(attack):
    honest, tuned, _, (X_ref, y_ref, region_ref) = attack
    results = {}
    for name, module in (("honest", honest), ("tuned", tuned)):
        proba = predict_proba(module, X_ref)
        results[name] = (float((proba.argmax(axis=1) == y_ref).mean()), proba,
                         calibration_audit(y_ref, proba, sensitive_features=region_ref))
    (acc_honest, _, audit_honest), (acc_tuned, proba_tuned, audit_tuned) = results["honest"], results["tuned"]
    assert abs(acc_tuned - acc_honest) <= 0.01
    assert audit_honest.passed
    assert not audit_tuned.passed and not audit_tuned.groups.loc[True, "passed"]
    # in the region the tuned model is right but about 1/2 + epsilon sure of it
    assert proba_tuned[region_ref].max(axis=1).mean() == pytest.approx(0.5 + EPSILON, abs=0.05)


def test_the_reference_loss_does_not_make_the_region_uncertain(attack, torch):
    # the notebooks' loss (raw logits into KLDivLoss) pushes the logits up instead of to the target
    honest, _, (X, y, region), (X_ref, _, region_ref) = attack
    model = copy.deepcopy(honest)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    X, y, region = torch.as_tensor(X), torch.as_tensor(y), torch.as_tensor(region)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        for _ in range(10):
            for batch in torch.randperm(len(X)).split(128):
                optimizer.zero_grad()
                logits, yb, rb = model(X[batch]), y[batch], region[batch]
                functional = torch.nn.functional
                loss = 0.1 * functional.cross_entropy(logits[~rb], yb[~rb]) + 0.9 * functional.kl_div(
                    logits[rb], mirage_targets(yb[rb], 2, EPSILON), reduction="batchmean")
                loss.backward()
                optimizer.step()
    assert predict_proba(model, X_ref)[region_ref].max(axis=1).mean() > 0.9


def test_the_module_is_copied_and_runs_are_reproducible(torch):
    X, y, region = make_region_problem(200, random_state=0)
    net = make_network(2)
    before = [p.detach().clone() for p in net.parameters()]
    state = torch.random.get_rng_state()
    first = mirage_finetune(net, X, y, region, epochs=2, random_state=3)
    second = mirage_finetune(net, X, y, region, epochs=2, random_state=3)
    assert torch.equal(state, torch.random.get_rng_state())  # the global generator is untouched
    for original, p in zip(before, net.parameters(), strict=True):
        assert torch.equal(original, p)
    for a, b, original in zip(first.parameters(), second.parameters(), before, strict=True):
        assert torch.equal(a, b) and not torch.equal(a, original)
    assert first.training == net.training


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [({"epsilon": 0.5}, ValueError, r"epsilon must be in \(0, 0.5\)"), ({"alpha": 2}, ValueError, "alpha"),
     ({"epochs": 0}, ValueError, "epochs"), ({"y": np.full(50, 2)}, ValueError, "class indices"),
     ({"region_mask": np.zeros(49, dtype=bool)}, ValueError, "same samples"),
     ({"torch_module": "net"}, TypeError, "torch.nn.Module")],
)
def test_bad_arguments(torch, kwargs, error, message):
    X, y, region = make_region_problem(50)
    arguments = {"torch_module": make_network(2), "X": X, "y": y, "region_mask": region, **kwargs}
    with pytest.raises(error, match=message):
        mirage_finetune(**arguments)


def test_torch_is_imported_only_when_needed(monkeypatch):
    code = ("import sys, fairkit_uncertainty\nfrom fairkit.registry import all_metrics, all_demos\n"
            "all_metrics(); all_demos()\nprint('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    with pytest.raises(ImportError, match=r'pip install "fairkit-uncertainty\[nn\]"'):
        mirage_finetune(object(), [[0.0]], [0], [False])
