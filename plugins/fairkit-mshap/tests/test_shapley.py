"""Shapley values: the axioms, known answers, a brute-force oracle, and the permutation estimate's error."""

import itertools
from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairkit_mshap import shapley_values


def code(mask):
    """The integer whose bits are the coalition's members."""
    return int(np.dot(np.asarray(mask, dtype=np.int64), 1 << np.arange(len(mask))))


def table_game(table):
    """A game given by a table of ``2**n`` values indexed by coalition code."""
    return lambda mask: table[code(mask)]


def brute_force_shapley(table, n_players):
    """Average marginal contribution over all ``n!`` orders in which the players can join."""
    phi = np.zeros(n_players)
    for order in itertools.permutations(range(n_players)):
        joined = 0
        for player in order:
            phi[player] += table[joined | (1 << player)] - table[joined]
            joined |= 1 << player
    return phi / factorial(n_players)


def remap(table, n_players, rule):
    """The table ``w(X) = rule(X)`` for every coalition code ``X``."""
    return np.array([rule(x) for x in range(2**n_players)])


values = st.floats(-10, 10, allow_nan=False)


@st.composite
def games(draw, min_players=1, max_players=8):
    """A random game: ``n`` players and an arbitrary table of ``2**n`` values, ``v(∅)`` included."""
    n_players = draw(st.integers(min_players, max_players))
    return n_players, np.array(draw(st.lists(values, min_size=2**n_players, max_size=2**n_players)))


# The axioms, on random games

@settings(max_examples=60, deadline=None)
@given(games())
def test_efficiency_the_values_sum_to_the_grand_coalition_minus_the_empty_one(game):
    n_players, table = game
    phi = shapley_values(table_game(table), n_players, method="exact").values
    assert abs(phi.sum() - (table[-1] - table[0])) <= 1e-10


@settings(max_examples=40, deadline=None)
@given(games(min_players=2), st.data())
def test_symmetry_two_interchangeable_players_get_the_same(game, data):
    n_players, table = game
    i, j = data.draw(st.lists(st.integers(0, n_players - 1), min_size=2, max_size=2, unique=True))

    def swap(x):
        bit_i, bit_j = (x >> i) & 1, (x >> j) & 1
        return x & ~((1 << i) | (1 << j)) | (bit_i << j) | (bit_j << i)

    symmetric = remap(table, n_players, lambda x: table[x] + table[swap(x)])
    phi = shapley_values(table_game(symmetric), n_players, method="exact").values
    assert abs(phi[i] - phi[j]) <= 1e-10


@settings(max_examples=40, deadline=None)
@given(games(), st.data(), values)
def test_a_null_player_gets_nothing_and_a_dummy_gets_her_own_worth(game, data, worth):
    n_players, table = game
    i = data.draw(st.integers(0, n_players - 1))
    null = remap(table, n_players, lambda x: table[x & ~(1 << i)])
    assert abs(shapley_values(table_game(null), n_players, method="exact").values[i]) <= 1e-12
    dummy = remap(table, n_players, lambda x: table[x & ~(1 << i)] + worth * ((x >> i) & 1))
    assert abs(shapley_values(table_game(dummy), n_players, method="exact").values[i] - worth) <= 1e-10


@settings(max_examples=40, deadline=None)
@given(games(), st.data())
def test_additivity_the_values_of_a_sum_of_games_are_the_sums(game, data):
    n_players, v = game
    w = np.array(data.draw(st.lists(values, min_size=2**n_players, max_size=2**n_players)))
    phi = [shapley_values(table_game(t), n_players, method="exact").values for t in (v, w, v + w)]
    np.testing.assert_allclose(phi[2], phi[0] + phi[1], rtol=0, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(games(max_players=6))
def test_exact_matches_the_average_over_all_orders(game):
    n_players, table = game
    phi = shapley_values(table_game(table), n_players, method="exact").values
    np.testing.assert_allclose(phi, brute_force_shapley(table, n_players), rtol=0, atol=1e-10)


# Known answers

def test_glove_game():
    # player 0 holds a left glove, players 1 and 2 a right one; a pair is worth 1
    phi = shapley_values(lambda m: float(m[0] and (m[1] or m[2])), 3, method="exact").values
    np.testing.assert_allclose(phi, [2 / 3, 1 / 6, 1 / 6], atol=1e-15)


def test_three_clients_of_the_shapley_value_fl_readme():
    # akassharjun/ShapleyValueFL README: v(0)=40, v(1)=60, v(2)=80, v(01)=70, v(02)=75, v(12)=85, v(012)=90.
    # Its table prints (16.67, 30, 20) but two of its marginal contributions are wrong (order 2<-0<-1 gives
    # client 0 75-80 = -5, not 0, and client 1 90-75 = 15, not 10). By hand, e.g. for client 0:
    # 40/3 + (70-60)/6 + (75-80)/6 + (90-85)/3 = 95/6.
    table = np.array([0, 40, 60, 70, 80, 75, 85, 90], dtype=float)
    phi = shapley_values(table_game(table), 3, method="exact").values
    np.testing.assert_allclose(phi, [95 / 6, 185 / 6, 260 / 6], atol=1e-12)


@pytest.mark.parametrize("carriers", [[0], [1, 3], [0, 2, 4, 5], list(range(6))])
def test_unanimity_game_splits_one_among_its_carriers(carriers):
    # u_T(X) = 1 when X holds all of T
    phi = shapley_values(lambda m: float(m[carriers].all()), 6, method="exact").values
    expected = np.zeros(6)
    expected[carriers] = 1 / len(carriers)
    np.testing.assert_allclose(phi, expected, atol=1e-14)


def test_additive_game_gives_each_player_her_own_worth():
    worth = np.array([3.0, -1.5, 0.25, 7.0])
    phi = shapley_values(lambda m: 2.0 + worth @ m, 4, method="exact").values
    np.testing.assert_allclose(phi, worth, atol=1e-14)


@pytest.mark.parametrize("method", ["exact", "permutation"])
def test_one_player_gets_the_grand_coalition_minus_the_empty_one(method):
    result = shapley_values(lambda m: 5.0 if m[0] else 2.0, 1, method=method, random_state=0)
    np.testing.assert_allclose(result.values, [3.0], atol=1e-15)


# The permutation estimate

def random_table_game(n_players, seed):
    table = np.random.default_rng(seed).normal(size=2**n_players)
    return table, table_game(table)


def test_two_players_antithetic_pairs_cover_both_orders_so_the_estimate_is_exact():
    table, game = random_table_game(2, 0)
    result = shapley_values(game, 2, method="permutation", n_permutations=4, random_state=0)
    np.testing.assert_allclose(result.values, brute_force_shapley(table, 2), atol=1e-14)
    np.testing.assert_allclose(result.std_error, 0.0, atol=1e-14)


def test_permutation_estimates_average_to_the_brute_force_values():
    # unbiased: the mean of independent estimates converges to the average over all orders
    table, game = random_table_game(5, 1)
    results = [shapley_values(game, 5, method="permutation", n_permutations=20, random_state=seed)
               for seed in range(100)]
    mean = np.mean([r.values for r in results], axis=0)
    se_of_mean = np.sqrt(np.sum([r.std_error**2 for r in results], axis=0)) / len(results)
    assert (np.abs(mean - brute_force_shapley(table, 5)) <= 4 * se_of_mean).all()


def test_permutation_estimate_is_within_three_standard_errors_for_ten_players():
    table, game = random_table_game(10, 2)
    exact = shapley_values(game, 10, method="exact").values
    for seed in range(3):
        result = shapley_values(game, 10, method="permutation", n_permutations=100, random_state=seed)
        assert (np.abs(result.values - exact) <= 3 * result.std_error).all()


def test_permutation_standard_error_is_calibrated():
    # over 20 seeds x 10 players, a z-score within 2 holds ~95 % of the time for a calibrated SE
    table, game = random_table_game(10, 3)
    exact = shapley_values(game, 10, method="exact").values
    results = [shapley_values(game, 10, method="permutation", n_permutations=100, random_state=seed)
               for seed in range(20)]
    z = np.concatenate([(r.values - exact) / r.std_error for r in results])
    assert np.mean(np.abs(z) <= 2) >= 0.9
    assert np.mean(np.abs(z) <= 0.5) <= 0.6  # not inflated either (a calibrated SE gives ~38 %)


@settings(max_examples=30, deadline=None)
@given(games(), st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_permutation_estimate_is_exactly_efficient(game, pairs, seed):
    n_players, table = game
    result = shapley_values(table_game(table), n_players, method="permutation", n_permutations=2 * pairs,
                            random_state=seed)
    assert abs(result.values.sum() - (table[-1] - table[0])) <= 1e-10


@pytest.mark.parametrize("method", ["exact", "permutation"])
def test_vectorized_and_scalar_value_functions_agree(method):
    table, game = random_table_game(7, 4)
    codes = 1 << np.arange(7)
    scalar = shapley_values(game, 7, method=method, random_state=5)
    batch = shapley_values(lambda masks: table[masks.astype(np.int64) @ codes], 7, method=method,
                           vectorized=True, random_state=5)
    np.testing.assert_allclose(batch.values, scalar.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(batch.std_error, scalar.std_error, rtol=0, atol=1e-12)


def test_same_seed_same_estimate_other_seed_another():
    _, game = random_table_game(8, 6)
    first, again, other = (shapley_values(game, 8, method="permutation", random_state=seed).values
                           for seed in (7, 7, 8))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("random_state", [None, 0, np.random.RandomState(0)])
def test_numpys_global_random_state_is_untouched(random_state):
    _, game = random_table_game(6, 7)
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    shapley_values(game, 6, method="permutation", random_state=random_state)
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002


@pytest.mark.parametrize("method", ["exact", "permutation"])
def test_every_coalition_is_evaluated_once(method):
    table, game = random_table_game(8, 8)
    seen = []
    result = shapley_values(lambda mask: seen.append(code(mask)) or game(mask), 8, method=method,
                            n_permutations=10, random_state=0)
    assert len(seen) == len(set(seen)) == result.n_evaluations
    if method == "exact":
        assert sorted(seen) == list(range(2**8))
    else:  # 10 orders visit 10 * 9 prefixes, of which ∅ and N are shared by all
        assert {0, 2**8 - 1} <= set(seen) and len(seen) <= 10 * 7 + 2


# Bad input

@pytest.mark.parametrize("n_players", [0, -1, 2.0, True, "3", None])
def test_bad_n_players_is_refused(n_players):
    with pytest.raises(ValueError, match="n_players must be a positive int"):
        shapley_values(lambda m: 0.0, n_players)


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="method must be 'auto', 'exact' or 'permutation'; got 'sampling'"):
        shapley_values(lambda m: 0.0, 3, method="sampling")


@pytest.mark.parametrize("n_permutations", [0, 1, 3, 2.0, True, -2])
def test_bad_n_permutations_is_refused(n_permutations):
    with pytest.raises(ValueError, match="n_permutations must be an even int >= 2"):
        shapley_values(lambda m: 0.0, 3, method="permutation", n_permutations=n_permutations)


def test_exact_beyond_twenty_players_is_refused_before_any_evaluation():
    def never(mask):
        raise AssertionError("evaluated")

    with pytest.raises(ValueError, match="at most 2\\*\\*20.*n_players=21.*method='permutation'"):
        shapley_values(never, 21, method="exact")


@pytest.mark.parametrize("method", ["exact", "permutation"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_value_names_its_coalition(method, bad):
    with pytest.raises(ValueError, match=r"coalition of players \[0, 2\]; every coalition needs a finite"):
        shapley_values(lambda m: bad if m.tolist() == [True, False, True] else 1.0, 3, method=method,
                       n_permutations=200, random_state=0)


def test_a_vectorized_value_function_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match=r"vectorized=True must map an \(m, n_players\) boolean array to m"):
        shapley_values(lambda masks: np.zeros((len(masks), 2)), 3, vectorized=True)
