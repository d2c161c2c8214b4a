"""The guides' code (literalincluded from docs/) runs as written and shows what the guides say it shows."""

import os
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.utils.fixes import parse_version
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[2]
CODE = ROOT / "docs" / "user_guide" / "code"
PLUGIN_EXAMPLE = ROOT / "docs" / "plugin_example"


def _run(script):
    try:
        return runpy.run_path(str(CODE / script), run_name="__main__")
    finally:
        sklearn.set_config(enable_metadata_routing=False)


def test_fairicp_search_routes_the_attributes_to_fit_and_the_scorer(capsys):
    pytest.importorskip("torch")
    namespace = _run("fairicp_search.py")
    search = namespace["search"]
    results = search.cv_results_
    # the refit chooses the fairest mu by KPC, which FairICP lowers at some cost in accuracy
    assert search.best_params_ == {"fairicpclassifier__mu": 0.9}
    kpc_plain, kpc_fair = -results["mean_test_kpc"]
    assert kpc_fair < kpc_plain / 2
    assert results["mean_test_accuracy"][1] > 0.6
    out = capsys.readouterr().out
    assert "mu=0.0: accuracy" in out and "chosen {'fairicpclassifier__mu': 0.9}; test accuracy" in out


def test_fairicp_on_a_continuous_attribute_is_scored_with_kpc_and_the_test():
    pytest.importorskip("torch")
    results = _run("fairicp_continuous.py")["results"]
    plain, fair = results[0.0], results[0.9]
    assert plain["pvalue"] < 0.05  # the test rejects equalized odds for the plain network
    assert fair["kpc"] < plain["kpc"] / 2 and fair["pvalue"] > plain["pvalue"]
    assert fair["accuracy"] > plain["accuracy"] - 0.05


SETTINGS_TESTS = '''
import warnings

import pytest
from fairkit_reweighing import ReweighingClassifier

from fairkit.exceptions import FairkitPluginWarning, FairkitWarning


def test_fit_without_sensitive_features():
    ReweighingClassifier().fit([[0.0], [1.0]], [0, 1])


def test_the_warning_can_still_be_tested():
    with pytest.warns(FairkitWarning, match="no sensitive features"):
        ReweighingClassifier().fit([[0.0], [1.0]], [0, 1])


def test_a_skipped_plugin_is_an_error():
    with pytest.raises(FairkitPluginWarning):
        warnings.warn("fairkit plugin 'mine' skipped", FairkitPluginWarning)


def test_another_warning_is_an_error():
    with pytest.raises(RuntimeWarning):
        warnings.warn("overflow", RuntimeWarning)
'''


def test_the_plugin_guides_test_settings_ignore_only_fairkit_warning(tmp_path):
    # pytest itself reads the settings (the last matching filter wins), as in the author's package
    (tmp_path / "test_settings.py").write_text(textwrap.dedent(SETTINGS_TESTS))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
               str(PLUGIN_EXAMPLE / "pyproject.toml"), "--rootdir", str(tmp_path), "test_settings.py"]
    run = subprocess.run(command,
                         capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(PLUGIN_EXAMPLE / "src")})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 passed" in run.stdout


def test_subgroups_kl_prints_the_papers_mnist_values(capsys):
    pytest.importorskip("fairkit_subgroups")
    _run("subgroups_kl.py")
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "user_guide" / "fairkit-subgroups.rst").read_text()
    for line in out.strip().splitlines():
        assert line in guide  # the guide shows what the code prints
    assert "'AY': 0.113415" in out and "'S': 0.526755" in out and "'YAS': 0.0" in out


def test_viashap_disparity_finds_the_feature_that_drives_one_groups_decisions(capsys):
    pytest.importorskip("torch")
    pytest.importorskip("fairkit_viashap")
    namespace = _run("viashap_disparity.py")
    disparity = namespace["disparity"]
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "user_guide" / "fairkit-viashap.rst").read_text()
    for line in out.strip().splitlines():
        assert line.rstrip() in guide  # the guide shows what the code prints
    assert "efficiency: True" in out
    # career breaks are long only in group b: they carry more of b's attributions than a's, and
    # have the largest between-group gap; the feature outside the label gets almost nothing
    assert disparity["gap"]["mean_abs"].idxmax() == "career_break"
    share = disparity["share"]
    assert share.loc["career_break", "b"] > 2 * share.loc["career_break", "a"]
    assert share.loc["skill", "a"] > share.loc["skill", "b"]
    assert share.loc["noise"].max() < 0.05
    gap = disparity["gap"]  # career breaks' gap is beyond the noise of the rows, the noise feature's is not
    assert gap.loc["career_break", "mean_abs_low"] > 0 and gap.loc["noise", "mean_abs_low"] == 0


def test_shift_finds_each_planted_shift_in_its_decomposition_and_explains_it(capsys):
    pytest.importorskip("fairkit_shift")
    diagnosers = _run("shift_where_and_how.py")["diagnosers"]
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "user_guide" / "fairkit-shift.rst").read_text()
    if parse_version(sklearn.__version__) >= parse_version("1.7"):  # older releases grow other trees
        for line in out.strip().splitlines():
            assert line.rstrip() in guide  # the guide shows what the code prints
    for design, other in (("covariate", "outcome"), ("outcome", "covariate")):
        summary = diagnosers[design].summary().set_index(["level", "decomposition", "subset"])
        # stage 1: the planted decomposition rejects, the other does not; stage 2 ran for it only
        assert summary.loc[("where", design, "all"), "reject"]
        assert not summary.loc[("where", other, "all"), "reject"]
        how = summary.loc["how"]
        assert set(how.index.get_level_values("decomposition")) == {design}
        flagged = set(how.index.get_level_values("subset")[how["reject"].to_numpy()])
        # x3 moved inside G = {x1 > 0.84}, so x1 given x3 moved too, less (flagged or not, with the
        # version's trees); Y | X changed on G, which x1 defines; x2, x4, x5 explain nothing
        if design == "covariate":
            assert "x3" in flagged and flagged <= {"x1", "x3"}
        else:
            assert flagged == {"x1"}
        (rule,) = diagnosers[design].subgroups_
        assert rule.decomposition == design and rule.fidelity > 0.9
        losses = diagnosers[design].subgroup_losses_.set_index(["subgroup", "domain"])["mean_loss"]
        rise = losses[rule.text, "target"] - losses[rule.text, "source"]
        overall = losses["overall", "target"] - losses["overall", "source"]
        assert rise > 0.05 + 0.05 and rise > 3 * overall  # the subgroup loses far more than everyone


def test_selective_classification_abstains_where_the_model_is_wrong_and_equally_by_group(capsys):
    pytest.importorskip("fairkit_uncertainty")
    with threadpool_limits(1, "openmp"):  # gradient boosting on 3,000 rows: two contending threads are slower
        namespace = _run("selective_classification.py")
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "user_guide" / "fairkit-uncertainty.rst").read_text()
    if parse_version(sklearn.__version__) >= parse_version("1.7"):  # older releases fit other models
        for line in out.strip().splitlines():
            assert line.rstrip() in guide  # the guide shows what the code prints
    X_test, y_test, in_pocket = namespace["X_test"], namespace["y_test"], namespace["in_pocket"]
    # the linear model is confidently wrong in the pocket: its probabilities answer most of it, the
    # learned confidence refuses most of it and is right more often on what it answers
    accuracy = {}
    for name, clf in namespace["classifiers"].items():
        answered = clf.accepts(X_test)
        assert abs(answered.mean() - 0.8) < 0.03
        accuracy[name] = np.mean(clf.estimator_.predict(X_test)[answered] == y_test[answered])
        assert (answered[in_pocket].mean() > 0.5) == (name == "max_proba")
    assert accuracy["learned"] > accuracy["max_proba"] + 0.03
    # one threshold leaves group b out, beyond noise; per-group thresholds do not
    shared, equal = namespace["reports"]["shared threshold"], namespace["reports"]["group_coverage='equal'"]
    assert shared.flagged and shared.groups["flagged"].tolist() == [False, True]
    assert not equal.flagged and np.ptp(equal.groups["coverage"]) < 0.03
    # abstaining widens the accuracy gap (Jones et al.), beyond the intervals
    groups = namespace["report"].groups
    assert groups.loc["a", "selective_accuracy_low"] > groups.loc["b", "selective_accuracy_high"]
    # routing the doubted rows beats routing the same share at random
    router = namespace["router"]
    assert router.score(X_test, y_test) > namespace["at_random"] + 0.02
    # a frozen model's threshold, set on held-out rows, carries over to others
    assert abs(namespace["prefit"].accepts(X_test[1500:]).mean() - 0.8) < 0.03


def test_mshap_power_law_guide_reaches_the_closed_form_and_fsolve_equilibria(capsys):
    pytest.importorskip("fairkit_mshap")
    from scipy.optimize import fsolve

    namespace = _run("mshap_power_law.py")
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "user_guide" / "fairkit-mshap.rst").read_text()
    for line in out.strip().splitlines():
        assert line.rstrip() in guide  # the guide shows what the code prints
    costs, mshap = namespace["costs"], namespace["mechanism"]
    # M0: only the cheapest agent gives, (αβ/γ_min)^(1/(β+1)) − 1 = 24 (first line of the printout)
    assert "contributions  [24.  0.  0.]" in out
    # M^Shap: u_i = φ_i − γ_i s_i; with a shared power law, ∂φ_i/∂s_i = Σ_X w_X n a'(S_X + s_i)
    from itertools import combinations
    from math import factorial

    def first_order(s):
        n, slopes = len(s), []
        for i in range(n):
            others = [j for j in range(n) if j != i]
            slope = 0.0
            for size in range(n):
                weight = factorial(size) * factorial(n - size - 1) / factorial(n)
                for coalition in combinations(others, size):
                    slope += weight * n * 0.5 * (s[list(coalition)].sum() + s[i] + 1) ** -1.5
            slopes.append(slope - costs[i])
        return slopes

    expected = fsolve(first_order, [10.0, 10.0, 10.0], xtol=1e-13)
    np.testing.assert_allclose(namespace["s"], expected, rtol=1e-6)
    assert abs(mshap.payments(namespace["s"]).sum()) < 1e-12


def test_mshap_learning_guide_has_free_riders_without_payments_and_none_under_mshap(capsys):
    pytest.importorskip("fairkit_mshap")
    with threadpool_limits(1):
        namespace = _run("mshap_learning.py")
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "user_guide" / "fairkit-mshap.rst").read_text()
    for line in out.strip().splitlines():
        assert line.rstrip() in guide  # the guide shows what the code prints
    assert "NoPaymentMechanism: contributions [1.   0.25 0.   0.  ]" in out
    s = namespace["s"]  # the last mechanism's equilibrium: M^Shap
    assert (s > 0).all()
    assert namespace["deviation_gains"](namespace["mechanism"], namespace["costs"], s).max() <= 1e-12
