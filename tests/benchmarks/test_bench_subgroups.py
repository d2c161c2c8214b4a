"""The subgroups benchmark's own data: Adult's splits, with test parts balanced over the cells Y x A x S."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
pytest.importorskip("fairkit_subgroups")
from benchmarks.bench_subgroups import ADULT_TEST_SIZE, adult_study_data  # noqa: E402


def test_adult_splits_hold_out_a_test_part_balanced_over_the_eight_cells(data_home):
    X, y, attributes, cv = adult_study_data(2, n_rows=8000)
    assert len(X) == len(y) == len(attributes) == 8000
    assert (attributes["Y"] == y).all() and set(attributes.columns) == {"Y", "A", "S"}
    for train, test in cv:
        assert len(np.intersect1d(train, test)) == 0
        assert len(train) == 8000 - int(ADULT_TEST_SIZE * 8000)
        counts = attributes.iloc[test].value_counts()
        assert len(counts) == 8 and counts.nunique() == 1  # every cell, the same count
    assert not np.array_equal(cv[0][1], cv[1][1])
