"""scikit-learn's common checks and fairkit's fairness checks over every registered estimator."""

import sklearn
from sklearn.utils.fixes import parse_version

from fairkit.registry import all_estimators
from fairkit.utils.estimator_checks import parametrize_with_checks

# {estimator class name: {check name: one-line reason}, or a function of the estimator giving that
# dict where its parameters decide}: the only place expected failures are kept.
EXPECTED_FAILED_CHECKS = {
    "MMSScheduler": {
        "check_estimators_nan_inf": "inf is a valid processing time (the machine cannot run the job)",
    },
    "ViaSHAPRegressor": {
        "check_regressors_train": "the check sets alpha=0.01 on any estimator with an alpha, which here "
        "weighs the prediction loss 1000x below the Shapley loss (beta=10); with alpha=1 it passes",
    },
    "SelectiveClassifier": lambda estimator: {} if (estimator.confidence, estimator.confidence_estimator) != (
        "learned", None) else {"check_skops_roundtrip": "the default confidence model, scikit-learn's "
                               "HistGradientBoostingClassifier, holds TreePredictor objects that skops.io "
                               "does not trust by default (as for a HistGradientBoostingClassifier saved "
                               "alone)"},
    "GroupBalancedClassifier": lambda estimator: {} if estimator.mode != "resample" else dict.fromkeys(
        ["check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data"],
        "mode='resample' fits on a random resample of the rows, whose draws differ from those from the "
        "repeated rows"),
}
if parse_version(sklearn.__version__) < parse_version("1.7"):
    # fixed in scikit-learn 1.7 (_enforce_estimator_tags_y maps y around its smallest label)
    EXPECTED_FAILED_CHECKS["RandomizedFairBOC"] = dict.fromkeys(
        ["check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data"],
        "scikit-learn < 1.7 makes a binary-only classifier's labels around the first label of y, so the "
        "weighted and the repeated fit of this check see different classes")

ESTIMATORS = [cls(**params) for _, cls in all_estimators() for params in cls.get_test_params()]


def expected_failures(estimator):
    failures = EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})
    return failures(estimator) if callable(failures) else failures


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_estimator(estimator, check):
    check(estimator)


def test_every_estimator_has_test_params():
    for name, cls in all_estimators():
        params = cls.get_test_params()
        assert isinstance(params, list) and params, f"{name}.get_test_params() must list parameter dicts"
