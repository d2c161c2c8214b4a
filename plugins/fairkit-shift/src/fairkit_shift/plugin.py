"""The fairkit plugin of fairkit-shift (entry point ``shift`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_datasets():
    from fairkit_shift import make_subgroup_shift

    return {"make_subgroup_shift": make_subgroup_shift}


@hookimpl
def fairkit_audit_checks():
    from fairkit_shift._audit import shift_check

    return {"shift": shift_check}
