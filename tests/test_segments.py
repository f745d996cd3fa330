import pytest

from staragent.index.segments import merge_spans, scene_of, segment_bounds


def _check_tiling(bounds, duration):
    assert bounds[0][0] == 0.0 and bounds[-1][1] == pytest.approx(duration)
    for (a, b), (c, _) in zip(bounds, bounds[1:]):
        assert b == c and b > a


def test_speech_runs_and_silences_become_segments():
    bounds = segment_bounds(60.0, [(5, 12), (12.2, 20), (30, 40)], [], min_silence=0.5, max_len=30, min_len=2)
    _check_tiling(bounds, 60.0)
    assert (5.0, 20.0) in bounds  # the 0.2 s pause does not split a speech run
    assert (20.0, 30.0) in bounds and (30.0, 40.0) in bounds


def test_scene_cuts_split_and_long_pieces_are_capped():
    bounds = segment_bounds(100.0, [(0, 100)], [50.0], min_silence=0.5, max_len=20, min_len=2)
    _check_tiling(bounds, 100.0)
    assert any(b == 50.0 for _, b in bounds)
    assert max(b - a for a, b in bounds) <= 20.0 + 1e-6


def test_slivers_merge_without_crossing_a_scene_cut():
    bounds = segment_bounds(30.0, [(10.0, 10.5)], [10.0], min_silence=0.5, max_len=30, min_len=2)
    _check_tiling(bounds, 30.0)
    assert all(b - a >= 2 for a, b in bounds)
    assert any(a == 10.0 for a, _ in bounds)  # the cut survives; the sliver joined the later piece


def test_helpers():
    assert merge_spans([(0, 1), (1.2, 2), (5, 6)], 0.5) == [(0, 2), (5, 6)]
    assert [scene_of(t, [10.0, 20.0]) for t in (0, 9.9, 10.0, 25)] == [0, 0, 1, 2]
    assert segment_bounds(0.0, [], [], min_silence=0.5, max_len=30, min_len=2) == []
