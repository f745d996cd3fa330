"""The tools that work in the offline profile (maths on screen, summaries, memory, web search with a
stand-in client), and the plain errors of those that need a model the offline profile lacks."""

import json

import pytest

from staragent.errors import InputError, TimeFormatError, ToolError
from staragent.languages import parse_language
from staragent.tools import ToolContext
from staragent.tools.math_exp import read_math
from staragent.tools.memory import ConversationMemory

ALL_TOOLS = {
    "transcribe_speech", "extract_scene_text", "count_objects", "object_detection", "extract_math_exp", "calculator",
    "web_search", "detect_audio_events", "execute_code", "detect_activities", "summarize_segment", "detect_faces",
    "cross_modal_search", "memory_tool", "translate_speech", "translate_text", "refine_video", "refine_audio",
}


@pytest.fixture
def lecture_ctx(lecture_index, settings):
    return ToolContext(settings=settings, index=lecture_index)


def test_the_registry_holds_table_7_and_the_refinement_tools(registry):
    assert set(registry.names()) == ALL_TOOLS
    for name in ALL_TOOLS:
        schema = registry.get(name).schema()["function"]
        assert schema["description"] and schema["parameters"]["type"] == "object"
    params = {n: set(registry.get(n).schema()["function"]["parameters"]["properties"]) for n in ALL_TOOLS}
    assert {"timestamp", "object_query"} <= params["count_objects"] and {"timestamp", "categories"} <= params["object_detection"]
    assert {"code", "language", "inputs"} <= params["execute_code"] and {"func", "data"} <= params["memory_tool"]
    assert {"timestamp", "from_lang", "to_lang"} <= params["translate_speech"] and {"text", "from_lang", "to_lang"} <= params["translate_text"]
    assert {"query", "num_results"} <= params["web_search"] and {"timestamp", "text", "length"} <= params["summarize_segment"]


def test_math_on_screen_is_read_evaluated_and_solved(registry, lecture_ctx):
    result = registry.get("extract_math_exp")(lecture_ctx, {"timestamp": "00:00:00-00:00:06"})
    by_text = {e.text: e for e in result.expressions}
    assert set(by_text) == {"Solve: 3x + 5 = 20", "Total = 249 + 129"}  # "Algebra" is not maths
    equation, total = by_text["Solve: 3x + 5 = 20"], by_text["Total = 249 + 129"]
    assert equation.kind == "equation" and equation.solutions == ["x = 5"]
    assert total.label == "Total" and total.value == "378" and total.expression == "249 + 129"
    assert 0 <= equation.start < equation.end <= 6.5 and equation.timestamp.startswith("0:00")
    assert all(e.modality == "ocr" for e in result.evidence())
    none = registry.get("extract_math_exp")(lecture_ctx, {"timestamp": "0:07-0:11"})
    assert none.expressions == [] and "no mathematical expression" in none.note


@pytest.mark.parametrize(
    "line, expected",
    [
        ("x^2 - 5x + 6 = 0", {"solutions": ["x = 2", "x = 3"]}),
        ("2 + 2 = 5", {"holds": False, "value": "4"}),
        ("12 x 4 = ?", {"value": "48", "kind": "expression"}),
        ("√16 + 3²", {"value": "13"}),
        ("Price: $129.50", None),
        ("Visitors: 4,280", None),
        ("2019-2024", None),
        ("__import__('os').system('id') + 1", None),
        ("(1+1)**10**10", None),
    ],
)
def test_math_reader_understands_notation_and_refuses_the_rest(line, expected):
    found = read_math(line)
    if expected is None:
        assert found is None
    else:
        assert {k: found[k] for k in expected} == expected


def test_decimal_commas_follow_the_language():
    assert read_math("3,5 + 1,5", decimal_comma=True)["value"] == "5"
    assert read_math("1,000 + 1", decimal_comma=False)["value"] == "1001"


def test_extractive_summary_keeps_times(registry, lecture_ctx, foreign_index, settings):
    short = registry.get("summarize_segment")(ToolContext(settings=settings, index=foreign_index), {"timestamp": "0:00-0:38", "length": 2})
    assert short.method == "extractive" and len(short.points) == 2
    assert all(p.start is not None and 0 <= p.start < 38 for p in short.points)
    assert "[0:" in short.text and json.loads(short.model_dump_json())["summary"] == short.text  # Table 7's field name
    text_only = registry.get("summarize_segment")(lecture_ctx, {"text": "Cats sleep a lot. Cats hunt mice at night. Dogs bark.", "length": 1})
    assert text_only.timestamp is None and "Cats" in text_only.text and "Dogs" not in text_only.text  # the recurring topic wins


def test_memory_adds_searches_and_deletes(registry, settings):
    ctx = ToolContext(settings=settings)
    tool = registry.get("memory_tool")
    assert tool(ctx, {"func": "add", "data": "The budget is 4,000 euros"}).success
    assert tool(ctx, {"func": "store", "data": "Meet Ana at the Lisbon office"}).notes[0].id == 2  # aliases work
    found = tool(ctx, {"func": "search", "data": "budget"})
    assert found.success and [n.text for n in found.notes] == ["The budget is 4,000 euros"]
    assert len(tool(ctx, {"func": "search", "data": ""}).notes) == 2
    missing = tool(ctx, {"func": "delete", "data": "#9"})
    assert not missing.success and "nothing was deleted" in missing.output
    assert tool(ctx, {"func": "delete", "data": "Lisbon"}).notes[0].id == 2
    assert [n.id for n in ctx.memory.notes] == [1] and not tool(ctx, {"func": "search", "data": "Lisbon"}).success
    assert ConversationMemory(ctx.memory.dump()).notes == ctx.memory.notes  # survives the state round trip


@pytest.mark.parametrize(
    "tool, args, message",
    [
        ("memory_tool", {"func": "add", "data": "  "}, "needs data"),
        ("memory_tool", {"func": "launch", "data": "x"}, "func"),
        ("extract_math_exp", {"timestamp": "1:00:00-1:00:05"}, "starts after the video ends"),
        ("extract_math_exp", {"timestamp": "0:05-0:01"}, "ends before it starts"),
        ("extract_math_exp", {"timestamp": "0:00-0:05", "language": "Klingon"}, "unknown language"),
        ("summarize_segment", {}, "give a timestamp range"),
        ("summarize_segment", {"timestamp": "soon"}, "cannot read the time"),
        ("summarize_segment", {"text": "x", "length": 50}, "between 1 and 20"),
        ("web_search", {"query": "   "}, "needs a query"),
        ("translate_text", {"text": "bonjour", "to_lang": "Elvish"}, "unknown language"),
        ("translate_text", {"text": "", "to_lang": "en"}, "non-empty"),
        ("translate_speech", {"timestamp": "0:06-0:10", "from_lang": "fr", "to_lang": "xx"}, "unknown language"),
        ("object_detection", {"timestamp": "0:00-0:05", "categories": []}, "at least one"),
        ("count_objects", {"timestamp": "0:00-0:05", "object_query": " "}, "at least one"),
        ("transcribe_speech", {"timestamp": "0:00-0:05", "language": "zz-top"}, "unknown language"),
        ("execute_code", {"code": "", "language": "python"}, "empty"),
        ("execute_code", {"code": "print(1)", "language": "cobol"}, "cannot run 'cobol'"),
        ("refine_video", {"timestamp": "25:00-26:00"}, "starts after the video ends"),
        ("detect_faces", {"timestamp": "0:00:00-"}, "cannot read the time"),
    ],
)
def test_bad_arguments_get_clear_errors(registry, lecture_ctx, tool, args, message):
    with pytest.raises((ToolError, TimeFormatError, InputError), match=message):
        registry.get(tool)(lecture_ctx, args)


@pytest.mark.parametrize(
    "tool, args, role",
    [
        ("refine_video", {"timestamp": "0:00-0:05", "question": "What colour is the slide?"}, "vlm"),
        ("refine_audio", {"timestamp": "0:06-0:10"}, "audio_lm"),
        ("object_detection", {"timestamp": "0:00-0:05", "categories": ["laptop"]}, "detector"),
        ("count_objects", {"timestamp": "0:00-0:05", "object_query": "person"}, "detector"),
        ("detect_faces", {"timestamp": "0:12-0:18"}, "faces"),
        ("translate_text", {"text": "Sortie de secours", "from_lang": "fr", "to_lang": "en"}, "translator"),
        ("translate_speech", {"timestamp": "0:06-0:10", "from_lang": "fr", "to_lang": "en"}, "translator"),
    ],
)
def test_tools_without_their_model_say_which_and_why(registry, lecture_ctx, tool, args, role):
    with pytest.raises(ToolError) as caught:
        registry.get(tool)(lecture_ctx, args)
    message = str(caught.value)
    assert f"needs the '{role}' model" in message and "'offline' profile" in message


def test_activities_offline_name_both_ways_to_get_them(registry, lecture_ctx):
    with pytest.raises(ToolError, match="video classifier .* or a vision-language model"):
        registry.get("detect_activities")(lecture_ctx, {"timestamp": "0:00-0:05"})


class StubSearch:
    def __init__(self, rows=None, error=None):
        self.rows, self.error, self.calls = rows, error, []

    def text(self, query, **options):
        self.calls.append((query, options))
        if self.error:
            raise self.error
        return self.rows


def test_web_search_returns_pages_and_fails_plainly_offline(registry, settings, monkeypatch):
    from ddgs.exceptions import DDGSException

    from staragent.tools import web

    stub = StubSearch([{"title": "Amara Singh - Wikipedia", "href": "https://example.org/amara", "body": "Kenyan engineer."},
                       {"title": "", "href": "https://example.org/empty", "body": ""}])
    monkeypatch.setattr(web, "make_client", lambda s: stub)
    found = registry.get("web_search")(ToolContext(settings=settings), {"query": "Amara Singh", "num_results": 3})
    assert [p.title for p in found.results] == ["Amara Singh - Wikipedia"] and found.results[0].url == "https://example.org/amara"
    assert stub.calls == [("Amara Singh", {"region": "wt-wt", "max_results": 3})]
    offline = StubSearch(error=DDGSException("DNSError: error resolving DNS > no records found"))
    monkeypatch.setattr(web, "make_client", lambda s: offline)
    with pytest.raises(ToolError, match="web search failed: the web cannot be reached"):
        registry.get("web_search")(ToolContext(settings=settings), {"query": "Amara Singh"})


def test_web_search_can_be_turned_off(registry, settings):
    off = settings.model_copy(update={"toolset": settings.toolset.model_copy(update={"web": settings.toolset.web.model_copy(update={"enabled": False})})})
    assert registry.get("web_search").unavailable_reason(off) == "web search is turned off (toolset.web.enabled = false)"
    assert "web_search" not in [t.name for t in registry.select(None, off)]


@pytest.mark.parametrize("text, code", [("French", "fr"), ("fr", "fr"), ("fra", "fr"), ("fr-FR", "fr"), ("fra_Latn", "fr"), ("Mandarin", "zh"), ("GERMAN", "de")])
def test_languages_are_read_from_names_and_codes(text, code):
    assert parse_language(text) == code


def test_scene_text_notes_a_language_its_reader_does_not_cover(registry, lecture_ctx):
    read = registry.get("extract_scene_text")(lecture_ctx, {"timestamp": "0:07-0:11", "language": "Japanese"})
    assert "Sortie de secours" in read.texts and "Japanese text may be misread" in read.note
