"""Offline pipeline benchmark: index a generated 60-minute video, next to the decode floor (PyAV
decoding the same frames and the audio, nothing else), then search and ask latency.

Indexing runs in a child process so that its peak memory (max RSS) is measured on its own.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import WORK, Timer, save, summary

INDEX_CHILD = """
import json, resource, sys, time
from staragent.config import load_settings
from staragent.index.builder import build_index
settings = load_settings(cache_dir=sys.argv[2], progress=False, index=json.loads(sys.argv[3]))
started = time.perf_counter()
index = build_index(sys.argv[1], settings)
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
                  "stages": {k: v.seconds for k, v in index.manifest.stages.items()},
                  "info": {k: v.info for k, v in index.manifest.stages.items()}}))
"""


def sample_video(minutes: float) -> Path:
    from staragent.samples import generate_sample_video

    video = WORK / f"sample_{int(minutes)}min.mp4"
    if not video.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        with Timer() as t:
            generate_sample_video(video, minutes=minutes, seed=11)
        print(f"generated {video.name} in {t.seconds:.0f} s", flush=True)
    return video


def decode_floor(video: Path) -> dict:
    """PyAV alone: decode the video as the index does (same frame skipping, decoding threads) and
    the audio to 16 kHz mono. Sequential; the index overlaps the two."""
    import av

    from staragent import media
    from staragent.config import IndexSettings, lane_threads

    cfg = IndexSettings()
    cpu = time.process_time()
    with Timer() as tv, av.open(str(video)) as container:
        stream = container.streams.video[0]
        media.decoding_threads(stream, lane_threads())
        if cfg.decode_nonref:
            stream.codec_context.skip_frame = "NONREF"
        frames = sum(1 for _ in container.decode(stream))
    with Timer() as ta:
        media.load_audio(video)
    return {"video_seconds": tv.seconds, "audio_seconds": ta.seconds, "total_seconds": tv.seconds + ta.seconds, "decoded_frames": frames,
            "cpu_seconds": time.process_time() - cpu}


def index_once(video: Path, cache: Path, fresh: bool = True, **index_settings) -> dict:
    """Index ``video`` in a child process (into ``cache``, emptied first when ``fresh``)."""
    if fresh:
        shutil.rmtree(cache, ignore_errors=True)
    out = subprocess.run([sys.executable, "-c", INDEX_CHILD, str(video), str(cache), json.dumps(index_settings)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # its peak memory is its own (the children's maximum is every child's so far)


def speech_recognition(video: Path, cache: Path) -> dict:
    """What indexing costs when the video comes without subtitles: the same index rebuilt with
    them ignored, in a copy of the cache, so only speech recognition and the joins after it run."""
    copy = cache.with_name(cache.name + "-no-subtitles")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(cache, copy)
    rebuilt = index_once(video, copy, fresh=False, subtitles=False)
    shutil.rmtree(copy, ignore_errors=True)
    return {"seconds": rebuilt["stages"]["speech"], "info": rebuilt["info"]["speech"], "rebuild_seconds": rebuilt["seconds"]}


def latencies(video: Path, cache: Path) -> dict:
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings
    from staragent.samples import SampleScript

    script = SampleScript.load(video.with_name(video.stem + ".facts.json"))
    agent = VideoAgent(load_settings(cache_dir=cache, progress=False))
    agent.session(video)
    queries = [f.topic for f in script.facts][:200]
    search = []
    for q in queries:
        started = time.perf_counter()
        agent.search(video, q)
        search.append(time.perf_counter() - started)
    facts = [f for f in script.facts if f.modality != "visual"]  # the offline profile cannot see pictures
    ask, right = [], {}
    for fact in facts:
        answer = agent.ask(video, fact.question)
        ask.append(answer.latency_s)
        kind = f"{fact.modality} {fact.kind}"
        done, total = right.get(kind, (0, 0))
        right[kind] = (done + fact.stated_by(answer), total + 1)
    agent.close()
    questions = [f.question for f in facts[:3]]
    return {"search_s": summary(search), "ask_s": summary(ask), "answers_right": {k: f"{a}/{n}" for k, (a, n) in sorted(right.items())},
            "cold_ask_s": cold_ask(video, cache, questions)}


def cold_ask(video: Path, cache: Path, questions: list[str]) -> dict:
    """``staragent ask`` as a person runs it: a fresh process each time (imports, opening the index,
    the first search), the index already built."""
    times = []
    for question in questions:
        with Timer() as t:
            subprocess.run([sys.executable, "-m", "staragent", "--quiet", "--cache-dir", str(cache), "ask", str(video), question, "--json"],
                           capture_output=True, check=True)
        times.append(t.seconds)
    return summary(times)


PICTURE_ORDER = ("never", "auto", "auto", "never")
"""fresh indexes without and with the picture labels, after the first index warmed the machine, in
A-B-B-A order: neither side gets all the early (or late) runs of a drifting machine"""


def picture_cost(video: Path) -> dict:
    """What the coarse picture labels stage adds to a fresh index of a video: the medians of two
    fresh indexes with it and two without it (sharing the first index's prepared model packs), and
    the mean of the two pairs' ratios."""
    runs: dict[str, list[dict]] = {"never": [], "auto": []}
    cache = WORK / "cache-pictures"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    # the model packs the first index prepared (the classifier's ONNX file is written from its
    # checkpoint on first use, with PyTorch): a one-time cost of the cache, not of indexing a video
    (cache / "packs").symlink_to((WORK / "cache" / "packs").resolve(), target_is_directory=True)
    for setting in PICTURE_ORDER:
        shutil.rmtree(cache / "index", ignore_errors=True)
        runs[setting].append(index_once(video, cache, fresh=False, picture_labels=setting))
    shutil.rmtree(cache, ignore_errors=True)
    pairs = list(zip(runs["auto"], runs["never"]))

    def side(done: list[dict]) -> dict:
        return {key: statistics.median(r[key] for r in done) for key in ("seconds", "cpu_seconds", "peak_rss_mb")}

    return {"with": side(runs["auto"]), "without": side(runs["never"]), "pairs": len(pairs),
            "ratios": [round(a["seconds"] / b["seconds"], 4) for a, b in pairs],
            "ratio": statistics.mean(a["seconds"] / b["seconds"] for a, b in pairs)}


def main(minutes: float = 60.0) -> dict:
    video = sample_video(minutes)
    from staragent.media import probe

    duration = probe(video).duration
    floor = decode_floor(video)
    print(f"decode floor {floor['total_seconds']:.1f} s", flush=True)
    cache = WORK / "cache"
    indexed = index_once(video, cache)
    print(f"index {indexed['seconds']:.1f} s, peak {indexed['peak_rss_mb']:.0f} MB", flush=True)
    pictures = picture_cost(video)
    print(f"picture labels: {pictures['without']['seconds']:.1f} s -> {pictures['with']['seconds']:.1f} s ({pictures['ratio'] - 1:+.1%})", flush=True)
    load = os.getloadavg()[0]
    timings = latencies(video, cache)
    asr = speech_recognition(video, cache)
    print(f"speech recognition without subtitles {asr['seconds']:.1f} s", flush=True)
    # the whole index of a video that comes without subtitles, fresh, as most real videos are
    unsubtitled = index_once(video, WORK / "cache-no-subtitles-fresh", subtitles=False)
    shutil.rmtree(WORK / "cache-no-subtitles-fresh", ignore_errors=True)
    print(f"index without subtitles {unsubtitled['seconds']:.1f} s", flush=True)
    data = {
        "command": "python perf/run.py pipeline",
        "video": {"minutes": round(duration / 60, 1), "file": video.name},
        "decode_floor": floor,
        "index": indexed,
        "index_x_realtime": duration / indexed["seconds"],
        "floor_x_realtime": duration / floor["total_seconds"],
        "index_over_floor": indexed["seconds"] / floor["total_seconds"],
        "picture_cost": pictures,
        "load_average": round(load, 1),
        "speech_recognition": {**asr, "x_realtime": duration / asr["seconds"] if asr["seconds"] else None},
        "index_without_subtitles": {
            **{k: unsubtitled[k] for k in ("seconds", "cpu_seconds", "stages", "peak_rss_mb")}, "speech": unsubtitled["info"]["speech"],
            "x_realtime": duration / unsubtitled["seconds"], "over_floor": unsubtitled["seconds"] / floor["total_seconds"],
        },
        **timings,
    }
    save("pipeline_cpu", data)
    return data


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
