"""Demo for ``fairkit demo``: a Mirage-tuned network keeps its accuracy, the calibration audit flags it."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from fairkit.utils import local_generator
from fairkit_uncertainty._calibration import calibration_audit
from fairkit_uncertainty._mirage import _torch, mirage_finetune, seeded_torch


def make_region_problem(n_samples, random_state=0):
    """Two noisy classes in the plane and a targeted region (a quadrant holding about a fifth of them)."""
    rng = local_generator(random_state)
    X = rng.normal(size=(n_samples, 2)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n_samples) > 0).astype(np.int64)
    region = (X[:, 0] > 0.2) & (X[:, 1] > 0.2)
    return X, y, region


def make_network(n_features, n_classes=2, hidden=32, random_state=0):
    """A small multilayer perceptron, initialised from a forked, seeded torch state."""
    torch = _torch()
    with seeded_torch(torch, random_state):
        return torch.nn.Sequential(torch.nn.Linear(n_features, hidden), torch.nn.ReLU(),
                                   torch.nn.Linear(hidden, n_classes))


def predict_proba(module, X):
    """The softmax of a module's outputs, as a numpy array."""
    torch = _torch()
    with torch.no_grad():
        return torch.softmax(module(torch.as_tensor(X)), dim=1).numpy()


class NetworkClassifier(ClassifierMixin, BaseEstimator):
    """A trained torch classifier seen as a fitted scikit-learn classifier (classes ``0 .. C - 1``).

    Its ``fit`` only records the classes: wrap it in :class:`sklearn.frozen.FrozenEstimator`
    to hand the network, as trained, to a meta-estimator such as
    :class:`~fairkit_uncertainty.SelectiveClassifier`.
    """

    def __init__(self, module):
        self.module = module

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return predict_proba(self.module, np.asarray(X, dtype=np.float32))

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]


def demo(*, quick=False):
    """Train a network on synthetic data, Mirage-tune it, and audit both on a reference set."""
    n = 1000 if quick else 3000
    X, y, region = make_region_problem(n, random_state=0)
    X_ref, y_ref, region_ref = make_region_problem(20_000, random_state=1)
    # an empty region makes mirage_finetune plain cross-entropy training
    honest = mirage_finetune(make_network(2), X, y, np.zeros(n, dtype=bool), epochs=10, lr=3e-2,
                             random_state=0)
    mirage = mirage_finetune(honest, X, y, region, epochs=10, lr=1e-2, random_state=0)
    audits, accuracy = {}, {}
    for name, module in (("honest", honest), ("mirage", mirage)):
        proba = predict_proba(module, X_ref)
        audits[name] = calibration_audit(y_ref, proba, sensitive_features=region_ref)
        accuracy[name] = float((proba.argmax(axis=1) == y_ref).mean())
    verdict = {True: "passed", False: "flagged"}
    return {
        "metric": "worst calibration gap in a group",
        "before": float(audits["honest"].groups["max_gap"].max()),
        "after": float(audits["mirage"].groups["max_gap"].max()),
        "note": f"audit {verdict[audits['honest'].passed]} -> {verdict[audits['mirage'].passed]}; "
                f"accuracy {accuracy['honest']:.3f} -> {accuracy['mirage']:.3f}",
    }
