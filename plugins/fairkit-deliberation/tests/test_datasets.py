"""load_deliberation: the shared files, their checksums and the errors a user sees."""

import shutil

import numpy as np
import pytest

from fairkit.datasets import DataFileError
from fairkit_deliberation import QUESTIONS, load_deliberation
from fairkit_deliberation._datasets import URLS


@pytest.mark.parametrize("session", sorted(QUESTIONS))
def test_every_known_question_loads(data_home, session):
    for position, question_id in enumerate(QUESTIONS[session]):
        data = load_deliberation(session, position, data_home=data_home)
        n_users, n_comments = data.probs.shape
        assert data.question_id == question_id and data.session == session
        assert len(data.participant_ids) == n_users and len(data.comment_ids) == n_comments
        assert len(data.comment_texts) == n_comments and len(set(data.comment_ids)) == n_comments
        assert np.all((data.probs > 0) & (data.probs < 1))  # sigmoids of a utility matrix


def test_question_by_id_and_as_frame(data_home):
    question_id = list(QUESTIONS["campus_protests"])[1]
    array = load_deliberation("campus_protests", 1, data_home=data_home)
    frame = load_deliberation("campus_protests", question_id, data_home=data_home, as_frame=True).probs
    np.testing.assert_array_equal(frame.to_numpy(), array.probs)
    assert list(frame.columns) == list(array.comment_ids)
    assert list(frame.index) == list(array.participant_ids)


def test_missing_file_names_its_url(tmp_path):
    with pytest.raises(DataFileError, match="raw.githubusercontent.com/akonya/polarized-issues-data/"
                                            "b2c7e14.*/Right%20to%20assemble/probs/03b44855"):
        load_deliberation("right_to_assemble", 0, data_home=tmp_path, download_if_missing=False)


def test_a_missing_file_is_downloaded_from_its_session_folder(data_home, tmp_path, monkeypatch):
    # the repository's folder stands in as a local folder (file:// URL): nothing leaves the machine
    question_id = list(QUESTIONS["campus_protests"])[1]
    served = tmp_path / "served"
    served.mkdir()
    name = f"{question_id}_probs.json"
    shutil.copyfile(data_home / "deliberation" / "campus_protests" / "probs" / name, served / name)
    monkeypatch.setitem(URLS, "campus_protests", served.as_uri() + "/")
    home = tmp_path / "home"
    data = load_deliberation("campus_protests", 1, data_home=home)
    assert (home / "deliberation" / "campus_protests" / "probs" / name).is_file()
    np.testing.assert_array_equal(data.probs, load_deliberation("campus_protests", 1,
                                                                data_home=data_home).probs)


def test_altered_file_fails_the_checksum(data_home, tmp_path):
    question_id = list(QUESTIONS["campus_protests"])[0]
    relative = f"deliberation/campus_protests/probs/{question_id}_probs.json"
    copy = tmp_path / relative
    copy.parent.mkdir(parents=True)
    shutil.copyfile(data_home / relative, copy)
    with open(copy, "ab") as f:
        f.write(b" ")
    with pytest.raises(DataFileError, match="SHA-256"):
        load_deliberation("campus_protests", 0, data_home=tmp_path)


@pytest.mark.parametrize(
    ("session", "question", "message"),
    [("foreign_intervention", 0, "Unknown session"), ("campus_protests", 2, "out of range"),
     ("campus_protests", "no-such-id", "Unknown question"), ("campus_protests", True, "Unknown question")],
)
def test_unknown_session_or_question(session, question, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        load_deliberation(session, question, data_home=tmp_path)
