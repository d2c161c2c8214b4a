"""Bad input at the estimators' boundary (issue 14): the sensitive-feature conventions.

Every estimator that takes sensitive features is held to the same rules: rows are paired by
position, so pandas indexes that differ are refused; column names given as values are a
slip for ``sensitive_cols``; an empty ``X`` is named; a failed first fit leaves no fitted
attribute. The per-family cases live beside each family's tests (``# Bad input (issue 14)``).
"""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate

from fairkit.adversarial import FairICPClassifier, FairICPRegressor
from fairkit.cluster import FairSpectralClustering
from fairkit.exceptions import FairkitWarning
from fairkit.metrics import make_fairness_scorer
from fairkit.postprocessing import RandomizedFairBOC
from fairkit.registry import all_estimators
from fairkit.utils.estimator_checks import _data

TAKE_SENSITIVE = [cls(**cls.get_test_params()[0]) for _, cls in all_estimators()
                  if "sensitive_features" in inspect.signature(cls.fit).parameters]
IDS = [type(estimator).__name__ for estimator in TAKE_SENSITIVE]


def fitted_attributes(estimator):
    return [key for key in vars(estimator) if key.endswith("_") and not key.startswith("_")]


def frame_data(estimator):
    """X as a DataFrame with a non-default index, its groups as a Series with the same index."""
    X, y, groups = _data(estimator)
    index = pd.RangeIndex(100, 100 + len(X))
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], index=index)
    y = None if y is None else pd.Series(y, index=index)
    return X, y, pd.Series(np.where(groups == 1, "F", "M"), index=index, name="sex")


def fit(estimator, X, y, **kwargs):
    return estimator.fit(X, **kwargs) if y is None else estimator.fit(X, y, **kwargs)


@pytest.mark.parametrize("estimator", TAKE_SENSITIVE, ids=IDS)
def test_sensitive_features_with_another_index_are_refused(estimator):
    X, y, sex = frame_data(estimator)
    shuffled = sex.sample(frac=1.0, random_state=0)
    # Before: matched by position, so the groups were a random relabelling of the rows.
    with pytest.raises(ValueError, match="X and sensitive_features carry different pandas indexes "
                                         "\\(the same labels in another order\\).*\\.loc\\[X.index\\]"):
        fit(estimator, X, y, sensitive_features=shuffled)
    assert fitted_attributes(estimator) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairkitWarning)
        fitted = fit(sklearn.clone(estimator), X, y, sensitive_features=shuffled.loc[X.index])
    assert len(fitted.groups_) == 2


@pytest.mark.parametrize("estimator", TAKE_SENSITIVE, ids=IDS)
def test_column_names_given_as_sensitive_features_point_to_sensitive_cols(estimator):
    X, y, sex = frame_data(estimator)
    X = X.assign(sex=(sex == "F").astype(float))
    with pytest.raises(ValueError, match="holds column names of X.*sensitive_cols=\\['sex'\\]"):
        fit(estimator, X, y, sensitive_features=["sex"])
    assert fitted_attributes(estimator) == []


def test_column_names_are_pointed_to_sensitive_cols_before_a_string_column_is_named():
    # A string column and its name given as sensitive_features: the slip is the name, not the column.
    X, y, sex = frame_data(RandomizedFairBOC())
    with pytest.raises(ValueError, match="holds column names of X.*sensitive_cols=\\['sex'\\]"):
        RandomizedFairBOC().fit(X.assign(sex=sex), y, sensitive_features=["sex"])


@pytest.mark.parametrize("estimator", TAKE_SENSITIVE, ids=IDS)
def test_empty_X_is_named(estimator):
    X, y, _ = _data(estimator)
    # Before: "sensitive_features is empty", although the user gave what X describes.
    with pytest.raises(ValueError, match="X is empty \\(0 samples\\)"):
        fit(estimator, X[:0], None if y is None else y[:0], sensitive_features=[])
    assert fitted_attributes(estimator) == []


@pytest.mark.parametrize("estimator", [FairICPClassifier(max_epochs=1), FairSpectralClustering(2)],
                         ids=["FairICPClassifier", "FairSpectralClustering"])
def test_a_string_column_of_X_is_named(estimator):
    X, y, sex = frame_data(estimator)
    X = X.assign(city=np.where(np.arange(len(X)) % 3 == 0, "Lyon", "Paris"))
    with pytest.raises(ValueError, match="X column\\(s\\) \\['city'\\] hold strings or categories.*"
                                         "OneHotEncoder"):
        fit(estimator, X, y, sensitive_features=sex)
    assert fitted_attributes(estimator) == []


@pytest.mark.parametrize("estimator", [FairICPClassifier(max_epochs=1), FairSpectralClustering(2)],
                         ids=["FairICPClassifier", "FairSpectralClustering"])
def test_a_numpy_array_of_strings_is_named(estimator):
    X, y, sex = frame_data(estimator)
    text = np.column_stack([X.to_numpy(), np.where(np.arange(len(X)) % 2, "Lyon", "Paris")])  # dtype <U
    with pytest.raises(ValueError, match="X column\\(s\\) \\[0, 1, 2, 3, 4\\] hold strings"):
        fit(estimator, text, y, sensitive_features=sex.to_numpy())


@pytest.mark.parametrize("estimator", [FairICPClassifier(max_epochs=1, random_state=0),
                                       FairSpectralClustering(2, random_state=0)],
                         ids=["FairICPClassifier", "FairSpectralClustering"])
def test_a_string_sensitive_column_is_dropped_before_the_numeric_check(estimator):
    X, y, sex = frame_data(estimator)
    fitted = fit(estimator.set_params(sensitive_cols="sex"), X.assign(sex=sex), y)
    assert sorted(fitted.groups_) == ["F", "M"]


def test_predict_without_sensitive_features_points_to_sensitive_cols():
    X, y, sex = frame_data(RandomizedFairBOC(LogisticRegression()))
    model = RandomizedFairBOC(LogisticRegression(), random_state=0).fit(X, y, sensitive_features=sex)
    with pytest.raises(ValueError, match="give them here too.*scorers.*sensitive_cols="):
        model.predict(X)


@pytest.mark.parametrize("estimator", [RandomizedFairBOC(LogisticRegression()),
                                       FairSpectralClustering(2)],
                         ids=["RandomizedFairBOC", "FairSpectralClustering"])
def test_a_continuous_sensitive_feature_warns_where_groups_are_categories(estimator):
    X, y, _ = frame_data(estimator)
    age = pd.Series(18 + np.arange(len(X)) * 31 // len(X), index=X.index, name="age")  # 31 values
    with pytest.warns(FairkitWarning, match="'age' \\(31 distinct values in 60 samples\\) looks continuous"):
        fit(estimator, X, y, sensitive_features=age)


@pytest.mark.parametrize("estimator", TAKE_SENSITIVE, ids=IDS)
def test_the_sensitive_feature_warnings_of_fit_point_at_the_caller(estimator):
    # Before: at scikit-learn's fit wrapper (no sensitive features) or at fairkit's own fit (a
    # continuous column), so Python's default filter showed each once per session.
    X, y, _ = frame_data(estimator)
    age = pd.Series(18 + np.arange(len(X)) * 31 // len(X), index=X.index, name="age")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        fit(sklearn.clone(estimator), X, y)
        fit(sklearn.clone(estimator), X, y, sensitive_features=age)  # FairICP takes it as continuous
    ours = [w for w in record if "got no sensitive" in str(w.message) or "looks continuous" in str(w.message)]
    assert any("got no sensitive" in str(w.message) for w in ours)
    assert {w.filename for w in ours} == {__file__}


@pytest.mark.parametrize("cls", [FairICPClassifier, FairICPRegressor])
def test_fairicp_takes_a_continuous_attribute_without_that_warning(cls):
    estimator = cls(max_epochs=1, icp_sweeps=1, random_state=0)
    X, y, _ = frame_data(estimator)
    age = pd.Series(np.linspace(18, 80, len(X)), index=X.index, name="age")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairkitWarning)
        estimator.fit(X, y, sensitive_features=age)


@pytest.mark.parametrize("cls", [FairICPClassifier, FairICPRegressor])
def test_infinity_in_a_continuous_attribute_is_refused_at_the_boundary(cls):
    estimator = cls(max_epochs=1, icp_sweeps=1, random_state=0)
    X, y, _ = frame_data(estimator)
    age = pd.Series(np.linspace(18, 80, len(X)), index=X.index, name="age")
    age.iloc[5] = np.inf
    # Before: an error from the density model's input check, 19 frames deep.
    with pytest.raises(ValueError, match="sensitive_features holds infinite values in column 'age' "
                                         "\\(1 rows\\)"):
        estimator.fit(X, y, sensitive_features=age)
    assert fitted_attributes(estimator) == []


def test_a_scorer_refuses_sensitive_features_misaligned_with_y():
    X, y, sex = frame_data(RandomizedFairBOC(LogisticRegression()))
    scorer = make_fairness_scorer("demographic_parity_difference")
    with sklearn.config_context(enable_metadata_routing=True), \
            pytest.raises(ValueError, match="y_true and sensitive_features carry different pandas indexes"):
        cross_validate(LogisticRegression(), X, y, scoring=scorer, cv=2, error_score="raise",
                       params={"sensitive_features": sex.sample(frac=1.0, random_state=1)})
