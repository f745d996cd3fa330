"""The offline planner answering as a person asks: about a named part of the video, when something
begins, what comes right after quoted words, a follow-up that points back, an overview from beginning
to end, and honest refusals (a fact the video does not hold, a question about what things look like).
The video is three readings under title cards (``media_factory.anthology_video``); the assertions check
the fact and that the cited evidence lies where the fact is, not the wording."""

from __future__ import annotations

import re

import pytest

from staragent.agent.grounding import says_nothing_found

LIGHTHOUSE, GAP, HARVEST, CLOSING = (0.0, 12.0), (12.0, 16.0), (16.0, 28.0), (32.0, 44.0)


@pytest.fixture(scope="module")
def anthology(tmp_path_factory):
    from media_factory import anthology_video

    return anthology_video(tmp_path_factory.mktemp("anthology") / "anthology.mp4")


@pytest.fixture(scope="module")
def agent(anthology, tmp_path_factory):
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings

    with VideoAgent(load_settings(cache_dir=tmp_path_factory.mktemp("cache"), progress=False)) as agent:
        agent.index(anthology.path)
        yield agent


@pytest.fixture(scope="module")
def ask(agent, anthology):
    return lambda question: agent.ask(anthology.path, question)


def cites(answer, span) -> bool:
    return any(e.start < span[1] and e.end > span[0] for e in answer.evidence)


def test_a_question_about_a_named_part_is_answered_from_that_part(ask):
    answer = ask("In the Harvest Notes reading, where was the grain kept?")
    assert "barn" in answer.answer.lower() and cites(answer, HARVEST) and not says_nothing_found(answer.answer)


def test_when_a_part_begins_is_answered_with_its_time(ask):
    answer = ask("At what point does the Harvest Notes part begin?")
    assert re.search(r"\b0:1[5-7]\b", answer.answer), answer.answer


def test_the_words_right_after_a_quote(ask):
    answer = ask("What is said right after 'the lamp was lit every evening at dusk'?")
    assert "northern rocks" in answer.answer.lower() and cites(answer, (5.0, 11.0))


def test_a_follow_up_points_back_at_what_the_last_answer_found(agent, anthology):
    conversation = agent.chat(anthology.path, "follow-up")
    first = conversation.ask("Is there a reading about a lighthouse?")
    assert "lighthouse" in first.answer.lower() and cites(first, LIGHTHOUSE)
    then = conversation.ask("In what year was it recorded?")
    assert "1998" in then.answer and cites(then, LIGHTHOUSE)


def test_an_overview_covers_the_video_from_beginning_to_end(ask):
    answer = ask("Give me a rundown of this video.")
    for title in ("Lighthouse", "Harvest", "Closing"):
        assert title.lower() in answer.answer.lower(), answer.answer


def test_a_fact_the_video_does_not_hold_is_refused_plainly(ask):
    answer = ask("How much did the harvest sell for?")
    assert says_nothing_found(answer.answer) and "$" not in answer.answer


def test_what_things_look_like_is_not_guessed(ask):
    answer = ask("What is the reader of the harvest notes wearing?")
    assert "cannot" in answer.answer.lower() and "see" in answer.answer.lower()


def test_a_sound_between_two_named_parts(ask):
    answer = ask("What sound plays between the lighthouse reading and the harvest reading?")
    assert cites(answer, GAP) and not says_nothing_found(answer.answer)
