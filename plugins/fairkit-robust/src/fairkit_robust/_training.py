"""FairAdversarialClassifier: unified adversarial training, robust in accuracy and in fairness.

"On the Alignment between Fairness and Accuracy: from the Perspective of Adversarial
Robustness", ICML 2025 (OpenReview ckcXwR8cQS; an earlier version: J. Chai and X. Wang,
arXiv:2304.00061), and its code (``cjy24/fair-adversarial-training``, read through its forks).
"""

import importlib
import numbers

import numpy as np
import pandas as pd
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, check_X_y

from fairkit.utils import local_random_state
from fairkit.utils._sklearn_compat import Interval, StrOptions, _fit_context
from fairkit.utils.validation import (
    SENSITIVE_COLS_CONSTRAINT,
    all_or_nothing,
    check_layer_sizes,
    drop_sensitive_cols,
    fit_groups,
    model_features,
)

__all__ = ["FairAdversarialClassifier"]

#: The group-fairness notions of the soft gap (see ``fairkit_robust._pgd.soft_gap``).
NOTIONS = ("demographic_parity", "equal_opportunity", "equalized_odds")


def _torch_side():
    """The private module with the torch network, imported on first fit or predict."""
    try:
        return importlib.import_module("fairkit_robust._training_net")
    except ImportError as error:
        raise ImportError('FairAdversarialClassifier needs torch and skorch: pip install "fairkit-robust[nn]"'
                          ) from error


class FairAdversarialClassifier(ClassifierMixin, BaseEstimator):
    """Binary neural network classifier trained adversarially for accuracy and fairness together.

    The unified adversarial training of "On the Alignment between Fairness and Accuracy:
    from the Perspective of Adversarial Robustness" (ICML 2025, OpenReview ckcXwR8cQS;
    earlier J. Chai and X. Wang, arXiv:2304.00061). On every minibatch, the batch is
    attacked by projected gradient ascent (PGD) in the ε-ball around it, and the network
    takes a step on ``cross-entropy(f(x_adv), y) + lambda_fair · gap(f(x_adv))``, where
    the gap is the soft (probability-based) group gap of ``notion``: for equalized odds,
    ``|Δ mean P(Ŷ=1) | y=1| + |Δ mean P(Ŷ=1) | y=0|`` between groups (the largest minus
    the smallest group mean with more than two groups). The attack maximises the
    cross-entropy (``attack="accuracy"``, as the paper's code trains), the soft gap
    (``"fairness"``), or the training loss itself (``"both"``). ``attack="none"`` or
    ``eps=0`` is fairness-regularised training without an adversary, and with
    ``lambda_fair=0`` empirical risk minimization.

    Where the reference code is wrong this does it right: the adversarial examples
    stay within per-feature bounds learned from the training data (``bounds="data"``),
    never clamped to [0, 1], which is meaningless on standardised features; one-hot and
    other two-valued columns are not perturbed (``feature_mask="auto"``); a (group, label)
    cell missing from a batch contributes 0 to the gap, not NaN.

    The network sees the features of X only, never the sensitive features (routed as
    ``sensitive_features``, or columns ``sensitive_cols`` of X, which are dropped). ε is
    in the units of X, the units in which the attacks of :mod:`fairkit_robust` measure
    robustness: with an ``"linf"`` ball, give features of comparable scales
    (standardise them first, as the paper's code does). The network standardises its
    input inside, so its training does not depend on the features' scales. A training
    epoch costs at most ``attack_steps + 2`` clean epochs (measured on Adult: 4.1 times at
    10 steps, 12 times at 40).

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=(64,)
        Hidden ReLU layers of the network (the paper's code: (512, 512)).
    notion : {"equalized_odds", "equal_opportunity", "demographic_parity"}, default="equalized_odds"
        The group-fairness notion of the soft gap, in the training loss and in the
        fairness attack. ``classes_[1]`` is the positive class.
    eps : float >= 0, default=0.1
        Radius of the training attack's ball, in the units of X (the paper's code: 0.1 on Adult).
    lambda_fair : float >= 0, default=0.4
        Weight of the soft gap in the training loss (the paper's code: 0.4 on Adult).
    attack : {"accuracy", "fairness", "both", "none"}, default="accuracy"
        The objective of the training attack: the cross-entropy (the paper's code),
        the soft gap, or ``cross-entropy + lambda_fair · gap``; "none" trains on clean samples.
    norm : {"linf", "l2"}, default="linf"
        Norm of the ball (per sample); the paper's code uses "linf".
    attack_steps : int >= 1, default=10
        PGD steps per batch (the paper's code: 40, at about four times the cost). The
        attack starts from a random point of the ball (Madry et al., 2018; the paper's
        code starts from the batch itself) and returns the best point it evaluated.
    attack_step : float > 0, default=None
        PGD step size; None takes ``2.5 · eps / attack_steps`` (Madry et al., 2018), which
        can cross the ball.
    feature_mask : "auto", None or array-like of bool of shape (n_features_in_,), default="auto"
        The columns of X the attack may perturb (True): "auto" those with more than two
        distinct training values (one-hot and other binary columns stay); None all; or
        a mask. The sensitive columns are never perturbed: the network does not see them.
    bounds : "data", None or (lower, upper), default="data"
        Per-feature bounds of the adversarial examples: "data" the smallest and largest
        training value of each feature; None unbounded; or a pair, each a float or an
        array of shape (n_features_in_,) over the columns of X (entries may be infinite).
    max_epochs : int, default=100
        Training epochs.
    batch_size : int, default=256
        Minibatch size; the soft gap is estimated on each batch, so small groups need
        batches large enough to hold them.
    lr : float, default=1e-3
        Learning rate of the optimizer (Adam; for the paper's SGD with momentum 0.8 and
        lr 0.01, set ``lr=0.01`` and ``net_params={"optimizer": torch.optim.SGD,
        "optimizer__momentum": 0.8}``).
    sensitive_cols : str, int or list, default=None
        Columns of X holding the sensitive attributes (instead of ``sensitive_features``).
    device : str, default="cpu"
        Torch device; one this torch cannot use is refused when ``fit`` starts.
    random_state : int, RandomState or None, default=None
        Seed of the network's initialization, the shuffling and the attack's random
        starts. numpy's and torch's global generators are left untouched either way.
    verbose : int, default=0
        Print per-epoch losses and a progress bar.
    net_params : dict, default=None
        More parameters of the skorch net, in skorch's ``prefix__name`` syntax
        (``optimizer``, ``optimizer__*``, ``criterion__*``, ``callbacks``, ...). They
        override what the other parameters set. ``"module"`` replaces the MLP: a torch
        module class taking ``n_inputs`` and ``n_outputs`` (and any ``module__*``) and
        returning 2 logits. The criterion must return one scalar per batch. A key the
        net or the component it addresses does not take is refused when ``fit`` starts.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    groups_ : ndarray of shape (n_groups,)
        Distinct values (tuples for several columns) of the sensitive attributes seen
        in fit; without them, a single group (and a gap of 0).
    feature_mask_ : ndarray of bool of shape (n_features_in_,)
        The columns of X the training attack perturbed (``feature_mask`` resolved; False
        for the sensitive columns).
    bounds_ : ndarray of shape (2, n_features_in_)
        The lower and upper bounds of the training attack per column of X (infinite
        where unbounded, and for the sensitive columns).
    history_ : list of dict
        Per epoch: ``train_loss``, ``train_task_loss`` (cross-entropy) and ``train_gap``
        (soft gap) on the adversarial examples, averaged over the batches weighting each
        by its size, and ``dur`` (seconds).
    net_ : skorch NeuralNet
        The trained network; ``net_.module_`` maps ``x_scaler_.transform(X)`` to logits.
    x_scaler_ : StandardScaler
        Standardization of the network's input.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of str
        Feature names seen during fit, if X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_robust._training import FairAdversarialClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 300)
    >>> X = rng.normal(size=(300, 3)) + group[:, None]
    >>> y = (X[:, 0] + rng.normal(size=300) > 0.5).astype(int)
    >>> clf = FairAdversarialClassifier((16,), eps=0.1, lambda_fair=0.4, max_epochs=3, random_state=0)
    >>> clf.fit(X, y, sensitive_features=group).predict_proba(X[:2]).shape
    (2, 2)
    >>> {"train_task_loss", "train_gap"} <= set(clf.history_[-1])
    True
    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "notion": [StrOptions(set(NOTIONS))],
        "eps": [Interval(numbers.Real, 0, None, closed="left")],
        "lambda_fair": [Interval(numbers.Real, 0, None, closed="left")],
        "attack": [StrOptions({"accuracy", "fairness", "both", "none"})],
        "norm": [StrOptions({"linf", "l2"})],
        "attack_steps": [Interval(numbers.Integral, 1, None, closed="left")],
        "attack_step": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "feature_mask": [StrOptions({"auto"}), None, "array-like"],
        "bounds": [StrOptions({"data"}), None, tuple, list],
        "max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "lr": [Interval(numbers.Real, 0, None, closed="neither")],
        "sensitive_cols": SENSITIVE_COLS_CONSTRAINT,
        "device": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "net_params": [None, dict],
    }

    def __init__(self, hidden_layer_sizes=(64,), *, notion="equalized_odds", eps=0.1, lambda_fair=0.4,
                 attack="accuracy", norm="linf", attack_steps=10, attack_step=None, feature_mask="auto",
                 bounds="data", max_epochs=100, batch_size=256, lr=1e-3, sensitive_cols=None, device="cpu",
                 random_state=None, verbose=0, net_params=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.notion = notion
        self.eps = eps
        self.lambda_fair = lambda_fair
        self.attack = attack
        self.norm = norm
        self.attack_steps = attack_steps
        self.attack_step = attack_step
        self.feature_mask = feature_mask
        self.bounds = bounds
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
        fast = {"hidden_layer_sizes": (16,), "max_epochs": 6, "batch_size": 32, "lr": 3e-2, "attack_steps": 2,
                "random_state": 0}
        other = {"attack": "both", "norm": "l2", "notion": "demographic_parity", "bounds": None}
        return [fast, {**fast, **other}]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, *, sensitive_features=None):
        """Train the network on adversarial examples, for cross-entropy plus ``lambda_fair`` · soft gap.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training features. With ``sensitive_cols``, those columns give the groups
            and are not given to the network.
        y : array-like of shape (n_samples,)
            Binary class labels.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), default=None
            The groups: one group per distinct value, or per combination of values
            of several columns. Without them (nor ``sensitive_cols``) the estimator
            warns and trains on one group, whose gap is 0: adversarial training for
            accuracy alone.

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
        classes, labels = self._binary_labels(y)
        model_columns = self._model_columns(X)
        feature_mask = self._feature_mask(X_net, model_columns)
        bounds = self._bounds(X_net, model_columns)
        x_scaler = StandardScaler().fit(X_net)
        rng = local_random_state(self.random_state)
        torch_seed = rng.randint(np.iinfo(np.int32).max)
        training = dict(x_shift=x_scaler.mean_, x_scale=x_scaler.scale_, lower=bounds[0, model_columns],
                        upper=bounds[1, model_columns], perturbable=feature_mask[model_columns],
                        attack_seed=rng.randint(np.iinfo(np.int32).max))
        net = self._new_net(torch_side, X_net.shape[1], **training)
        torch_side.check_net_params(net, self.net_params or {})
        torch_side.check_device(net.device)  # device, or net_params' "device" when it overrides it
        with torch_side.seeded(torch_seed):
            # in float32, X_net stays within the bounds: rounding to float32 keeps the order
            net.fit({"x": X_net.astype(np.float32), "group": codes.astype(np.int64)}, labels.astype(np.int64))
        self.net_ = net
        self.x_scaler_ = x_scaler
        self.classes_ = classes
        self.groups_ = groups
        self.feature_mask_ = feature_mask
        self.bounds_ = bounds
        self.history_ = [{key: value for key, value in epoch.items() if key != "batches"}
                         for epoch in net.history]

    def _binary_labels(self, y):
        """The two classes and each sample's label code (1 for ``classes_[1]``); other targets are refused."""
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
            raise ValueError(f"Only binary classification is supported. The type of the target is {y_type}. "
                             f"{type(self).__name__} trains for a group gap in P(Ŷ = positive class); give "
                             "y with two classes.")
        classes, labels = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of 2 classes; "
                             f"y has 1 class ({classes[0]!r}).")
        return classes, labels

    def _model_columns(self, X):
        """The positions in X of the columns the network reads (all but ``sensitive_cols``)."""
        positions = np.arange(self.n_features_in_)[None, :]
        if isinstance(X, pd.DataFrame):
            positions = pd.DataFrame(positions, columns=X.columns)
        return np.asarray(drop_sensitive_cols(self, positions))[0]

    def _feature_mask(self, X_net, model_columns):
        """The columns of X the attack may perturb, shape (n_features_in_,): ``feature_mask`` resolved."""
        mask = np.zeros(self.n_features_in_, dtype=bool)
        if isinstance(self.feature_mask, str):  # "auto": the columns of more than two distinct values
            mask[model_columns] = np.count_nonzero(np.diff(np.sort(X_net, axis=0), axis=0), axis=0) >= 2
        elif self.feature_mask is None:
            mask[model_columns] = True
        else:
            given = np.asarray(self.feature_mask)
            if given.dtype != bool or given.shape != mask.shape:
                raise ValueError(f"feature_mask must be 'auto', None or an array of bools of shape "
                                 f"(n_features_in_,) = ({self.n_features_in_},), True where the attack may "
                                 f"perturb the column of X; got dtype {given.dtype} and shape {given.shape}. "
                                 "Build one from column names with e.g. X.columns.isin([...]).")
            mask[model_columns] = given[model_columns]
        return mask

    def _bounds(self, X_net, model_columns):
        """The attack's lower and upper bound per column of X, shape (2, n_features_in_); validated."""
        n_features = self.n_features_in_
        bounds = np.full((2, n_features), np.inf)
        bounds[0] = -np.inf
        if isinstance(self.bounds, str):  # "data"
            bounds[:, model_columns] = X_net.min(axis=0), X_net.max(axis=0)
            return bounds
        if self.bounds is None:
            return bounds
        problem = None
        try:
            given = np.array([np.broadcast_to(np.asarray(side, dtype=np.float64), (n_features,))
                              for side in self.bounds]) if len(self.bounds) == 2 else None
        except (TypeError, ValueError):
            given = None
        if given is None:
            problem = f"got {self.bounds!r}"
        elif np.isnan(given).any():
            problem = "they hold NaN"
        elif (given[0] > given[1]).any():
            problem = f"lower exceeds upper for {np.count_nonzero(given[0] > given[1])} column(s)"
        else:
            outside = (X_net < given[0, model_columns]) | (X_net > given[1, model_columns])
            if outside.any():
                problem = (f"{np.count_nonzero(outside)} training value(s) lie outside them, so the attack's "
                           "start is not feasible; widen them, or use bounds='data'")
        if problem is not None:
            raise ValueError(f"bounds must be 'data', None or a pair (lower, upper), each a float or an "
                             f"array of shape (n_features_in_,) = ({n_features},) with lower <= upper; "
                             f"{problem}.")
        bounds[:, model_columns] = given[:, model_columns]
        return bounds

    def _new_net(self, torch_side, n_inputs, **training):
        """The untrained skorch net, ``net_params`` overriding its defaults.

        ``training`` holds the arrays that training takes from the data (see ``FairAdversarialNet``).
        """
        net_params = self.net_params or {}
        attack_step = self.attack_step if self.attack_step is not None else 2.5 * self.eps / self.attack_steps
        defaults = dict(
            module=torch_side.MLP, module__n_inputs=n_inputs, module__n_outputs=2,
            criterion=torch_side.torch.nn.CrossEntropyLoss, optimizer=torch_side.torch.optim.Adam, lr=self.lr,
            max_epochs=self.max_epochs, batch_size=self.batch_size, train_split=None,
            iterator_train=torch_side.Minibatches, iterator_train__shuffle=True, device=self.device,
            verbose=self.verbose, notion=self.notion, lambda_fair=self.lambda_fair, attack=self.attack,
            eps=self.eps, norm=self.norm, attack_steps=self.attack_steps, attack_step=attack_step, **training)
        if "module" not in net_params:  # a module of the user's takes its own module__ arguments
            defaults["module__hidden_layer_sizes"] = tuple(self.hidden_layer_sizes)
        return torch_side.FairAdversarialNet(**{**defaults, **net_params})

    def __getstate__(self):
        """The state in types that ``skops.io`` can load: the trained network as arrays.

        ``net_`` is saved as the state dict of its module, in numpy arrays, with its
        number of inputs; ``__setstate__`` rebuilds it from the estimator's parameters
        and loads them. The optimizer's state and ``net_.history`` are not kept
        (``history_`` is), nor the arrays only training needs (the attack's bounds are
        in ``bounds_``).
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
            net = self._new_net(torch_side, net_state["n_inputs"])
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
            Samples; the sensitive columns (``sensitive_cols``) are not read.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Probability of each class in ``classes_`` order.
        """
        return softmax(self._logits(X), axis=1)

    def predict(self, X):
        """Most probable class.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples; the sensitive columns (``sensitive_cols``) are not read.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        logits = self._logits(X)  # checks that the estimator is fitted
        return self.classes_[np.argmax(logits, axis=1)]
