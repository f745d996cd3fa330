"""The reading core (staragent.qa): frame, retrieve, rank, read, not-found, on a generated video.

The conference video (media_factory.conference_video) has slides "Coffee Grinder Z9 / Price:
$129.50 / Made in Porto", "Keynote Speaker / Dr. Amara Singh / Room 4B at 10:15", "Attendance /
Visitors: 4,280 / Growth: 12%", narration about a warranty and a speaker from Nairobi, a tone and a
noise burst. Questions are worded as people would, often without the slides' own words.
"""

from __future__ import annotations

import json
import re

import pytest

from staragent.qa import SpacyQuestionReader, read_question
from staragent.qa.read import NOT_IN_VIDEO, ExtractiveReader, LLMReader
from staragent.timecodes import format_time

reader = SpacyQuestionReader()


@pytest.mark.parametrize(
    ("question", "answer_type"),
    [
        ("Who is giving the keynote?", "person"),
        ("What is the price of the grinder?", "money"),
        ("Which city did the speaker fly in from?", "place"),
        ("When does the beep happen?", "moment"),
        ("How many visitors came?", "count"),
        ("How long is the demo?", "duration"),
        ("Is there a warranty?", "yesno"),
    ],
)
def test_the_frame_reads_the_answer_type_from_the_parse(question, answer_type):
    assert reader.read(question).answer_type == answer_type


def test_a_follow_up_refers_back_and_carries_the_earlier_terms_and_times():
    first = reader.read("What is on screen at 0:12?")
    assert first.scope is not None and first.scope.start == pytest.approx(12.0)
    follow = reader.read("And who is she?", first)
    assert follow.refers_back and follow.scope is not None
    assert not reader.read("Who is she?").refers_back  # nothing to refer back to


@pytest.fixture(scope="module")
def encoders(foreign_index):
    """e5 query encoders for the index's dense stores, as a conversation gets them."""
    from staragent.agent.session import query_encoders
    from staragent.config import load_settings
    from staragent.models.pool import ModelPool

    settings = load_settings(progress=False)
    return query_encoders(foreign_index, settings, ModelPool(settings))


_ENCODERS: dict = {}


@pytest.fixture(autouse=True)
def _with_encoders(request):
    if "foreign_index" in request.fixturenames:
        _ENCODERS["e5"] = request.getfixturevalue("encoders")


def _answer(index, question, **kwargs):
    return read_question(index, question, encoders=_ENCODERS.get("e5"), **kwargs)


def test_a_paraphrase_without_the_slide_words_finds_the_amount(foreign_index):
    reading = _answer(foreign_index, "How pricey is that Z9 grinder thing?")
    assert reading.answer.found
    assert "129.50" in reading.answer.text
    cited = [e for e in reading.answer.evidence if "129.50" in e.text]
    assert cited and cited[0].id.startswith("o") and cited[0].start < 10.0  # the first slide


def test_a_heading_and_the_name_under_it_are_read_together(foreign_index):
    reading = _answer(foreign_index, "Who is giving the keynote?")
    assert reading.answer.found
    assert "Amara Singh" in reading.answer.text
    named = next(e for e in reading.pool.lines if "Amara" in e.text)
    assert named.labels and "Keynote" in named.labels[0]


def test_a_missing_question_word_is_no_reason_to_refuse(foreign_index):
    # "visitors" is on screen, "turnout" is not: the line that answers still answers
    reading = _answer(foreign_index, "What was the turnout, how many visitors?")
    assert reading.answer.found and "4,280" in reading.answer.text


def test_a_question_the_video_does_not_answer_is_refused_with_the_closest_line(foreign_index):
    reading = _answer(foreign_index, "What is the name of the CEO's dog?")
    assert not reading.answer.found
    assert re.search(r"could not find|not (in|find)", reading.answer.text, re.I)


def test_every_citation_is_a_line_of_the_video_inside_it(foreign_index):
    for question in ("Where is the grinder made?", "What warranty does it have?", "How much did attendance grow?"):
        answer = _answer(foreign_index, question).answer
        assert answer.citations == [e.id for e in answer.evidence]
        for e in answer.evidence:
            assert 0.0 <= e.start <= e.end <= foreign_index.duration + 0.5


def test_a_huge_question_is_bounded(foreign_index):
    reading = _answer(foreign_index, "price " * 20000)
    assert len(reading.ranking.frame.text) <= 2000


class ScriptedChat:
    """Answers from the numbered lines it is shown, as a model would: the line holding ``needle``."""

    def __init__(self, needle: str | None, ids: list[int] | None = None):
        self.needle, self.ids, self.seen = needle, ids, []

    def __call__(self, messages: list[dict]) -> str:
        self.seen.append(messages)
        if self.needle is None:
            return NOT_IN_VIDEO
        rows = messages[-1]["content"].splitlines()
        number = next((int(r[1:r.index("]")]) for r in rows if r.startswith("[") and self.needle in r), None)
        return json.dumps({"answer": self.needle, "ids": self.ids if self.ids is not None else [number]})


def test_the_llm_reader_cites_the_lines_it_used(foreign_index):
    chat = ScriptedChat("Dr. Amara Singh")
    answer = _answer(foreign_index, "Who is the main speaker?", reader=LLMReader(chat)).answer
    assert answer.text.startswith("Dr. Amara Singh")
    assert any("Amara" in e.text for e in answer.evidence)
    assert all(format_time(e.start) in answer.text for e in answer.evidence)  # when each cited line is, in words


def test_the_llm_readers_echo_of_the_question_gives_way_to_the_best_lines(foreign_index):
    chat = ScriptedChat("that Z9 grinder thing is pricey")  # says the question back, and nothing more
    answer = _answer(foreign_index, "How pricey is that Z9 grinder thing?", reader=LLMReader(chat)).answer
    assert answer.reader == "extractive" and "129.50" in answer.text


def test_the_llm_readers_wrong_ids_are_replaced_by_lines_that_hold_its_answer(foreign_index):
    chat = ScriptedChat("$129.50", ids=[99])  # no such line
    answer = _answer(foreign_index, "What does the grinder cost?", reader=LLMReader(chat)).answer
    assert answer.evidence and all("129.50" in e.text for e in answer.evidence)


def test_the_llm_reader_keeps_one_system_prompt_and_can_say_not_found(foreign_index):
    chat = ScriptedChat(None)
    for question in ("What is the CEO's dog called?", "Which airline did the speaker use?"):
        answer = _answer(foreign_index, question, reader=LLMReader(chat)).answer
        assert not answer.found
    systems = {m[0]["content"] for m in chat.seen}
    assert len(systems) == 1


def test_the_extractive_reader_quotes_the_best_line_when_no_value_of_the_type_is_there(foreign_index):
    answer = _answer(foreign_index, "What is said about the warranty?", reader=ExtractiveReader()).answer
    assert answer.found and "warranty" in answer.text.lower()
    assert answer.evidence[0].modality == "speech"


def test_find_answer_is_a_tool_whose_evidence_carries_ids(registry, foreign_index, settings):
    from staragent.tools.base import ToolContext

    tool = registry.get("find_answer")
    result = tool.run(ToolContext(settings=settings, index=foreign_index), tool.Args(question="Where was the grinder made?"))
    assert result.found and "Porto" in result.answer
    assert all(e.id and e.source == "find_answer" for e in result.evidence())


def test_the_parse_cache_keeps_the_texts_read_most_recently_within_its_bound(monkeypatch):
    from staragent.qa import language

    monkeypatch.setattr(language, "_PARSED_MAX", 20)
    monkeypatch.setattr(language, "_PARSED", type(language._PARSED)())
    first = language.parse("What does the first slide say?")
    for i in range(30):
        language.parse(f"line number {i} of a long talk")
        assert language.parse("What does the first slide say?") is first  # asked every turn: kept
    language.parse_many([f"another line {i}" for i in range(10)])
    assert len(language._PARSED) <= 20
    assert "line number 0 of a long talk" not in language._PARSED  # the oldest went first


def test_an_llm_reply_cut_off_mid_json_shows_its_answer_and_no_json(foreign_index):
    def cut_off(messages):  # the token limit reached before the JSON closed
        return '{"answer": "The grinder costs $129.50. It was made in Porto by a firm that also makes'

    answer = _answer(foreign_index, "What does the grinder cost?", reader=LLMReader(cut_off)).answer
    assert answer.text.startswith("The grinder costs $129.50.") and "{" not in answer.text and '"answer"' not in answer.text


def test_the_llm_reader_is_not_asked_below_the_confidence_it_is_given(foreign_index):
    chat = ScriptedChat("Rex")
    answer = _answer(foreign_index, "What is the name of the CEO's dog?", reader=LLMReader(chat, min_confidence=0.5)).answer
    assert not answer.found and not chat.seen
    asked = _answer(foreign_index, "What does the grinder cost?", reader=LLMReader(ScriptedChat("$129.50"), min_confidence=0.5)).answer
    assert asked.found and "129.50" in asked.text


@pytest.mark.parametrize(
    "question",
    [
        "once they're done dragging, is the dell one to the left or right of the laptop?",
        "where does the dell monitor end up compared to the laptop?",
        "which side of the laptop does the dell screen sit on",
        "Where is the Dell display relative to the laptop after the drag?",
    ],
)
def test_a_question_about_where_one_thing_stands_against_another_names_both(question):
    placed = reader.read(question).placed
    assert placed is not None and "dell" in placed.figure and placed.ground == ["laptop"]


@pytest.mark.parametrize("question", ["Where was the speaker born?", "What is the price of the grinder?", "where can I read more about it online?",
                                      "what's the name of the town where the speaker lives?"])
def test_other_questions_relate_nothing(question):
    assert reader.read(question).placed is None


def _label(start, end, text, box):
    from staragent.schema import Evidence

    return Evidence(start=start, end=end, modality="ocr", text=text, box=list(box))


def test_placements_follow_a_dragged_label_and_take_the_nearest_pair():
    from staragent.qa.spatial import placements

    lines = [
        _label(0, 30, "Laptop", (0.42, 0.33, 0.47, 0.36)),  # the laptop's box in the arrangement
        _label(0, 30, "Laptop", (0.19, 0.55, 0.25, 0.58)),  # the same name as a panel heading, far away
        _label(0, 12, "Dell U2415", (0.49, 0.34, 0.60, 0.37)),  # right of it ...
        _label(12, 16, "DellU2415", (0.40, 0.42, 0.50, 0.46)),  # ... dragged below it (read glued) ...
        _label(16, 30, "Dell U2415", (0.30, 0.34, 0.40, 0.37)),  # ... and left of it
    ]
    found = placements(lines, ["dell"], ["laptop"])
    assert [p.relation for p in found] == ["to the right of", "below", "to the left of"]
    assert (found[0].start, found[-1].start, found[-1].end) == (0, 16, 30)
    assert all(p.ground.box == [0.42, 0.33, 0.47, 0.36] for p in found)


def test_a_question_about_the_thing_a_pronoun_stands_for_takes_it_from_the_clause_before():
    placed = reader.read("when they drag the dell screen around, which side of the laptop does it end up on").placed
    assert placed is not None and "dell" in placed.figure and placed.ground == ["laptop"]


def test_a_thing_named_in_other_words_than_its_label_is_the_dragged_label_beside_the_ground():
    from staragent.qa.spatial import placements

    lines = [
        _label(0, 30, "Laptop", (0.42, 0.33, 0.47, 0.36)),  # the laptop's box in the arrangement
        _label(0, 30, "Activities", (0.01, 0.01, 0.08, 0.03)),  # a fixed label of the desktop, far away
        _label(0, 30, "Resolution", (0.30, 0.60, 0.40, 0.63)),  # a fixed field of the window, below
        _label(0, 14, "Dell U2415", (0.49, 0.34, 0.60, 0.37)),  # the other screen's box, right of the laptop's ...
        _label(14, 30, "Dell U2415", (0.33, 0.34, 0.41, 0.37)),  # ... then dragged to its left
    ]
    found = placements(lines, ["external", "screen"], ["laptop"])  # "the external screen": no label says so
    assert [p.relation for p in found] == ["to the right of", "to the left of"]
    assert all(p.figure.text == "Dell U2415" for p in found)
    still = [line for line in lines if not line.text.startswith("Dell")]
    assert placements(still, ["external", "screen"], ["laptop"]) == []  # nothing moved beside it: no guess


def test_a_sentence_that_mentions_a_thing_is_no_label_of_it():
    from staragent.qa.spatial import placements

    lines = [_label(0, 10, "Laptop", (0.42, 0.33, 0.47, 0.36)),
             _label(0, 10, "Drag the Dell monitor to rearrange its placement on the desk", (0.1, 0.1, 0.9, 0.14))]
    assert placements(lines, ["dell"], ["laptop"]) == []


def _screen_pool(lines):
    """A pool over on-screen lines alone, given as ``(start, end, text, box)``."""
    from types import SimpleNamespace

    from staragent.qa.lines import build_pool
    from staragent.records import OcrLine

    ocr = [OcrLine(text=text, box=box, score=0.9, start=start, end=end) for start, end, text, box in lines]
    index = SimpleNamespace(speech=[], ocr=ocr, sound_events=[], audio_events=[], pictures=[], segments=[], duration=60.0)
    return {e.text: e for e in build_pool(index).lines}


def test_an_on_screen_value_is_read_with_the_label_beside_it_and_the_title_above_it():
    lines = _screen_pool([
        (0, 60, "Wed 18:38", [0.45, 0.0, 0.55, 0.03]),  # a clock: on throughout, it joins no two stretches
        (5, 20, "Acer Technologies 17", [0.30, 0.30, 0.50, 0.34]),
        (5, 20, "Resolution:", [0.30, 0.36, 0.40, 0.40]),
        (5, 20, "1280 × 1024 (5:4)", [0.42, 0.36, 0.60, 0.40]),
        (30, 40, "Opening Keynote", [0.20, 0.20, 0.60, 0.28]),
        (30, 40, "Dr. Amara Singh", [0.20, 0.30, 0.50, 0.35]),
    ])
    assert "Resolution" in lines["1280 × 1024 (5:4)"].labels  # the label on its row
    assert lines["Dr. Amara Singh"].labels == ["Opening Keynote"]  # a slide's title over the line under it
    assert not any("Keynote" in label for label in lines["1280 × 1024 (5:4)"].labels)  # another moment's slide labels nothing here


@pytest.mark.parametrize(("typed", "meant"), [("when does the titel come up", "title"), ("acording to the card", "according"),
                                              ("what is the first sentance", "sentence"), ("read it from the begining", "beginning")])
def test_a_slip_of_the_keyboard_in_a_question_is_read_as_the_word_meant(typed, meant):
    from staragent.qa.language import respelled

    assert meant in respelled(typed).split()


def test_names_function_words_and_words_with_several_neighbours_are_left_as_typed():
    from staragent.qa.language import respelled

    for typed in ("does mr darcy show up", "the box beside the screen", "whose turn is it", "Titel Records made it", "what a pitty",
                  "what does kennedy tell his fellow americans", "the bunnys nose",  # a name WordNet knows; a form of a word
                  "translate 'sortie de secours' into german"):  # quoted words are the video's, or another language's
        assert respelled(typed) == typed, respelled(typed)


def test_the_question_readers_read_a_misspelled_word_as_meant():
    from staragent.agent.planners.rules.question import analyse

    assert "title" in analyse("at what point does the titel show up on screen").keywords
    assert "title" in SpacyQuestionReader().read("at what point does the titel show up on screen").terms
