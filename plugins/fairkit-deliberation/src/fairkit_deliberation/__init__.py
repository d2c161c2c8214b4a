"""fairkit-deliberation: comment rankings that satisfy justified representation.

Revel, Milli, Lu, Watson-Daniels, Nickel, "Representative Ranking for
Deliberation in the Public Sphere", ICML 2025. Registered with fairkit through
the ``deliberation`` entry point of the ``fairkit`` group.
"""

from fairkit_deliberation._approvals import coverage, is_justified
from fairkit_deliberation._datasets import QUESTIONS, load_deliberation
from fairkit_deliberation._ranker import JustifiedRepresentationRanker

__version__ = "0.1.0.dev0"

__all__ = [
    "QUESTIONS",
    "JustifiedRepresentationRanker",
    "coverage",
    "is_justified",
    "load_deliberation",
    "__version__",
]
