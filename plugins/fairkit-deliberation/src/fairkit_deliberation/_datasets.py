"""Loader of the Remesh deliberation sessions' imputed agreement probabilities."""

import json
from numbers import Integral

import numpy as np
from sklearn.utils import Bunch

from fairkit.datasets import fetch_file

SOURCE = "https://github.com/akonya/polarized-issues-data (folder <session>/probs/, CC BY 4.0)"
#: Each session's folder of question files in that repository, at a pinned commit.
URLS = {
    "campus_protests": "https://raw.githubusercontent.com/akonya/polarized-issues-data/"
                       "b2c7e1487aeb05f36b0d998628f11ecc70f334e6/Campus%20protests/probs/",
    "right_to_assemble": "https://raw.githubusercontent.com/akonya/polarized-issues-data/"
                         "b2c7e1487aeb05f36b0d998628f11ecc70f334e6/Right%20to%20assemble/probs/",
}

#: The question files of each session this loader knows, with their SHA-256.
QUESTIONS = {
    "campus_protests": {
        "b46e0317-51b0-4c55-af2a-5a553f428e3d":
            "f21df9365ca525c666d6402a1544ddca4162b25fbda75cca42d2bd86dc61dd99",
        "c695618c-23e8-4edd-a0cd-cff190e3d13c":
            "ee31ca05224d8dfdff8af74205652ae0168633ce68a8ad127d5e327aa0269836",
    },
    "right_to_assemble": {
        "03b44855-616b-46f2-8650-2b09192f4238":
            "f1a497126c0f49825d7e7f8b89cd5e986905a4be0bb67ff403cdbf3bbe67cd00",
        "db8266fb-c4e8-409d-9d38-87f009b756be":
            "5ad2ae9f0c235a2dfbfa6936ff17ae797ba19523026ce0736f4e6be339ab4027",
    },
}


def _question_id(session, question):
    if session not in QUESTIONS:
        raise ValueError(f"Unknown session {session!r}; choose from {sorted(QUESTIONS)}.")
    questions = list(QUESTIONS[session])
    if isinstance(question, Integral) and not isinstance(question, bool):
        if not 0 <= question < len(questions):
            raise ValueError(f"question={question} is out of range: session {session!r} has "
                             f"{len(questions)} questions.")
        return questions[question]
    if question not in questions:
        raise ValueError(f"Unknown question {question!r} for session {session!r}; choose a position "
                         f"or one of {questions}.")
    return question


def load_deliberation(session="campus_protests", question=0, *, data_home=None, as_frame=False,
                      download_if_missing=True):
    """Load one question of a Remesh deliberation session: participants × comments.

    Each file holds, for every participant and every comment ("thought") written
    in answer to the question, the imputed probability that the participant
    agrees with the comment (a sigmoid of a utility matrix completed from about
    1,500 agree/disagree votes). Revel et al. (ICML 2025) rank these comments;
    probabilities above 0.5 serve as approvals.

    The files come from the ``akonya/polarized-issues-data`` repository
    (Remesh collective dialogues, CC BY 4.0) and are read from
    ``<data_home>/deliberation/<session>/probs/<question id>_probs.json`` after a
    checksum check; a missing file is downloaded there from the repository (at a pinned
    commit, see ``URLS``) unless ``download_if_missing=False``.

    Parameters
    ----------
    session : {"campus_protests", "right_to_assemble"}, default="campus_protests"
        The deliberation session.
    question : int or str, default=0
        The question: its position in ``QUESTIONS[session]`` or its id.
    data_home : str or path-like, default=None
        The data folder; ``None`` reads ``FAIRKIT_DATA`` (see
        :func:`fairkit.datasets.get_data_home`).
    as_frame : bool, default=False
        Return ``probs`` as a DataFrame indexed by participant id, one column per
        comment id.
    download_if_missing : bool, default=True
        Download a missing file (atomically, checked against its SHA-256); ``False``
        raises instead.

    Returns
    -------
    data : Bunch
        ``probs`` (array of shape (n_participants, n_comments), or DataFrame),
        ``participant_ids``, ``comment_ids`` and ``comment_texts`` (arrays of str,
        in the order of the rows and columns), ``session`` and ``question_id``.

    Raises
    ------
    fairkit.datasets.DataFileError
        If the file is missing (and not downloaded) or is not the published one.

    Examples
    --------
    >>> from fairkit_deliberation import load_deliberation
    >>> data = load_deliberation("campus_protests", 0)
    >>> data.probs.shape, data.comment_texts[0][:40]
    ((308, 308), 'At least at my alma mater, the admin tri')
    """
    question_id = _question_id(session, question)
    path = fetch_file(f"deliberation/{session}/probs/{question_id}_probs.json",
                      QUESTIONS[session][question_id], SOURCE, data_home,
                      url=f"{URLS[session]}{question_id}_probs.json",
                      download_if_missing=download_if_missing)
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    probs = np.asarray(raw["probs_matrix"], dtype=float)
    participant_ids = np.array([p["participant_id"] for p in raw["participants"]])
    comment_ids = np.array([t["thought_id"] for t in raw["thoughts"]])
    comment_texts = np.array([t["text"] for t in raw["thoughts"]])
    if as_frame:
        import pandas as pd

        probs = pd.DataFrame(probs, index=pd.Index(participant_ids, name="participant_id"),
                             columns=pd.Index(comment_ids, name="comment_id"))
    return Bunch(probs=probs, participant_ids=participant_ids, comment_ids=comment_ids,
                 comment_texts=comment_texts, session=session, question_id=question_id)
