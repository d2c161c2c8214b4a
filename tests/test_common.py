"""scikit-learn's common checks and fairkit's fairness checks over every registered estimator."""

from fairkit.registry import all_estimators
from fairkit.utils.estimator_checks import parametrize_with_checks

# {estimator class name: {check name: one-line reason}}: the only place expected failures are kept.
EXPECTED_FAILED_CHECKS = {
    "MMSScheduler": {
        "check_estimators_nan_inf": "inf is a valid processing time (the machine cannot run the job)",
    },
}

ESTIMATORS = [cls(**params) for _, cls in all_estimators() for params in cls.get_test_params()]


def expected_failures(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_estimator(estimator, check):
    check(estimator)


def test_every_estimator_has_test_params():
    for name, cls in all_estimators():
        params = cls.get_test_params()
        assert isinstance(params, list) and params, f"{name}.get_test_params() must list parameter dicts"
