"""scikit-learn's digits with a synthetic spurious artefact: the paper's MNIST experiment in miniature.

A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias
Mitigation", ICML 2025 (arXiv:2505.21363) study mitigation methods on a semi-synthetic
MNIST in which an artefact ``A`` is spuriously correlated with the label ``Y`` in training,
more strongly for one value of a pseudo-attribute ``S`` than for the other, and independent
of ``Y`` at test. :func:`make_digits_artefact` builds the same on the 8×8 digits that ship
with scikit-learn, so the study runs without a download.
"""

from numbers import Real

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.utils import Bunch

from fairkit.utils import local_generator

__all__ = ["make_digits_artefact", "stack_draws"]


def _probability(value, name, meaning):
    """``value`` as a float in [0, 1]; a ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1] ({meaning}), got {value!r}.")
    return float(value)


def _shuffled_rank(labels, rng):
    """Each sample's position among the samples of its label, in a random order.

    ``labels`` are non-negative ints; the samples of each label get the positions
    ``0, 1, ...`` in a uniformly random order.
    """
    order = rng.permutation(labels.size)
    order = order[np.argsort(labels[order], kind="stable")]
    counts = np.bincount(labels)
    rank = np.empty(labels.size, dtype=np.intp)
    rank[order] = np.arange(labels.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return rank


def _mark(images, artefact, sex, patch_value):
    """The 8×8 ``images`` (flattened) with the artefact and S markers drawn where they are 1."""
    pictures = images.reshape(-1, 8, 8).copy()
    pictures[artefact == 1, 6:, :2] = patch_value  # A: the bottom-left 2×2 patch
    pictures[sex == 1, :2, :2] = patch_value  # S = F: the top-left 2×2 patch
    return pictures.reshape(-1, 64)


def make_digits_artefact(*, correlation=(0.95, 0.8), test_correlation=0.5, test_size=0.3, patch_value=16.0,
                         random_state=None):
    """Digits with a spurious artefact whose correlation with the label depends on a pseudo-attribute.

    The paper's MNIST experiment (Alloula et al., 2025) in miniature, on scikit-learn's
    :func:`~sklearn.datasets.load_digits` (1797 images of 8×8 pixels, values 0 to 16):

    * the label is ``Y = 1`` for the digits 0 to 4 and ``Y = 0`` for 5 to 9;
    * the digits are split into a training and a test part, stratified by digit
      (``round(test_size * n)`` of each digit's ``n`` images go to test);
    * training: a pseudo-attribute ``S`` ("sex": 0 = M, 1 = F) is drawn with probability
      1/2 independently of everything else, then the artefact ``A`` with
      ``P(A = Y | S = s) = correlation[s]`` (the same for both labels);
    * test: the same number of images of each label is kept, ``S`` splits each label in
      halves, and each ``(Y, S)`` stratum of ``h`` images gets exactly
      ``floor(test_correlation * h)`` images with ``A = Y`` and
      ``floor((1 - test_correlation) * h)`` with ``A != Y``, the rest dropped. At the
      default 0.5 the eight cells ``Y × A × S`` have equal counts and ``A`` is
      independent of ``Y`` and ``S``: worst-group accuracy over the cells and accuracy
      on the test part are the paper's measures;
    * both attributes show in the image: ``A = 1`` sets the bottom-left 2×2 pixels to
      ``patch_value``, ``S = 1`` the top-left 2×2 pixels (the corners with the least
      ink); every other pixel is the original digit's.

    Parameters
    ----------
    correlation : pair of float, default=(0.95, 0.8)
        ``P(A = Y | S = M)`` and ``P(A = Y | S = F)`` in the training part.
    test_correlation : float, default=0.5
        ``P(A = Y)`` in the test part, in every ``(Y, S)`` stratum; 0.5 makes the
        artefact uninformative there.
    test_size : float, default=0.3
        Fraction of each digit's images in the test part, in (0, 1); the test part is
        then trimmed to the exact cell counts above (about 536 of 539 images at the defaults).
    patch_value : float, default=16.0
        Pixel value of the two markers (the digits' ink is 0 to 16).
    random_state : int, RandomState instance or None, default=None
        Seed of the one generator everything is drawn from (fairkit's ``random_state``
        policy; ``None`` is fresh randomness and never touches numpy's global state).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``X_train``, ``X_test`` : ndarray of float64, shape (n, 64), the marked images;
        ``y_train``, ``y_test`` : ndarray of int64, the labels ``Y``;
        ``attributes_train``, ``attributes_test`` : DataFrame with int64 columns
        ``"Y"``, ``"A"``, ``"S"``, one row per image, in the order of the images;
        ``DESCR`` : str, how the data were made.

    Raises
    ------
    ValueError
        If a parameter is out of range, or ``test_size`` leaves a digit out of a part or
        a cell of the test part empty. Nothing is drawn then.

    Notes
    -----
    Where this differs from the reference's ``make_mnist_dataset.py``: the reference
    labels odd digits ``Y = 1`` (here: digits below 5, as the issue asks); it draws ``A``
    as the background colour (black or white) and ``S`` as the digit's colour (red or
    green) of an RGB image, where here both are grey patches in corners of the 8×8 image;
    it draws ``S`` and ``A`` at test with probability 1/2 (balanced in expectation), where
    here the test cells are balanced exactly; and it draws a validation part with the
    training correlations, which a caller takes from the training part here.

    References
    ----------
    A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias
    Mitigation", ICML 2025, arXiv:2505.21363.

    Examples
    --------
    >>> from fairkit_subgroups import make_digits_artefact
    >>> data = make_digits_artefact(random_state=0)
    >>> data.X_train.shape, data.X_test.shape
    ((1258, 64), (536, 64))
    >>> train = data.attributes_train
    >>> (train.A == train.Y).groupby(train.S).mean().round(2).tolist()  # P(A = Y | S)
    [0.95, 0.83]
    >>> data.attributes_test.value_counts().unique().tolist()  # 8 cells Y × A × S, 67 images each
    [67]
    """
    is_sequence = isinstance(correlation, tuple | list | np.ndarray)
    if not is_sequence or np.asarray(correlation, dtype=object).shape != (2,):
        raise ValueError(f"correlation must be a pair (P(A = Y | S = M), P(A = Y | S = F)) such as "
                         f"(0.95, 0.8), got {correlation!r}.")
    correlation = np.array([_probability(value, "correlation", "each of P(A = Y | S = M) and "
                                         "P(A = Y | S = F)") for value in correlation])
    test_correlation = _probability(test_correlation, "test_correlation", "P(A = Y) in the test part; "
                                    "0.5 makes the artefact uninformative")
    if isinstance(test_size, bool) or not isinstance(test_size, Real) or not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be a number in (0, 1), the fraction of each digit's images in "
                         f"the test part, got {test_size!r}.")
    if isinstance(patch_value, bool) or not isinstance(patch_value, Real) or not np.isfinite(patch_value):
        raise ValueError(f"patch_value must be a finite number, the pixel value of the markers (the "
                         f"digits' ink is 0 to 16), got {patch_value!r}.")

    digits = load_digits()
    images, digit = digits.data, digits.target
    label = (digit < 5).astype(np.int64)
    per_digit = np.bincount(digit)
    test_per_digit = np.rint(test_size * per_digit).astype(np.intp)
    if test_per_digit.min() < 1 or (per_digit - test_per_digit).min() < 1:
        raise ValueError(f"test_size={test_size!r} leaves a digit out of the training or the test part "
                         f"(each digit has {per_digit.min()} to {per_digit.max()} images); use a "
                         f"test_size between {1 / per_digit.min():.3f} and "
                         f"{1 - 1 / per_digit.min():.3f}.")
    # test images per (Y, S) stratum: the smaller label's count (Y = 0 is digits 5 to 9), halved
    per_stratum = min(test_per_digit[5:].sum(), test_per_digit[:5].sum()) // 2
    n_aligned = int(np.floor(test_correlation * per_stratum))
    n_conflicting = int(np.floor((1.0 - test_correlation) * per_stratum))
    if (test_correlation > 0 and n_aligned == 0) or (test_correlation < 1 and n_conflicting == 0):
        raise ValueError(f"test_size={test_size!r} leaves {per_stratum} test images per (Y, S) stratum, "
                         f"too few for test_correlation={test_correlation!r}: a cell of the test part "
                         f"would be empty; use a larger test_size.")

    rng = local_generator(random_state)
    is_test = _shuffled_rank(digit, rng) < test_per_digit[digit]
    train, test = np.flatnonzero(~is_test), np.flatnonzero(is_test)

    y_train = label[train]
    s_train = (rng.random(train.size) < 0.5).astype(np.int64)
    a_train = np.where(rng.random(train.size) < correlation[s_train], y_train, 1 - y_train)

    rank = _shuffled_rank(label[test], rng)
    position = rank % per_stratum
    keep = (rank < 2 * per_stratum) & (position < n_aligned + n_conflicting)
    test, rank, position = test[keep], rank[keep], position[keep]
    y_test = label[test]
    s_test = (rank // per_stratum).astype(np.int64)
    a_test = np.where(position < n_aligned, y_test, 1 - y_test)

    descr = (f"Digits with a spurious artefact (fairkit-subgroups make_digits_artefact; Alloula et al., "
             f"ICML 2025, arXiv:2505.21363).\nscikit-learn's 8x8 digits, Y = 1 for digits 0-4. A = 1 sets "
             f"the bottom-left 2x2 pixels, S = 1 (F) the top-left 2x2 pixels, to {float(patch_value)}.\n"
             f"Train: {train.size} images, S drawn with probability 1/2, P(A = Y | S = M) = "
             f"{correlation[0]}, P(A = Y | S = F) = {correlation[1]}.\nTest: {test.size} images, "
             f"{n_aligned} with A = Y and {n_conflicting} with A != Y in each of the 4 (Y, S) strata.")
    return Bunch(
        X_train=_mark(images[train], a_train, s_train, patch_value), y_train=y_train,
        X_test=_mark(images[test], a_test, s_test, patch_value), y_test=y_test,
        attributes_train=pd.DataFrame({"Y": y_train, "A": a_train, "S": s_train}),
        attributes_test=pd.DataFrame({"Y": y_test, "A": a_test, "S": s_test}),
        DESCR=descr,
    )


def stack_draws(draws):
    """Several train/test draws as one data set, with the index pairs that split it back.

    :func:`compare_groupings` scores groupings over ``cv`` splits of one ``X``. Independent
    draws of a data set whose training and test parts differ in distribution (several
    ``random_state`` of :func:`make_digits_artefact`) become one ``X`` whose ``cv`` gives
    each draw's training part for fitting and its test part for scoring.

    Parameters
    ----------
    draws : iterable of Bunch
        Each with ``X_train``, ``y_train``, ``attributes_train``, ``X_test``, ``y_test`` and
        ``attributes_test`` (as :func:`make_digits_artefact` returns), all of the same
        features and attribute columns.

    Returns
    -------
    stacked : Bunch
        ``X`` (the draws' training then test rows, draw after draw), ``y``, ``attributes``
        (a DataFrame with a fresh index) and ``cv`` (a list of (train, test) index arrays,
        one per draw).

    Examples
    --------
    >>> from fairkit_subgroups import make_digits_artefact, stack_draws
    >>> stacked = stack_draws(make_digits_artefact(random_state=seed) for seed in range(3))
    >>> stacked.X.shape, len(stacked.cv), [len(test) for _, test in stacked.cv]
    ((5382, 64), 3, [536, 536, 536])
    """
    X, y, attributes, cv, start = [], [], [], [], 0
    for draw in draws:
        n_train, n_test = len(draw.y_train), len(draw.y_test)
        cv.append((np.arange(start, start + n_train), np.arange(start + n_train, start + n_train + n_test)))
        X += [draw.X_train, draw.X_test]
        y += [draw.y_train, draw.y_test]
        attributes += [draw.attributes_train, draw.attributes_test]
        start += n_train + n_test
    if not cv:
        raise ValueError("draws is empty; give at least one train/test draw.")
    return Bunch(X=np.concatenate(X), y=np.concatenate(y),
                 attributes=pd.concat(attributes, ignore_index=True), cv=cv)
