"""Malicious noise (Kearns & Li 1988) aimed at one sensitive group."""

import numbers

import numpy as np
from sklearn.utils import column_or_1d

from fairkit.metrics._confusion import positive, show
from fairkit.utils._random import local_random_state
from fairkit.utils._sklearn_compat import Interval, StrOptions, _num_samples, _safe_indexing, validate_params
from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups

__all__ = ["inject_malicious_noise"]


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "sensitive_features": ["array-like"],
        "rate": [Interval(numbers.Real, 0, 1, closed="left")],
        "strategy": [StrOptions({"duplicate", "relabel"})],
        "target_group": "no_validation",
        "pos_label": "no_validation",
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def inject_malicious_noise(X, y, sensitive_features, rate, *, strategy="duplicate", target_group=None,
                           pos_label=None, random_state=None):
    """Replace a fraction ``rate`` of the samples with adversarial ones aimed at one group.

    ``round(rate · n)`` samples are replaced, so the size stays ``n``.

    * ``"duplicate"``, malicious noise (Kearns & Li 1988): the replaced samples are
      drawn at random from the whole data and become copies of one point of
      ``target_group`` with its label flipped, so the result is a sample of
      ``D′ = (1 − rate) D + rate Q`` with ``Q`` that point mass. The copies form one
      atom of mass ``rate``, which a deterministic threshold rule must take or leave
      as a whole.
    * ``"relabel"``: the replaced samples are positives of ``target_group``, relabelled
      negative. This is **not** malicious noise but a stronger adversary, which
      corrupts chosen samples (nasty noise, Bshouty, Eiron & Kushilevitz 2002): it
      removes mass ``rate`` from the group's positives, whereas under
      ``(1 − rate) D + rate Q`` every point keeps at least ``1 − rate`` of its mass.
      Guarantees proved for malicious noise, such as the robustness of
      :class:`~fairkit.postprocessing.RandomizedFairBOC`, do not cover it.

    Parameters
    ----------
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Binary labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
    rate : float in [0, 1)
        The noise rate α.
    strategy : {"duplicate", "relabel"}, default="duplicate"
        The adversary: malicious noise (``"duplicate"``) or targeted relabelling of
        existing samples (``"relabel"``, a stronger adversary), as described above.
    target_group : scalar or tuple, default=None
        The group attacked; ``None`` attacks the smallest group.
    pos_label : scalar, default=None
        The positive label, whose samples ``"relabel"`` turns negative. ``None`` requires
        labels in {0, 1} (booleans included) or {-1, 1} and takes 1, as the metrics do.
    random_state : int, RandomState instance or None, default=None
        Which samples are replaced (and, for ``"duplicate"``, which point is copied).

    Returns
    -------
    X_noisy, y_noisy, sensitive_features_noisy
        Of the same shapes as the inputs, and of the same types, except that
        ``y_noisy`` is an ndarray unless ``y`` is a pandas Series.

    Raises
    ------
    ValueError
        If ``y`` is not binary, ``target_group`` is unknown, or, for ``"relabel"``,
        it has too few positives.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.datasets import inject_malicious_noise
    >>> X, y = np.arange(10.0)[:, None], np.array([0, 1] * 5)
    >>> group = np.array([0] * 6 + [1] * 4)
    >>> X_noisy, y_noisy, _ = inject_malicious_noise(X, y, group, 0.2, random_state=0)
    >>> X_noisy.ravel()  # rows 2 and 8 replaced by copies of x = 6, a negative of group 1
    array([0., 1., 6., 3., 4., 5., 6., 7., 6., 9.])
    >>> y_noisy[[2, 6, 8]]  # the copies carry the flipped label; the original keeps its own
    array([1, 0, 1])
    >>> _, y_relabelled, _ = inject_malicious_noise(X, y, group, 0.2, strategy="relabel", random_state=0)
    >>> int((y_relabelled != y).sum()), int(y_relabelled[group == 1].sum())
    (2, 0)
    """
    check_same_index(X=X, y=y, sensitive_features=sensitive_features)
    y_array = column_or_1d(y)
    n = len(y_array)
    if _num_samples(X) != n:
        raise ValueError(f"X has {_num_samples(X)} samples but y has {n}; they must describe the same "
                         "samples.")
    labels = np.unique(y_array)
    if len(labels) != 2:
        raise ValueError(f"y must hold exactly two labels to flip, got {len(labels)} ({show(labels)}).")
    is_positive = positive([y_array], pos_label, ["y"])[0] if strategy == "relabel" else None
    groups, codes = encode_groups(check_sensitive_features(sensitive_features, n, samples_of="y"))
    if target_group is None:
        target = int(np.argmin(np.bincount(codes, minlength=len(groups))))
    else:
        matches = [k for k, g in enumerate(groups) if g == target_group]
        if not matches:
            raise ValueError(f"target_group={target_group!r} is not a group; the groups are {list(groups)}.")
        target = matches[0]
    rng = local_random_state(random_state)
    n_noisy = int(round(rate * n))
    source = np.arange(n)
    flipped = np.zeros(n, dtype=bool)
    if strategy == "relabel":
        candidates = np.flatnonzero((codes == target) & is_positive)
        if n_noisy > len(candidates):
            raise ValueError(f"rate={rate} asks for {n_noisy} relabelled positives, but group "
                             f"{groups[target]!r} has only {len(candidates)} positives.")
        flipped[rng.choice(candidates, n_noisy, replace=False)] = True
    else:
        copied = rng.choice(np.flatnonzero(codes == target))
        replaced = rng.choice(n, n_noisy, replace=False)
        source[replaced] = copied
        flipped[replaced] = True
    y_noisy = _safe_indexing(y, source)
    new_labels = np.where(y_array[source] == labels[1], labels[0], labels[1])
    if hasattr(y_noisy, "iloc"):
        y_noisy = y_noisy.copy()
        y_noisy.iloc[flipped] = new_labels[flipped]
    else:
        y_noisy = np.where(flipped, new_labels, np.asarray(y_noisy))
    return _safe_indexing(X, source), y_noisy, _safe_indexing(sensitive_features, source)
