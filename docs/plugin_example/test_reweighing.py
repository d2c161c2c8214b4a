from fairkit_reweighing import ReweighingClassifier

from fairkit.utils.estimator_checks import parametrize_with_checks


@parametrize_with_checks([ReweighingClassifier(**p) for p in ReweighingClassifier.get_test_params()])
def test_reweighing(estimator, check):
    check(estimator)
