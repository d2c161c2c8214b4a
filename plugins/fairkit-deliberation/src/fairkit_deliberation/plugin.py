"""The fairkit plugin of fairkit-deliberation (entry point ``deliberation`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit_deliberation import JustifiedRepresentationRanker

    return [JustifiedRepresentationRanker]


@hookimpl
def fairkit_metrics():
    from fairkit_deliberation import coverage, is_justified

    return {"coverage": coverage, "is_justified": is_justified}


@hookimpl
def fairkit_datasets():
    from fairkit_deliberation import load_deliberation

    return {"load_deliberation": load_deliberation}


@hookimpl
def fairkit_demos():
    from fairkit_deliberation._demo import demo

    return {"justified_representation": demo}
