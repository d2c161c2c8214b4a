"""Building blocks of fairkit's torch networks, for its estimators and for plugins.

A fully connected network (:class:`MLP`), minibatches sliced from tensors made once
(:class:`Minibatches`), seeded single-threaded training (:func:`seeded`), evaluation in
float64 (:func:`forward`), checks of a skorch net's ``net_params`` and device, and the
trained weights as numpy arrays for safe persistence (:func:`state_arrays`). Needs the
``nn`` extra (torch and skorch): ``import fairkit`` never imports this module; an
estimator imports it when it builds its network.
"""

import copy
import difflib
import inspect
from contextlib import contextmanager

import torch
from skorch import NeuralNet
from torch import nn

__all__ = ["COMPONENTS", "MLP", "Minibatches", "check_device", "check_net_params", "forward",
           "load_state_arrays", "seeded", "single_threaded", "state_arrays"]

#: The components a skorch ``NeuralNet`` builds from its ``prefix__name`` parameters when ``fit`` starts.
COMPONENTS = ("module", "criterion", "optimizer", "iterator_train", "iterator_valid", "dataset")


class MLP(nn.Module):
    """A fully connected ReLU network: ``n_inputs → hidden_layer_sizes → n_outputs``."""

    def __init__(self, n_inputs, n_outputs, hidden_layer_sizes=(64,)):
        super().__init__()
        layers, width = [], n_inputs
        for size in hidden_layer_sizes:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, n_outputs))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class Minibatches:
    """Shuffled minibatches of a skorch ``Dataset`` whose X is a dict of arrays.

    Slices whole batches out of tensors made once, instead of a ``DataLoader``
    collating one sample at a time (which costs more than these small networks).
    Shuffling draws from torch's global generator, which the estimator seeds in a
    forked state.
    """

    def __init__(self, dataset, batch_size, shuffle=False):
        self.X = {key: torch.as_tensor(value) for key, value in dataset.X.items()}
        self.y = torch.as_tensor(dataset.y)
        self.batch_size = batch_size
        self.shuffle = shuffle

    def __len__(self):
        return -(-len(self.y) // self.batch_size)

    def __iter__(self):
        n = len(self.y)
        order = torch.randperm(n) if self.shuffle else torch.arange(n)
        for rows in order.split(self.batch_size):
            yield {key: value[rows] for key, value in self.X.items()}, self.y[rows]


def check_device(device):
    """Refuse a torch device that this machine's torch cannot hold tensors on.

    Parameters
    ----------
    device : str
        The estimator's ``device`` parameter.

    Raises
    ------
    ValueError
        Naming ``device``: an unknown device type, or a backend this torch was built
        without or cannot reach (``"cuda"`` on a CPU-only build, ``"mps"`` off Apple
        silicon, a GPU index that does not exist).
    """
    try:
        torch.empty(0, device=device)
    except Exception as error:  # torch raises RuntimeError, AssertionError or NotImplementedError
        reason = str(error).split(". ")[0].splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"device={device!r} cannot be used by this torch ({torch.__version__}): "
                         f"{reason}. Use device='cpu', or a device this torch supports "
                         "(torch.cuda.is_available() tells whether 'cuda' is).") from None


def _arguments(component):
    """The names of the arguments ``component`` (a class or callable) takes, and whether it takes any.

    A component that takes ``**kwargs``, or whose signature cannot be read, takes any name.
    """
    if isinstance(component, nn.Module):  # skorch rebuilds an instance from its class
        component = type(component)
    try:
        parameters = inspect.signature(component).parameters.values()
    except (TypeError, ValueError):
        return set(), True
    names = {p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    return names, any(p.kind is p.VAR_KEYWORD for p in parameters)


def _did_you_mean(name, names, prefix=""):
    close = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean {prefix + close[0]!r}?)" if close else ""


def _unusable(net, key, components):
    """Why ``net`` cannot use the parameter ``key``, or None if it can."""
    prefix, dunder, name = key.partition("__")
    if not dunder:  # a parameter of the net itself (of its class or a base class)
        known = set().union(*(_arguments(cls)[0] for cls in type(net).__mro__ if issubclass(cls, NeuralNet)))
        return None if key in known else f"{key!r}: the net has no such parameter{_did_you_mean(key, known)}"
    if prefix in components:
        component = getattr(net, prefix)
        accepted, takes_any = _arguments(component)
        if takes_any or name in accepted or (prefix.endswith("optimizer") and name == "param_groups"):
            return None
        accepted -= {"params", "dataset"}  # passed by the net, not by the user
        title = getattr(component, "__name__", type(component).__name__)
        return (f"{key!r}: {title} takes no argument {name!r}{_did_you_mean(name, accepted, prefix + '__')}; "
                f"it takes {', '.join(sorted(accepted))}")
    if prefix in net.prefixes_:  # callbacks and the like: skorch checks those itself
        return None
    return (f"{key!r}: the net has no component {prefix!r}{_did_you_mean(prefix, components)}; "
            f"its components are {', '.join(components)} and callbacks")


def check_net_params(net, net_params, components=COMPONENTS):
    """Refuse the keys of ``net_params`` that ``net`` (built with them) would not accept.

    skorch reads ``prefix__name`` parameters only when ``fit`` builds the components,
    and passes them on as keyword arguments: a misspelt name would surface there as
    the component's ``TypeError`` (``Adam.__init__() got an unexpected keyword
    argument``). This checks every name against the net's and its components'
    signatures first.

    Parameters
    ----------
    net : AdversarialNet
        The net, built with the estimator's parameters updated by ``net_params``.
    net_params : dict
        The estimator's ``net_params``.
    components : tuple of str, default=COMPONENTS
        The components the net builds from ``prefix__name`` parameters when ``fit``
        starts: skorch's, and those a subclass adds (a second module, its optimizer).

    Raises
    ------
    ValueError
        Naming ``net_params``, each key that cannot be used and what is accepted there.
    """
    problems = [problem for key in net_params if (problem := _unusable(net, key, components))]
    if problems:
        raise ValueError(f"net_params holds parameters the skorch net cannot use: {'; '.join(problems)}. "
                         "Correct or remove them: a key is a parameter of the net (lr, max_epochs, ...) "
                         "or prefix__name, an argument of one of its components.")


@contextmanager
def single_threaded():
    """Run torch on one CPU thread: these networks are small, and more threads only contend."""
    n_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n_threads)


@contextmanager
def seeded(seed):
    """One thread, and torch's global CPU generator seeded; its state is restored on exit."""
    with single_threaded(), torch.random.fork_rng(devices=[]):
        torch.random.default_generator.manual_seed(int(seed))
        yield


def forward(net, X, chunk_size=65536):
    """The predictor's raw output on ``X``, computed in float64.

    Trained in float32, evaluated in double precision on a copy of the module, so
    that a sample's prediction does not depend on which other samples share its
    batch. Calls the module directly rather than through a DataLoader, which would
    draw a seed from torch's global generator.
    """
    module = copy.deepcopy(net.module_).double().eval()
    with single_threaded(), torch.no_grad():
        chunks = torch.split(torch.as_tensor(X, dtype=torch.float64, device=net.device), chunk_size)
        return torch.cat([module(chunk) for chunk in chunks]).cpu().numpy()


def state_arrays(net, modules=("module",)):
    """The state dicts of the net's trained ``modules`` (``module`` for ``module_``), in numpy arrays."""
    return {name: {key: tensor.cpu().numpy() for key, tensor in getattr(net, name + "_").state_dict().items()}
            for name in modules}


def load_state_arrays(net, arrays):
    """Initialize the untrained ``net`` and load ``arrays`` (from :func:`state_arrays`) into its modules.

    The random initial weights, which the loaded ones replace, are drawn in a forked
    torch state, so torch's global generator is left untouched.
    """
    with seeded(0):
        net.initialize()
    for name, state in arrays.items():
        getattr(net, name + "_").load_state_dict({key: torch.tensor(value) for key, value in state.items()})
    return net
