"""The FairICP guide's selection recipe (code/fairicp_select.py) runs and shows what the guide says."""

import runpy
from pathlib import Path

import sklearn

CODE = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "code"


def test_the_grid_search_over_mu_scores_folds_with_the_groups_read_from_X(capsys):
    try:
        namespace = runpy.run_path(str(CODE / "fairicp_select.py"), run_name="__main__")
    finally:
        sklearn.set_config(enable_metadata_routing=False)
    search, floor = namespace["search"], namespace["floor"]
    deo_plain, deo_fair = -search.cv_results_["mean_test_deo"]
    assert deo_fair < deo_plain / 1.5  # mu = 0.9 is the fairer on the validation folds, and refitted
    assert search.best_params_ == {"mu": 0.9}
    model = search.best_estimator_
    assert model.validation_indices_ is not None and "valid_kpc" in model.history_[-1]
    assert floor.observed <= floor.quantile  # the test DEO is within the noise floor, as the guide says
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("mu=0.0: accuracy") and out[2].startswith("chosen {'mu': 0.9}: test accuracy")
