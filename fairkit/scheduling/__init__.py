"""Fair allocation of jobs among groups of machines: maximin-share (MMS) scheduling.

Li, Wang, Shiji, "Settling the Maximin Share Fairness for Scheduling among Groups
of Machines", ICML 2025.
"""

from fairkit.scheduling._lp import lst_schedule
from fairkit.scheduling._scheduler import MMSScheduler
from fairkit.scheduling._shares import maximin_shares

__all__ = ["MMSScheduler", "lst_schedule", "maximin_shares"]
