import pytest

from staragent.errors import SubtitleError
from staragent.index.subtitles import find_sidecar, parse_subtitles

SRT = """1
00:00:01,000 --> 00:00:03,500
Hello <i>there</i>,
second line.

2
00:01:02,250 --> 00:01:04,000
The price is $249.
"""

VTT = """WEBVTT
Kind: captions

intro
00:00:01.000 --> 00:00:02.000 align:start position:0%
<v Host>Welcome back</v>

00:02.000 --> 00:03.500
<c.yellow>Second</c> cue
"""


def test_srt_cues_keep_times_and_strip_markup(tmp_path):
    path = tmp_path / "a.srt"
    path.write_text(SRT, encoding="utf-8")
    lines = parse_subtitles(path)
    assert [(x.start, x.end) for x in lines] == [(1.0, 3.5), (62.25, 64.0)]
    assert lines[0].text == "Hello there, second line."
    assert lines[1].source == "subtitles:a.srt"


def test_webvtt_with_short_timestamps_and_voice_tags(tmp_path):
    path = tmp_path / "a.vtt"
    path.write_text(VTT, encoding="utf-8")
    lines = parse_subtitles(path)
    assert [(x.start, x.end, x.text) for x in lines] == [(1.0, 2.0, "Welcome back"), (2.0, 3.5, "Second cue")]


def test_utf16_and_bom_files_are_read(tmp_path):
    path = tmp_path / "b.srt"
    path.write_bytes(SRT.encode("utf-16"))
    assert len(parse_subtitles(path)) == 2
    path.write_bytes(b"\xef\xbb\xbf" + SRT.encode())
    assert parse_subtitles(path)[0].start == 1.0


@pytest.mark.parametrize("padding", ["", " "])  # odd and even lengths: an even one once passed for UTF-16
def test_latin1_files_are_read_whatever_their_length(tmp_path, padding):
    path = tmp_path / "c.srt"
    path.write_bytes((SRT.replace("second line", "au café") + padding).encode("cp1252"))
    assert parse_subtitles(path)[0].text == "Hello there, au café."


@pytest.mark.parametrize("content, message", [(b"\x00\x01\x02\x03binary", "binary"), (b"just some words\n", "no subtitle cues")])
def test_unreadable_files_raise_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.srt"
    path.write_bytes(content)
    with pytest.raises(SubtitleError, match=message):
        parse_subtitles(path)


def test_sidecar_discovery_prefers_exact_then_english(tmp_path):
    video = tmp_path / "talk [v1].mp4"
    video.write_bytes(b"x")
    assert find_sidecar(video) is None
    (tmp_path / "talk [v1].fr.srt").write_text(SRT)
    (tmp_path / "talk [v1].en.srt").write_text(SRT)
    assert find_sidecar(video).name == "talk [v1].en.srt"
    (tmp_path / "talk [v1].vtt").write_text(VTT)
    assert find_sidecar(video).name == "talk [v1].vtt"


def test_cues_that_cannot_be_placed_are_counted_not_silently_lost(tmp_path):
    from collections import Counter

    from staragent.index.subtitles import AFTER, BEFORE, CUT, REVERSED, UNREADABLE, dropped_text, fit_to_video

    path = tmp_path / "odd.srt"
    path.write_text(
        "1\n00:00:05,000 --> 00:00:02,000\nBackwards.\n\n"
        "2\n00:00:0x,000 --> 00:00:04,000\nGarbled.\n\n"
        "3\n-00:00:03,000 --> -00:00:01,000\nBefore the start.\n\n"
        "4\n-00:00:01,000 --> 00:00:02,000\nStraddles the start.\n\n"
        "5\n00:00:08,000 --> 00:00:12,000\nStraddles the end.\n\n"
        "6\n00:00:15,000 --> 00:00:16,000\nAfter the end.\n",
        encoding="utf-8",
    )
    dropped = Counter()
    lines = fit_to_video(parse_subtitles(path, dropped), 10.0, dropped)
    assert [(x.start, x.end, x.text) for x in lines] == [(0.0, 2.0, "Straddles the start."), (8.0, 10.0, "Straddles the end.")]
    assert dropped == {REVERSED: 1, UNREADABLE: 1, BEFORE: 1, AFTER: 1, CUT: 1}
    assert dropped_text(dropped).startswith("dropped 4 cues (") and "1 starting after the video ends" in dropped_text(dropped)
