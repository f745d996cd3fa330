"""Routing a request for an overview: the fitted model of ``qa.operation``, the rules that use it, and
the summary it leads to."""

from __future__ import annotations

import pytest

from staragent.agent.planners.rules.question import analyse
from staragent.index.text import tokenize
from staragent.qa.operation import MASK, SummaryAsk, operation_text
from staragent.tools import ToolContext


def test_the_video_s_own_words_are_masked_before_the_question_is_read():
    masked = operation_text("can u summarise the bunny film for me", set(tokenize("bunny carrot")))
    assert MASK in masked and "bunny" not in masked and "summarise" in masked


@pytest.fixture(scope="module")
def asks():
    return SummaryAsk(vocabulary=set(tokenize("bunny rabbit grinder bell")))


def test_requests_for_an_overview_score_above_questions_about_a_fact(asks):
    overviews = ["recap this clip for me", "what is going on in this one, broadly?", "boil the bunny film down for me", "can you sum it all up?"]
    facts = ["what colour is the rabbit", "who wrote the music", "when does the bell ring?", "how much does the grinder cost?",
             "what happens at the end of the bunny film?"]
    assert min(asks.probability(q) for q in overviews) > max(asks.probability(q) for q in facts)
    assert asks("recap this clip for me") and not any(asks(q) for q in facts)


def test_a_question_that_names_the_video_by_its_file_s_words_asks_about_all_of_it():
    question = analyse("can u summarize the readings video for me", None, "readings.mp4")
    assert question.overview and question.scope is None


def test_the_word_that_says_what_kind_of_video_it_is_is_no_topic_of_it():
    """"this screen recording" is the video, whatever words of it the screen shows: the question asks
    for an overview as "this recording" would, and for no on-screen text; a name before the noun
    ("this Austen recording") still names a part."""
    screen = SummaryAsk(vocabulary=set(tokenize("screen display monitor resolution")))
    for kind in ("screen", "short"):
        question = analyse(f"what is this {kind} recording teaching?", None, "help.webm", asks_summary=screen)
        assert question.overview and "ocr" not in question.wants and kind not in question.keywords, kind
    assert "Austen" in analyse("what does she say in this Austen recording?", None, "readings.mp4").keywords


def test_an_overview_follows_the_fitted_model_where_no_phrasing_was_written_down():
    said_yes = analyse("what's the deal with this one overall?", asks_summary=lambda q: True)
    said_no = analyse("what's the deal with this one overall?", asks_summary=lambda q: False)
    assert said_yes.overview and not said_no.overview


def test_a_summary_of_a_video_in_parts_names_every_part(registry, foreign_index, settings):
    """The conference video shows a title card over each of its parts: a summary of the usual length
    gives each title and how the part begins, a short one each title."""
    from staragent.tools.summary import parts_of

    ctx = ToolContext(settings=settings, index=foreign_index)
    parts = parts_of((line.start, line.end) for line in foreign_index.ocr_between(0, 38))
    assert len(parts) >= 2
    summary = registry.get("summarize_segment")(ctx, {"timestamp": "0:00-0:38", "length": "medium"})
    starts = sorted(p.start for p in summary.points if p.modality == "ocr")
    assert all(any(a - 0.5 <= s < b for s in starts) for a, b in parts)  # a title from each part
    assert any(p.modality == "speech" for p in summary.points)
    short = registry.get("summarize_segment")(ctx, {"timestamp": "0:00-0:38", "length": "short"})
    assert len(short.points) == len(parts) and all(p.modality == "ocr" for p in short.points)


def test_a_small_model_is_offered_the_summary_where_the_model_hears_one_asked():
    from staragent.agent import toolchoice

    everything = ["cross_modal_search", "transcribe_speech", "extract_scene_text", "summarize_segment", "calculator"]
    question = "what's the deal with this one overall?"
    assert "summarize_segment" in toolchoice.choose(question, everything, asks_summary=lambda q: True)
    assert not toolchoice.reads(question, asks_summary=lambda q: True) and toolchoice.reads(question, asks_summary=lambda q: False)
