"""Where a model's loss rises under a shift, and why: SHIFT on a planted covariate and outcome shift."""

from fairkit_shift import SubgroupShiftDiagnoser, make_subgroup_shift

ROUND = {"estimate": 3, "std_error": 3, "p_value": 4, "p_value_adjusted": 4, "prevalence_source": 3,
         "prevalence_target": 3}
COLUMNS = ["level", "decomposition", "subset", "reject", *ROUND]
diagnosers = {}
for design in ("covariate", "outcome"):
    # 8,000 rows per domain; the model's error rate rises by 0.2 in G = {x1 > 0.84}, 20 % of the rows
    data = make_subgroup_shift(design, n_samples=8000, prevalence=0.2, rise=0.2, random_state=1)
    diagnoser = SubgroupShiftDiagnoser(tolerance=0.05, min_prevalence=0.05, random_state=1)
    diagnoser.fit(data.X_source, data.y_source, data.X_target, data.y_target, data.model)
    diagnosers[design] = diagnoser
    print(f"planted: {design} shift")
    print(diagnoser.summary()[COLUMNS].round(ROUND).to_string(index=False))
    for rule in diagnoser.subgroups_:
        print(f"{rule.decomposition} subgroup: {rule.text}")
        print(f"  fidelity {rule.fidelity:.2f}, prevalence {rule.prevalence_source:.3f} in the source, "
              f"{rule.prevalence_target:.3f} in the target")
    losses = diagnoser.subgroup_losses_.pivot(index="decomposition", columns="domain", values="mean_loss")
    losses = losses.rename(index={"all": "overall"}).rename_axis(index="mean loss", columns=None)
    print(losses.round(3).to_string())
