"""Discovery of estimators, metrics, data sets, search spaces, demos and audit checks through plugins.

Plugins are found through the entry-point group ``fairkit`` (fairkit's own
estimators register the same way, through ``fairkit._builtin``). Discovery is
lazy: nothing is imported until one of the functions below is first called.

Each plugin is isolated: one that fails to import (an exception, or ``sys.exit``:
anything but ``KeyboardInterrupt``), whose entry point is malformed, whose hook
raises, or that returns something invalid (a class that is not a scikit-learn
estimator, a name already taken) is skipped with a
:class:`~fairkit.exceptions.FairkitPluginWarning` that names it and says why.
The entry-point name ``fairkit`` belongs to the built-in plugin (``fairkit._builtin``
of the ``fairkit`` distribution): another plugin of that name, or of any name already
taken, is skipped. A hook function whose name is no hook of :mod:`fairkit.hookspecs`
(a misspelling such as ``fairkit_estimator``) is never called: it is reported the
same way, and the plugin's other hooks still register. :func:`list_plugins` shows
every problem reported for a plugin in its ``error``. Two environment variables,
read at discovery time, change this:

``FAIRKIT_STRICT_PLUGINS=1``
    raise instead of warning: the plugin's own exception (a ``SystemExit`` as a
    ``RuntimeError``), or a ``TypeError``, ``ValueError`` (a name clash) or
    ``pluggy.PluginValidationError`` (an unknown hook) that names the plugin.
``FAIRKIT_DISABLE_PLUGINS=a,b``
    do not load the plugins (entry-point names) ``a`` and ``b``; a name that no
    installed plugin has is reported (a ``FairkitPluginWarning`` listing the installed
    plugins, a ``ValueError`` in strict mode).

Call :func:`reload_plugins` after changing them or installing a plugin.
"""

import difflib
import os
import threading
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
from fairkit.utils._warnings import warn_user

__all__ = [
    "ENTRY_POINT_GROUP",
    "all_audit_checks",
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
BUILTIN_PLUGIN = "fairkit"  # the entry-point name, distribution and module of fairkit's own plugin
_BUILTIN_MODULE = "fairkit._builtin"

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
    "fairkit_audit_checks": "audit_checks",
}


@dataclass
class _Plugin:
    name: str
    distribution: str | None
    version: str | None
    status: str = "loaded"  # "loaded", "disabled" or "failed"
    error: str | None = None  # every problem reported, joined by "; "
    registered: dict = field(default_factory=dict)  # hook short name -> list of names


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name):
    return {item.strip() for item in os.environ.get(name, "").split(",") if item.strip()}


def _describe(exc):
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _distribution(ep):
    dist = getattr(ep, "dist", None)
    return (dist.metadata["Name"], dist.version) if dist else (None, None)


def _is_builtin(ep):
    return (ep.name, ep.value, _distribution(ep)[0]) == (BUILTIN_PLUGIN, _BUILTIN_MODULE, BUILTIN_PLUGIN)


def _load_entry_point(ep):
    if ep.pattern.match(ep.value) is None:
        raise ValueError("not an object reference; write 'package.module' or 'package.module:attribute'")
    return ep.load()


class _Registry:
    """Loads plugins once and collects what each hook returns, one hook at a time."""

    def __init__(self):
        self._lock = threading.RLock()
        self._manager = None
        self._plugins = []
        self._collected = {}
        self._strict = False

    def _problem(self, plugin, message, error=TypeError, *, skipped=True):
        """Record a problem of ``plugin`` and warn; in strict mode raise ``error`` instead.

        ``error`` is the plugin's own exception, re-raised (one that is not an ``Exception``,
        such as ``SystemExit``, is raised as a ``RuntimeError`` from it), or an exception class
        raised with the message.
        """
        plugin.error = message if plugin.error is None else f"{plugin.error}; {message}"
        text = f"fairkit plugin {plugin.name!r}: {message}"
        if self._strict:
            if isinstance(error, Exception):
                raise error
            if isinstance(error, BaseException):
                raise RuntimeError(text) from error
            raise error(text)
        if skipped:
            text = f"fairkit plugin {plugin.name!r} skipped: {message}"
        warn_user(text, FairkitPluginWarning)

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
        plugins, owners = [], {}  # owners: entry-point name -> the distribution whose plugin has it
        # the built-in plugin first, then by name: a name clash resolves the same way on every machine
        found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (not _is_builtin(ep), ep.name))
        for ep in found:
            plugin = _Plugin(ep.name, *_distribution(ep))
            plugins.append(plugin)
            if ep.name == BUILTIN_PLUGIN and not _is_builtin(ep):
                clash = f"the name {ep.name!r} is reserved for fairkit's built-in plugin ({_BUILTIN_MODULE})"
            elif ep.name in owners:
                clash = f"the name {ep.name!r} is taken by the plugin of distribution {owners[ep.name]!r}"
            else:
                clash = None
            if clash:
                plugin.status = "failed"
                self._problem(plugin, f"{clash}; distribution {plugin.distribution!r} must give its entry "
                                      "point another name", ValueError)
                continue
            owners[ep.name] = plugin.distribution
            if ep.name in disabled:
                manager.set_blocked(ep.name)
                plugin.status = "disabled"
                continue
            try:
                module = _load_entry_point(ep)
                manager.register(module, name=ep.name)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit too: a plugin cannot end the program
                plugin.status = "failed"
                self._problem(plugin, f"could not load entry point {ep.name} = {ep.value!r}: "
                                      f"{_describe(exc)}", exc)
                continue
            self._check_hook_names(plugin, manager, module)
        self._check_disabled_names(disabled, {ep.name for ep in found})
        self._manager, self._plugins, self._collected = manager, plugins, {}

    def _check_disabled_names(self, disabled, installed):
        """Report the names in ``FAIRKIT_DISABLE_PLUGINS`` of no installed plugin: they block nothing."""
        unknown = sorted(disabled - installed)
        if not unknown:
            return
        message = (f"FAIRKIT_DISABLE_PLUGINS names no installed plugin called "
                   f"{', '.join(map(repr, unknown))}, so it blocks nothing under that name; the installed "
                   f"plugins are {', '.join(sorted(installed)) or 'none'} (their entry-point names, as in "
                   "`fairkit plugins`).")
        if self._strict:
            raise ValueError(message)
        warn_user(message, FairkitPluginWarning)

    def _check_hook_names(self, plugin, manager, module):
        """Report the hook functions of ``module`` that match no hook specification (never called)."""
        for caller in manager.get_hookcallers(module):
            if caller.has_spec() or all(impl.optionalhook for impl in caller.get_hookimpls()
                                        if impl.plugin is module):
                continue
            close = difflib.get_close_matches(caller.name, _HOOKS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            message = (f"hook {caller.name!r} is not a fairkit hook and is never called ({hint}the hooks are "
                       f"{', '.join(_HOOKS)})")
            error = pluggy.PluginValidationError(module, f"fairkit plugin {plugin.name!r}: {message}")
            self._problem(plugin, message, error, skipped=False)

    def collect(self, hook_name):
        """Return ``{entry name: (value, plugin name)}`` for one hook, validated."""
        with self._lock:
            manager = self.manager()
            if hook_name in self._collected:
                return self._collected[hook_name]
            kind = _HOOKS[hook_name]
            entries = {}
            impls = {impl.plugin_name: impl for impl in getattr(manager.hook, hook_name).get_hookimpls()}
            for plugin in self._plugins:
                name = plugin.name
                if plugin.status != "loaded" or name not in impls:
                    continue
                try:
                    result = impls[name].function()
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # SystemExit too, as at import
                    self._problem(plugin, f"hook {hook_name} raised {_describe(exc)}", exc)
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
            return list(self._plugins)

    def reload(self):
        with self._lock:
            self._manager = None
            self._plugins, self._collected = [], {}


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


def all_audit_checks():
    """Return ``{name: check}`` for every registered audit check (see ``fairkit audit``)."""
    return dict(sorted(_values("fairkit_audit_checks").items()))


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
        or ``"failed"``), ``error`` (every problem reported for the plugin, joined
        by ``"; "``, or ``None``: why it failed, or, for a loaded plugin, what was
        skipped) and, for each hook, the names the plugin registered
        (``estimators``, ``metrics``, ``datasets``, ``search_spaces``, ``demos``,
        ``audit_checks``).
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
