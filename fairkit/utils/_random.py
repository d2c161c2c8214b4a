"""The one ``random_state`` policy of fairkit's estimators, metrics, datasets and plugins.

``random_state`` takes what scikit-learn's :func:`~sklearn.utils.check_random_state`
takes, with the same meaning:

* an int in ``[0, 2**32 - 1]``: a seed; the same seed gives the same results;
* a :class:`numpy.random.RandomState` instance: drawn from (so it advances), as in
  scikit-learn;
* ``None``: fresh randomness from the operating system's entropy.

Unlike ``sklearn.utils.check_random_state(None)``, which returns numpy's global
generator, ``None`` never touches a global generator: fairkit never seeds, reseeds or
advances numpy's, Python's :mod:`random` or torch's global generators. Every use of
randomness goes through :func:`local_random_state` (a ``RandomState``, the stream
scikit-learn uses for the same seed) or :func:`local_generator` (a numpy ``Generator``,
for code that needs one). Torch code draws a seed from one of them and runs under
``torch.random.fork_rng``; a scikit-learn estimator or function inside fairkit is given a
seed drawn from them, never ``None`` (with which scikit-learn would draw from numpy's
global generator).
"""

from numbers import Integral

import numpy as np

__all__ = ["local_generator", "local_random_state"]

_MAX_SEED = 2**32 - 1


def _check_seed(random_state):
    """Return ``random_state`` if it is an int seed scikit-learn accepts; raise otherwise."""
    if isinstance(random_state, Integral) and 0 <= random_state <= _MAX_SEED:
        return int(random_state)
    hint = ""
    if isinstance(random_state, np.random.Generator):
        hint = (" A numpy Generator is not accepted (scikit-learn's convention): pass an int seed, "
                "e.g. generator.integers(2**32).")
    raise ValueError(f"random_state must be None, an int in [0, 2**32 - 1] or a "
                     f"numpy.random.RandomState instance; got {random_state!r}.{hint}")


def local_random_state(random_state=None):
    """A ``RandomState`` for ``random_state`` that is never numpy's global generator.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        An int seeds a new ``RandomState`` (the stream of
        ``sklearn.utils.check_random_state`` for that seed); an instance is returned as
        it is, so drawing from the result advances it; ``None`` gives a new
        ``RandomState`` seeded from the operating system's entropy.

    Returns
    -------
    rng : numpy.random.RandomState

    Raises
    ------
    ValueError
        If ``random_state`` is none of these (a numpy ``Generator`` included).

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.utils import local_random_state
    >>> int(local_random_state(0).randint(100)) == int(np.random.RandomState(0).randint(100))
    True
    >>> from sklearn.utils import check_random_state
    >>> local_random_state(None) is check_random_state(None)  # never numpy's global generator
    False
    """
    if isinstance(random_state, np.random.RandomState):
        return random_state
    if random_state is None:
        return np.random.RandomState()  # seeded from OS entropy; the global generator is untouched
    return np.random.RandomState(_check_seed(random_state))


def local_generator(random_state=None):
    """A numpy ``Generator`` for ``random_state``, under the same policy as :func:`local_random_state`.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        An int seeds ``numpy.random.default_rng(seed)``; a ``RandomState`` instance
        seeds the generator with 128 bits drawn from it (so it advances, and the same
        instance state gives the same generator); ``None`` gives a generator seeded
        from the operating system's entropy.

    Returns
    -------
    rng : numpy.random.Generator

    Raises
    ------
    ValueError
        If ``random_state`` is none of these (a numpy ``Generator`` included).

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.utils import local_generator
    >>> float(local_generator(0).random()) == float(np.random.default_rng(0).random())
    True
    """
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32, size=4, dtype=np.uint32))
    if random_state is None:
        return np.random.default_rng()
    return np.random.default_rng(_check_seed(random_state))
