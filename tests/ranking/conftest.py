"""Fixtures of the ranking tests: the NBA Coach of the Year ballots."""

import pytest

from fairkit.datasets import load_nba_coach_votes


@pytest.fixture(scope="module")
def nba(data_home):
    """The 2020-21 ballots as a DataFrame: 100 voters x 7 coaches, ranks (unranked tied at 4)."""
    return load_nba_coach_votes(data_home=data_home, as_frame=True).data
