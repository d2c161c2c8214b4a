"""GroupDRO: a neural network classifier trained for its worst group's loss.

Online GroupDRO of S. Sagawa, P. W. Koh, T. B. Hashimoto, P. Liang, "Distributionally
Robust Neural Networks for Group Shifts", ICLR 2020, as used by A. Alloula, C. Jones,
B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias Mitigation", ICML 2025
(arXiv:2505.21363) and its reference code (``anissa218/subgroups_bias_mit``,
``models/GroupDRO/utils.py``, ``LossComputer``).
"""

import importlib
import numbers

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_X_y

from fairkit.utils import local_random_state
from fairkit.utils._sklearn_compat import Interval, _fit_context
from fairkit.utils.validation import (
    SENSITIVE_COLS_CONSTRAINT,
    all_or_nothing,
    check_layer_sizes,
    fit_groups,
    model_features,
)

__all__ = ["GroupDROClassifier"]


def _torch_side():
    """The private module with the torch network, imported on first fit or predict."""
    try:
        return importlib.import_module("fairkit_subgroups._gdro_net")
    except ImportError as error:
        raise ImportError('GroupDROClassifier needs torch and skorch: pip install "fairkit-subgroups[nn]"'
                          ) from error


class GroupDROClassifier(ClassifierMixin, BaseEstimator):
    """Neural network classifier trained with online GroupDRO on given subgroups.

    GroupDRO (Sagawa et al., ICLR 2020) minimizes the loss of the worst group by
    keeping a weight q_g per group. On each minibatch, with ℓ_g the mean
    cross-entropy of the batch's samples of group g and n_g the number of training
    samples of g, the size-adjusted loss is ℓ̃_g = ℓ_g + C/√n_g
    (``size_adjustment=C``), the weights are updated as
    ``q_g ← q_g · exp(eta · ℓ̃_g)`` and renormalised, and the network takes an
    Adam step on ``Σ_g q_g ℓ̃_g``, as in the reference ``LossComputer`` of Alloula
    et al., "Subgroups Matter for Robust Bias Mitigation", ICML 2025
    (arXiv:2505.21363). As there, the size term also enters the loss (where it
    adds a constant), q starts uniform and carries over from epoch to epoch.
    Which subgroups GroupDRO is given decides whether it helps (Alloula et al.):
    compare groupings before choosing one.

    One departure, a fix: a group with no sample in a batch keeps its weight and
    is left out of that batch's loss. The reference scores it as if its loss were
    0, so a small group, absent from many batches, is pulled down for being small.
    With every group in every batch the two agree.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=(64,)
        Hidden ReLU layers of the network, which sees X only (never the groups).
    eta : float >= 0, default=0.01
        Step size of the group weights' update; 0 keeps them uniform.
    size_adjustment : float >= 0, default=1.0
        C in the size adjustment C/√n_g, which favours small groups; 0 turns it off.
    max_epochs : int, default=100
        Training epochs.
    batch_size : int, default=256
        Minibatch size.
    lr : float, default=1e-3
        Adam learning rate.
    sensitive_cols : str, int or list, default=None
        Columns of X holding the sensitive attributes (instead of ``sensitive_features``).
    device : str, default="cpu"
        Torch device; one this torch cannot use is refused when ``fit`` starts.
    random_state : int, RandomState or None, default=None
        Seed of the network's initialization and of the shuffling. numpy's and
        torch's global generators are left untouched either way.
    verbose : int, default=0
        Print per-epoch losses and a progress bar.
    net_params : dict, default=None
        More parameters of the skorch net, in skorch's ``prefix__name`` syntax:
        ``module__*``, ``optimizer__*``, ``criterion__*``, ``iterator_train__*``,
        ``callbacks``, ... (for example ``{"optimizer__weight_decay": 1e-4}``). They
        override what the other parameters set. The criterion must return one loss
        per sample (``criterion__reduction="none"``, the default). A key the net or
        the component it addresses does not take is refused when ``fit`` starts.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    groups_ : ndarray of shape (n_groups,)
        Distinct values (tuples for several columns) of the sensitive attributes seen
        in fit; without them, a single group.
    group_counts_ : ndarray of int of shape (n_groups,)
        Training samples per group (n_g).
    group_weights_ : ndarray of shape (n_epochs, n_groups)
        The group weights q at the end of each epoch, columns in ``groups_`` order;
        the last row is the final q.
    history_ : list of dict
        Per epoch: ``train_loss`` (the GroupDRO loss of its batches, averaged
        weighting each by its size), ``group_weights`` and ``dur`` (seconds).
    net_ : skorch NeuralNet
        The trained network (``net_.module_``).
    x_scaler_ : StandardScaler
        Standardization of the network's input.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of str
        Feature names seen during fit, if X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_subgroups._gdro import GroupDROClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = (rng.random(300) < 0.2).astype(int)
    >>> X = rng.normal(size=(300, 2))
    >>> y = np.where(group == 1, X[:, 1] > 0, X[:, 0] > 0).astype(int)
    >>> clf = GroupDROClassifier((16,), eta=0.1, max_epochs=5, random_state=0)
    >>> clf.fit(X, y, sensitive_features=group).group_weights_.shape
    (5, 2)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "eta": [Interval(numbers.Real, 0, None, closed="left")],
        "size_adjustment": [Interval(numbers.Real, 0, None, closed="left")],
        "max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "lr": [Interval(numbers.Real, 0, None, closed="neither")],
        "sensitive_cols": SENSITIVE_COLS_CONSTRAINT,
        "device": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "net_params": [None, dict],
    }

    def __init__(self, hidden_layer_sizes=(64,), *, eta=0.01, size_adjustment=1.0, max_epochs=100,
                 batch_size=256, lr=1e-3, sensitive_cols=None, device="cpu", random_state=None, verbose=0,
                 net_params=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.eta = eta
        self.size_adjustment = size_adjustment
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.sensitive_cols = sensitive_cols
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.net_params = net_params

    @classmethod
    def get_test_params(cls):
        """Small, fast parameter sets for the common checks."""
        return [{"hidden_layer_sizes": (16,), "eta": 0.1, "max_epochs": 6, "batch_size": 32, "lr": 3e-2,
                 "random_state": 0}]

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, *, sensitive_features=None):
        """Train the network with GroupDRO on the groups of the sensitive features.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training features. With ``sensitive_cols``, those columns give the groups
            and are not given to the network.
        y : array-like of shape (n_samples,)
            Class labels.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), default=None
            The groups: one group per distinct value, or per combination of values
            of several columns. Without them (nor ``sensitive_cols``) the estimator
            warns and trains on one group, which is plain empirical risk minimization.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with all_or_nothing(self):
            self._fit(X, y, sensitive_features)
        return self

    def _fit(self, X, y, sensitive_features):
        check_layer_sizes("hidden_layer_sizes", self.hidden_layer_sizes)
        torch_side = _torch_side()
        groups, codes = fit_groups(self, X, sensitive_features)  # warns if there are none
        X_net, y = check_X_y(model_features(self, X, y, reset=True), y, dtype=np.float64, estimator=self)
        check_classification_targets(y)
        classes, labels = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; "
                             f"y has 1 class ({classes[0]!r}).")
        group_counts = np.bincount(codes, minlength=len(groups))
        net = self._new_net(torch_side, X_net.shape[1], len(classes), group_counts)
        torch_side.check_net_params(net, self.net_params or {})
        torch_side.check_device(net.device)  # device, or net_params' "device" when it overrides it
        x_scaler = StandardScaler().fit(X_net)
        data = {"x": x_scaler.transform(X_net).astype(np.float32), "group": codes.astype(np.int64)}
        seed = local_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        with torch_side.seeded(seed):
            net.fit(data, labels.astype(np.int64))
        self.net_ = net
        self.x_scaler_ = x_scaler
        self.classes_ = classes
        self.groups_ = groups
        self.group_counts_ = group_counts
        self.group_weights_ = np.array([epoch["group_weights"] for epoch in net.history])
        self.history_ = [{key: value for key, value in epoch.items() if key != "batches"}
                         for epoch in net.history]

    def _new_net(self, torch_side, n_inputs, n_classes, group_counts):
        """The untrained skorch net, ``net_params`` overriding its defaults."""
        defaults = dict(
            module=torch_side.MLP, module__n_inputs=n_inputs, module__n_outputs=n_classes,
            module__hidden_layer_sizes=tuple(self.hidden_layer_sizes),
            criterion=torch_side.torch.nn.CrossEntropyLoss, criterion__reduction="none",
            optimizer=torch_side.torch.optim.Adam, lr=self.lr, max_epochs=self.max_epochs,
            batch_size=self.batch_size, train_split=None, iterator_train=torch_side.Minibatches,
            iterator_train__shuffle=True, device=self.device, verbose=self.verbose,
            group_counts=group_counts, eta=self.eta, size_adjustment=self.size_adjustment)
        return torch_side.GroupDRONet(**{**defaults, **(self.net_params or {})})

    def __getstate__(self):
        """The state in types that ``skops.io`` can load: the trained network as arrays.

        ``net_`` is saved as the state dict of its module, in numpy arrays, with its
        number of inputs; ``__setstate__`` rebuilds it from the estimator's parameters
        and loads them. The optimizer's state and ``net_.history`` are not kept
        (``history_`` is).
        """
        state = dict(super().__getstate__())
        net = state.pop("net_", None)
        if net is not None:
            state["_net_state"] = {"n_inputs": net.module__n_inputs,
                                   "arrays": _torch_side().state_arrays(net)}
        return state

    def __setstate__(self, state):
        state = dict(state)
        net_state = state.pop("_net_state", None)
        super().__setstate__(state)
        if net_state is not None:
            torch_side = _torch_side()
            net = self._new_net(torch_side, net_state["n_inputs"], len(self.classes_), self.group_counts_)
            torch_side.check_device(net.device)
            self.net_ = torch_side.load_state_arrays(net, net_state["arrays"])

    def _logits(self, X):
        check_is_fitted(self)
        X_net = model_features(self, X, reset=False)
        return _torch_side().forward(self.net_, self.x_scaler_.transform(X_net))

    def predict_proba(self, X):
        """Class probabilities (softmax of the network's logits).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class in ``classes_`` order.
        """
        return softmax(self._logits(X), axis=1)

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
        logits = self._logits(X)  # checks that the estimator is fitted
        return self.classes_[np.argmax(logits, axis=1)]
