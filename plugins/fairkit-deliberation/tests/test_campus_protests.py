"""The paper's claim on the Remesh campus-protests questions (probabilities > 0.5 as approvals, k = 10).

Ranking by approvals alone leaves a cohesive group without a voice on at least
one question; the JR ranking gives it one with a few slots, at a small loss of
approval score.
"""

import numpy as np
import pytest

from fairkit_deliberation import (
    QUESTIONS,
    JustifiedRepresentationRanker,
    coverage,
    is_justified,
    load_deliberation,
)

K = 10


def rankings(data_home, method):
    for position in range(len(QUESTIONS["campus_protests"])):
        probs = load_deliberation("campus_protests", position, data_home=data_home).probs
        approvals = probs > 0.5
        counts = approvals.sum(axis=0)
        top = np.argsort(-counts, kind="stable")[:K]
        yield probs, counts, top, JustifiedRepresentationRanker(k=K, method=method).fit(probs)


def test_top_by_approvals_violates_jr_and_greedy_restores_it_cheaply(data_home):
    violated = []
    for probs, counts, top, ranker in rankings(data_home, "greedy"):
        violated.append(not is_justified(probs, top))
        assert is_justified(probs, ranker.ranking_)
        assert 1 <= ranker.jr_slots_ <= 3
        assert counts[ranker.ranking_].sum() >= 0.95 * counts[top].sum()
        assert ranker.coverage_ > coverage(probs, top)
    assert any(violated)


@pytest.mark.slow
def test_ilp_restores_jr_at_a_smaller_loss(data_home):
    for probs, counts, top, ilp in rankings(data_home, "ilp"):
        greedy = JustifiedRepresentationRanker(k=K).fit(probs)
        assert is_justified(probs, ilp.ranking_)
        assert counts[greedy.ranking_].sum() <= counts[ilp.ranking_].sum() <= counts[top].sum()
        assert counts[ilp.ranking_].sum() >= 0.99 * counts[top].sum()
