"""The fairkit plugin of fairkit-robust (entry point ``robust`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit_robust import FairAdversarialClassifier

    return [FairAdversarialClassifier]


@hookimpl
def fairkit_search_spaces():
    from scipy.stats import loguniform, uniform

    # notion is the user's choice of fairness definition, not a setting to tune
    return {"FairAdversarialClassifier": {"lambda_fair": uniform(0.0, 1.0), "eps": loguniform(0.01, 0.2),
                                          "attack": ["accuracy", "both"]}}


@hookimpl
def fairkit_audit_checks():
    from fairkit_robust._curve import robustness_check

    return {"robustness": robustness_check}
