"""Sphinx configuration of fairkit's documentation.

The build never needs the network nor a data folder: intersphinx inventories are read
from local copies when there are any (see ``docs/_ext/fairkit_docs.py``) and left out
otherwise, no gallery example reads a public data set (CI builds with ``FAIRKIT_DATA``
naming a folder that does not exist, and fails if the build creates it), and the gallery
executes the examples within a time budget taken from ``FAIRKIT_GALLERY_BUDGET`` (seconds;
unset runs every example, ``0`` runs none).
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

from fairkit_docs import (  # noqa: E402
    gallery_filename_pattern,
    included_fragments,
    intersphinx_mapping,
    offline_numpydoc_aliases,
    remove_stale_gallery_pages,
    write_api_page,
)

import fairkit  # noqa: E402

project = "fairkit"
author = "The fairkit developers"
copyright = "The fairkit developers"  # noqa: A001
version = release = fairkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "fairkit_docs",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.json", "auto_examples/*.md5",
                    *included_fragments(DOCS)]
default_role = "py:obj"

intersphinx_mapping = intersphinx_mapping(DOCS / "_intersphinx")
intersphinx_timeout = 3

# API reference: one autosummary table per public module, written before autosummary reads it.
write_api_page(DOCS / "api.rst")
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Types become cross-references where they resolve and code otherwise, so that a type like
# "ndarray of shape (n_features_in_,)" is never read as a reST hyperlink target.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = {"of", "or", "and", "shape", "default", "optional", "instance", "like", "the",
                        "a", "an", "to", "in", "is", "with", "them", "list", "dict", "tuple", "int", "float",
                        "str", "bool", "callable", "None", "True", "False", "array", "sparse", "matrix",
                        "estimator", "classifier", "regressor", "object", "path", "function"}
numpydoc_xref_aliases = {"DataFrame": "pandas.DataFrame", "Series": "pandas.Series",
                         "ndarray": "numpy.ndarray", "Bunch": "sklearn.utils.Bunch",
                         "RandomState": "numpy.random.RandomState", "Path": "pathlib.Path",
                         **offline_numpydoc_aliases(intersphinx_mapping)}


html_theme = "pydata_sphinx_theme"
html_title = f"fairkit {release}"
html_theme_options = {
    "github_url": "https://github.com/fairkit/fairkit",
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []
# single pages without sub-pages: no empty navigation column
html_sidebars = {page: [] for page in ("index", "getting_started", "plugin_authoring", "api")}

remove_stale_gallery_pages(DOCS / "auto_examples", DOCS.parent / "examples")
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": gallery_filename_pattern(DOCS.parent / "examples", DOCS / "gallery_times.json",
                                                 os.environ.get("FAIRKIT_GALLERY_BUDGET")),
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
}
