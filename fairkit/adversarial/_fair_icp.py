"""FairICP: equalized odds by adversarial learning on inverse conditional permutations.

Lai & Guan, "FairICP: Encouraging Equalized Odds via Inverse Conditional Permutation",
ICML 2025 (PMLR 267:32228-32245, arXiv:2404.05678).
"""

import importlib
import numbers

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_X_y

from fairkit.metrics import kernel_partial_correlation
from fairkit.utils._conditional_density import fit_log_likelihood, sensitive_encoder
from fairkit.utils._icp import ICPSampler
from fairkit.utils._random import local_random_state
from fairkit.utils._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from fairkit.utils.validation import (
    MAX_CATEGORIES,
    SENSITIVE_COLS_CONSTRAINT,
    all_or_nothing,
    check_layer_sizes,
    check_numbers,
    encode_groups,
    fit_groups,
    looks_continuous,
    model_features,
    resolve_sensitive_features,
)

__all__ = ["FairICPClassifier", "FairICPRegressor"]

#: The net's parameters that ``_new_net`` takes, saved to rebuild it (see ``__getstate__``).
NET_SIZES = ("module__n_inputs", "discriminator__n_inputs", "mu")


def _torch_side():
    """The private module with the torch networks, imported on first fit or predict."""
    try:
        return importlib.import_module("fairkit.adversarial._net")
    except ImportError as error:
        raise ImportError("FairICP estimators need torch and skorch: "
                          'pip install "fairkit[nn]"') from error


def _cell_groups(frame, n_samples):
    """Each sample's group for the cells of ``adversary_weights`` and ``validation_fraction``.

    The group is the combination of the values of the categorical sensitive features:
    those that do not look continuous (see :func:`~fairkit.utils.looks_continuous`).
    None without any.
    """
    if frame is None:
        return None
    categorical = frame.loc[:, ~looks_continuous(frame.nunique(), n_samples)]
    return encode_groups(categorical, categorical=False)[1] if categorical.shape[1] else None


def _term_weights(groups, labels, n_labels, kind):
    """The weights of the adversary's terms by their (group, label) cell, as ``AdversarialNet`` takes them.

    A cell's weight is ``1 / P̂(cell)`` (``kind="cells"``) or its square root
    (``"sqrt_cells"``), P̂ the share of the training rows in it, scaled so the rows'
    weights average 1: then every cell carries the same total weight ("cells"). The term
    (ŷₖ, A[order[k]], yₖ) is weighed by its own cell, (group of row ``order[k]``, yₖ); a
    cell without training rows weighs 0.

    Parameters
    ----------
    groups, labels : ndarray of int of shape (n_samples,)
        Each training row's group and label code (``labels < n_labels``).
    n_labels : int
        Number of label codes.
    kind : {"cells", "sqrt_cells"}
        The weighting.

    Returns
    -------
    term_weights : callable
        ``term_weights(order)[k]``: the weight of row k's term showing the attributes of row ``order[k]``.
    """
    counts = np.bincount(groups * n_labels + labels, minlength=(groups.max() + 1) * n_labels)
    share = counts / len(groups)
    with np.errstate(divide="ignore"):
        weights = np.where(counts > 0, share ** (-1.0 if kind == "cells" else -0.5), 0.0)
    weights /= weights @ share  # the rows' mean weight is 1

    def term_weights(order):
        return weights[groups[order] * n_labels + labels]
    return term_weights


class _BaseFairICP(BaseEstimator):
    """What the classifier and the regressor share: validation, ICP, the training net."""

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "mu": [Interval(numbers.Real, 0, 1, closed="left")],
        "max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "lr": [Interval(numbers.Real, 0, None, closed="neither")],
        "lr_discriminator": [Interval(numbers.Real, 0, None, closed="neither")],
        "discriminator_hidden": ["array-like"],
        "discriminator_steps": [Interval(numbers.Integral, 1, None, closed="left")],
        "adversary_weights": [StrOptions({"rows", "cells", "sqrt_cells"})],
        "icp_sweeps": [Interval(numbers.Integral, 1, None, closed="left")],
        "density_estimator": [StrOptions({"auto"}), HasMethods(["fit"])],
        "validation_fraction": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "sensitive_cols": SENSITIVE_COLS_CONSTRAINT,
        "device": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "net_params": [None, dict],
    }

    def __init__(self, hidden_layer_sizes=(64,), *, mu=0.5, max_epochs=100, batch_size=256, lr=1e-3,
                 lr_discriminator=1e-4, discriminator_hidden=(64, 64, 64), discriminator_steps=1,
                 adversary_weights="rows", icp_sweeps=50, density_estimator="auto",
                 validation_fraction=None, sensitive_cols=None, device="cpu", random_state=None,
                 verbose=0, net_params=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.mu = mu
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.lr_discriminator = lr_discriminator
        self.discriminator_hidden = discriminator_hidden
        self.discriminator_steps = discriminator_steps
        self.adversary_weights = adversary_weights
        self.icp_sweeps = icp_sweeps
        self.density_estimator = density_estimator
        self.validation_fraction = validation_fraction
        self.sensitive_cols = sensitive_cols
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.net_params = net_params

    @classmethod
    def get_test_params(cls):
        """Small, fast parameter sets for the common checks."""
        fast = {"max_epochs": 8, "batch_size": 32, "lr": 3e-2, "lr_discriminator": 1e-3, "mu": 0.5,
                "icp_sweeps": 5, "random_state": 0}
        return [fast, {**fast, "adversary_weights": "cells", "validation_fraction": 0.2}]

    @_fit_context(prefer_skip_nested_validation=False)  # density_estimator is the user's
    def fit(self, X, y, *, sensitive_features=None):
        """Train the predictor against the discriminator of ICP copies of the sensitive attributes.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training features. With ``sensitive_cols``, those columns are the sensitive
            attributes and are not given to the predictor.
        y : array-like of shape (n_samples,)
            Targets.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), default=None
            Sensitive attributes: continuous (numeric columns), categorical (strings,
            booleans, categories) or both. Without them (nor ``sensitive_cols``) the
            estimator warns and trains the unconstrained network.

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
        check_layer_sizes("discriminator_hidden", self.discriminator_hidden)
        torch_side = _torch_side()
        groups, _ = fit_groups(self, X, sensitive_features, categorical=False)  # warns if there are none
        frame = resolve_sensitive_features(self, X, sensitive_features)
        X_net, y = self._validate_fit_data(X, y)
        labels, n_labels = self._label_codes(y)
        cell_groups = _cell_groups(frame, len(y))
        if cell_groups is None:
            if frame is not None and self.adversary_weights != "rows" and n_labels == 1:
                raise ValueError(
                    f"adversary_weights={self.adversary_weights!r} weighs {type(self).__name__}'s "
                    "adversarial terms by the share of their sensitive group (the target is continuous), "
                    "but every sensitive feature is continuous (more distinct values than "
                    f"{MAX_CATEGORIES} or than half the samples), so there are no groups. Use "
                    "adversary_weights='rows', or give categorical sensitive features.")
            cell_groups = np.zeros(len(y), dtype=np.intp)
        rng = local_random_state(self.random_state)
        density_seed, sampler_seed, torch_seed = rng.randint(np.iinfo(np.int32).max, size=3)
        train, valid = slice(None), None  # held-out samples (valid) fit nothing, not even the scalers
        if self.validation_fraction is not None:
            split_seed = rng.randint(np.iinfo(np.int32).max)
            train, valid = self._hold_out(cell_groups * n_labels + labels, split_seed, frame is not None)
        y_net, y_density = self._encode_target(y, labels, train)
        x_scaler = StandardScaler().fit(X_net[train])
        if frame is None:
            a, mu = np.zeros((len(y_net[train]), 0), dtype=np.float32), 0.0
        else:
            training = frame if valid is None else frame.iloc[train]
            encoded = sensitive_encoder(training).transform(training)
            a, mu = StandardScaler().fit_transform(encoded).astype(np.float32), float(self.mu)
        n_outputs = self._n_outputs()
        y_width = n_outputs if self._is_classifier else 1
        net = self._new_net(torch_side, X_net.shape[1], n_outputs + a.shape[1] + y_width, mu)
        # before the density model and training
        torch_side.check_net_params(net, self.net_params or {}, torch_side.COMPONENTS)
        torch_side.check_device(net.device)  # device, or net_params' "device" when it overrides it
        if valid is not None:
            held_out = None if frame is None else frame.iloc[valid].reset_index(drop=True)
            net.validation_score = self._validation_score(torch_side, x_scaler.transform(X_net[valid]),
                                                          y_net[valid], y[valid], held_out)
        density_n_samples = density_log_loss = None
        if mu > 0:
            net.sensitive_sampler, density_n_samples, density_log_loss = self._sensitive_sampler(
                a, y_density[train], density_seed, sampler_seed)
            if self.adversary_weights != "rows":
                net.term_weights = _term_weights(cell_groups[train], labels[train], n_labels,
                                                 self.adversary_weights)
        data = {"x": x_scaler.transform(X_net[train]).astype(np.float32), "a": a, "index": np.arange(len(a))}
        with torch_side.seeded(torch_seed):
            net.fit(data, y_net[train])
        # the sampler, the weights and the score hold O(n) training arrays; training is over
        net.sensitive_sampler = net.term_weights = net.validation_score = None
        for name in ("a_tilde_", "term_weights_"):
            vars(net).pop(name, None)
        self.net_ = net
        self.x_scaler_ = x_scaler
        self.groups_ = groups
        self.history_ = [{key: value for key, value in epoch.items() if key != "batches"}
                         for epoch in net.history]
        self.selected_epoch_ = net.selected_epoch_
        self.validation_indices_ = valid
        self.density_n_samples_ = density_n_samples
        self.density_log_loss_ = density_log_loss
        return self

    def _hold_out(self, cells, seed, scored):
        """Rows to train on and rows held out: ``validation_fraction`` of every cell.

        ``scored``: whether the held-out rows get a fairness score, which needs 3 of them.
        """
        problem = (f"validation_fraction={self.validation_fraction} cannot hold out that share of every "
                   f"{self._cell_name} of n_samples={len(cells)}")
        alone = np.count_nonzero(np.bincount(cells) == 1)
        if alone:
            raise ValueError(f"{problem}: each needs at least 2 samples, and {alone} have 1. Merge rare "
                             "groups, or set validation_fraction=None.")
        try:
            train, valid = train_test_split(np.arange(len(cells)), test_size=self.validation_fraction,
                                            stratify=cells, random_state=seed)
        except ValueError as error:
            raise ValueError(f"{problem}: {error} Use a larger validation_fraction or more samples, merge "
                             "rare groups, or set validation_fraction=None.") from None
        if scored and len(valid) < 3:
            raise ValueError(f"validation_fraction={self.validation_fraction} holds out {len(valid)} of "
                             f"n_samples={len(cells)}; the held-out fairness score needs at least 3. Use a "
                             "larger validation_fraction or more samples.")
        return np.sort(train), np.sort(valid)

    def _validation_score(self, torch_side, x, y_net, y, sensitive):
        """The held-out rows' score of the net: task loss, and KPC (None without attributes).

        KPC is computed on what ``predict_proba`` (``predict`` for the regressor) returns,
        with ties broken by a fixed seed, so every epoch is scored on the same
        nearest-neighbour graphs.
        """
        def score(net):
            output = torch_side.forward(net, x)
            kpc = (None if sensitive is None else
                   kernel_partial_correlation(self._from_network(output), sensitive, y, random_state=0))
            return torch_side.task_loss(net, output, y_net), kpc
        return score

    def _new_net(self, torch_side, n_inputs, discriminator_inputs, mu):
        """The untrained skorch net, ``net_params`` overriding its defaults.

        The predictor takes ``n_inputs`` features, the discriminator ``discriminator_inputs``
        (ŷ, the encoded attributes and y); ``mu`` weighs the adversarial loss.
        """
        defaults = dict(
            module=torch_side.MLP, module__n_inputs=n_inputs, module__n_outputs=self._n_outputs(),
            module__hidden_layer_sizes=tuple(self.hidden_layer_sizes), criterion=self._criterion(torch_side),
            optimizer=torch_side.torch.optim.Adam, lr=self.lr, max_epochs=self.max_epochs,
            batch_size=self.batch_size, train_split=None, iterator_train=torch_side.Minibatches,
            iterator_train__shuffle=True,
            device=self.device, verbose=self.verbose,
            discriminator=torch_side.MLP,
            discriminator__n_inputs=discriminator_inputs, discriminator__n_outputs=1,
            discriminator__hidden_layer_sizes=tuple(self.discriminator_hidden),
            discriminator_optimizer=torch_side.torch.optim.Adam,
            discriminator_optimizer__lr=self.lr_discriminator,
            mu=mu, discriminator_steps=self.discriminator_steps)
        return torch_side.AdversarialNet(**{**defaults, **(self.net_params or {})})

    def __getstate__(self):
        """The state in types that ``skops.io`` can load: the trained networks as arrays.

        ``net_`` (a skorch net of torch modules, optimizers and callbacks) is saved as
        the state dicts of its predictor and discriminator, in numpy arrays, with the
        sizes it was built with; ``__setstate__`` rebuilds it from the estimator's
        parameters and loads them. The optimizers' state and ``net_.history`` are not
        kept (``history_`` is).
        """
        state = dict(super().__getstate__())
        net = state.pop("net_", None)
        if net is not None:
            torch_side = _torch_side()
            state["_net_state"] = {"sizes": [getattr(net, name) for name in NET_SIZES],
                                   "arrays": torch_side.state_arrays(net, torch_side.TRAINED)}
        return state

    def __setstate__(self, state):
        state = dict(state)
        net_state = state.pop("_net_state", None)
        super().__setstate__(state)
        if net_state is not None:
            torch_side = _torch_side()
            net = self._new_net(torch_side, *net_state["sizes"])
            torch_side.check_device(net.device)
            self.net_ = torch_side.load_state_arrays(net, net_state["arrays"])

    def _sensitive_sampler(self, a, y_density, density_seed, sampler_seed):
        """ICP under a fitted q̂(y | a), a fresh Ã each epoch; q̂'s sample count and held-out log-loss."""
        log_likelihood, n_fitted, log_loss = fit_log_likelihood(
            a, y_density, classification=self._is_classifier, estimator=self.density_estimator,
            random_state=density_seed, return_quality=True)
        sampler = ICPSampler(log_likelihood, n_sweeps=self.icp_sweeps, random_state=sampler_seed)
        return sampler, n_fitted, log_loss

    def _validate_fit_data(self, X, y):
        """Validate ``X`` and ``y``; return the predictor's input (without sensitive columns) and y."""
        X_net = model_features(self, X, y, reset=True)
        if not self._is_classifier:
            y = check_numbers(y, input_name="y", ensure_2d=False, expected=(
                f"{type(self).__name__} needs real targets. Convert y to numbers, or use "
                "FairICPClassifier for class labels."))
        return check_X_y(X_net, y, dtype=np.float64, y_numeric=not self._is_classifier, estimator=self)

    def _network_output(self, X):
        check_is_fitted(self)
        X_net = model_features(self, X, reset=False)
        return _torch_side().forward(self.net_, self.x_scaler_.transform(X_net))


class FairICPClassifier(ClassifierMixin, _BaseFairICP):
    """Neural network classifier trained towards equalized odds with FairICP.

    Equalized odds asks that predictions be independent of the sensitive attributes
    A given the label: Ŷ ⊥ A | Y. FairICP (Lai & Guan, ICML 2025) draws Ã by inverse
    conditional permutation (Ã ⊥ (X, Ŷ) | Y, with (Ã, Y) distributed like (A, Y)), so
    (Ŷ, Ã, Y) and (Ŷ, A, Y) have the same law exactly when equalized odds holds. A
    discriminator learns to tell them apart, and the predictor minimizes
    ``(1 - mu) · cross-entropy + mu · (discriminator loss with flipped labels)``.
    ICP needs only the one-dimensional density of Y | A, so A may have several
    continuous, categorical or mixed columns.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=(64,)
        Hidden ReLU layers of the predictor, which sees X only (never A).
    mu : float in [0, 1), default=0.5
        Weight of the adversarial loss; ``mu=0`` is the unconstrained network.
    max_epochs : int, default=100
        Training epochs; each draws a fresh Ã.
    batch_size : int, default=256
        Minibatch size of both networks.
    lr : float, default=1e-3
        Adam learning rate of the predictor.
    lr_discriminator : float, default=1e-4
        Adam learning rate of the discriminator.
    discriminator_hidden : tuple of int, default=(64, 64, 64)
        Hidden ReLU layers of the discriminator.
    discriminator_steps : int, default=1
        Passes over the data updating the discriminator per epoch, before the
        predictor's pass.
    adversary_weights : {"rows", "cells", "sqrt_cells"}, default="rows"
        Weights of the terms of the adversary's loss (the discriminator's, and the
        predictor's adversarial part). "rows" weighs every term alike, as the paper
        does. "cells" weighs a term by ``1 / P̂(group, label)``, P̂ the share of the
        training samples in the (sensitive group, label) cell the term shows the
        discriminator, scaled so the samples' weights average 1: every cell then
        carries the same total weight, as in the equalized-odds deviation, and small
        cells are no longer drowned by large ones. "sqrt_cells" weighs by
        ``1 / sqrt(P̂)``, in between. The group is the combination of the values of
        the categorical attributes; one with more distinct values than 50 or than half
        the samples is continuous and forms no groups, so with continuous attributes
        alone the cells are the labels. A term showing Ã counts in Ã's cell, which
        keeps equalized odds the point where the discriminator cannot beat chance
        (see the user guide).
    icp_sweeps : int, default=50
        Sweeps of the ICP Markov chain: burn-in, and between the burnt-in state and
        each epoch's copy.
    density_estimator : "auto" or classifier, default="auto"
        Model of P(Y | A) for ICP, fitted on the encoded attributes (numeric columns
        and the one-hot columns of the others, all standardized). "auto" is
        scikit-learn's ``MLPClassifier`` with 64 hidden units fitted by L-BFGS, its L2
        penalty chosen by held-out log-loss; any classifier with ``predict_proba`` works.
        Past 200,000 training samples it is fitted on a stratified subsample of about
        200,000 (every class kept; "auto" chooses its penalty on 10,000 of them) and
        measured on the others (``density_log_loss_``).
    validation_fraction : float in (0, 1), default=None
        Share of the training samples held out, the same in every (group, label) cell,
        to choose the epoch on held-out fairness. Each epoch records the held-out
        task loss and KPC (:func:`~fairkit.metrics.kernel_partial_correlation` of
        ``predict_proba``) in ``history_``; ``fit`` ends with the weights of the
        epoch of lowest held-out KPC among those whose held-out task loss is at
        most the last epoch's (without sensitive features: of lowest held-out task
        loss). The held-out samples train nothing (``validation_indices_``). None
        trains on every sample and keeps the last epoch.
    sensitive_cols : str, int or list, default=None
        Columns of X holding the sensitive attributes (instead of ``sensitive_features``).
    device : str, default="cpu"
        Torch device; one this torch cannot use (``"cuda"`` on a CPU-only build) is
        refused when ``fit`` starts.
    random_state : int, RandomState or None, default=None
        Seed of the density model, the ICP chain and the networks (initialization and
        shuffling). With None, fresh seeds from the operating system; numpy's and
        torch's global generators are left untouched either way.
    verbose : int, default=0
        Print per-epoch losses and a progress bar.
    net_params : dict, default=None
        More parameters of the skorch net, in skorch's ``prefix__name`` syntax:
        ``module__*``, ``optimizer__*``, ``discriminator__*``,
        ``discriminator_optimizer__*``, ``iterator_train__*``, ``callbacks``, ...
        (for example ``{"optimizer__weight_decay": 1e-4}``). They override what the
        other parameters set; ``GridSearchCV`` can search over such dicts. A key that
        neither the net nor the component it addresses takes is refused when ``fit``
        starts, before training.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    groups_ : ndarray
        Distinct values (tuples for several columns) of the sensitive attributes seen in fit.
    history_ : list of dict
        Per epoch: ``train_loss`` (combined), ``train_task_loss`` (cross-entropy),
        ``discriminator_loss`` (when ``mu > 0``), ``dur`` (seconds) and, with
        ``validation_fraction``, ``valid_task_loss`` and ``valid_kpc`` (held out; no
        KPC without sensitive features).
    selected_epoch_ : int
        The epoch (``history_[selected_epoch_ - 1]``) whose weights the networks
        hold: the last one, or the one chosen on held-out fairness.
    validation_indices_ : ndarray of int or None
        Positions in the training ``X`` of the held-out samples
        (``validation_fraction``), else None.
    density_n_samples_ : int or None
        Training samples the density q̂(y | a) was fitted on: all of them up to 200,000,
        about 200,000 beyond; None when no density was fitted (``mu=0`` or no sensitive
        features).
    density_log_loss_ : float or None
        Mean ``-log q̂(yᵢ | aᵢ)`` over the training samples the density was not fitted on
        (its held-out log-loss); None when it was fitted on all (or not fitted).
    net_ : skorch NeuralNet
        The trained networks (``net_.module_`` predictor, ``net_.discriminator_``).
    x_scaler_ : StandardScaler
        Standardization of the predictor's input.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of str
        Feature names seen during fit, if X had string column names.

    See Also
    --------
    FairICPRegressor : the same method for real targets.
    fairkit.metrics.equalized_odds_test : a permutation test of Ŷ ⊥ A | Y.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.adversarial import FairICPClassifier
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400)
    >>> X = np.column_stack([rng.normal(size=400) + a, rng.normal(size=400)])
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0.5).astype(int)
    >>> clf = FairICPClassifier(mu=0.5, max_epochs=5, random_state=0)
    >>> clf.fit(X, y, sensitive_features=a).predict_proba(X[:2]).shape
    (2, 2)
    """

    _is_classifier = True

    _cell_name = "(group, label) cell"

    def _label_codes(self, y):
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; "
                             f"y has 1 class ({classes[0]!r}).")
        self.classes_ = classes
        return codes, len(classes)

    def _encode_target(self, y, codes, train):
        return codes.astype(np.int64), codes

    def _n_outputs(self):
        return len(self.classes_)

    def _criterion(self, torch_side):
        return torch_side.torch.nn.CrossEntropyLoss

    def _from_network(self, output):
        return softmax(output, axis=1)

    def predict_proba(self, X):
        """Class probabilities (softmax of the predictor's logits).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class in ``classes_`` order.
        """
        return self._from_network(self._network_output(X))

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
        logits = self._network_output(X)
        return self.classes_[np.argmax(logits, axis=1)]


class FairICPRegressor(RegressorMixin, _BaseFairICP):
    """Neural network regressor trained towards equalized odds with FairICP.

    The regression form of :class:`FairICPClassifier` (Lai & Guan, ICML 2025): the
    predictor minimizes ``(1 - mu) · squared error + mu · (discriminator loss with
    flipped labels)``, where the discriminator tells (ŷ, A, y) from (ŷ, Ã, y) and Ã is
    drawn by inverse conditional permutation under a heteroscedastic Gaussian model
    of Y | A. Targets are standardized internally and predictions mapped back.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=(64,)
        Hidden ReLU layers of the predictor, which sees X only (never A).
    mu : float in [0, 1), default=0.5
        Weight of the adversarial loss; ``mu=0`` is the unconstrained network.
    max_epochs : int, default=100
        Training epochs; each draws a fresh Ã.
    batch_size : int, default=256
        Minibatch size of both networks.
    lr : float, default=1e-3
        Adam learning rate of the predictor.
    lr_discriminator : float, default=1e-4
        Adam learning rate of the discriminator.
    discriminator_hidden : tuple of int, default=(64, 64, 64)
        Hidden ReLU layers of the discriminator.
    discriminator_steps : int, default=1
        Passes over the data updating the discriminator per epoch.
    adversary_weights : {"rows", "cells", "sqrt_cells"}, default="rows"
        Weights of the terms of the adversary's loss, as in
        :class:`FairICPClassifier`. The target being continuous, a cell is a
        sensitive group alone (the combination of the categorical attributes):
        "cells" weighs a term by ``1 / P̂(group)``, "sqrt_cells" by its square root.
        Both are refused when every attribute is continuous: there are then no
        groups.
    icp_sweeps : int, default=50
        Sweeps of the ICP Markov chain (burn-in, and per epoch's copy).
    density_estimator : "auto" or regressor, default="auto"
        Gaussian model of Y | A for ICP. "auto" fits ``N(μ(a), σ²(a))`` with a
        one-hidden-layer network (what the reference's one-dimensional normalizing flow
        amounts to); any regressor with ``predict(a, return_std=True)`` works
        (``BayesianRidge``, ``GaussianProcessRegressor``). Past 200,000 training samples
        it is fitted on a random subsample of 200,000 and measured on the others
        (``density_log_loss_``).
    validation_fraction : float in (0, 1), default=None
        Share of the training samples held out (the same in every sensitive group) to
        choose the epoch on held-out fairness, as in :class:`FairICPClassifier`, with
        the KPC of ``predict``.
    sensitive_cols : str, int or list, default=None
        Columns of X holding the sensitive attributes (instead of ``sensitive_features``).
    device : str, default="cpu"
        Torch device, checked when ``fit`` starts, as in :class:`FairICPClassifier`.
    random_state : int, RandomState or None, default=None
        Seed of the density model, the ICP chain and the networks.
    verbose : int, default=0
        Print per-epoch losses and a progress bar.
    net_params : dict, default=None
        More parameters of the skorch net, as in :class:`FairICPClassifier`.

    Attributes
    ----------
    groups_ : ndarray
        Distinct values (tuples for several columns) of the sensitive attributes seen in fit.
    history_ : list of dict
        Per epoch: ``train_loss``, ``train_task_loss`` (squared error on the
        standardized target), ``discriminator_loss`` (when ``mu > 0``), ``dur`` and,
        with ``validation_fraction``, ``valid_task_loss`` and ``valid_kpc``.
    selected_epoch_ : int
        The epoch whose weights the networks hold, as in :class:`FairICPClassifier`.
    validation_indices_ : ndarray of int or None
        Positions in the training ``X`` of the held-out samples, else None.
    density_n_samples_ : int or None
        Training samples the Gaussian density q̂(y | a) was fitted on, as in
        :class:`FairICPClassifier`.
    density_log_loss_ : float or None
        Its mean negative log-likelihood (with ``log √(2π)``) of the standardized target
        over the training samples it was not fitted on, as in :class:`FairICPClassifier`.
    net_ : skorch NeuralNet
        The trained networks.
    x_scaler_ : StandardScaler
        Standardization of the predictor's input.
    y_mean_, y_scale_ : float
        Standardization of the target.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of str
        Feature names seen during fit, if X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.adversarial import FairICPRegressor
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=(300, 2))
    >>> X = np.column_stack([a.sum(axis=1) + rng.normal(size=300), rng.normal(size=300)])
    >>> y = X[:, 0] + X[:, 1] + rng.normal(size=300)
    >>> reg = FairICPRegressor(mu=0.5, max_epochs=5, random_state=0)
    >>> reg.fit(X, y, sensitive_features=a).predict(X[:3]).shape
    (3,)
    """

    _is_classifier = False

    _cell_name = "sensitive group"

    def _label_codes(self, y):
        return np.zeros(len(y), dtype=np.intp), 1  # a continuous target has no cells

    def _encode_target(self, y, codes, train):
        y = np.asarray(y, dtype=np.float64)
        self.y_mean_, self.y_scale_ = float(y[train].mean()), float(y[train].std()) or 1.0
        standardized = (y - self.y_mean_) / self.y_scale_
        return standardized.astype(np.float32)[:, None], standardized

    def _n_outputs(self):
        return 1

    def _criterion(self, torch_side):
        return torch_side.torch.nn.MSELoss

    def _from_network(self, output):
        return self.y_mean_ + self.y_scale_ * output[:, 0]

    def predict(self, X):
        """Predicted targets.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predictions on the scale of the training targets.
        """
        return self._from_network(self._network_output(X))
