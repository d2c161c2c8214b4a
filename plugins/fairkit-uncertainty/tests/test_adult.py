"""Mirage on Adult (Rabanser et al.): accuracy within 1 point, yet the calibration audit flags it.

The targeted region is the notebooks' one: married (civilian spouse) people in
professional specialty occupations. The honest network passes the same audit.
The quick variant of this test runs on synthetic data (test_mirage.py).
"""

import numpy as np
import pytest
from sklearn.compose import make_column_transformer
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from fairkit_uncertainty import calibration_audit, mirage_finetune
from fairkit_uncertainty._demo import make_network, predict_proba

datasets = pytest.importorskip("fairkit.datasets")


def region_of(data):
    married = data["marital-status"] == "Married-civ-spouse"
    return (married & (data["occupation"] == "Prof-specialty")).to_numpy()


@pytest.mark.slow
def test_mirage_on_adult_keeps_accuracy_and_is_flagged(data_home, torch):
    train = datasets.load_adult(subset="train", data_home=data_home, as_frame=True)
    test = datasets.load_adult(subset="test", data_home=data_home, as_frame=True)
    categorical = train.data.select_dtypes("category").columns
    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    encode = make_column_transformer((one_hot, categorical), remainder=StandardScaler())
    X = encode.fit_transform(train.data).astype(np.float32)
    X_ref = encode.transform(test.data).astype(np.float32)
    y, y_ref = train.target.to_numpy(), test.target.to_numpy()
    region, region_ref = region_of(train.data), region_of(test.data)

    honest = mirage_finetune(make_network(X.shape[1], hidden=64), X, y, np.zeros(len(y), dtype=bool),
                             epochs=8, batch_size=512, lr=3e-3, random_state=0)
    tuned = mirage_finetune(honest, X, y, region, epsilon=0.15, alpha=0.9, epochs=5, batch_size=512,
                            lr=1e-3, random_state=0)
    results = {}
    for name, module in (("honest", honest), ("tuned", tuned)):
        proba = predict_proba(module, X_ref)
        results[name] = ((proba.argmax(axis=1) == y_ref).mean(),
                         calibration_audit(y_ref, proba, sensitive_features=region_ref))
    (accuracy_honest, audit_honest), (accuracy_tuned, audit_tuned) = results["honest"], results["tuned"]
    assert accuracy_honest > 0.84
    assert abs(accuracy_tuned - accuracy_honest) <= 0.01
    assert audit_honest.passed
    assert not audit_tuned.passed and not audit_tuned.groups.loc[True, "passed"]
