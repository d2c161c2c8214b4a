"""fairkit-uncertainty: uncertainty-aware fairness metrics and abstention audits.

* UCerF (Wang et al., "Is Your Model Fairly Certain?", ICML 2025): :func:`ucerf_score`.
* Confidential Guardian (Rabanser et al., ICML 2025): calibration metrics, the
  bin-wise :func:`calibration_audit`, and the Mirage attack it detects
  (:func:`mirage_finetune`, which needs torch and imports it only when called).
* Selective classification: :class:`SelectiveClassifier` abstains or defers where it is unsure,
  on a confidence learned from its own correctness (Self-REF, Chuang et al., ICML 2025) or
  its probabilities, with equal coverage by group on request; :func:`selective_report` gives
  risk–coverage curves and each group's coverage and selective accuracy with intervals (and
  :func:`plot_risk_coverage` draws them), and registers the audit check ``abstain``
  (``fairkit audit --abstain COVERAGE``).

Registered with fairkit through the ``uncertainty`` entry point of the ``fairkit`` group.
"""

from fairkit_uncertainty._calibration import (
    CalibrationAudit,
    calibration_audit,
    expected_calibration_error,
    max_calibration_error,
    reliability_table,
)
from fairkit_uncertainty._mirage import mirage_finetune
from fairkit_uncertainty._plot import plot_risk_coverage
from fairkit_uncertainty._report import SelectiveReport, selective_report
from fairkit_uncertainty._selective import SelectiveClassifier
from fairkit_uncertainty._ucerf import desirability, ucerf_score

__version__ = "0.1.0.dev0"

__all__ = [
    "CalibrationAudit",
    "SelectiveClassifier",
    "SelectiveReport",
    "calibration_audit",
    "desirability",
    "expected_calibration_error",
    "max_calibration_error",
    "mirage_finetune",
    "plot_risk_coverage",
    "reliability_table",
    "selective_report",
    "ucerf_score",
    "__version__",
]
