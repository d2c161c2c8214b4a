"""The fairkit plugin of fairkit-mshap (entry point ``mshap`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_demos():
    from fairkit_mshap._demo import demo

    return {"mshap_free_riding": demo}
