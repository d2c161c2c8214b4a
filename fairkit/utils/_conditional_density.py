"""The conditional density q̂(y | a) that inverse conditional permutation needs.

Both FairICP's training and the equalized-odds test fit ``q̂(y | a)``, so it lives
here, without torch (:mod:`fairkit.metrics` must import without it):

* classification: any classifier with ``predict_proba``; by default scikit-learn's
  ``MLPClassifier`` with one hidden layer of 64 ReLU units (the architecture of the
  reference code's density network), fitted by L-BFGS with the L2 penalty that gives
  the best log-likelihood on a held-out 20 % of the samples (of at most 50,000 of
  them), then refitted on all (see below for more than 200,000).
  Without that choice a fixed small penalty overfits continuous attributes (mean
  error of the class probability 0.29 at n = 500 on three Gaussian attributes; 0.09
  with the chosen penalty). Not with scikit-learn's early stopping: it monitors
  validation *accuracy*, which stops improving long before the class probabilities
  are learnt (on two groups with P(y=1) = 0.3 and 0.8 it stops at a constant 0.54);
* regression: any regressor whose ``predict(a, return_std=True)`` gives a Gaussian
  mean and standard deviation (``BayesianRidge``, ``GaussianProcessRegressor``, ...);
  by default :class:`HeteroscedasticMLP`, ``N(μ(a), σ²(a))`` fitted by maximum
  likelihood with early stopping. With a one-dimensional event, the reference code's
  masked autoregressive flow is affine in y with shift and scale depending on a only,
  so it is exactly such a heteroscedastic Gaussian.

Past ``_DENSITY_FIT_ROWS`` (200,000) samples either density is fitted on a random subsample
of about that many (stratified by class for classification, every class kept), predicts
for every sample, and its mean negative log-likelihood on the samples left out measures
it; the classifier's penalty is then chosen on 10,000 of them, not 50,000 (the five
candidate fits cost most). y | a is low-dimensional: on FairICP's benchmark problem at 10⁶
samples (five encoded attributes, two classes) the log-loss on 100,000 other samples of
the default density, its penalty chosen on 10,000 and fitted on 200,000, is within
1.1·10⁻⁴ (0.02 %) of the one chosen on 50,000 and fitted on all 900,000 (three seeds),
at a fifth of the cost (7.5 instead of 32 to 39 CPU s).

Sensitive attributes enter as numbers: :func:`sensitive_encoder` standardizes the
numeric columns and one-hot encodes the others (strings, booleans, categories).
"""

import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from fairkit.utils._icp import ClassLogLikelihood, GaussianLogLikelihood
from fairkit.utils._random import local_random_state
from fairkit.utils._sklearn_compat import Interval, _fit_context

__all__ = ["HeteroscedasticMLP", "fit_log_likelihood", "sensitive_encoder"]

# Smallest class probability kept, so that log-likelihoods stay finite.
_MIN_PROBA = 1e-12


def sensitive_encoder(frame):
    """Fit the numeric encoding of sensitive attributes.

    Numeric columns (except booleans) are standardized; every other column (strings,
    booleans, pandas categories) is one-hot encoded. Pass integer-coded categories as
    strings or a pandas ``category`` column to have them one-hot encoded.

    Parameters
    ----------
    frame : DataFrame of shape (n_samples, n_columns)
        Validated sensitive features (see
        :func:`fairkit.utils.validation.check_sensitive_features`).

    Returns
    -------
    encoder : ColumnTransformer
        Fitted; ``encoder.transform(frame)`` gives a dense float array.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": [20.0, 40.0], "sex": ["F", "M"]})
    >>> sensitive_encoder(frame).transform(frame).tolist()
    [[-1.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    """
    numeric = [k for k, column in enumerate(frame.columns)
               if pd.api.types.is_numeric_dtype(frame[column])
               and not pd.api.types.is_bool_dtype(frame[column])]
    categorical = [k for k in range(frame.shape[1]) if k not in numeric]
    encoder = ColumnTransformer([
        ("continuous", StandardScaler(), numeric),
        ("categorical", OneHotEncoder(sparse_output=False, handle_unknown="ignore"), categorical),
    ], sparse_threshold=0)
    return encoder.fit(frame)


def fit_log_likelihood(a, y, *, classification, estimator="auto", random_state=None,
                       return_quality=False):
    """Fit ``q̂(y | a)`` on the samples and return it as ICP's log-likelihood.

    Past ``_DENSITY_FIT_ROWS`` samples the density is fitted on a random subsample of
    about that many (stratified by class, every class kept) and evaluated on all.

    Parameters
    ----------
    a : ndarray of shape (n_samples, n_attributes)
        Numerically encoded sensitive attributes.
    y : ndarray of shape (n_samples,)
        Class codes ``0..K-1`` (classification) or real targets (regression).
    classification : bool
        Which kind of density to fit.
    estimator : "auto" or estimator, default="auto"
        A classifier with ``predict_proba`` (classification) or a regressor with
        ``predict(a, return_std=True)`` (regression); cloned before fitting.
    random_state : int, RandomState instance or None, default=None
        Seed of the density estimator (set when it has a ``random_state`` left at None).
        With None a fresh seed is drawn, so that scikit-learn's estimators do not draw
        from numpy's global generator. It also draws the subsample.
    return_quality : bool, default=False
        Also return the number of samples fitted and the held-out quality.

    Returns
    -------
    log_likelihood : ClassLogLikelihood or GaussianLogLikelihood
        ``L[i, j] = log q̂(yᵢ | aⱼ)`` on these samples, evaluated on demand.
    n_fitted : int
        Samples the density was fitted on (only with ``return_quality=True``).
    held_out_log_loss : float or None
        Mean of ``-log q̂(yᵢ | aᵢ)`` over the samples not fitted (the Gaussian's with its
        ``log √(2π)``); None when all were fitted (only with ``return_quality=True``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=(200, 1))
    >>> y = (a[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> fit_log_likelihood(a, y, classification=True, random_state=0).log_proba.shape
    (200, 2)
    """
    if isinstance(estimator, str) and estimator != "auto":
        raise ValueError(f"density_estimator must be 'auto' or an estimator, got {estimator!r}.")
    if random_state is None:
        random_state = local_random_state(None).randint(np.iinfo(np.int32).max)
    rows = _density_rows(y, classification, random_state)
    fitted = slice(None) if rows is None else rows
    if isinstance(estimator, str) and classification:
        selection_rows = _PENALTY_SELECTION_ROWS if rows is None else _SUBSAMPLE_PENALTY_SELECTION_ROWS
        estimator = _default_class_density(y[fitted], random_state, selection_rows)
    elif isinstance(estimator, str):
        estimator = HeteroscedasticMLP()
    estimator = clone(estimator)
    if getattr(estimator, "random_state", False) is None:
        estimator.set_params(random_state=random_state)
    # small dense problems: BLAS threads only contend with each other (and with other work)
    with threadpool_limits(limits=1, user_api="blas"):
        log_likelihood = _fit_log_likelihood(a, y, classification, estimator, fitted)
    if not return_quality:
        return log_likelihood
    if rows is None:
        return log_likelihood, len(y), None
    rest = np.setdiff1d(np.arange(len(y)), rows, assume_unique=True)
    constant = 0.0 if classification else 0.5 * np.log(2 * np.pi)  # GaussianLogLikelihood leaves it out
    return log_likelihood, len(rows), float(constant - np.mean(log_likelihood(rest, rest)))


#: Past this many samples the density is fitted on a random subsample of about this many.
_DENSITY_FIT_ROWS = 200_000

#: Fewest samples of a class the subsample keeps (all of a smaller class); the penalty choice needs 5.
_MIN_CLASS_ROWS = 5


def _density_rows(y, classification, random_state):
    """The sorted samples to fit the density on, or None for all of them.

    Up to ``_DENSITY_FIT_ROWS`` samples, all. Beyond, a random subsample: for regression
    ``_DENSITY_FIT_ROWS`` of them; for classification, of each class its share of
    ``_DENSITY_FIT_ROWS`` rounded, but at least ``_MIN_CLASS_ROWS`` (or all of a smaller
    class), so that every class is fitted.
    """
    n = len(y)
    if n <= _DENSITY_FIT_ROWS:
        return None
    order = local_random_state(random_state).permutation(n)
    if not classification:
        return np.sort(order[:_DENSITY_FIT_ROWS])
    counts = np.bincount(y)
    quota = np.minimum(counts, np.maximum(np.rint(counts * (_DENSITY_FIT_ROWS / n)).astype(np.intp),
                                          _MIN_CLASS_ROWS))
    by_class = order[np.argsort(y[order], kind="stable")]
    rank = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts)  # within its class, in order
    return np.sort(by_class[rank < np.repeat(quota, counts)])


def _fit_log_likelihood(a, y, classification, estimator, fitted):
    if classification and not hasattr(estimator, "predict_proba"):  # before a fit that may take long
        raise TypeError(f"density_estimator {type(estimator).__name__} has no predict_proba; "
                        "classification needs class probabilities.")
    with warnings.catch_warnings():
        # an auxiliary fit: a density that is not fully converged is still usable
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(a[fitted], y[fitted])
    if classification:
        log_proba = np.log(np.clip(estimator.predict_proba(a), _MIN_PROBA, None))
        return ClassLogLikelihood(log_proba, y)
    try:
        mean, std = estimator.predict(a, return_std=True)
    except TypeError as error:
        raise TypeError(f"density_estimator {type(estimator).__name__} must support "
                        "predict(X, return_std=True) to define a Gaussian q(y | a).") from error
    return GaussianLogLikelihood(y, mean, np.maximum(std, _MIN_PROBA * max(np.std(y), 1.0)))


_CLASS_DENSITY_ALPHAS = (1e-4, 1e-2, 1.0, 10.0, 100.0)

#: Most samples the choice of the density's penalty looks at (a stratified subsample beyond).
_PENALTY_SELECTION_ROWS = 50_000

#: The same when the density is fitted on a subsample (past ``_DENSITY_FIT_ROWS``): the five
#: candidate fits, not the final one, then cost most.
_SUBSAMPLE_PENALTY_SELECTION_ROWS = 10_000


def _default_class_density(y, random_state, selection_rows=None):
    """A 64-unit ``MLPClassifier`` (L-BFGS) whose L2 penalty is chosen by held-out log-loss.

    The penalty is chosen on a stratified 80/20 split of the samples (of a stratified
    subsample of ``selection_rows``, default ``_PENALTY_SELECTION_ROWS``, beyond that
    many: the five candidate fits then cost a fixed amount, and only the final fit grows
    with n) and the network refitted on all of them; with fewer than 50 samples or 5 of
    some class there is nothing to hold out, and with a single class nothing to choose
    (its probability is 1, and the held-out log-loss is undefined): the smallest penalty
    is used.
    """
    selection_rows = _PENALTY_SELECTION_ROWS if selection_rows is None else selection_rows
    network = MLPClassifier(hidden_layer_sizes=(64,), solver="lbfgs", max_iter=500,
                            alpha=_CLASS_DENSITY_ALPHAS[0], random_state=random_state)
    class_counts = np.bincount(y)
    if len(y) < 50 or len(class_counts) < 2 or class_counts.min() < _MIN_CLASS_ROWS:
        return network
    rows = np.arange(len(y))
    if len(y) > selection_rows:
        rows = train_test_split(rows, train_size=selection_rows, stratify=y,
                                random_state=random_state)[0]
    fit_rows, held_out = train_test_split(rows, test_size=0.2, stratify=y[rows],
                                          random_state=random_state)
    return GridSearchCV(network, {"alpha": _CLASS_DENSITY_ALPHAS}, scoring="neg_log_loss",
                        cv=[(fit_rows, held_out)])


class HeteroscedasticMLP(RegressorMixin, BaseEstimator):
    """Gaussian regression ``y | x ~ N(μ(x), σ²(x))`` with a one-hidden-layer network.

    Both the mean and the log standard deviation are outputs of one tanh hidden
    layer; the negative log-likelihood (plus an L2 penalty) is minimized by L-BFGS,
    stopping when the likelihood on a held-out ``validation_fraction`` of the samples
    has not improved for ``n_iter_no_change`` iterations (the best weights are kept).
    Targets are standardized internally.

    Parameters
    ----------
    n_hidden : int, default=64
        Units of the hidden layer.
    alpha : float, default=1e-4
        L2 penalty, scaled like scikit-learn's MLP (``alpha / (2 n) ‖W‖²``).
    validation_fraction : float, default=0.2
        Held-out share of samples for early stopping (not used below 20 samples).
    n_iter_no_change : int, default=20
        Patience of early stopping, in L-BFGS iterations.
    max_iter : int, default=500
        Maximum number of L-BFGS iterations.
    random_state : int, RandomState instance or None, default=None
        Seed of the initial weights and of the validation split.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    n_iter_ : int
        L-BFGS iterations run.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, size=(2000, 1))
    >>> y = x[:, 0] + np.exp(x[:, 0]) * rng.normal(size=2000)
    >>> model = HeteroscedasticMLP(random_state=0).fit(x, y)
    >>> mean, std = model.predict([[-1.0], [1.0]], return_std=True)
    >>> bool(std[0] < std[1])
    True
    """

    _parameter_constraints = {
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_hidden=64, alpha=1e-4, validation_fraction=0.2, n_iter_no_change=20,
                 max_iter=500, random_state=None):
        self.n_hidden = n_hidden
        self.alpha = alpha
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the mean and the standard deviation by maximum likelihood.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        y : array-like of shape (n_samples,)
            The real targets.

        Returns
        -------
        self : HeteroscedasticMLP
            The fitted model.
        """
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        rng = local_random_state(self.random_state)
        y_mean, y_scale = y.mean(), y.std() or 1.0
        z = (y - y_mean) / y_scale
        n, d = X.shape
        n_valid = int(self.validation_fraction * n) if n >= 20 else 0
        order = rng.permutation(n)
        train, valid = order[n_valid:], order[:n_valid]
        bound = np.sqrt(6.0 / (d + self.n_hidden))
        shapes = [(d, self.n_hidden), (self.n_hidden,), (self.n_hidden, 2), (2,)]
        theta = np.concatenate([rng.uniform(-bound, bound, d * self.n_hidden),
                                np.zeros(self.n_hidden),
                                rng.uniform(-1e-2, 1e-2, 2 * self.n_hidden), np.zeros(2)])
        unpack = _unpacker(shapes)
        X_train, z_train, X_valid, z_valid = X[train], z[train], X[valid], z[valid]  # copied once

        def loss(params):
            return _gaussian_nll(unpack(params), X_train, z_train, self.alpha)

        best = {"theta": theta, "nll": np.inf, "stale": 0}

        def watch(intermediate_result):
            nll = _gaussian_nll(unpack(intermediate_result.x), X_valid, z_valid, 0.0, grad=False)
            if nll < best["nll"] - 1e-6:
                best.update(theta=intermediate_result.x.copy(), nll=nll, stale=0)
            else:
                best["stale"] += 1
                if best["stale"] >= self.n_iter_no_change:
                    raise StopIteration

        result = minimize(loss, theta, jac=True, method="L-BFGS-B",
                          callback=watch if n_valid else None,
                          options={"maxiter": self.max_iter})
        self.coefs_ = unpack(best["theta"] if n_valid else result.x)
        self.n_iter_ = result.nit
        self.y_mean_, self.y_scale_ = y_mean, y_scale
        return self

    def predict(self, X, return_std=False):
        """Predict the conditional mean (and standard deviation).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        return_std : bool, default=False
            Also return the conditional standard deviation.

        Returns
        -------
        mean : ndarray of shape (n_samples,)
            The conditional mean.
        std : ndarray of shape (n_samples,)
            The conditional standard deviation (only with ``return_std=True``).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        mean, log_std = _forward(self.coefs_, X)[1:]
        mean = self.y_mean_ + self.y_scale_ * mean
        return (mean, self.y_scale_ * np.exp(log_std)) if return_std else mean


_LOG_STD_BOUND = 7.0  # in standardized units: σ within [e^-7, e^7] times the target's scale


def _unpacker(shapes):
    sizes = [int(np.prod(shape)) for shape in shapes]
    cuts = np.cumsum(sizes)[:-1]
    return lambda theta: [part.reshape(shape) for part, shape in zip(np.split(theta, cuts), shapes,
                                                                    strict=True)]


def _forward(coefs, X):
    w1, b1, w2, b2 = coefs
    hidden = np.tanh(X @ w1 + b1)
    out = hidden @ w2 + b2
    return hidden, out[:, 0], np.clip(out[:, 1], -_LOG_STD_BOUND, _LOG_STD_BOUND)


def _gaussian_nll(coefs, X, z, alpha, grad=True):
    """Mean Gaussian negative log-likelihood (without log √(2π)) and its gradient."""
    n = len(z)
    hidden, mean, log_std = _forward(coefs, X)
    scaled = (z - mean) * np.exp(-log_std)
    w1, _, w2, _ = coefs
    nll = np.mean(0.5 * scaled ** 2 + log_std) + alpha / (2 * n) * (np.sum(w1 ** 2) + np.sum(w2 ** 2))
    if not grad:
        return nll
    d_out = np.column_stack([-scaled * np.exp(-log_std), 1.0 - scaled ** 2]) / n
    d_out[np.abs(log_std) >= _LOG_STD_BOUND, 1] = 0.0
    d_hidden = (d_out @ w2.T) * (1.0 - hidden ** 2)
    gradient = [X.T @ d_hidden + alpha / n * w1, d_hidden.sum(axis=0),
                hidden.T @ d_out + alpha / n * w2, d_out.sum(axis=0)]
    return nll, np.concatenate([g.ravel() for g in gradient])
