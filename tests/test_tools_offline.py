"""The tools that work in the offline profile (maths on screen, summaries, memory, web search with a
stand-in client), and the plain errors of those that need a model the offline profile lacks."""

import json

import pytest

from staragent.config import load_settings
from staragent.errors import ConfigError, InputError, TimeFormatError, ToolError
from staragent.languages import parse_language
from staragent.tools import ToolContext
from staragent.tools.math_exp import read_math
from staragent.tools.memory import ConversationMemory

ALL_TOOLS = {
    "transcribe_speech", "extract_scene_text", "count_objects", "object_detection", "extract_math_exp", "calculator",
    "web_search", "detect_audio_events", "execute_code", "detect_activities", "summarize_segment", "detect_faces",
    "cross_modal_search", "memory_tool", "translate_speech", "translate_text", "refine_video", "refine_audio",
    "find_answer",
}


@pytest.fixture
def lecture_ctx(lecture_index, settings):
    return ToolContext(settings=settings, index=lecture_index)


def test_the_registry_holds_table_7_the_refinement_tools_and_the_reading_core(registry):
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


def test_web_search_returns_pages(registry, settings, monkeypatch):
    from staragent.tools import web

    stub = StubSearch([{"title": "Amara Singh - Wikipedia", "href": "https://example.org/amara", "body": "Kenyan engineer."},
                       {"title": "", "href": "https://example.org/empty", "body": ""}])
    monkeypatch.setattr(web, "make_client", lambda s: stub)
    found = registry.get("web_search")(ToolContext(settings=settings), {"query": "Amara Singh", "num_results": 3})
    assert [p.title for p in found.results] == ["Amara Singh - Wikipedia"] and found.results[0].url == "https://example.org/amara"
    assert stub.calls == [("Amara Singh", {"region": "wt-wt", "max_results": 3})]


def _ddgs_error(kind: str, message: str) -> Exception:
    from ddgs import exceptions

    return getattr(exceptions, kind)(message)


@pytest.mark.parametrize(
    "kind, message, expected",
    [
        ("RatelimitException", "https://duckduckgo.com/ 202 Ratelimit", "rate-limiting"),
        ("TimeoutException", "https://html.duckduckgo.com/html timed out", "did not answer in time"),
        ("DDGSException", "DNSError: error resolving DNS > no records found", "could not be reached"),
        ("DDGSException", "ConnectError: 202 connections refused", "could not be reached"),  # "202" is not a rate limit
    ],
)
def test_web_search_failures_are_told_apart_by_exception_type(registry, settings, monkeypatch, kind, message, expected):
    from staragent.tools import web

    monkeypatch.setattr(web, "make_client", lambda s: StubSearch(error=_ddgs_error(kind, message)))
    with pytest.raises(ToolError, match=f"web search failed: .*{expected}") as caught:
        registry.get("web_search")(ToolContext(settings=settings), {"query": "elections 2024"})
    assert message in str(caught.value) or kind == "RatelimitException"


def test_web_search_without_results_is_an_empty_answer(registry, settings, monkeypatch):
    from staragent.tools import web

    for message in ("No results found.", "No results found for query: elections 2024"):
        monkeypatch.setattr(web, "make_client", lambda s, m=message: StubSearch(error=_ddgs_error("DDGSException", m)))
        found = registry.get("web_search")(ToolContext(settings=settings), {"query": "elections 2024"})
        assert found.results == [] and found.summary() == "no web results for 'elections 2024'"


def test_web_search_lets_bugs_surface(registry, settings, monkeypatch):
    from staragent.tools import web

    monkeypatch.setattr(web, "make_client", lambda s: StubSearch(error=KeyError("href")))
    with pytest.raises(KeyError):
        registry.get("web_search")(ToolContext(settings=settings), {"query": "anything"})


def test_web_search_can_be_turned_off(registry, tmp_path):
    off = load_settings(cache_dir=tmp_path, toolset={"web": {"enabled": False}})
    assert registry.get("web_search").unavailable_reason(off) == "web search is turned off (toolset.web.enabled = false)"
    assert "web_search" not in [t.name for t in registry.select(None, off)]
    with pytest.raises(ConfigError, match="web_search was asked for but is switched off here: web search is turned off"):
        registry.select(["web_search", "calculator"], off)  # an explicit choice is never dropped silently


MISSING_OFFLINE = {"count_objects", "object_detection", "detect_faces", "detect_activities", "translate_text", "translate_speech", "refine_video", "refine_audio"}


def test_offline_offers_only_the_tools_that_can_run(registry, tmp_path):
    settings = load_settings(cache_dir=tmp_path, models={"hf_cache": tmp_path / "empty-hub"})  # no chat model either
    offered = {t.name for t in registry.select(None, settings)}
    assert offered == ALL_TOOLS - MISSING_OFFLINE - {t for t in ALL_TOOLS if registry.get(t).unavailable_reason(settings)}
    for name in MISSING_OFFLINE:
        assert f"{name} needs the '" in registry.get(name).cannot_run(settings) and "'offline' profile" in registry.get(name).cannot_run(settings)
    everything = load_settings(cache_dir=tmp_path, toolset={"offer": "all"})
    assert {t.name for t in registry.select(None, everything)} >= MISSING_OFFLINE


def test_a_chosen_tool_without_its_model_is_kept_with_a_warning(registry, settings, caplog):
    chosen = registry.select(["object_detection", "calculator"], settings)
    assert [t.name for t in chosen] == ["object_detection", "calculator"]
    assert "object_detection was asked for but cannot work here" in caplog.text and "'detector' model" in caplog.text


def test_any_one_of_alternative_models_is_enough(registry, tmp_path):
    settings = load_settings(cache_dir=tmp_path, models={"hf_cache": tmp_path / "empty-hub"})
    translate = registry.get("translate_text")
    assert translate.requires == (("translator", "chat"),)
    message = translate.missing_models(settings)
    assert "the 'translator' model (a translation model: Marian" in message and "or the 'chat' model (a local chat" in message
    assert "none is available" in message
    with_marian = settings.model_copy(update={"toolset": load_settings(toolset={"translation": {"models": {"fr-en": str(tmp_path)}}}).toolset})
    (tmp_path / "config.json").write_text("{}")  # a local folder that looks like a checkpoint
    assert translate.missing_models(with_marian) is None
    assert registry.get("detect_activities").missing_models(with_marian) is not None


def test_a_model_registered_on_the_pool_counts_as_present(registry, settings):
    from staragent.models.pool import ModelPool, ModelSpec

    pool = ModelPool(settings)
    pool.register(ModelSpec("detector", lambda s, d: object()))
    assert registry.get("count_objects").missing_models(settings, pool) is None
    assert "count_objects" in {t.name for t in registry.select(None, settings, pool)}


@pytest.mark.parametrize("text, code", [("French", "fr"), ("fr", "fr"), ("fra", "fr"), ("fr-FR", "fr"), ("fra_Latn", "fr"), ("Mandarin", "zh"), ("GERMAN", "de")])
def test_languages_are_read_from_names_and_codes(text, code):
    assert parse_language(text) == code


def test_scene_text_notes_a_language_its_reader_does_not_cover(registry, lecture_ctx):
    read = registry.get("extract_scene_text")(lecture_ctx, {"timestamp": "0:07-0:11", "language": "Japanese"})
    assert "Sortie de secours" in read.texts and "Japanese text may be misread" in read.note


# ------------------------------------------------------------------ time arguments, notes, and bugs


def test_a_moment_or_a_number_of_seconds_reads_the_window_around_it(registry, lecture_ctx):
    read = registry.get("extract_scene_text")(lecture_ctx, {"timestamp": "0:07"})
    assert read.timestamp == "0:00-0:18" and "Sortie de secours" in read.texts  # 10 s before, 20 s after, cut at the end
    assert read.note == "the single moment 0:07 was read as the range around it, 0:00-0:18"
    numeric = registry.get("detect_audio_events")(lecture_ctx, {"timestamp": 12})
    assert numeric.timestamp == "0:02-0:18" and "0:12" in numeric.note
    with pytest.raises(ToolError, match="not true/false"):
        registry.get("detect_audio_events")(lecture_ctx, {"timestamp": True})


def test_an_end_past_the_video_is_cut_and_the_result_says_so(registry, lecture_ctx):
    sounds = registry.get("detect_audio_events")(lecture_ctx, {"timestamp": "0:05-5:00"})
    assert sounds.timestamp == "0:05-0:18" and sounds.note == "the video ends at 0:18, so the range was cut to 0:05-0:18"
    maths = registry.get("extract_math_exp")(lecture_ctx, {"timestamp": "0:12-1:00"})  # the tool's own note is kept too
    assert maths.note.startswith("the video ends at 0:18, so the range was cut to 0:12-0:18; ") and "no " in maths.note
    inside = registry.get("detect_audio_events")(lecture_ctx, {"timestamp": "0:05-0:10"})
    assert inside.note is None and "note" not in inside.model_dump()


def test_minutes_past_60_are_a_clear_error(registry, lecture_ctx):
    with pytest.raises(TimeFormatError, match="minutes must be below 60"):
        registry.get("extract_scene_text")(lecture_ctx, {"timestamp": "1:99:00-2:00:00"})


def test_only_bad_arguments_become_tool_errors(settings):
    from pydantic import BaseModel

    from staragent.tools import Tool, ToolResult

    class Lookup(Tool):
        name, description, needs_video, Result = "lookup", "Look a key up.", False, ToolResult

        class Args(BaseModel):
            key: str

        def run(self, ctx, args):
            return {"a": ToolResult()}[args.key]  # a bug for any other key

    with pytest.raises(ToolError, match="bad arguments for lookup: key"):
        Lookup()(ToolContext(settings=settings), {})
    with pytest.raises(KeyError):
        Lookup()(ToolContext(settings=settings), {"key": "b"})


def test_math_stops_reading_at_the_cap(registry, lecture_ctx, monkeypatch):
    from staragent.records import OcrLine
    from staragent.tools import math_exp

    index = lecture_ctx.index
    lines = [OcrLine(text=f"{n} + {n} = {2 * n}", score=1.0, box=[0, 0, 1, 1], start=0.0, end=6.0) for n in range(1, 500)]
    monkeypatch.setattr(type(index), "ocr_between", lambda self, a, b: lines)
    read = []
    real = math_exp.read_math
    monkeypatch.setattr(math_exp, "read_math", lambda text, comma=False: read.append(text) or real(text, comma))
    with pytest.raises(ToolError, match=f"more than {math_exp.MAX_EXPRESSIONS} expressions"):
        registry.get("extract_math_exp")(lecture_ctx, {"timestamp": "0:00-0:06"})
    assert len(read) == math_exp.MAX_EXPRESSIONS + 1  # the rest was never parsed


def test_an_extractive_summary_opens_with_how_the_part_begins_not_with_stock_sound_words():
    from staragent.tools.summary import Point, extractive

    def said(start, text, modality="speech"):
        return Point(timestamp=None, start=start, end=start + 2, modality=modality, text=text)

    points = [said(0.0, "The Lighthouse Keeper", "ocr"), said(1.0, "1."), said(2.0, "The storm came in at dawn."),
              said(5.0, "We were all going down to the harbour."), said(8.0, "We were all going down the other way."),
              *[said(t, "sound (tonal sound near 120 Hz, changing in loudness: a chime, bell or music)", "audio") for t in (4.0, 9.0, 14.0)],
              said(12.0, "In short, the night was so like the night before.")]
    chosen = [p.text for p in extractive(points, 4)]
    assert "The storm came in at dawn." in chosen and "1." not in chosen
    assert not any(p.startswith("sound") for p in chosen)


def test_a_summary_gives_what_is_said_before_a_stretch_that_holds_only_a_sound():
    from staragent.tools.summary import Point, extractive

    def at(start, text, modality="speech"):
        return Point(timestamp=None, start=start, end=start + 2, modality=modality, text=text)

    # a short speech under a title card, its closing seconds silent: the words, not the silence
    points = [at(0.0, "Harbour Lights - a toast, 1924", "ocr"), at(0.0, "Portsmouth, May 3, 1924", "ocr"), at(1.0, "So, my dear friends,"),
              at(3.0, "raise your glasses to the ships that brought us home, and to the ones still out at sea."), at(12.0, "Silence", "audio")]
    chosen = [p.text for p in extractive(points, 4)]
    assert any("raise your glasses" in p for p in chosen) and "Silence" not in chosen, chosen


def test_a_silent_screen_recording_is_summarised_by_its_steps_in_order(registry, lecture_ctx, monkeypatch):
    # a settings window stays open; a hint comes and goes, a switch beside "Wi-Fi" is turned, a dialog asks to confirm
    from staragent.records import OcrLine

    def shown(text, start, end, changes=()):
        return OcrLine(text=text, score=1.0, box=[0.1, 0.1, 0.5, 0.15], start=start, end=end, changes=[list(c) for c in changes])

    lines = [shown("Tue 09:12", 0.0, 18.0), shown("Network Settings", 0.0, 18.0), shown("Wi-Fi", 0.0, 18.0, [(9.0, 10.0)]),
             shown("Bluetooth", 0.0, 18.0), shown("Click a network to see its details.", 4.0, 6.0),
             shown("Forget this network?", 13.0, 16.0), shown("Cancel", 13.0, 16.0), shown("Forget", 13.0, 16.0)]
    index = lecture_ctx.index
    monkeypatch.setattr(type(index), "ocr_between", lambda self, a, b: [line for line in lines if line.overlaps(a, b)])
    monkeypatch.setattr(type(index), "speech_between", lambda self, a, b: [])
    summary = registry.get("summarize_segment")(lecture_ctx, {"timestamp": "0:00-0:18", "length": "medium"})  # the lecture video is 18 s long
    told = summary.text
    hint, switch, dialog = told.find("Click a network"), told.find("Wi-Fi"), told.find("Forget this network?")
    assert -1 < hint < switch < dialog, told  # each step, in the order it happened
    assert "Cancel" in told and "Bluetooth" not in told and "09:12" not in told  # the dialog's choices; not the window that stays
    assert {p.text for p in summary.points} >= {"Forget this network?", "Wi-Fi"}  # cited by the lines read


def test_a_film_with_text_only_at_its_titles_is_not_told_as_steps():
    from staragent.records import OcrLine
    from staragent.tools.screen_steps import screen_steps

    titles = [OcrLine(text=t, score=1.0, box=[0, 0, 1, 1], start=s, end=s + 5) for s, t in ((2.0, "A Studio Film"), (280.0, "Directed by Ana Ruiz"), (290.0, "Music by Leo Park"))]
    assert screen_steps(titles, 0.0, 300.0) == []  # nothing stays on screen under them: no screen recording
    # an 8-second stretch of credits: two headings stay through most of it while names pass, yet no window stays
    roll = [OcrLine(text=t, score=1.0, box=[0, 0, 1, 1], start=s, end=e) for s, e, t in (
        (500.0, 507.5, "MUSIC AND SOUND DESIGN"), (500.5, 508.0, "CHARACTER DESIGN"), (502.0, 503.0, "Ana Ruiz"),
        (504.0, 505.0, "Leo Park"), (506.0, 507.0, "Mia Chen"))]
    assert screen_steps(roll, 500.0, 508.0) == []
