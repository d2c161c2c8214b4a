"""benchmarks/bench_scale.py: its limits do the work of what they bound."""

import pytest

pytest.importorskip("torch")

from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from benchmarks.bench_fairicp import _synthetic  # noqa: E402
from benchmarks.bench_scale import bare_adversarial_epoch  # noqa: E402
from fairkit.adversarial import FairICPClassifier  # noqa: E402


def test_bare_adversarial_epoch_does_a_fits_tensor_work():
    # The limit of a FairICP epoch counts the matrix products of one epoch of a fit, at mu = 0 and
    # at mu = 0.9 (it runs each three times: a warm-up and two timed runs).
    X, y, sensitive = _synthetic(700)
    flops = {}
    for mu in (0.0, 0.9):
        model = FairICPClassifier(mu=mu, max_epochs=1, batch_size=512, random_state=0)
        with FlopCounterMode(display=False) as counter:
            model.fit(X, y, sensitive_features=sensitive)
        flops[mu] = counter.get_total_flops()
    with FlopCounterMode(display=False) as counter:
        bare_adversarial_epoch(model.net_, len(y), mu=0.9, batch_size=512)
    assert counter.get_total_flops() == 3 * (flops[0.0] + flops[0.9])
