"""The random_state policy: scikit-learn's accepted values and streams, never a global generator."""

import pickle
import random

import numpy as np
import pytest
from sklearn.utils import check_random_state

from fairkit.utils import local_generator, local_random_state

HELPERS = [local_random_state, local_generator]


def global_states():
    return pickle.dumps(np.random.get_state()), pickle.dumps(random.getstate())  # noqa: NPY002


def draws(rng, n=5):
    return rng.random_sample(n) if isinstance(rng, np.random.RandomState) else rng.random(n)


def test_an_int_seed_gives_scikit_learns_stream():
    np.testing.assert_array_equal(local_random_state(7).random_sample(5),
                                  check_random_state(7).random_sample(5))
    assert local_random_state(np.int64(7)).randint(1000) == check_random_state(7).randint(1000)


def test_an_int_seed_gives_numpys_generator_stream():
    np.testing.assert_array_equal(local_generator(7).random(5), np.random.default_rng(7).random(5))


def test_a_random_state_instance_is_used_as_scikit_learn_does():
    rng = np.random.RandomState(3)
    assert local_random_state(rng) is rng is check_random_state(rng)


def test_a_random_state_instance_seeds_the_generator_and_advances():
    rng, twin = np.random.RandomState(3), np.random.RandomState(3)
    np.testing.assert_array_equal(local_generator(rng).random(5), local_generator(twin).random(5))
    assert rng.randint(2**31) == twin.randint(2**31)  # both advanced alike
    assert rng.randint(2**31) != np.random.RandomState(3).randint(2**31)  # ... away from the start


@pytest.mark.parametrize("helper", HELPERS, ids=lambda h: h.__name__)
def test_none_gives_fresh_randomness_and_leaves_the_global_generators_alone(helper):
    np.random.random()  # noqa: NPY002 (away from any state a seed would give)
    before = global_states()
    first, second = draws(helper(None)), draws(helper(None))
    assert global_states() == before
    assert not np.array_equal(first, second)


def test_none_is_never_numpys_global_generator():
    assert check_random_state(None) is np.random.mtrand._rand  # what scikit-learn gives
    assert local_random_state(None) is not np.random.mtrand._rand


@pytest.mark.parametrize("helper", HELPERS, ids=lambda h: h.__name__)
@pytest.mark.parametrize("value, message", [
    (-1, "an int in \\[0, 2\\*\\*32 - 1\\]"),
    (2**32, "got 4294967296"),
    (1.5, "got 1.5"),
    ("0", "got '0'"),
    (np.random.default_rng(0), "A numpy Generator is not accepted"),
])
def test_other_values_are_refused_as_scikit_learn_does(helper, value, message):
    with pytest.raises(ValueError, match=message):
        helper(value)
    with pytest.raises(ValueError):
        check_random_state(value)
