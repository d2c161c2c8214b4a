"""Discovery of estimators, metrics, data sets, search spaces and demos through plugins.

Plugins are found through the entry-point group ``fairkit`` (fairkit's own
estimators register the same way, through ``fairkit._builtin``). Discovery is
lazy: nothing is imported until one of the functions below is first called.

Each plugin is isolated: one that fails to import, whose hook raises, or that
returns something invalid (a class that is not a scikit-learn estimator, a name
already taken) is skipped with a :class:`~fairkit.exceptions.FairkitPluginWarning`
that names it and says why. Two environment variables, read at discovery time,
change this:

``FAIRKIT_STRICT_PLUGINS=1``
    raise instead of warning.
``FAIRKIT_DISABLE_PLUGINS=a,b``
    do not load the plugins (entry-point names) ``a`` and ``b``.

Call :func:`reload_plugins` after changing them or installing a plugin.
"""

import os
import threading
import warnings
from dataclasses import dataclass, field
from importlib.metadata import entry_points

import pluggy
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClusterMixin,
    RegressorMixin,
    TransformerMixin,
)

from fairkit import hookspecs
from fairkit.exceptions import FairkitPluginWarning

__all__ = [
    "ENTRY_POINT_GROUP",
    "all_datasets",
    "all_demos",
    "all_estimators",
    "all_metrics",
    "all_search_spaces",
    "get_estimator",
    "list_plugins",
    "reload_plugins",
    "search_space",
]

ENTRY_POINT_GROUP = "fairkit"
BUILTIN_PLUGIN = "fairkit"

_TYPE_FILTERS = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "cluster": ClusterMixin,
    "transformer": TransformerMixin,
}

# hook name -> the short name used in listings (list_plugins, error messages)
_HOOKS = {
    "fairkit_estimators": "estimators",
    "fairkit_metrics": "metrics",
    "fairkit_datasets": "datasets",
    "fairkit_search_spaces": "search_spaces",
    "fairkit_demos": "demos",
}


@dataclass
class _Plugin:
    name: str
    distribution: str | None
    version: str | None
    status: str = "loaded"  # "loaded", "disabled" or "failed"
    error: str | None = None
    registered: dict = field(default_factory=dict)  # hook short name -> list of names


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name):
    return {item.strip() for item in os.environ.get(name, "").split(",") if item.strip()}


class _Registry:
    """Loads plugins once and collects what each hook returns, one hook at a time."""

    def __init__(self):
        self._lock = threading.RLock()
        self._manager = None
        self._plugins = {}
        self._collected = {}
        self._strict = False

    def _problem(self, plugin, message, exc=None):
        if self._strict:
            if exc is not None:
                raise exc
            raise TypeError(f"fairkit plugin {plugin.name!r}: {message}")
        warnings.warn(f"fairkit plugin {plugin.name!r} skipped: {message}", FairkitPluginWarning,
                      stacklevel=4)

    def manager(self):
        with self._lock:
            if self._manager is None:
                self._load()
            return self._manager

    def _load(self):
        self._strict = _env_flag("FAIRKIT_STRICT_PLUGINS")
        disabled = _env_list("FAIRKIT_DISABLE_PLUGINS")
        manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        manager.add_hookspecs(hookspecs)
        plugins = {}
        found = entry_points(group=ENTRY_POINT_GROUP)
        # fairkit's own plugin first, then the others by name: duplicates resolve the same way
        # on every machine, in favour of the built-ins.
        for ep in sorted(found, key=lambda ep: (ep.name != BUILTIN_PLUGIN, ep.name)):
            if ep.name in plugins:
                continue  # the same distribution seen twice on sys.path
            dist = getattr(ep, "dist", None)
            plugin = _Plugin(ep.name, dist.metadata["Name"] if dist else None,
                             dist.version if dist else None)
            plugins[ep.name] = plugin
            if ep.name in disabled:
                manager.set_blocked(ep.name)
                plugin.status = "disabled"
                continue
            try:
                manager.register(ep.load(), name=ep.name)
            except Exception as exc:
                plugin.status, plugin.error = "failed", f"{type(exc).__name__}: {exc}"
                self._problem(plugin, f"could not be loaded ({plugin.error})", exc)
        self._manager, self._plugins, self._collected = manager, plugins, {}

    def collect(self, hook_name):
        """Return ``{entry name: (value, plugin name)}`` for one hook, validated."""
        with self._lock:
            manager = self.manager()
            if hook_name in self._collected:
                return self._collected[hook_name]
            kind = _HOOKS[hook_name]
            entries = {}
            impls = {impl.plugin_name: impl for impl in getattr(manager.hook, hook_name).get_hookimpls()}
            for name, plugin in self._plugins.items():
                if name not in impls:
                    continue
                try:
                    result = impls[name].function()
                except Exception as exc:
                    self._problem(plugin, f"hook {hook_name} raised {type(exc).__name__}: {exc}", exc)
                    continue
                plugin.registered[kind] = []
                for key, value in self._items(plugin, kind, result):
                    if key in entries:
                        owner = entries[key][1]
                        self._problem(plugin, f"{kind[:-1].replace('_', ' ')} {key!r} is a duplicate "
                                              f"name, already registered by plugin {owner!r}")
                        continue
                    entries[key] = (value, name)
                    plugin.registered[kind].append(key)
            self._collected[hook_name] = entries
            return entries

    def _items(self, plugin, kind, result):
        """Yield the valid ``(name, value)`` pairs of one hook result, warning about the rest."""
        if kind == "estimators":
            if not isinstance(result, list | tuple):
                self._problem(plugin, f"fairkit_estimators must return a list of classes, "
                                      f"got {type(result).__name__}")
                return
            for cls in result:
                if not (isinstance(cls, type) and issubclass(cls, BaseEstimator)
                        and callable(getattr(cls, "fit", None))):
                    self._problem(plugin, f"{cls!r} is not a scikit-learn estimator class "
                                          "(a subclass of sklearn.base.BaseEstimator with fit)")
                    continue
                yield cls.__name__, cls
            return
        if not isinstance(result, dict):
            self._problem(plugin, f"fairkit_{kind} must return a dict, got {type(result).__name__}")
            return
        for key, value in result.items():
            valid = isinstance(value, dict) if kind == "search_spaces" else callable(value)
            if not isinstance(key, str) or not valid:
                need = "a dict of parameter distributions" if kind == "search_spaces" else "callable"
                self._problem(plugin, f"{kind} entry {key!r} must map a str to {need}")
                continue
            yield key, value

    def plugins(self):
        with self._lock:
            for hook_name in _HOOKS:  # collect loads the plugins first
                self.collect(hook_name)
            return list(self._plugins.values())

    def reload(self):
        with self._lock:
            self._manager = None
            self._plugins, self._collected = {}, {}


_registry = _Registry()


def reload_plugins():
    """Forget what was discovered; the next call discovers plugins again.

    Call it after installing a plugin or changing ``FAIRKIT_DISABLE_PLUGINS`` or
    ``FAIRKIT_STRICT_PLUGINS`` in a running process.
    """
    _registry.reload()


def _values(hook_name):
    return {name: value for name, (value, _) in _registry.collect(hook_name).items()}


def all_estimators(type_filter=None):
    """List the registered estimators.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "cluster", "transformer"} or list of them, default=None
        Keep only estimators of these kinds (by scikit-learn mixin). ``None`` keeps all.

    Returns
    -------
    estimators : list of (str, type)
        ``(name, class)`` pairs sorted by name.
    """
    estimators = _values("fairkit_estimators")
    if type_filter is not None:
        filters = [type_filter] if isinstance(type_filter, str) else list(type_filter)
        unknown = sorted(set(filters) - set(_TYPE_FILTERS))
        if unknown:
            raise ValueError(f"Unknown type_filter {unknown}; choose from {sorted(_TYPE_FILTERS)}.")
        mixins = tuple(_TYPE_FILTERS[name] for name in filters)
        estimators = {name: cls for name, cls in estimators.items() if issubclass(cls, mixins)}
    return sorted(estimators.items())


def _lookup(hook_name, name, what):
    values = _values(hook_name)
    if name not in values:
        raise ValueError(f"No {what} named {name!r} is registered; available: {sorted(values)}.")
    return values[name]


def get_estimator(name):
    """Return the estimator class registered under ``name`` (its class name)."""
    return _lookup("fairkit_estimators", name, "estimator")


def all_metrics():
    """Return ``{name: function}`` for every registered metric, sorted by name."""
    return dict(sorted(_values("fairkit_metrics").items()))


def all_datasets():
    """Return ``{name: function}`` for every registered data set loader or generator."""
    return dict(sorted(_values("fairkit_datasets").items()))


def all_demos():
    """Return ``{name: demo}`` for every registered demo (see ``fairkit demo``)."""
    return dict(sorted(_values("fairkit_demos").items()))


def all_search_spaces():
    """Return ``{estimator name: parameter distributions}`` for every registered search space."""
    return dict(sorted(_values("fairkit_search_spaces").items()))


def search_space(name):
    """Return the parameter distributions registered for the estimator ``name``.

    The result can be passed as ``param_distributions`` to
    :class:`~sklearn.model_selection.RandomizedSearchCV`.
    """
    return dict(_lookup("fairkit_search_spaces", name, "search space"))


def list_plugins():
    """Describe every discovered plugin.

    Returns
    -------
    plugins : list of dict
        One dict per entry point in the ``fairkit`` group with ``name``,
        ``distribution``, ``version``, ``status`` (``"loaded"``, ``"disabled"``
        or ``"failed"``), ``error`` and, for each hook, the names the plugin
        registered (``estimators``, ``metrics``, ``datasets``, ``search_spaces``,
        ``demos``).
    """
    return [
        {
            "name": plugin.name,
            "distribution": plugin.distribution,
            "version": plugin.version,
            "status": plugin.status,
            "error": plugin.error,
            **{kind: list(plugin.registered.get(kind, [])) for kind in _HOOKS.values()},
        }
        for plugin in _registry.plugins()
    ]
