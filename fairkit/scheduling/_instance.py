"""A scheduling instance: processing times, machine groups, and the loads of an assignment."""

import numbers

import numpy as np


def check_processing_times(P, name="P"):
    """Validate a matrix of processing times ``P[j, k]`` (job ``j`` on machine ``k``).

    Times must be non-negative numbers or ``inf`` (the machine cannot run the job);
    every job must have at least one finite time.
    """
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] == 0 or P.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array of processing times (jobs x "
                         f"machines); got shape {P.shape}.")
    _check_values(P, name)
    runnable = np.isfinite(P).any(axis=1)
    if not runnable.all():
        raise ValueError(f"Job {int(np.flatnonzero(~runnable)[0])} has no finite processing time in "
                         f"{name}: every job needs at least one machine that can run it.")
    return P


def _check_values(P, name):
    """Refuse NaN, negative times, and times whose loads would overflow float64.

    Any finite times are solved exactly otherwise (the solvers see them scaled by a
    power of two); only a sum beyond float64's range (about 1.8e308) cannot be represented.
    """
    nan = np.isnan(P)
    if nan.any():
        raise ValueError(f"{name} holds NaN ({np.count_nonzero(nan)} entries); processing times "
                         "must be numbers >= 0, or inf where a machine cannot run a job.")
    if (P < 0).any():
        raise ValueError(f"Negative values in data: {name} holds processing times below 0; they must "
                         "be >= 0 (inf where a machine cannot run a job).")
    with np.errstate(over="ignore"):
        heaviest = np.where(np.isfinite(P), P, 0.0).max(axis=1, initial=0.0).sum()
    if not np.isfinite(heaviest):
        raise ValueError(f"The processing times in {name} are too large: a machine's load (a sum of "
                         "times) could exceed float64's range (about 1.8e308). Divide them by a "
                         "constant: the allocation does not depend on the unit of time.")


def encode_machine_groups(machine_groups, n_machines):
    """Return ``(labels, group)``: the sorted group labels and each machine's group index.

    ``machine_groups`` is an array-like of one label per machine, or an int ``N``:
    the machines are then split into ``N`` contiguous blocks of near-equal size
    (``numpy.array_split``), labelled ``0, ..., N - 1``.
    """
    if isinstance(machine_groups, numbers.Integral) and not isinstance(machine_groups, bool):
        if machine_groups < 1:
            raise ValueError(f"machine_groups must be >= 1 when an int, got {machine_groups}.")
        if n_machines < machine_groups:
            raise ValueError(f"X has {n_machines} feature(s) (machines) but machine_groups="
                             f"{machine_groups} needs at least one machine per group.")
        group = np.repeat(np.arange(machine_groups),
                          [len(b) for b in np.array_split(np.arange(n_machines), machine_groups)])
        return np.arange(machine_groups), group
    labels = np.asarray(machine_groups)
    if labels.ndim != 1:
        raise ValueError("machine_groups must be an int or a 1-D array-like of one group label "
                         f"per machine; got shape {labels.shape}.")
    if labels.shape[0] != n_machines:
        raise ValueError(f"machine_groups has {labels.shape[0]} labels but there are {n_machines} "
                         "machines (columns of X); give one group label per machine.")
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError("machine_groups holds NaN; give one group label per machine.")
    try:
        return np.unique(labels, return_inverse=True)
    except TypeError as error:  # an object array mixing types that do not compare
        raise ValueError(f"machine_groups mixes labels that cannot be sorted ({error}); give labels "
                         "of one type (all numbers or all strings).") from None


def check_groups_can_run_all_jobs(P, group, labels):
    """Raise if some group has no machine that can run some job (its maximin share is infinite)."""
    for g, label in enumerate(labels):
        runnable = np.isfinite(P[:, group == g]).any(axis=1)
        if not runnable.all():
            job = int(np.flatnonzero(~runnable)[0])
            raise ValueError(f"Job {job} cannot run on any machine of group {label} (all its "
                             "processing times there are inf), so that group's maximin share is "
                             "infinite and no allocation can approximate it.")


def machine_loads(P, assignment):
    """Load of every machine: the total processing time of the jobs assigned to it."""
    return np.bincount(assignment, weights=P[np.arange(P.shape[0]), assignment],
                       minlength=P.shape[1])


def group_maxima(values, group, n_groups):
    """Largest of ``values`` over the machines of each group."""
    out = np.zeros(n_groups)
    np.maximum.at(out, group, values)
    return out


def identical_groups(P, group):
    """True if the machines of every group have equal processing times for every job."""
    first = np.unique(group, return_index=True)[1]  # the first machine of every group
    return bool(np.array_equal(P, P[:, first[group]]))
