"""Print the outcome and time of the integration tests in a pytest JUnit XML report.

    python .ci/integration_report.py REPORT.xml

The tests of the scale-out backends (Dask, Ray), of the AutoML integrations (FLAML, Optuna)
and of safe persistence (skops) must run in CI: the script lists each with its time, totals
them per file, and exits with 1 if any was skipped or none was found.
"""

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

INTEGRATIONS = ("test_scale_out", "test_flaml", "test_optuna", "test_persistence")


def main(path):
    cases = [case for case in ET.parse(path).iter("testcase")
             if case.get("classname", "").split(".")[-1] in INTEGRATIONS]
    totals, skipped = defaultdict(float), []
    for case in cases:
        outcome = next((child.tag for child in case if child.tag in {"skipped", "failure", "error"}),
                       "passed")
        seconds = float(case.get("time", 0))
        totals[case.get("classname").split(".")[-1]] += seconds
        print(f"{outcome:8s} {seconds:7.2f} s  {case.get('classname')}::{case.get('name')}")
        if outcome == "skipped":
            skipped.append(case.get("name"))
    for name, seconds in totals.items():
        print(f"{name}: {seconds:.1f} s")
    if not cases or skipped:
        print(f"integration tests skipped: {skipped}" if skipped else "no integration test ran",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
