"""The fairkit plugin of fairkit-uncertainty (entry point ``uncertainty`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit_uncertainty import SelectiveClassifier

    return [SelectiveClassifier]


@hookimpl
def fairkit_metrics():
    import fairkit_uncertainty

    names = ["calibration_audit", "expected_calibration_error", "max_calibration_error",
             "reliability_table", "ucerf_score"]
    return {name: getattr(fairkit_uncertainty, name) for name in names}


@hookimpl
def fairkit_demos():
    from fairkit_uncertainty._demo import demo

    return {"mirage_calibration_audit": demo}


@hookimpl
def fairkit_search_spaces():
    # coverage and group_coverage are the user's requirements, not settings to tune; at a fixed
    # coverage, accuracy (an abstention counted as an error) ranks the confidences as selective accuracy
    return {"SelectiveClassifier": {"confidence": ["learned", "max_proba", "margin"], "cv": [3, 5]}}


@hookimpl
def fairkit_audit_checks():
    from fairkit_uncertainty._audit import abstain_check

    return {"abstain": abstain_check}
