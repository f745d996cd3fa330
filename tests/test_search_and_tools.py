import pytest

from staragent.errors import InputError, TimeFormatError, ToolError
from staragent.index.hybrid_search import _fuse, cross_modal_search, parse_modalities
from staragent.tools import ToolContext
from staragent.tools.calculator import evaluate


@pytest.fixture
def ctx(foreign_index, settings):
    return ToolContext(settings=settings, index=foreign_index)


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = dict(_fuse({"a": [(1, 9.0), (2, 5.0)], "b": [(2, 0.9), (3, 0.8)]}, rrf_k=60))
    assert max(fused, key=fused.get) == 2
    assert fused[1] == pytest.approx(1 / 61)


def test_search_finds_on_screen_and_spoken_facts(foreign, foreign_index):
    price = cross_modal_search(foreign_index, "coffee grinder price", k=3)
    start, end = foreign.slide_span(0)
    assert price.hits[0].start >= start - 0.5 and price.hits[0].end <= end + 0.5
    assert any(e.modality == "ocr" and "$129.50" in e.text for e in price.hits[0].evidence)

    spoken = cross_modal_search(foreign_index, "Nairobi", modalities="speech")
    assert spoken.searched == ["speech"]
    line = next(e for e in spoken.hits[0].evidence if e.modality == "speech")
    assert line.start == pytest.approx(11.0) and "Nairobi" in line.text

    sound = cross_modal_search(foreign_index, "beep", modalities=["audio"])
    assert sound.hits and sound.hits[0].start <= 21.0 <= sound.hits[0].end


def test_search_reports_what_it_could_not_search(foreign_index):
    result = cross_modal_search(foreign_index, "grinder", modalities=["visual", "ocr"])
    assert "visual" in result.unavailable and "image embeddings" in result.unavailable["visual"]
    assert result.searched == ["ocr"]


def test_search_rejects_bad_requests(foreign_index):
    with pytest.raises(InputError, match="empty"):
        cross_modal_search(foreign_index, "  ")
    with pytest.raises(InputError, match="unknown modality 'smell'"):
        parse_modalities("speech,smell")
    assert parse_modalities("transcript, text") == ["speech", "ocr"]


def test_transcribe_and_scene_text_cover_a_range(registry, ctx):
    speech = registry.get("transcribe_speech")(ctx, {"timestamp": "00:00:10-00:00:20"})
    assert "Nairobi" in speech.transcript and speech.lines[0].timestamp == "0:11-0:14"
    assert speech.source == "subtitles:conference.vtt"
    assert all(e.modality == "speech" for e in speech.evidence())
    text = registry.get("extract_scene_text")(ctx, {"timestamp": "0:10-0:20"})
    assert {"Keynote Speaker", "Dr. Amara Singh"} <= set(text.texts)
    assert all(line.start <= 10.0 and line.end >= 20.0 for line in text.lines)  # the slide's own time on screen
    quiet = registry.get("transcribe_speech")(ctx, {"timestamp": "0:20-0:28"})
    assert quiet.transcript == "" and "nobody speaks" in quiet.note


def test_audio_events_name_the_sounds_and_keep_the_acoustic_facts(registry, ctx):
    events = registry.get("detect_audio_events")(ctx, {"timestamp": "0:20-0:26"})
    assert {"tone", "burst"} <= {e.label for e in events.events if e.source == "acoustics"}
    assert "1000 Hz" in events.description
    named = [e for e in events.events if e.source == "yamnet"]
    assert any("Beep" in e.label and e.start < 22.5 and e.end > 21.0 for e in named), named  # the 1 kHz tone at 0:21
    assert all(0 < e.confidence <= 1 for e in named) and "cannot name" not in events.description


@pytest.mark.parametrize(
    "tool, args, message",
    [
        ("transcribe_speech", {"timestamp": "banana"}, "cannot read the time"),
        ("transcribe_speech", {"timestamp": "10:00-11:00"}, "starts after the video ends"),
        ("extract_scene_text", {"timestamp": "0:20-0:10"}, "ends before it starts"),
        ("extract_scene_text", {}, "timestamp"),
        ("cross_modal_search", {"query": ""}, "empty"),
        ("cross_modal_search", {"query": "x", "k": 0}, "k"),
        ("calculator", {"expression": "__import__('os').system('ls')"}, "not allowed"),
    ],
)
def test_bad_arguments_get_clear_errors(registry, ctx, tool, args, message):
    with pytest.raises((ToolError, TimeFormatError, InputError), match=message):
        registry.get(tool)(ctx, args)


def test_tools_that_need_a_video_say_so(registry, settings):
    with pytest.raises(ToolError, match="no video is loaded"):
        registry.get("transcribe_speech")(ToolContext(settings=settings), {"timestamp": "0:00-0:10"})


@pytest.mark.parametrize(
    "expression, value",
    [("249 + 129.50", 378.5), ("$1,249.99 - $249.99", 1000.0), ("15% of 240", 36.0), ("2^10", 1024), ("round(10/3, 2)", 3.33), ("mean(2, 4, 9)", 5.0), ("3 x 4", 12),
     ("240 * 15%", 36.0), ("(240)*15 %", 36.0), ("50% + 10", 10.5), ("10 % 3", 1), ("10%3", 1), ("17 % (2 + 3)", 2), ("7.5 % 2", 1.5)],
)
def test_calculator_reads_what_people_write(expression, value):
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize("expression", ["9**9**9", "10**400", "1/0", "open('x')", "[1,2]", "x + 1", "().__class__", "'a' * 3", ""])
def test_calculator_refuses_what_is_not_bounded_arithmetic(expression):
    with pytest.raises(ToolError):
        evaluate(expression)


def test_registry_lists_schemas_and_suggests_names(registry, settings):
    assert {"cross_modal_search", "transcribe_speech", "extract_scene_text", "detect_audio_events", "calculator"} <= set(registry.names())
    schema = registry.get("cross_modal_search").schema()["function"]
    assert schema["parameters"]["required"] == ["query"]
    with pytest.raises(ToolError, match="did you mean 'calculator'"):
        registry.get("calculater")
    assert [t.name for t in registry.select(["calculator"], settings)] == ["calculator"]


def test_structured_tool_adapter_runs_a_tool(registry, ctx):
    import json

    from staragent.tools.adapters import to_structured_tool

    tool = to_structured_tool(registry.get("calculator"), ctx)
    assert json.loads(tool.invoke({"expression": "2 + 3"}))["result"] == 5


def test_a_search_inside_a_stretch_finds_only_what_is_there(registry, ctx, foreign_index):
    everywhere = cross_modal_search(foreign_index, "year", modalities="speech", k=5)
    assert {h.start < 10 for h in everywhere.hits} == {True, False}  # the warranty's year and the attendance's
    inside = cross_modal_search(foreign_index, "year", modalities="speech", k=5, within=(25.0, 38.0))
    assert inside.hits and all(h.end > 25.0 and h.start < 38.0 for h in inside.hits)
    assert any("Attendance grew" in e.text for h in inside.hits for e in h.evidence)
    tool = registry.get("cross_modal_search")
    found = tool(ctx, {"query": "year", "modalities": ["speech"], "within": "0:25-0:38"})
    assert found.results and all(h.start < 38.0 and h.end > 25.0 for h in found.results)
    with pytest.raises((ToolError, TimeFormatError)):
        tool(ctx, {"query": "year", "within": "soon"})
