"""Named groupings of samples for a subgroup study: intersections, random splits, random groups, noise.

A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias
Mitigation", ICML 2025 (arXiv:2505.21363) run each bias-mitigation method once per
grouping of the training samples: single attributes (``A``, ``S``, ``Y``), label ×
attribute (``AY``, ``SY``), the full intersection (``YAS``), each group split at random
(``AY_8``: AY's 4 groups split in 2), random groups (``Random``) and groups with a
fraction of labels reassigned at random (``noisy_AY_010``). :func:`make_groupings` builds
them all from the columns of a DataFrame.
"""

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd

from fairkit.utils import local_generator
from fairkit.utils.validation import encode_groups

__all__ = ["Noisy", "RandomGroups", "Split", "make_groupings"]


def _as_columns(columns, where):
    """A column label or a list of them, as a tuple of labels."""
    if isinstance(columns, list | tuple):
        if not columns:
            raise ValueError(f"{where} names no column; give a column or a non-empty list of columns.")
        return tuple(columns)
    if not isinstance(columns, Hashable):
        raise TypeError(f"{where} must be a column, a list of columns, Split, RandomGroups or Noisy, "
                        f"got {columns!r}.")
    return (columns,)


@dataclass(frozen=True)
class Split:
    """Each group of ``columns`` split at random into ``parts`` parts of near-equal size.

    The paper's ``AY_8`` is ``Split(["A", "Y"], 2)``: AY's 4 groups, each in 2 parts.
    Within a group the parts' sizes differ by at most one (the reference code flips a coin
    per sample instead). A part's label is the group's label followed by the part number.

    Parameters
    ----------
    columns : column label or list of column labels
        The grouping to split (several columns: their intersection).
    parts : int, default=2
        The number of parts of each group (a group with fewer members has one per member).
    """

    columns: object
    parts: int = 2

    def __post_init__(self):
        object.__setattr__(self, "columns", _as_columns(self.columns, "Split(columns)"))
        if not isinstance(self.parts, Integral) or isinstance(self.parts, bool) or self.parts < 1:
            raise ValueError(f"Split(parts) must be an int >= 1, got {self.parts!r}.")


@dataclass(frozen=True)
class RandomGroups:
    """``n_groups`` groups drawn at random, of near-equal sizes (the paper's ``Random``: 4).

    Sizes differ by at most one (the reference code draws each sample's group
    independently instead). Labels are ``0, ..., n_groups - 1``.

    Parameters
    ----------
    n_groups : int
        The number of groups, at least 1 and at most the number of rows.
    """

    n_groups: int

    def __post_init__(self):
        if not isinstance(self.n_groups, Integral) or isinstance(self.n_groups, bool) or self.n_groups < 1:
            raise ValueError(f"RandomGroups(n_groups) must be an int >= 1, got {self.n_groups!r}.")


@dataclass(frozen=True)
class Noisy:
    """The groups of ``columns`` with a ``fraction`` of the rows' labels reassigned at random.

    The paper's ``noisy_AY_010`` is ``Noisy(["A", "Y"], 0.10)``. ``round(fraction * n_rows)``
    rows are chosen at random and their labels shuffled among them: each gets the label of
    a random chosen row (possibly its own), so labels are drawn in proportion to the
    groups' sizes and the sizes do not change. The reference code draws the new labels
    independently from the groups' proportions, which is the same in expectation:
    a cell's expected share of group g is ``(1 - fraction) [cell in g] + fraction p(g)``,
    the noisy grouping of the paper's KL analysis.

    Parameters
    ----------
    columns : column label or list of column labels
        The clean grouping (several columns: their intersection).
    fraction : float
        The fraction of rows reassigned, in [0, 1].
    """

    columns: object
    fraction: float

    def __post_init__(self):
        object.__setattr__(self, "columns", _as_columns(self.columns, "Noisy(columns)"))
        if not isinstance(self.fraction, Real) or isinstance(self.fraction, bool) or not (
                0 <= self.fraction <= 1):
            raise ValueError(f"Noisy(fraction) must be a number in [0, 1], got {self.fraction!r}.")


def make_groupings(frame, spec, *, random_state=None):
    """Build named groupings of the rows of ``frame``: one group label per row for each.

    The groupings of Alloula et al., "Subgroups Matter for Robust Bias Mitigation" (ICML
    2025, arXiv:2505.21363), so that a mitigation method can be run once per grouping.

    Parameters
    ----------
    frame : DataFrame of shape (n_samples, n_columns)
        The attributes (and, for label × attribute groupings, the label) of each sample.
    spec : mapping of name to grouping
        Each grouping is one of:

        - a column label: its values are the groups (``"A"``);
        - a list of column labels: their intersection (``["A", "Y"]``, ``["Y", "A", "S"]``);
        - :class:`Split`: each group split at random into parts (``Split(["A", "Y"], 2)``);
        - :class:`RandomGroups`: random groups (``RandomGroups(4)``);
        - :class:`Noisy`: a fraction of labels reassigned at random (``Noisy(["A", "Y"], 0.1)``).
    random_state : int, RandomState instance or None, default=None
        Seeds the random groupings (fairkit's one policy: numpy's global generator is never
        used). They draw from one generator in the order of ``spec``.

    Returns
    -------
    groupings : dict of name to ndarray of shape (n_samples,)
        The group of each row: a column's values for one column; tuples of values for
        several; a group's label followed by the part number for :class:`Split`; 0, 1,
        ... for :class:`RandomGroups`; the clean grouping's labels for :class:`Noisy`.

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame, or a grouping is none of the above.
    ValueError
        If ``spec`` is empty, names a column ``frame`` lacks or one with missing values,
        or asks for more random groups than rows. Nothing is drawn from ``random_state``
        then.

    See Also
    --------
    fairkit_subgroups._kl.subgroup_kl_diagnostic : the KL diagnostic over the cells of a
        study, to which a grouping is given as the share of each cell in each group:
        ``pd.Series(groupings[name]).groupby(cell).value_counts(normalize=True).unstack(fill_value=0)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairkit_subgroups._groupings import Noisy, RandomGroups, Split, make_groupings
    >>> frame = pd.DataFrame({"Y": [0, 0, 0, 1, 1, 1], "A": [0, 0, 1, 1, 1, 0]})
    >>> groupings = make_groupings(frame, {"Y": "Y", "AY": ["A", "Y"], "AY_8": Split(["A", "Y"], 2),
    ...                                    "Random": RandomGroups(3), "noisy_AY": Noisy(["A", "Y"], 0.5)},
    ...                            random_state=0)
    >>> groupings["Y"]
    array([0, 0, 0, 1, 1, 1])
    >>> groupings["AY"]
    array([(0, 0), (0, 0), (1, 0), (1, 1), (1, 1), (0, 1)], dtype=object)
    >>> sorted(pd.Series(groupings["Random"]).value_counts())
    [2, 2, 2]
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame (columns by name), got {type(frame).__name__}.")
    if len(frame) == 0:
        raise ValueError("frame has no rows.")
    if not isinstance(spec, Mapping) or not spec:
        raise ValueError("spec must be a non-empty mapping of name to grouping (a column, a list of columns, "
                         f"Split, RandomGroups or Noisy), got {spec!r}.")
    clean = {name: _clean_grouping(frame, name, grouping) for name, grouping in spec.items()}
    rng = local_generator(random_state)  # drawn from only once every grouping is valid
    return {name: _draw(grouping, clean[name], len(frame), rng) for name, grouping in spec.items()}


def _clean_grouping(frame, name, grouping):
    """Validate one grouping; return its clean groups (see ``_clean_groups``), None for random groups."""
    where = f"spec[{name!r}]"
    if isinstance(grouping, RandomGroups):
        if grouping.n_groups > len(frame):
            raise ValueError(f"{where} asks for {grouping.n_groups} random groups of {len(frame)} rows; at "
                             "most one group per row.")
        return None
    columns = grouping.columns if isinstance(grouping, Split | Noisy) else _as_columns(grouping, where)
    return _clean_groups(frame, columns, where)


def _draw(grouping, clean, n_rows, rng):
    """The group labels of one grouping, drawing from ``rng`` for the random ones."""
    if isinstance(grouping, RandomGroups):
        labels = np.empty(n_rows, dtype=np.intp)
        labels[rng.permutation(n_rows)] = np.arange(n_rows) % grouping.n_groups
        return labels
    labels, groups, codes = clean
    if isinstance(grouping, Noisy):
        chosen = rng.choice(n_rows, size=round(grouping.fraction * n_rows), replace=False)
        labels[chosen] = labels[rng.permutation(chosen)]
    elif isinstance(grouping, Split):
        labels = _split(groups, codes, grouping.parts, rng)
    return labels


def _clean_groups(frame, columns, where):
    """Each row's group label, the groups, and each row's group code, for the intersection of ``columns``."""
    unknown = [col for col in columns if col not in frame.columns]
    if unknown:
        raise ValueError(f"{where} names column(s) {unknown} that frame lacks; its columns are "
                         f"{list(frame.columns)}.")
    missing = frame[list(columns)].isna().sum()
    if missing.any():
        raise ValueError(f"{where} uses column(s) with missing values (NaN or None): "
                         f"{missing[missing > 0].to_dict()} rows; fill them or drop those rows first.")
    groups, codes = encode_groups(frame[list(columns)])
    labels = frame[columns[0]].to_numpy(copy=True) if len(columns) == 1 else groups[codes]
    return labels, groups, codes


def _split(groups, codes, parts, rng):
    """Split each group into ``parts`` parts of near-equal size at random; label (group..., part)."""
    order = rng.permutation(len(codes))
    order = order[np.argsort(codes[order], kind="stable")]  # each group's rows together, shuffled
    starts = np.searchsorted(codes[order], codes[order])  # where each row's group begins in ``order``
    part = np.empty(len(codes), dtype=np.intp)
    part[order] = (np.arange(len(codes)) - starts) % parts
    labels = np.fromiter(((*group, j) if isinstance(group, tuple) else (group, j)
                          for group in groups for j in range(parts)), dtype=object)
    return labels[codes * parts + part]
