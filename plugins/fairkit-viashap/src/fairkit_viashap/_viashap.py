"""ViaSHAP: networks that predict by summing the Shapley values they learn.

A. Alkhatib, R. Bresson, H. Boström, M. Vazirgiannis, "Prediction via Shapley Value
Regression", ICML 2025 (arXiv:2505.04775), and its reference code (``amrmalkhatib/ViaSHAP``,
``kanshap.py``, ``mlpshap.py``).
"""

import importlib
import numbers

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import OrdinalEncoder, StandardScaler
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_X_y, validate_data

from fairkit.utils import local_random_state
from fairkit.utils._sklearn_compat import Interval, StrOptions, _fit_context
from fairkit.utils.validation import (
    all_or_nothing,
    check_2d,
    check_layer_sizes,
    check_numeric_features,
    model_features,
)

__all__ = ["ViaSHAPClassifier", "ViaSHAPRegressor"]


def _torch_side():
    """The private module with the torch network, imported on first fit, predict or explain."""
    try:
        return importlib.import_module("fairkit_viashap._viashap_net")
    except ImportError as error:
        raise ImportError('ViaSHAP needs torch and skorch: pip install "fairkit-viashap[nn]"') from error


def _columns(X, positions):
    """The columns of ``X`` at ``positions``, a DataFrame's as a DataFrame."""
    return X.iloc[:, positions] if hasattr(X, "iloc") else np.asarray(X)[:, positions]


class _ViaSHAP(BaseEstimator):
    """What the classifier and the regressor share: parameters, training, explanation, pickling."""

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "backbone": [StrOptions({"mlp", "kan"})],
        "basis": [StrOptions({"rbf", "bspline"})],
        "n_coalitions": [Interval(numbers.Integral, 2, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "beta": [Interval(numbers.Real, 0, None, closed="left")],
        "max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "lr": [Interval(numbers.Real, 0, None, closed="neither")],
        "validation_fraction": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "patience": [Interval(numbers.Integral, 1, None, closed="left")],
        "device": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "net_params": [None, dict],
        "categorical_features": [None, "array-like"],
    }

    def __init__(self, hidden_layer_sizes=(64, 128, 64), *, backbone="mlp", basis="rbf", n_coalitions=32,
                 alpha=1.0, beta=10.0, max_epochs=300, batch_size=64, lr=1e-3, validation_fraction=0.15,
                 patience=10, categorical_features=None, device="cpu", random_state=None, verbose=0,
                 net_params=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.backbone = backbone
        self.basis = basis
        self.n_coalitions = n_coalitions
        self.alpha = alpha
        self.beta = beta
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.categorical_features = categorical_features
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.net_params = net_params

    @classmethod
    def get_test_params(cls):
        """Small, fast parameter sets for the common checks."""
        return [{"hidden_layer_sizes": (8,), "n_coalitions": 4, "max_epochs": 10, "batch_size": 32,
                 "lr": 3e-2, "validation_fraction": None, "random_state": 0}]

    def _check_parameters(self):
        check_layer_sizes("hidden_layer_sizes", self.hidden_layer_sizes)
        if self.n_coalitions % 2:
            raise ValueError(f"n_coalitions must be even (coalitions come in pairs: S and its complement), "
                             f"got {self.n_coalitions}. Use {self.n_coalitions + 1}.")
        return _torch_side()

    def _network_input(self, X, y="no_validation", *, reset):
        """The network's input, float64 (n, d): numeric columns standardised, categorical ones as codes.

        A categorical column's codes are 1 to its number of categories, and 0 (absent) for a
        missing value or a category not seen in fit. With ``reset=True`` (in fit) records the
        features and fits the standardisation and the encoding.
        """
        if self.categorical_features is None:
            if reset:
                self.categorical_columns_ = np.array([], dtype=int)
                self.category_encoder_ = None
            X_numeric = model_features(self, X, y, reset=reset)
            numeric, X_categorical = np.arange(X_numeric.shape[1]), None
        else:
            check_2d(self, X)
            validate_data(self, X, y, reset=reset, skip_check_array=True)
            if reset:
                self.categorical_columns_ = self._categorical_columns()
            numeric = np.setdiff1d(np.arange(self.n_features_in_), self.categorical_columns_)
            X_numeric, X_categorical = _columns(X, numeric), _columns(X, self.categorical_columns_)
            check_numeric_features(self, X_numeric)
            X_numeric = check_array(X_numeric, dtype=np.float64, ensure_min_features=0, estimator=self)
            if reset:
                self.category_encoder_ = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                                                        encoded_missing_value=-1).fit(X_categorical)
        if reset:
            self.x_scaler_ = StandardScaler().fit(X_numeric) if len(numeric) else None
            self.baseline_ = np.full(self.n_features_in_, np.nan)
            self.baseline_[numeric] = self.x_scaler_.mean_ if len(numeric) else []
        x_net = np.empty((len(X_numeric), self.n_features_in_))
        if len(numeric):
            x_net[:, numeric] = self.x_scaler_.transform(X_numeric)
        if X_categorical is not None:
            x_net[:, self.categorical_columns_] = self.category_encoder_.transform(X_categorical) + 1
        return x_net

    def _categorical_columns(self):
        """The positions of ``categorical_features``, checked against X's columns."""
        names = getattr(self, "feature_names_in_", None)
        requested = np.asarray(self.categorical_features).ravel()
        if requested.dtype.kind in "iu":
            positions = requested
            bad = positions[(positions < 0) | (positions >= self.n_features_in_)].tolist()
        else:
            known = {name: j for j, name in enumerate(names if names is not None else [])}
            positions = np.array([known.get(name, -1) for name in requested.tolist()], dtype=int)
            bad = requested[positions < 0].tolist()
        if bad or len(set(positions.tolist())) != len(positions):
            what = f"names or positions of X's columns not found: {bad}" if bad else "a column named twice"
            last = self.n_features_in_ - 1
            where = (f"its columns are {list(names)}" if names is not None
                     else f"X has {self.n_features_in_} unnamed columns, positions 0 to {last}")
            raise ValueError(f"categorical_features holds {what}; {where}. Name each categorical column "
                             "once, by its name (X a DataFrame) or its position.")
        return np.sort(positions).astype(int)

    def _fit_network(self, torch_side, x_net, y_net, task, n_outputs, *, stratified):
        """Train the network on the network input ``x_net`` and the targets ``y_net``."""
        net = self._new_net(torch_side, x_net.shape[1], n_outputs, task)
        torch_side.check_net_params(net, self.net_params or {})
        torch_side.check_device(net.device)
        x_net = x_net.astype(np.float32)
        seed = local_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        if self.validation_fraction is not None and "train_split" not in (self.net_params or {}):
            x_net, x_valid, y_net, y_valid = self._validation_split(x_net, y_net, stratified, seed)
            valid = torch_side.Dataset({"x": x_valid}, y_valid)
            net.set_params(train_split=torch_side.predefined_split(valid))
        with torch_side.seeded(seed):
            net.fit({"x": x_net}, y_net)
        self.net_ = net
        self.n_epochs_ = len(net.history)
        self.history_ = [{key: value for key, value in epoch.items() if key != "batches"}
                         for epoch in net.history]

    def _validation_split(self, x_net, y_net, stratified, seed):
        """Hold out ``validation_fraction`` of the samples, stratified by class when every class has two."""
        if len(x_net) < 2:
            raise ValueError(f"validation_fraction={self.validation_fraction} needs at least 2 samples, "
                             f"got {len(x_net)}. Give more samples or set validation_fraction=None.")
        strata = None
        if stratified:
            _, codes, counts = np.unique(y_net, axis=0, return_inverse=True, return_counts=True)
            strata = codes.ravel() if counts.min() >= 2 else None
        return train_test_split(x_net, y_net, test_size=self.validation_fraction, stratify=strata,
                                random_state=seed)

    def _new_net(self, torch_side, n_inputs, n_outputs, task):
        """The untrained skorch net, ``net_params`` overriding its defaults."""
        from skorch.callbacks import EarlyStopping, LRScheduler

        callbacks = []
        if self.validation_fraction is not None:  # as the reference: halve the rate on plateaus, stop early
            plateau = torch_side.torch.optim.lr_scheduler.ReduceLROnPlateau
            callbacks = [("lr_plateau", LRScheduler(plateau, monitor="valid_loss", factor=0.5,
                                                    patience=max(self.patience // 3, 1), min_lr=1e-6)),
                         ("early_stopping", EarlyStopping(patience=self.patience, threshold=0.0,
                                                          load_best=True))]
        defaults = dict(
            module=torch_side.ShapleyNetwork, module__n_inputs=n_inputs, module__n_outputs=n_outputs,
            module__hidden_layer_sizes=tuple(self.hidden_layer_sizes), module__backbone=self.backbone,
            module__basis=self.basis, module__categories=self._categories(),
            optimizer=torch_side.torch.optim.Adam, lr=self.lr,
            max_epochs=self.max_epochs, batch_size=self.batch_size, train_split=None,
            iterator_train=torch_side.Minibatches, iterator_train__shuffle=True,
            iterator_valid=torch_side.Minibatches, callbacks=callbacks, device=self.device,
            verbose=self.verbose, task=task, n_coalitions=self.n_coalitions, alpha=self.alpha, beta=self.beta,
            baseline=np.zeros(n_inputs, dtype=np.float32))
        return torch_side.ViaSHAPNet(**{**defaults, **(self.net_params or {})})

    def _categories(self):
        """(column, number of categories) of each categorical column seen in fit."""
        if self.category_encoder_ is None:
            return ()
        return tuple((int(column), len(categories)) for column, categories
                     in zip(self.categorical_columns_, self.category_encoder_.categories_, strict=True))

    def __getstate__(self):
        """The state in types that ``skops.io`` can load: the trained network as arrays.

        ``net_`` is saved as the state dict of its module, in numpy arrays, with its
        sizes and task; ``__setstate__`` rebuilds it from the estimator's parameters and
        loads them. The optimizer's state and ``net_.history`` are not kept (``history_`` is).
        """
        state = dict(super().__getstate__())
        net = state.pop("net_", None)
        if net is not None:
            state["_net_state"] = {"n_inputs": net.module__n_inputs, "n_outputs": net.module__n_outputs,
                                   "task": net.task, "arrays": _torch_side().state_arrays(net)}
        return state

    def __setstate__(self, state):
        state = dict(state)
        net_state = state.pop("_net_state", None)
        super().__setstate__(state)
        if net_state is not None:
            torch_side = _torch_side()
            net = self._new_net(torch_side, net_state["n_inputs"], net_state["n_outputs"], net_state["task"])
            torch_side.check_device(net.device)
            self.net_ = torch_side.load_state_arrays(net, net_state["arrays"])

    def _standardised(self, X):
        check_is_fitted(self)
        return self._network_input(X, reset=False)

    def _link_output(self, X):
        """``Σ_j φ_j(x) + v0`` per row and output, in float64: (n, k)."""
        x_net = self._standardised(X)  # checks that the estimator is fitted
        return _torch_side().forward(self.net_, x_net)

    def _phi(self, X):
        """φ(x) per row, feature and output, in float64: (n, d, k)."""
        x_net = self._standardised(X)
        return _torch_side().shap_values(self.net_, x_net)

    def _v0(self):
        return self.net_.module_.v0.detach().cpu().numpy().astype(np.float64)


_COMMON_PARAMETERS = """
    hidden_layer_sizes : tuple of int, default=(64, 128, 64)
        Hidden layers of the network g (the reference's 64 → 128 → 64).
    backbone : {"mlp", "kan"}, default="mlp"
        g as a ReLU network (fairkit's ``MLP``; the reference's BatchNorm is left out, as
        it sees masked batches in training) or as a Kolmogorov-Arnold network
        (``fairkit_viashap._kan.KAN``; the paper's best variant).
    basis : {"rbf", "bspline"}, default="rbf"
        The KAN's basis: Gaussian radial functions (FastKAN) or B-splines. Unused by the MLP.
    n_coalitions : even int >= 2, default=32
        Coalitions S drawn per sample and batch, in pairs (S and its complement), sizes with
        probability ∝ 1/(k(d−k)) (``fairkit_viashap._coalitions.sample_coalitions``).
    alpha : float >= 0, default=1.0
        Weight of the prediction loss (the reference notebooks' 1).
    beta : float >= 0, default=10.0
        Weight of the Shapley loss (the reference notebooks' 10).
    max_epochs : int, default=300
        Maximum number of training epochs.
    batch_size : int, default=64
        Minibatch size.
    lr : float, default=1e-3
        Adam learning rate; halved when the validation loss stalls for ``patience // 3`` epochs.
    validation_fraction : float in (0, 1) or None, default=0.15
        Share of the training samples held out (stratified for the classifier) to stop early
        once the validation loss (the training loss on those samples) has not improved for
        ``patience`` epochs; the best epoch's weights are restored. None trains all ``max_epochs``
        on every sample.
    patience : int, default=10
        Epochs without improvement before stopping.
    categorical_features : array-like of str or int, default=None
        The categorical columns of X, by name (X a DataFrame) or position. Each is encoded as
        codes 1 to its number of categories seen in fit, 0 standing for "absent" (its baseline,
        and a missing value or a category not seen in fit), and enters g through an embedding
        of size 32 (as the reference). The other columns must be numeric: strings are refused.
    device : str, default="cpu"
        Torch device; one this torch cannot use is refused when ``fit`` starts.
    random_state : int, RandomState or None, default=None
        Seed of the initialization, the shuffling, the validation split and the coalitions.
        numpy's and torch's global generators are left untouched either way.
    verbose : int, default=0
        Print per-epoch losses and a progress bar.
    net_params : dict, default=None
        More parameters of the skorch net, in skorch's ``prefix__name`` syntax (for example
        ``{"optimizer__weight_decay": 1e-4}``); they override what the other parameters set.
        A key the net or its component does not take is refused when ``fit`` starts."""

_COMMON_ATTRIBUTES = """
    n_epochs_ : int
        Epochs trained.
    history_ : list of dict
        Per epoch: ``train_loss``, ``valid_loss`` (with a validation split), ``dur``, ...
    net_ : skorch NeuralNet
        The trained network (``net_.module_``).
    baseline_ : ndarray of shape (n_features,)
        The baseline in the units of X: the training mean of each numeric feature (zero once
        standardised), the value of an absent feature; NaN for a categorical one (code 0).
    categorical_columns_ : ndarray of int
        Positions of the categorical columns.
    category_encoder_ : OrdinalEncoder or None
        Their encoding (codes are its output + 1), None without categorical columns.
    x_scaler_ : StandardScaler or None
        Standardization of the numeric columns (None if there are none).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of str
        Feature names seen during fit, if X had string column names."""

_TRAINING = """

    g maps standardised features x (categorical ones through embeddings, see
    ``categorical_features``) to φ(x) ∈ R^{d×k}, one value per column of X, and the
    prediction is ``link(Σ_j φ_j(x) + v0)`` with v0 a learnable bias per output
    (``expected_value_``): the efficiency of the Shapley values holds by construction.
    Training minimises ``alpha × prediction loss + beta × Shapley loss``, where the Shapley
    loss is the mean of ``(f(b) + Σ_{j∈S} φ_j(x) − f(x_S))²`` on the link scale over the
    sampled coalitions S, ``x_S`` being x on S and the baseline b elsewhere and f the
    model's own link-scale output (self-consistency: the target is not detached, as in the
    reference). The baseline b is the zero vector in standardised space, the reference's
    choice, that is the training mean of every numeric feature (a separate ``"mean"``
    baseline would be the same point, so none is offered), and the reserved code 0 of a
    categorical one; the value of the empty coalition is the model's own f(b), as the
    reference's ``null``. The reference code compares on the probability scale
    (``null + sigmoid(Σ_{j∈S} φ_j)`` against the masked probability); this follows the issue
    and the paper's additive form on the link scale, where the values sum to the model's
    output. Coalitions are drawn with their size k ∈ {1..d−1} of probability ∝ 1/(k(d−k)),
    uniformly within a size, paired with their complements. With a single feature there is
    no proper coalition and only the prediction loss is trained."""


class ViaSHAPClassifier(ClassifierMixin, _ViaSHAP):
    __doc__ = f"""Classifier that predicts by summing the Shapley values it learns (ViaSHAP).

    ViaSHAP of Alkhatib et al., "Prediction via Shapley Value Regression", ICML 2025
    (arXiv:2505.04775).{_TRAINING}

    For two classes, k = 1: φ explains the logit of ``classes_[1]`` and the prediction loss is
    the logistic loss. For more, k = n_classes, one logit per class, with the cross-entropy.
    ``link="identity"`` drops the link (which the paper finds makes the values more
    accurate): the outputs are then the class-1 probability (two classes) or the class
    probabilities themselves, fitted by squared error to the one-hot labels as in the
    reference, and ``predict_proba`` clips them to [0, 1] (and renormalises several classes).

    Parameters
    ----------{_COMMON_PARAMETERS}
    link : {{"logit", "identity"}}, default="logit"
        Sigmoid (two classes) or softmax of the summed values, or none.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    expected_value_ : float or ndarray of shape (n_classes,)
        v0: the output on the link scale when every φ_j is 0 (a float for two classes).{_COMMON_ATTRIBUTES}

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_viashap import ViaSHAPClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = ViaSHAPClassifier((16,), max_epochs=5, random_state=0).fit(X, y)
    >>> phi = clf.shap_values(X[:4])
    >>> phi.shape
    (4, 3)
    >>> bool(np.allclose(phi.sum(axis=1) + clf.expected_value_, clf.decision_function(X[:4])))
    True
    """

    _parameter_constraints = {**_ViaSHAP._parameter_constraints, "link": [StrOptions({"logit", "identity"})]}

    def __init__(self, hidden_layer_sizes=(64, 128, 64), *, backbone="mlp", basis="rbf", n_coalitions=32,
                 alpha=1.0, beta=10.0, link="logit", max_epochs=300, batch_size=64, lr=1e-3,
                 validation_fraction=0.15, patience=10, categorical_features=None, device="cpu",
                 random_state=None, verbose=0, net_params=None):
        super().__init__(hidden_layer_sizes, backbone=backbone, basis=basis, n_coalitions=n_coalitions,
                         alpha=alpha, beta=beta, max_epochs=max_epochs, batch_size=batch_size, lr=lr,
                         validation_fraction=validation_fraction, patience=patience,
                         categorical_features=categorical_features, device=device, random_state=random_state,
                         verbose=verbose, net_params=net_params)
        self.link = link

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the network on the prediction and Shapley losses.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric training features.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with all_or_nothing(self):
            torch_side = self._check_parameters()
            x_net, y = check_X_y(self._network_input(X, y, reset=True), y, dtype=np.float64, estimator=self)
            check_classification_targets(y)
            classes, labels = np.unique(y, return_inverse=True)
            if len(classes) < 2:
                raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; "
                                 f"y has 1 class ({classes[0]!r}).")
            binary = len(classes) == 2
            if self.link == "identity":
                task, y_net = "squared", (labels[:, None] == np.arange(2 - binary, len(classes)))
            else:
                task, y_net = ("binary" if binary else "multiclass"), labels
            y_net = y_net.astype(np.float32 if task == "squared" else np.int64)
            self._fit_network(torch_side, x_net, y_net, task, 1 if binary else len(classes), stratified=True)
            self.classes_ = classes
            self.expected_value_ = self._v0()[0] if binary else self._v0()
        return self

    def decision_function(self, X):
        """The model's output on the link scale: ``Σ_j φ_j(x) + expected_value_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The logit (or, with ``link="identity"``, the probability) of ``classes_[1]`` for
            two classes; one per class otherwise.
        """
        output = self._link_output(X)
        return output[:, 0] if len(self.classes_) == 2 else output

    def predict_proba(self, X):
        """Class probabilities: the link of the summed Shapley values.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class in ``classes_`` order.
        """
        scores = self.decision_function(X)
        if len(self.classes_) == 2:
            positive = expit(scores) if self.link == "logit" else np.clip(scores, 0.0, 1.0)
            return np.column_stack([1.0 - positive, positive])
        if self.link == "logit":
            return softmax(scores, axis=1)
        clipped = np.clip(scores, 0.0, 1.0)
        total = clipped.sum(axis=1, keepdims=True)
        return np.where(total > 0, clipped / np.where(total > 0, total, 1.0), 1.0 / len(self.classes_))

    def predict(self, X):
        """Most probable class.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        proba = self.predict_proba(X)  # checks that the estimator is fitted
        return self.classes_[np.argmax(proba, axis=1)]

    def shap_values(self, X):
        """Each row's Shapley values, per row (and class): φ(x) on the link scale.

        ``shap_values(X).sum(axis=1) + expected_value_`` equals ``decision_function(X)``.
        With several classes every row gets the values of every class (the reference's
        ``get_local_importance`` returns those of the first row's predicted class for all rows);
        ``shap_values(X)[i, :, c]`` explains row i's logit of ``classes_[c]``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        phi : ndarray of shape (n_samples, n_features) or (n_samples, n_features, n_classes)
            Per feature, its contribution to the logit of ``classes_[1]`` (two classes) or to
            each class's logit.
        """
        phi = self._phi(X)
        return phi[:, :, 0] if len(self.classes_) == 2 else phi


class ViaSHAPRegressor(RegressorMixin, _ViaSHAP):
    __doc__ = f"""Regressor that predicts by summing the Shapley values it learns (ViaSHAP).

    ViaSHAP of Alkhatib et al., "Prediction via Shapley Value Regression", ICML 2025
    (arXiv:2505.04775), with the identity link and the squared error.{_TRAINING}

    The network fits the standardised target; ``shap_values`` and ``expected_value_`` are given
    back in the target's units, so that they still sum to the prediction.

    Parameters
    ----------{_COMMON_PARAMETERS}

    Attributes
    ----------
    expected_value_ : float
        v0 in the target's units: the prediction when every φ_j is 0.
    y_mean_, y_scale_ : float
        Standardization of the target.{_COMMON_ATTRIBUTES}

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_viashap import ViaSHAPRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> reg = ViaSHAPRegressor((16,), max_epochs=5, random_state=0).fit(X, X[:, 0] - 2 * X[:, 2])
    >>> phi = reg.shap_values(X[:4])
    >>> phi.shape
    (4, 3)
    >>> bool(np.allclose(phi.sum(axis=1) + reg.expected_value_, reg.predict(X[:4])))
    True
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the network on the prediction and Shapley losses.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric training features.
        y : array-like of shape (n_samples,)
            Target values.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with all_or_nothing(self):
            torch_side = self._check_parameters()
            x_net, y = check_X_y(self._network_input(X, y, reset=True), y, dtype=np.float64, y_numeric=True,
                                 estimator=self)
            y_mean, y_scale = y.mean(), y.std()
            y_scale = y_scale if y_scale > 0 else 1.0
            y_net = ((y - y_mean) / y_scale)[:, None].astype(np.float32)
            self._fit_network(torch_side, x_net, y_net, "squared", 1, stratified=False)
            self.y_mean_, self.y_scale_ = float(y_mean), float(y_scale)
            self.expected_value_ = float(self._v0()[0] * y_scale + y_mean)
        return self

    def predict(self, X):
        """The summed Shapley values plus ``expected_value_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predictions.
        """
        return self._link_output(X)[:, 0] * self.y_scale_ + self.y_mean_

    def shap_values(self, X):
        """Each row's Shapley values in the target's units; they sum to ``predict(X) - expected_value_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        phi : ndarray of shape (n_samples, n_features)
        """
        return self._phi(X)[:, :, 0] * self.y_scale_
