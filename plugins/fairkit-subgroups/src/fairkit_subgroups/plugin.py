"""The fairkit plugin of fairkit-subgroups (entry point ``subgroups`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit_subgroups import GroupBalancedClassifier, GroupDROClassifier

    return [GroupBalancedClassifier, GroupDROClassifier]


@hookimpl
def fairkit_datasets():
    from fairkit_subgroups import make_digits_artefact

    return {"make_digits_artefact": make_digits_artefact}


@hookimpl
def fairkit_demos():
    from fairkit_subgroups._demo import demo

    return {"subgroup_choice": demo}


@hookimpl
def fairkit_search_spaces():
    from scipy.stats import loguniform, uniform

    return {"GroupBalancedClassifier": {"mode": ["reweight", "resample"],
                                        "balance": ["group", "group_and_class"]},
            "GroupDROClassifier": {"eta": loguniform(1e-3, 1.0), "size_adjustment": uniform(0.0, 4.0)}}
