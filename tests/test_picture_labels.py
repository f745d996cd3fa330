"""Seeing something in the pictures without a GPU: the offline index labels keyframes with the
bundled EfficientNet-Lite0 (ImageNet classes summed up WordNet's hierarchy) and counts faces with
dlib, and questions about what is shown are answered from those labels, with times, saying which
model saw it. Questions the labels cannot answer (a colour) are still refused.

The video is made of scikit-image's sample photos: a coffee cup, a cat, two astronauts, a brick wall."""

import pickle

import numpy as np
import pytest
from media_factory import photo_album_video

from staragent.agent.runner import VideoAgent
from staragent.config import load_settings
from staragent.index.builder import build_index
from staragent.index.hybrid_search import cross_modal_search

COLOURS = {"grey", "gray", "orange", "brown", "black", "white", "ginger", "red", "blue", "green", "yellow"}


@pytest.fixture(scope="module")
def album(tmp_path_factory):
    return photo_album_video(tmp_path_factory.mktemp("album") / "album.mp4")


@pytest.fixture(scope="module")
def album_index(album, tmp_path_factory):
    video, _ = album
    return build_index(video.path, load_settings(cache_dir=tmp_path_factory.mktemp("album-cache"), progress=False))


@pytest.fixture(scope="module")
def album_agent(album, album_index):
    with VideoAgent(load_settings(cache_dir=album_index.dir.parent.parent, progress=False)) as agent:
        yield agent


def _inside(event, span, slack=0.6) -> bool:
    return span[0] - slack <= event.start and event.end <= span[1] + slack


def test_keyframes_get_real_labels_and_face_counts_at_their_times(album, album_index):
    _, shots = album
    objects = [e for e in album_index.pictures if e.kind == "object"]
    faces = [e for e in album_index.pictures if e.kind == "faces"]
    cat = [e for e in objects if "cat" in e.description.split("(")[0] or "feline" in e.description]
    assert cat and all(_inside(e, shots["cat"]) for e in cat)
    coffee = [e for e in objects if "coffee" in e.description or "espresso" in e.description]
    assert coffee and all(_inside(e, shots["coffee"]) for e in coffee)
    assert [e.count for e in faces] == [2] and _inside(faces[0], shots["two astronauts"])
    settings = load_settings(progress=False)
    assert all(e.score >= settings.models.picture_label_threshold for e in objects)
    # the brick wall looks like nothing the classifier is sure of: nothing is said about it
    assert not [e for e in album_index.pictures if e.end > shots["bricks"][0] + 0.6]
    info = album_index.stage_info("pictures")
    assert info["backend"] == "efficientnet-lite0" and info["faces"] is True
    assert album_index.manifest.models["picture_labels"] == "efficientnet-lite:efficientnet-lite0"


def test_labels_are_searched_by_their_kinds_as_the_visual_modality(album, album_index):
    _, shots = album
    # "animal" is nowhere in the picture's own class name: it comes from WordNet's kinds above it
    result = cross_modal_search(album_index, "an animal", modalities="visual", k=2)
    assert "visual" in result.searched and result.hits
    best = result.hits[0]
    assert best.start < shots["cat"][1] and best.end > shots["cat"][0]
    assert any(e.modality == "visual" and "classifier" in e.text for e in best.evidence)


@pytest.mark.parametrize(
    ("question", "shot", "must_say"),
    [
        ("Is there a cat?", "cat", ()),
        ("When is the coffee shown?", "coffee", ("0:00",)),
        ("How many people are on screen?", "two astronauts", ("2",)),
    ],
)
def test_questions_about_what_is_shown_are_answered_from_the_labels(album, album_agent, question, shot, must_say):
    video, shots = album
    answer = album_agent.ask(video.path, question)
    cited = [e for e in answer.evidence if e.modality == "visual"]
    assert cited, answer.answer
    assert all(e.start < shots[shot][1] and e.end > shots[shot][0] for e in cited), answer.answer
    assert all(word in answer.answer for word in must_say), answer.answer
    # the answer says where the claim comes from, and how sure that model was
    assert "classifier" in answer.answer or "detector" in answer.answer, answer.answer


def test_a_summary_of_a_stretch_says_what_the_picture_models_saw_there(album, album_agent):
    from staragent.timecodes import clock_range

    video, shots = album
    a, b = shots["cat"]
    answer = album_agent.ask(video.path, f"Summarize {clock_range(a, b)}")
    seen = [e for e in answer.evidence if e.modality == "visual"]
    assert seen and all(e.start < b and e.end > a for e in seen), answer.answer
    assert "cat" in answer.answer or "feline" in answer.answer, answer.answer


def test_a_question_the_labels_cannot_answer_is_still_refused(album, album_agent):
    video, _ = album
    answer = album_agent.ask(video.path, "What colour is the cat?")
    words = set(answer.answer.lower().replace(",", " ").replace(".", " ").split())
    assert not words & COLOURS, answer.answer
    assert not [e for e in answer.evidence if e.modality == "visual" and "colour" in e.text.lower()]


def test_an_absent_object_is_not_claimed(album, album_agent):
    video, _ = album
    answer = album_agent.ask(video.path, "Is there a laptop?")
    assert not [e for e in answer.evidence if e.modality == "visual"], answer.answer
    assert not answer.answer.lower().startswith("yes"), answer.answer


def test_the_checkpoint_is_read_by_a_loader_that_refuses_anything_but_tensors(tmp_path):
    import torch

    from staragent.models.efficientnet_lite import read_checkpoint

    class Payload:
        def __reduce__(self):
            return (print, ("this should never run",))

    bad = tmp_path / "bad.pth"
    torch.save({"_fc.weight": torch.zeros(2, 2), "trap": Payload()}, bad)
    with pytest.raises(pickle.UnpicklingError):
        read_checkpoint(bad)


def test_the_classifier_names_scikit_image_photos_like_imagenet_does(tmp_path):
    from skimage import data

    from staragent.models.pool import ModelPool

    labeller = ModelPool(load_settings(cache_dir=tmp_path, progress=False)).get("picture_labels")
    labels = labeller.label([data.camera(), data.chelsea(), data.coffee(), np.zeros((120, 160, 3), np.uint8)])
    assert labels[0] is not None and labels[0].label == "tripod"
    assert labels[1] is not None and "feline" in labels[1].description
    assert labels[2] is not None and "coffee" in labels[2].description
    assert labels[3] is None  # a black frame is nothing in particular
    assert [len(labeller.faces(i)) for i in (data.astronaut(), data.coffee())] == [1, 0]


def test_labels_made_during_the_decoding_pass_equal_those_made_from_the_stored_pictures(album, album_index, tmp_path):
    """A fresh build labels each keyframe as the frames stage saves it; a build that resumes after
    that stage labels the stored files. Both must say the same."""
    import json
    import shutil

    video, _ = album
    cache = tmp_path / "cache"
    copy = cache / "index" / album_index.dir.name
    shutil.copytree(album_index.dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["stages"]["pictures"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    (copy / "pictures.jsonl").unlink()
    rebuilt = build_index(video.path, load_settings(cache_dir=cache, progress=False))
    assert rebuilt.dir == copy and rebuilt.stage_info("frames") == album_index.stage_info("frames")  # only the pictures were labelled again
    assert rebuilt.pictures == album_index.pictures
    assert rebuilt.stage_info("pictures")["pictures"] == album_index.stage_info("pictures")["pictures"] > 0


def test_a_failed_decoding_pass_stops_the_picture_labels_with_its_own_error(album, tmp_path, monkeypatch):
    """The picture stage waits on the frames stage's feed: when the pass fails, the build ends with
    the pass's error (not a hang, and not a second error in its place) and nothing is labelled."""
    from staragent.errors import MediaError
    from staragent.index import stages

    def broken(ctx, feed):
        feed.put(("000000.jpg", b"not a picture yet"))
        raise MediaError("the decoder gave up at 0:03")

    monkeypatch.setattr(stages, "_scenes_and_keyframes", broken)
    video, _ = album
    with pytest.raises(MediaError, match="gave up at 0:03"):
        build_index(video.path, load_settings(cache_dir=tmp_path, progress=False))
    assert not list(tmp_path.glob("index/*/pictures.jsonl"))
