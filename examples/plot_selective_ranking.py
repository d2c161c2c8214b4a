"""
=====================================================
Selective rankings of the NBA Coach of the Year votes
=====================================================

100 sportswriters ranked their top three of seven coaches for the 2020-21 NBA Coach
of the Year award (the coaches a voter left off tie at rank 4). A selective ranking
(Kadekodi, McTavish & Ustun, ICML 2025) orders two coaches only when at most a
fraction τ of the voters disagree, and puts the rest in one tier. This example
draws the whole path of selective rankings as τ grows from 0 to 1/2, and compares
them with Borda, Copeland and Kemeny, which always give a total order.

The ballots are written out below, so that the example runs without a data folder or
a network. :func:`fairkit.datasets.fetch_nba_coach_votes` returns the same table, with
the voters' names, from the published file (downloaded once into the data home).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairkit.metrics import abstention_rate, disagreement_rate
from fairkit.ranking import SelectiveRanker, borda, copeland, kemeny

COACHES = ["Doc Rivers", "Monty Williams", "Steve Nash", "Michael Malone", "Nate McMillan",
           "Quin Snyder", "Tom Thibodeau"]
# Each voter's first, second and third choice, as positions in COACHES, in the order of the
# published file's voters.
BALLOTS = """
165 165 150 154 516 164 165 165 615 615 156 561 165 165 615 160 165 615 016 164 651 165 164 156
612 651 613 651 501 165 615 615 651 610 165 610 156 561 615 651 651 516 165 163 165 165 156 651
126 651 165 165 561 652 615 610 615 165 615 615 604 165 650 065 164 160 614 651 165 165 165 164
615 651 651 516 651 162 163 165 561 165 615 516 615 614 164 615 165 150 165 612 614 614 651 165
513 163 615 651
"""
ballots = np.array([[int(choice) for choice in ballot] for ballot in BALLOTS.split()])
ranks = np.full((len(ballots), len(COACHES)), 4.0)  # a coach left off a ballot ties at rank 4
np.put_along_axis(ranks, ballots, np.array([[1.0, 2.0, 3.0]]), axis=1)
votes = pd.DataFrame(ranks, columns=COACHES, index=pd.RangeIndex(1, len(ranks) + 1, name="voter"))
path = SelectiveRanker().path(votes)
print(path.to_frame().T)

# %%
# The tiers along the path: at τ = 0 nobody may be overruled and every coach ties;
# by τ = 0.48 the ranking has four tiers, and still abstains on the four coaches
# most voters left off their ballot.
baselines = {"Borda": borda(votes), "Copeland": copeland(votes), "Kemeny": kemeny(votes)}
coaches = votes.columns
order = np.argsort(path.rankings[-1], kind="stable")
edges = np.append(path.taus, 0.5)

fig, left = plt.subplots(figsize=(8, 4.5))
for row, coach in enumerate(order):
    for start, stop, ranking in zip(edges[:-1], edges[1:], path.rankings, strict=True):
        left.barh(row, stop - start, left=start, color=plt.cm.viridis(ranking[coach] / 3),
                  edgecolor="white")
        left.text((start + stop) / 2, row, str(ranking[coach] + 1), ha="center", va="center",
                  color="white", fontsize=9)
left.set_yticks(range(len(order)), coaches[order])
left.invert_yaxis()
left.set_xlim(0, 0.5)
left.set_xlabel("dissent level τ (largest fraction of voters a comparison may overrule)")
left.set_title("Tier of each coach along the path (1 = best)")
fig.tight_layout()

# %%
# Voter by voter: ``score_samples`` gives each voter's agreement with the majority
# ranking (τ = 0.48), the share of their strict preferences it follows minus the share
# it reverses. It follows every preference of a quarter of the voters, and overrules
# the least typical voter as often as it follows that voter.
majority = SelectiveRanker(tau=path.taus[-1]).fit(votes)
agreement = pd.Series(majority.score_samples(votes), index=votes.index)
print(agreement.describe().round(3))
print(agreement.nsmallest(3).round(3))

# %%
# Disagreement against abstention: each selective ranking overrules fewer voters'
# preferences than any total order, by declining to compare the coaches the voters
# split on.
fig, right = plt.subplots(figsize=(6, 4.5))
for tau, ranking in zip(path.taus, path.rankings, strict=True):
    right.scatter(abstention_rate(ranking), disagreement_rate(votes, ranking), color="tab:blue")
    right.annotate(f"τ={tau:.2f}", (abstention_rate(ranking), disagreement_rate(votes, ranking)),
                   textcoords="offset points", xytext=(6, 4), fontsize=9)
label_offsets = {"Borda": (6, 4), "Copeland": (6, 4), "Kemeny": (6, -12)}
for name, ranking in baselines.items():
    right.scatter(abstention_rate(ranking), disagreement_rate(votes, ranking), marker="s",
                  color="tab:red")
    right.annotate(name, (abstention_rate(ranking), disagreement_rate(votes, ranking)),
                   textcoords="offset points", xytext=label_offsets[name], fontsize=9)
right.set_xlabel("abstention rate (pairs not compared)")
right.set_ylabel("disagreement rate (voter preferences reversed)")
right.set_title("Selective rankings vs total orders")
fig.tight_layout()
plt.show()
