"""JustifiedRepresentationRanker: JR always holds, the ILP is optimal, the estimator conventions."""

import os
import tempfile
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from fairkit import FairkitWarning
from fairkit.utils.estimator_checks import parametrize_with_checks
from fairkit_deliberation import JustifiedRepresentationRanker, is_justified
from fairkit_deliberation._ilp import make_solver


@st.composite
def instances(draw, max_users=40, max_comments=12):
    """A random approval profile (with planted like-minded blocs), per-comment scores and k."""
    n_users = draw(st.integers(1, max_users))
    n_comments = draw(st.integers(1, max_comments))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    blocs = rng.integers(0, draw(st.integers(1, 4)), size=n_users)
    comment_bloc = rng.integers(0, 4, size=n_comments)
    p = np.where(blocs[:, None] == comment_bloc[None, :], 0.7, draw(st.sampled_from([0.0, 0.05, 0.3])))
    approvals = (rng.random((n_users, n_comments)) < p).astype(int)
    scores = np.round(rng.random(n_comments) * 10, 1) if draw(st.booleans()) else None
    k = draw(st.integers(1, n_comments))
    return approvals, scores, k


def best_justified_score(approvals, scores, k):
    """The highest total score of k comments satisfying JR, by enumerating every k-subset."""
    return max(scores[list(subset)].sum() for subset in combinations(range(approvals.shape[1]), k)
               if is_justified(approvals, list(subset)))


def approval_counts(approvals):
    return approvals.sum(axis=0).astype(float)


@settings(max_examples=120, deadline=None)
@given(instances(max_users=200, max_comments=30))
def test_greedy_always_satisfies_jr_within_k_slots(instance):
    approvals, scores, k = instance
    ranker = JustifiedRepresentationRanker(k=k).fit(approvals, scores=scores)
    assert is_justified(approvals, ranker.ranking_, k=k)
    assert len(ranker.ranking_) == k and len(set(ranker.ranking_.tolist())) == k
    assert 0 <= ranker.jr_slots_ <= k


@settings(max_examples=100, deadline=None)
@given(instances())
def test_greedy_fills_the_slots_left_after_stage_one_by_score(instance):
    # the cost bound of the two stages: at least the k - r best scores, r = jr_slots_
    approvals, scores, k = instance
    scores = approval_counts(approvals) if scores is None else scores
    ranker = JustifiedRepresentationRanker(k=k).fit(approvals, scores=scores)
    r = ranker.jr_slots_
    assert scores[ranker.ranking_].sum() >= np.sort(scores)[::-1][:k - r].sum() - 1e-9


def test_greedy_stage_one_picks_the_largest_uncovered_groups_in_order():
    # n = 12, k = 3, quota 4: blocs of 6, 4 and 2 users, each with its own comment;
    # comment 3 is approved by everybody in the first bloc and scores highest
    X = np.zeros((12, 4), dtype=int)
    X[:6, 0] = X[6:10, 1] = X[10:, 2] = 1
    X[:6, 3] = 1
    scores = np.array([1.0, 0.5, 0.2, 2.0])
    ranker = JustifiedRepresentationRanker(k=3).fit(X, scores=scores)
    # stage 1: comment 3 (ties with 0 on 6 uncovered, wins on score), then comment 1 (4 >= 12/3);
    # then the 2 users of comment 2 are below the quota; stage 2 adds comment 0 by score
    assert ranker.jr_slots_ == 2
    assert ranker.ranking_.tolist() == [3, 0, 1]  # ranked by score
    assert ranker.coverage_ == pytest.approx(10 / 12)


@settings(max_examples=40, deadline=None)
@given(instances(max_users=12, max_comments=7))
def test_ilp_is_optimal_and_at_least_greedy(instance):
    approvals, scores, k = instance
    scores = approval_counts(approvals) if scores is None else scores
    greedy = JustifiedRepresentationRanker(k=k).fit(approvals, scores=scores)
    ilp = JustifiedRepresentationRanker(k=k, method="ilp").fit(approvals, scores=scores)
    assert is_justified(approvals, ilp.ranking_, k=k)
    assert 0 <= ilp.jr_slots_ <= k
    best = best_justified_score(approvals, scores, k)
    assert scores[ilp.ranking_].sum() == pytest.approx(best, abs=1e-6)
    assert scores[ilp.ranking_].sum() >= scores[greedy.ranking_].sum() - 1e-6


def test_ilp_beats_greedy_where_greedy_coverage_is_costly():
    # n = 8, k = 2 (quota 4): comment 0 covers everybody but scores 0; comments 1 and 2 cover
    # the two halves and score 1 each; nobody approves comment 3, which scores 1.5. Greedy covers
    # everybody with comment 0 and adds comment 3 (1.5); the ILP takes 1 and 2 (2.0).
    X = np.zeros((8, 4), dtype=int)
    X[:, 0] = 1
    X[:4, 1] = X[4:, 2] = 1
    scores = np.array([0.0, 1.0, 1.0, 1.5])
    greedy = JustifiedRepresentationRanker(k=2).fit(X, scores=scores)
    ilp = JustifiedRepresentationRanker(k=2, method="ilp").fit(X, scores=scores)
    assert greedy.ranking_.tolist() == [3, 0]
    assert sorted(ilp.ranking_.tolist()) == [1, 2]


def test_ilp_leaves_no_files_and_rejects_unknown_solvers(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    X = np.random.default_rng(0).random((30, 8))
    JustifiedRepresentationRanker(k=3, method="ilp").fit(X)
    assert os.listdir(tmp_path) == []
    ranker = JustifiedRepresentationRanker(k=3, method="ilp", solver="NO_SUCH_SOLVER")
    with pytest.raises(ValueError, match="not an available PuLP solver"):
        ranker.fit(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(ranker)


@pytest.mark.parametrize("cbc", ["COIN_CMD", "PULP_CBC_CMD"])
def test_the_default_solver_is_cbc_and_emits_no_deprecation_warning(cbc, monkeypatch):
    # filterwarnings=error: PuLP 3.3's DeprecationWarning for its bundled CBC must not escape
    pulp = pytest.importorskip("pulp")
    available = pulp.listSolvers(onlyAvailable=True)
    if cbc not in available:
        pytest.skip(f"{cbc} is not available here")
    monkeypatch.setattr(pulp, "listSolvers", lambda onlyAvailable=False: [
        name for name in available if name == cbc or name not in ("COIN_CMD", "PULP_CBC_CMD")])
    assert make_solver(None).name == cbc
    X = np.random.default_rng(0).random((30, 8))
    assert is_justified(X, JustifiedRepresentationRanker(k=3, method="ilp").fit(X).ranking_)


def test_without_cbc_the_ilp_names_the_package_to_install(monkeypatch):
    pulp = pytest.importorskip("pulp")
    monkeypatch.setattr(pulp, "listSolvers", lambda onlyAvailable=False: [])
    with pytest.raises(ImportError, match=r"pulp\[cbc\]"):
        JustifiedRepresentationRanker(k=3, method="ilp").fit(np.random.default_rng(0).random((30, 8)))


def test_sparse_dense_and_dataframe_input_agree():
    rng = np.random.default_rng(1)
    probs = rng.random((50, 15))
    dense = JustifiedRepresentationRanker(k=4).fit(probs)
    for X in (sparse.csr_matrix(probs), sparse.csc_matrix(probs), sparse.coo_matrix(probs)):
        np.testing.assert_array_equal(JustifiedRepresentationRanker(k=4).fit(X).ranking_, dense.ranking_)
    frame = pd.DataFrame(probs, columns=[f"comment {j}" for j in range(15)])
    ranker = JustifiedRepresentationRanker(k=4).fit(frame)
    np.testing.assert_array_equal(ranker.ranking_, dense.ranking_)
    assert ranker.feature_names_in_[ranker.ranking_[0]] == f"comment {dense.ranking_[0]}"


def test_approval_threshold_and_default_scores():
    probs = np.array([[0.9, 0.6, 0.4], [0.9, 0.6, 0.4], [0.1, 0.6, 0.4]])
    assert JustifiedRepresentationRanker(k=1).fit(probs).ranking_.tolist() == [1]  # 3 approvals
    assert JustifiedRepresentationRanker(k=1, approval_threshold=0.3).fit(probs).ranking_.tolist() == [1]
    # at 0.7 only comment 0 has approvers: 2 of 3 users, quota 3 for k = 1, so score alone decides
    lifted = JustifiedRepresentationRanker(k=1, approval_threshold=0.7).fit(probs)
    assert lifted.ranking_.tolist() == [0] and lifted.jr_slots_ == 0


def test_more_slots_than_comments_ranks_them_all():
    with pytest.warns(FairkitWarning, match="k=5 exceeds the 3 comments"):
        ranker = JustifiedRepresentationRanker(k=5).fit(np.eye(3), scores=[0.0, 2.0, 1.0])
    assert ranker.ranking_.tolist() == [1, 2, 0]
    assert ranker.coverage_ == 1.0


@pytest.mark.parametrize(
    ("scores", "message"),
    [([1.0, 2.0], r"one value per comment: shape \(3,\)"), ([1.0, np.nan, 0.0], "NaN"),
     ([[1.0, 2.0, 3.0]], "one value per comment")],
)
def test_bad_scores_raise_and_leave_the_estimator_as_it_was(scores, message):
    X = np.eye(3)
    fresh = JustifiedRepresentationRanker(k=2)
    with pytest.raises(ValueError, match=message):
        fresh.fit(X, scores=scores)
    with pytest.raises(NotFittedError):
        check_is_fitted(fresh)
    fitted = JustifiedRepresentationRanker(k=2).fit(np.ones((4, 5)))
    state = {key: np.copy(value) for key, value in vars(fitted).items()}
    with pytest.raises(ValueError, match=message):
        fitted.fit(X, scores=scores)
    assert vars(fitted).keys() == state.keys()
    for key, value in state.items():
        np.testing.assert_array_equal(vars(fitted)[key], value)


def test_bad_parameters_raise():
    with pytest.raises(ValueError, match="'method' parameter"):
        JustifiedRepresentationRanker(method="lp").fit(np.eye(3))
    with pytest.raises(ValueError, match="'approval_threshold' parameter"):
        JustifiedRepresentationRanker(approval_threshold=-1).fit(np.eye(3))
    with pytest.raises(ValueError, match="'k' parameter"):
        clone(JustifiedRepresentationRanker(k=0)).fit(np.eye(3))


@parametrize_with_checks([JustifiedRepresentationRanker(**params)
                          for params in JustifiedRepresentationRanker.get_test_params()])
def test_estimator_checks(estimator, check):
    check(estimator)


# Bad input (issue 14)

@pytest.mark.parametrize("X", [-np.array([[1, 1, 0], [0, 1, 1]]),
                               sparse.csr_matrix(np.array([[1, 1, 0], [0, -1, 1]]))],
                         ids=["negated approvals", "a -1 vote, sparse"])
def test_negative_approvals_are_refused_naming_X_and_leave_no_state(X):
    ranker = JustifiedRepresentationRanker(k=2)
    with pytest.raises(ValueError, match=r"Negative values in data: X holds approval values below 0 "
                                         r"\(the smallest is -1\).*\(X > 0\)\.astype\(int\)"):
        ranker.fit(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(ranker)


def test_no_approval_above_the_threshold_warns():
    X = np.array([[1, 1, 0], [0, 1, 1]])
    with pytest.warns(FairkitWarning, match=r"No entry of X is above approval_threshold=1: no user approves"):
        JustifiedRepresentationRanker(k=2, approval_threshold=1).fit(X)
