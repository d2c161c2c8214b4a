"""Checks every fairkit estimator passes: scikit-learn's common checks plus fairness conventions.

Plugin authors run the same suite on their estimators::

    from fairkit.utils.estimator_checks import parametrize_with_checks

    @parametrize_with_checks([MyFairClassifier(**p) for p in MyFairClassifier.get_test_params()])
    def test_my_estimator(estimator, check):
        check(estimator)

The fairness checks fit on 60 samples with 4 positive float features, a binary
target for classifiers (a continuous one for regressors, none otherwise) and two
sensitive groups. Checks that do not apply to an estimator (no
``sensitive_features`` in ``fit``, no ``random_state``, ...) are skipped, and so is
``check_skops_roundtrip`` where skops is not installed.
"""

import contextlib
import inspect
import pickle
import random
import sys
from functools import partial
from unittest import SkipTest

import numpy as np
from sklearn import config_context
from sklearn.base import clone, is_classifier, is_clusterer, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import estimator_checks_generator
from sklearn.utils.validation import check_is_fitted

from fairkit.utils._sklearn_compat import _get_check_estimator_ids

__all__ = [
    "check_fit_leaves_no_state_on_bad_sensitive_features",
    "check_no_global_rng_mutation",
    "check_pickle_roundtrip",
    "check_reproducible",
    "check_routing_pipeline_gridsearch",
    "check_skops_roundtrip",
    "check_unseen_group_raises",
    "fairness_checks",
    "parametrize_with_checks",
]

N_SAMPLES, N_FEATURES = 60, 4

#: The methods that predict on samples, each called by the checks that compare predictions.
PREDICT_METHODS = ("predict_proba", "predict", "decision_function", "transform", "score_samples")


def _takes(method, name):
    return method is not None and name in inspect.signature(method).parameters


def _fit_takes_sensitive(estimator):
    return _takes(estimator.fit, "sensitive_features")


def _predict_takes_sensitive(estimator):
    return _takes(getattr(estimator, "predict", None), "sensitive_features")


def _data(estimator, seed=0):
    """Return X, y (or None) and two-group sensitive features for ``estimator``'s kind."""
    rng = np.random.default_rng(seed)
    groups = np.repeat([0, 1], N_SAMPLES // 2)
    X = rng.uniform(0.1, 1.0, size=(N_SAMPLES, N_FEATURES)) + 0.3 * groups[:, None]
    y = None
    if is_classifier(estimator):
        y = (X[:, 0] + 0.2 * rng.standard_normal(N_SAMPLES) > 0.75).astype(int)
        y[:2], y[-2:] = 0, 1  # both classes in both groups
        y[N_SAMPLES // 2 - 2:N_SAMPLES // 2 + 2] = [0, 1, 0, 1]
    elif is_regressor(estimator):
        y = X @ np.arange(1.0, N_FEATURES + 1) + 0.1 * rng.standard_normal(N_SAMPLES)
    return X, y, groups


def _fit(estimator, X, y, sensitive_features=None):
    kwargs = {} if sensitive_features is None else {"sensitive_features": sensitive_features}
    return estimator.fit(X, **kwargs) if y is None else estimator.fit(X, y, **kwargs)


def _predicts_on_samples(estimator):
    """Whether ``predict`` takes samples: scikit-learn's convention for classifiers, regressors,
    clusterers and transformers; other estimators (MMSScheduler) may give it another meaning.
    """
    return (is_classifier(estimator) or is_regressor(estimator) or is_clusterer(estimator)
            or hasattr(estimator, "transform"))


def _fitted_arrays(estimator):
    return {key: value for key, value in vars(estimator).items()
            if key.endswith("_") and not key.startswith("_") and isinstance(value, np.ndarray)}


def _outputs(estimator, X, sensitive_features):
    """What a fitted estimator produces: its array-valued fitted attributes and its predictions.

    Only the fitted attributes are compared for estimators that do not predict on
    samples (see ``_predicts_on_samples``).
    """
    outputs = _fitted_arrays(estimator)
    if not _predicts_on_samples(estimator):
        return outputs
    kwargs = {"sensitive_features": sensitive_features} if _predict_takes_sensitive(estimator) else {}
    for method in ("predict_proba", "predict", "transform"):
        if hasattr(estimator, method):
            outputs[method] = getattr(estimator, method)(X, **kwargs)
            break
    return outputs


def _every_output(estimator, X, sensitive_features):
    """Its array-valued fitted attributes and the output of every method that predicts on samples."""
    return {**_fitted_arrays(estimator), **_predict_all(estimator, X, sensitive_features)}


def _assert_same_outputs(first, second, what):
    assert first.keys() == second.keys(), f"{what}: different outputs {first.keys()} vs {second.keys()}"
    for key in first:
        np.testing.assert_array_equal(first[key], second[key], err_msg=f"{what}: {key} differs")


def _fitted_with_groups(estimator):
    X, y, groups = _data(estimator)
    return _fit(clone(estimator), X, y, groups), X, y, groups


def check_fit_leaves_no_state_on_bad_sensitive_features(name, estimator):
    """Sensitive features of the wrong length raise ``ValueError`` and change nothing.

    A fresh estimator stays unfitted; a fitted one keeps its fitted state.
    """
    if not _fit_takes_sensitive(estimator):
        raise SkipTest(f"{name}.fit takes no sensitive_features")
    X, y, groups = _data(estimator)
    fresh = clone(estimator)
    try:
        _fit(fresh, X, y, groups[:-1])
    except ValueError as exc:
        assert "sensitive_features" in str(exc), f"{name}: the error should name sensitive_features: {exc}"
    else:
        raise AssertionError(f"{name}.fit accepted sensitive_features of the wrong length")
    try:
        check_is_fitted(fresh)
    except NotFittedError:
        pass
    else:
        raise AssertionError(f"{name} looks fitted after a failed fit")
    fitted, X, y, groups = _fitted_with_groups(estimator)
    before = _outputs(fitted, X, groups)
    state = sorted(vars(fitted))
    with contextlib.suppress(ValueError):
        _fit(fitted, X, y, groups[:-1])
    assert sorted(vars(fitted)) == state, f"{name}: a failed refit changed the estimator's attributes"
    _assert_same_outputs(before, _outputs(fitted, X, groups), f"{name} after a failed refit")


def check_unseen_group_raises(name, estimator):
    """Prediction for a group not seen during fit raises a ``ValueError`` that says so."""
    if not _predict_takes_sensitive(estimator):
        raise SkipTest(f"{name}.predict takes no sensitive_features")
    fitted, X, _, groups = _fitted_with_groups(estimator)
    unseen = np.where(groups == 1, 7, groups)
    try:
        fitted.predict(X, sensitive_features=unseen)
    except ValueError as exc:
        assert "not seen" in str(exc), f"{name}: the error should say the group was not seen: {exc}"
    else:
        raise AssertionError(f"{name}.predict accepted a group not seen during fit")


def check_reproducible(name, estimator):
    """A fixed ``random_state`` gives identical results on repeated fits and after ``clone``.

    As in scikit-learn, an int seed gives identical results on repeated predictions,
    refits and clones, and a ``RandomState`` instance is copied by ``clone``: two clones
    of an estimator holding ``RandomState(0)`` give identical results.
    """
    takes_random_state = "random_state" in estimator.get_params()
    if takes_random_state:
        estimator = clone(estimator).set_params(random_state=0)
    X, y, groups = _data(estimator)
    sf = groups if _fit_takes_sensitive(estimator) else None
    first = _fit(clone(estimator), X, y, sf)
    outputs = _outputs(first, X, sf)
    _assert_same_outputs(outputs, _outputs(first, X, sf), f"{name}: a second predict call")
    _assert_same_outputs(outputs, _outputs(_fit(clone(first), X, y, sf), X, sf), f"{name}: a clone")
    if takes_random_state:
        template = clone(estimator).set_params(random_state=np.random.RandomState(0))
        first, second = (_outputs(_fit(clone(template), X, y, sf), X, sf) for _ in range(2))
        _assert_same_outputs(first, second, f"{name}: two clones holding RandomState(0)")


def _fitted_with_seed(estimator):
    """``estimator`` fitted on its kind's data (``random_state=0`` if it takes one), X and its groups."""
    if "random_state" in estimator.get_params():
        estimator = clone(estimator).set_params(random_state=0)
    X, y, groups = _data(estimator)
    sf = groups if _fit_takes_sensitive(estimator) else None
    return _fit(clone(estimator), X, y, sf), X, sf


def _assert_restored(name, fitted, restored, X, sf, how):
    assert type(restored) is type(fitted), f"{name}: {how} gave a {type(restored).__name__}"
    assert sorted(vars(restored)) == sorted(vars(fitted)), f"{name}: {how} changed the attributes"
    _assert_same_outputs(_every_output(fitted, X, sf), _every_output(restored, X, sf), f"{name}: {how}")


def check_pickle_roundtrip(name, estimator):
    """A fitted estimator survives pickling with identical fitted arrays and predictions."""
    fitted, X, sf = _fitted_with_seed(estimator)
    _assert_restored(name, fitted, pickle.loads(pickle.dumps(fitted)), X, sf, "unpickled")


def _skops_saves(sio, value):
    try:
        sio.dumps(value)
    except Exception:
        return False
    return True


def check_skops_roundtrip(name, estimator):
    """A fitted estimator survives ``skops.io`` with identical fitted arrays and predictions.

    The estimator is saved with ``skops.io.dumps`` and loaded with ``skops.io.loads``,
    trusting exactly the types that ``skops.io.get_untrusted_types`` lists. Those must
    belong to the estimator's own package or to fairkit: a fitted state that needs
    torch, pandas, ``functools.partial`` or other foreign types trusted cannot be
    reviewed by its users. Skipped, saying so, when skops is not installed
    (``pip install "fairkit[skops]"``).
    """
    try:
        import skops.io as sio
    except ImportError:
        raise SkipTest(f'skops is not installed, so {name} was not saved with skops.io: '
                       'pip install "fairkit[skops]"') from None
    fitted, X, sf = _fitted_with_seed(estimator)
    try:
        data = sio.dumps(fitted)
    except Exception as exc:
        unsaved = [key for key, value in fitted.__getstate__().items() if not _skops_saves(sio, value)]
        raise AssertionError(f"{name}: skops.io cannot save it ({type(exc).__name__}: {exc}); the attributes "
                             f"it cannot save: {unsaved}") from exc
    untrusted = sio.get_untrusted_types(data=data)
    own = {type(estimator).__module__.partition(".")[0], "fairkit"}
    foreign = [t for t in untrusted if t.partition(".")[0] not in own]
    assert not foreign, (f"{name}: loading it with skops.io needs foreign types trusted: {foreign}. Keep "
                         "the fitted state in arrays, Python builtins and scikit-learn objects, or convert "
                         "it in __getstate__ and __setstate__.")
    _assert_restored(name, fitted, sio.loads(data, trusted=untrusted), X, sf, "loaded by skops.io")


def _global_rng_states():
    states = {"numpy": pickle.dumps(np.random.get_state()), "random": pickle.dumps(random.getstate())}
    if "torch" in sys.modules:
        states["torch"] = sys.modules["torch"].random.get_rng_state().numpy().tobytes()
    return states


def _random_state_variants(estimator):
    """``estimator`` and, when it takes ``random_state``, copies with None and a RandomState instance."""
    if "random_state" not in estimator.get_params():
        return [estimator]
    variants = [clone(estimator).set_params(random_state=value)
                for value in (None, np.random.RandomState(0))]
    return variants if estimator.get_params()["random_state"] is None else [estimator, *variants]


def _predict_all(estimator, X, sensitive_features):
    """Call every method of a fitted estimator that predicts on samples; return their outputs by name."""
    if not _predicts_on_samples(estimator):
        return {}
    kwargs = {"sensitive_features": sensitive_features} if _predict_takes_sensitive(estimator) else {}
    return {method: getattr(estimator, method)(X, **kwargs) for method in PREDICT_METHODS
            if hasattr(estimator, method)}


def check_no_global_rng_mutation(name, estimator):
    """Fitting and predicting leave the global numpy, ``random`` and torch generators untouched.

    Checked with the estimator's own ``random_state`` and, when it takes one, with
    ``random_state=None`` (fresh randomness must not come from a global generator) and
    with a ``RandomState`` instance. The estimator is fitted once before the states are
    recorded, so that a dependency it imports lazily (torch) is already there; the
    generators are then advanced, so that re-seeding them to a fixed seed shows as a change.
    """
    X, y, groups = _data(estimator)
    sf = groups if _fit_takes_sensitive(estimator) else None
    _predict_all(_fit(clone(estimator), X, y, sf), X, sf)
    for variant in _random_state_variants(estimator):
        np.random.random()
        random.random()
        if "torch" in sys.modules:
            sys.modules["torch"].rand(1)
        before = _global_rng_states()
        _predict_all(_fit(clone(variant), X, y, sf), X, sf)
        after = _global_rng_states()
        changed = [key for key in before if before[key] != after[key]]
        seed = variant.get_params().get("random_state")
        assert not changed, f"{name} (random_state={seed!r}) changed the global random state of {changed}"


def check_routing_pipeline_gridsearch(name, estimator):
    """``sensitive_features`` reach the estimator through Pipeline and GridSearchCV, split per fold.

    Estimators that need sensitive features at prediction get them through
    metadata routing in a Pipeline, and through ``sensitive_cols`` under
    GridSearchCV, whose scorers cannot route metadata to ``predict``. Estimators
    without ``predict`` (clusterers) are checked through the Pipeline only.
    """
    if not _fit_takes_sensitive(estimator):
        raise SkipTest(f"{name}.fit takes no sensitive_features")
    X, y, groups = _data(estimator)
    identity = FunctionTransformer()
    seen = []

    def fold_metric(y_true, y_pred, *, sensitive_features):
        seen.append((len(y_true), len(sensitive_features)))
        return 0.0

    with config_context(enable_metadata_routing=True):
        scorer = make_scorer(fold_metric).set_score_request(sensitive_features=True)
        step = clone(estimator).set_fit_request(sensitive_features=True)
        if _predict_takes_sensitive(estimator):
            step.set_predict_request(sensitive_features=True)
        pipe = _fit(Pipeline([("identity", identity), ("model", step)]), X, y, groups)
        assert len(pipe[-1].groups_) == 2, f"{name}: sensitive_features did not reach fit"
        if not hasattr(estimator, "predict"):
            return
        if _predict_takes_sensitive(estimator):
            pipe.predict(X, sensitive_features=groups)
            X = np.column_stack([X, groups])
            step = clone(estimator).set_params(sensitive_cols=[N_FEATURES])
            step.set_fit_request(sensitive_features=False)
        search = GridSearchCV(Pipeline([("identity", identity), ("model", step)]), {}, cv=2,
                              scoring=scorer)
        _fit(search, X, y, groups)
    assert len(search.best_estimator_[-1].groups_) == 2, f"{name}: refit lost sensitive_features"
    assert seen == [(N_SAMPLES // 2, N_SAMPLES // 2)] * 2, f"{name}: folds of sizes {seen}"


FAIRNESS_CHECKS = (
    check_fit_leaves_no_state_on_bad_sensitive_features,
    check_unseen_group_raises,
    check_reproducible,
    check_pickle_roundtrip,
    check_skops_roundtrip,
    check_no_global_rng_mutation,
    check_routing_pipeline_gridsearch,
)


def fairness_checks(estimator):
    """Yield ``(estimator, check)`` pairs of fairkit's own checks for ``estimator``."""
    name = type(estimator).__name__
    for check in FAIRNESS_CHECKS:
        yield estimator, partial(check, name)


def parametrize_with_checks(estimators, *, expected_failed_checks=None, legacy=True):
    """Pytest parametrization over scikit-learn's common checks and fairkit's fairness checks.

    Parameters
    ----------
    estimators : list of estimator instances
        The estimators to check.
    expected_failed_checks : callable, default=None
        ``expected_failed_checks(estimator) -> {check name: reason}``; those
        checks are marked as expected to fail.
    legacy : bool, default=True
        Passed to scikit-learn's check generator.

    Returns
    -------
    decorator : ``pytest.mark.parametrize`` over ``"estimator, check"``
    """
    import pytest

    def generate():
        for estimator in estimators:
            expected = expected_failed_checks(estimator) if expected_failed_checks else {}
            yield from estimator_checks_generator(estimator, legacy=legacy, mark="xfail",
                                                  expected_failed_checks=expected)
            for pair in fairness_checks(estimator):
                reason = expected.get(pair[1].func.__name__)
                yield pair if reason is None else pytest.param(*pair, marks=pytest.mark.xfail(reason=reason))

    return pytest.mark.parametrize("estimator, check", list(generate()), ids=_get_check_estimator_ids)
