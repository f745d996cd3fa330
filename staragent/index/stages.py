"""Preprocessing stages. Each reads what earlier stages wrote, writes its own outputs atomically
into the index directory, and returns a small dict of facts for the manifest.

Lanes run side by side: the audio lane (decode -> VAD -> speech, acoustics; audio -> tags), the
video lane (one decoding pass for scene cuts and keyframes -> captions, keyframe embeddings) and
the text lane (a decoding pass of its own for on-screen text, sampled more often than keyframes);
segments and BM25 join them. Every stage that runs an expert model depends only on
the raw lanes and names its backend and model in its parameters, so switching one backend re-runs
that stage and the cheap joins after it, nothing else.
"""

from __future__ import annotations

import io
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import media
from ..config import Settings, lane_threads
from ..errors import ModelUnavailable, StarAgentError
from ..faults import marker
from ..fsutil import append_jsonl, atomic_dir, atomic_path, read_jsonl, repair_jsonl, write_json, write_jsonl
from ..media import SAMPLE_RATE, MediaInfo
from ..records import Keyframe, OcrLine, SpeechLine
from .feed import Feed
from .fingerprint import file_fingerprint
from .store import decode_keyframe, read_keyframe, read_pcm
from .subtitles import dropped_text, fit_to_video, parse_subtitles

# Keyframe selection on the downscaled grey frames: a pixel "changed" when it moved by 10 % of the
# range; new content is "settled" once consecutive frames agree.
PIXEL_DELTA = 0.10
CONTENT_CHANGE = 0.01
SETTLED = 0.003
log = logging.getLogger("staragent.index")


@dataclass
class SubtitleSource:
    kind: str  # "file" | "stream"
    path: Path | None = None
    stream: int | None = None
    fingerprint: str = ""
    kept: bool = False
    """Not beside this copy of the video: the ones an earlier build of the same content read."""

    def describe(self) -> str:
        if self.kept:
            return "subtitles kept from an earlier build of this video"
        return f"subtitles:{self.path.name}" if self.kind == "file" else f"subtitle stream #{self.stream}"


def kept_subtitles(manifest, directory: Path) -> SubtitleSource | None:
    """The subtitles an existing index of these bytes (its ``manifest``, None when there is none)
    was built from, for a copy of the video that has none beside it: the same video keeps its
    transcript under any name."""
    record = manifest.stages.get("speech") if manifest else None
    source = str(record.params.get("source", "")) if record else ""
    if not source.startswith("subtitles:") or not (directory / "speech.jsonl").exists():
        return None
    return SubtitleSource(source.split(":", 1)[1], fingerprint=record.params.get("fingerprint", ""), kept=True)


@dataclass
class BuildContext:
    video: Path
    info: MediaInfo
    settings: Settings
    pool: Any
    dir: Path
    subtitles: SubtitleSource | None
    progress: Callable[..., Any]
    fingerprints: dict[str, str] = field(default_factory=dict)
    params: dict[str, dict] = field(default_factory=dict)
    """stage -> the parameters its fingerprint was made from"""
    fallbacks: dict[str, dict] = field(default_factory=dict)
    """role -> {wanted, used, reason}: experts that cannot run here, replaced by a fallback"""
    kept_backends: frozenset[str] = frozenset()
    """the backends the stages already on disk were made with (an index opened again)"""
    frame_pass: Any = None
    """a ``FramePass`` the video and on-screen text lanes share, when both run (``share_frame_pass``)"""
    feeds: dict[str, Feed] = field(default_factory=dict)
    """stage -> what it makes, handed on while it runs to the stage that ``streams_from`` it (``open_feeds``)"""

    def path(self, name: str) -> Path:
        return self.dir / name


def stage_backend(ctx: BuildContext, role: str, asked: bool = False) -> str:
    """The backend that runs ``role`` in this build: the settings' choice or, when that cannot run
    here (weights, package or GPU missing, a model pack missing or damaged), the first of the
    role's fallbacks that can (``specs.FALLBACKS``; ``none`` at the end), so that one missing
    expert does not stop the build. The fallback and its reason are kept in ``ctx.fallbacks`` (the
    manifest and the build report show them); the stage's parameters name the backend really used,
    so a later build where the expert can run re-runs that stage alone (and the joins after it).
    ``asked``: the user turned the stage on (captions), so a profile without the expert is a
    fallback to report too. A fallback named ``backend:model`` is that backend with that model."""
    from ..models.specs import FALLBACKS, ROLES, chosen_backend, problem

    if role in ctx.fallbacks:
        return ctx.fallbacks[role]["used"]
    chosen, chain = chosen_backend(ctx.settings, role), FALLBACKS.get(role, ())
    if chosen == "none" and asked:  # the profile has no such expert: why, and what would have run
        chosen, why = ROLES[role].defaults[1], problem(ctx.settings, role)
    else:
        why = None if chosen == "none" or not chain else ctx.pool.problem(role)
    if why is None:
        return chosen
    if chosen in ctx.kept_backends and _from_pack(ctx, role):
        # A pack deleted or damaged since the index was made: remaking the index without it would
        # drop good work for worse; say which pack and how to restore it instead.
        raise ModelUnavailable(f"{why}. The index of {ctx.video.name} was made with it and is kept as it is until it is back")
    used = next((b for b in chain if b == "none" or (b != chosen and ctx.pool.problem(f"{role}:{b}") is None)), "none")
    ctx.fallbacks[role] = {"wanted": chosen, "used": used, "reason": why}
    log.warning("%s: %s cannot run here, using %s instead (%s)", role, chosen, used, why)
    return used


def _from_pack(ctx: BuildContext, role: str) -> bool:
    from ..models.specs import role_pack

    try:
        return role_pack(ctx.settings, role) is not None
    except StarAgentError:
        return False


def stage_expert(ctx: BuildContext, role: str):
    """The model ``stage_backend`` chose for ``role``, from the pool."""
    fallback = ctx.fallbacks.get(role)
    return ctx.pool.get(role if fallback is None else f"{role}:{fallback['used']}")


def backend_model(ctx: BuildContext, role: str, backend: str) -> str:
    """The model ``backend`` runs for ``role`` in this build, as the role table labels it (a
    fallback named ``backend:model`` runs that model)."""
    from ..models.specs import ROLES

    return ROLES[role].backend(backend, ctx.settings).label(ctx.settings)


def weights_revision(ctx: BuildContext, role: str, backend: str) -> dict:
    """``{"revision": ...}`` identifying the weights the backend reads (Hugging Face snapshot, or
    a fingerprint of local files), so that new weights under the same id re-run the stage."""
    from ..models.specs import revision

    found = revision(ctx.settings, role, backend)
    return {"revision": found} if found else {}


@dataclass(frozen=True)
class Stage:
    name: str
    deps: tuple[str, ...]
    outputs: tuple[str, ...]
    params: Callable[[BuildContext], dict]
    run: Callable[[BuildContext], dict]
    version: int = 1
    role: str | None = None
    """The ModelPool role this stage runs; its info's ``model`` is recorded in the manifest."""
    streams_from: str | None = None
    """a dependency whose output this stage can take while that one still runs (through
    ``BuildContext.feeds``): when both are to run, this one starts with it"""


# ---------------------------------------------------------------- audio lane


def run_audio(ctx: BuildContext) -> dict:
    audio = media.load_audio(ctx.video) if ctx.info.has_audio else np.zeros(0, np.float32)
    pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16)
    with atomic_path(ctx.path("audio.npy")) as tmp, open(tmp, "wb") as fh:
        np.save(fh, pcm)
    return {"samples": int(pcm.size), "seconds": round(pcm.size / SAMPLE_RATE, 3)}


def run_vad(ctx: BuildContext) -> dict:
    audio = read_pcm(ctx.dir)
    spans = []
    if audio.size:
        spans = ctx.pool.get("vad").speech_spans(
            audio, min_silence=ctx.settings.index.min_silence, threshold=ctx.settings.index.vad_threshold
        )
    write_json(ctx.path("speech_spans.json"), [[round(a, 3), round(b, 3)] for a, b in spans])
    return {"spans": len(spans), "speech_seconds": round(sum(b - a for a, b in spans), 1)}


def _speech_params(ctx: BuildContext) -> dict:
    if ctx.subtitles is not None:  # the subtitles' content, not their file name (a renamed copy is the same)
        # fitted: cues are cut to the video's span (those wholly outside it dropped) since this was added
        return {"source": f"subtitles:{ctx.subtitles.kind}", "fingerprint": ctx.subtitles.fingerprint, "fitted": True}
    if not ctx.info.has_audio:
        return {"source": "none"}  # nothing to listen to: no recogniser is loaded
    backend = stage_backend(ctx, "asr")
    if backend in ("pocketsphinx", "none"):
        return {"source": "asr", "backend": backend}
    from ..models.pool import resolve_device
    from ..models.specs import asr_beam_size

    m = ctx.settings.models
    try:
        device = resolve_device(m.device, wants_gpu=True)
    except ModelUnavailable:  # a GPU asked for and missing: the recogniser says so when it loads
        device = "cpu"
    return {
        "source": "asr", "backend": backend.split(":")[0], "model": backend_model(ctx, "asr", backend), "beam_size": asr_beam_size(ctx.settings, device),
        "compute_type": m.asr_compute_type, **weights_revision(ctx, "asr", backend),
    }


def run_speech(ctx: BuildContext) -> dict:
    if ctx.subtitles is not None:
        if ctx.subtitles.kept:  # reached only when a stage before speech changed; the kept lines still hold
            return {"source": ctx.subtitles.describe(), "lines": len(read_jsonl(ctx.path("speech.jsonl")))}
        dropped: Counter = Counter()
        if ctx.subtitles.kind == "file":
            lines = parse_subtitles(ctx.subtitles.path, dropped)
        else:
            lines = [
                SpeechLine(start=a, end=b, text=t, source=ctx.subtitles.describe())
                for a, b, t in media.read_subtitle_stream(ctx.video, ctx.subtitles.stream)
            ]
        lines = fit_to_video(lines, ctx.info.duration, dropped)
        if dropped:
            log.warning("subtitles of %s: %s", ctx.video.name, dropped_text(dropped))
        write_jsonl(ctx.path("speech.jsonl"), [line.model_dump(exclude_none=True) for line in lines])
        return {"source": ctx.subtitles.describe(), "lines": len(lines), **({"cue_problems": dict(dropped)} if dropped else {})}
    if not ctx.info.has_audio:
        write_jsonl(ctx.path("speech.jsonl"), [])
        return {"source": "none (the video has no audio)", "lines": 0}
    params = ctx.params.get("speech") or _speech_params(ctx)
    if params["backend"] == "none":  # no recogniser can run here (the fallback says why)
        write_jsonl(ctx.path("speech.jsonl"), [])
        return {"source": "none (no speech recogniser)", "lines": 0}
    spans = [tuple(s) for s in json.loads(ctx.path("speech_spans.json").read_text())]
    if not spans:  # nobody speaks: no recogniser is loaded
        write_jsonl(ctx.path("speech.jsonl"), [])
        model = "en-us" if params["backend"] == "pocketsphinx" else params.get("model")
        source = "pocketsphinx" if params["backend"] == "pocketsphinx" else f"{params['backend']}:{model}"
        return {"source": source, "model": f"{params['backend']}:{model}", "lines": 0, "language": None, "languages": []}
    audio = read_pcm(ctx.dir)
    recognizer = stage_expert(ctx, "asr")
    from ..models.asr import decoding_groups

    windows, groups = decoding_groups(recognizer, spans)  # a group of windows is also the unit of resumption
    group = max(1, getattr(recognizer, "batch_size", 1))
    lines = _checkpointed(
        ctx,
        "speech",
        groups,
        lambda spans_: [line.model_dump(exclude_none=True) for line in recognizer.transcribe(audio, spans_)],
        desc="speech",
        unit="window" if group == 1 else f"×{group} windows",
    )
    rows = sorted((row for rows in lines for row in rows), key=lambda r: r["start"])
    write_jsonl(ctx.path("speech.jsonl"), rows)
    heard: dict[str, float] = {}
    for r in rows:
        if r.get("language"):
            heard[r["language"]] = heard.get(r["language"], 0.0) + r["end"] - r["start"]
    languages = sorted(heard, key=lambda lang: -heard[lang])
    model = "en-us" if params["backend"] == "pocketsphinx" else params["model"]
    return {
        "source": recognizer.name, "model": f"{params['backend']}:{model}", "lines": len(rows),
        "language": languages[0] if languages else None, "languages": languages,
        "speech_seconds": round(sum(b - a for a, b in spans), 1), "decoded_seconds": round(sum(b - a for window in windows for a, b in window), 1),
        "windows": len(windows),
    }


def _checkpointed(ctx: BuildContext, stage: str, items: list, work: Callable[[Any], Any], desc: str, unit: str) -> list:
    """Map ``work`` over ``items``, appending each result to a partial file as it is done, so that
    a killed build resumes where it stopped. The partial file is tied to the stage fingerprint."""
    partial = ctx.path(f"{stage}.partial.jsonl")
    fingerprint = ctx.fingerprints[stage]
    done: dict[int, Any] = {}
    if partial.exists():
        repair_jsonl(partial)
        rows = read_jsonl(partial)
        if rows and rows[0].get("fingerprint") == fingerprint:
            done = {row["i"]: row["out"] for row in rows[1:]}
        else:
            partial.unlink()
    if not partial.exists():
        append_jsonl(partial, {"fingerprint": fingerprint})
    results = []
    with ctx.progress(total=len(items), desc=desc, unit=unit, initial=len(done)) as bar:
        for i, item in enumerate(items):
            if i in done:
                results.append(done[i])
                continue
            out = work(item)
            append_jsonl(partial, {"i": i, "out": out})
            marker(f"index.item.{stage}")
            results.append(out)
            bar.update(1)
    return results


def finish_checkpoint(ctx: BuildContext, stage: str) -> None:
    """Drop the stage's partial file: the builder calls this once the stage is recorded in the
    manifest, so a build killed between a stage's end and its record still finds the work done."""
    ctx.path(f"{stage}.partial.jsonl").unlink(missing_ok=True)


def run_acoustics(ctx: BuildContext) -> dict:
    from ..models.audio import detect_events, measure

    audio = read_pcm(ctx.dir)
    spans = [tuple(s) for s in json.loads(ctx.path("speech_spans.json").read_text())]
    frames = measure(audio, ctx.settings.index.acoustic_window)
    events = detect_events(frames, spans)
    with atomic_path(ctx.path("acoustics.npz")) as tmp, open(tmp, "wb") as fh:
        frames.to_npz(fh)
    write_jsonl(ctx.path("audio_events.jsonl"), [e.model_dump() for e in events])
    counts: dict[str, int] = {}
    for e in events:
        counts[e.label] = counts.get(e.label, 0) + 1
    return {"windows": len(frames.times), "events": counts}


def _audio_tag_params(ctx: BuildContext) -> dict:
    backend = stage_backend(ctx, "audio_tagger") if ctx.info.has_audio else "none"
    if backend == "none":
        return {"backend": "none"}
    m = ctx.settings.models
    params = {"backend": backend, "model": backend_model(ctx, "audio_tagger", backend), "threshold": m.audio_tag_threshold, "top_k": m.audio_tag_top_k}
    if backend == "transformers":  # YAMNet's windows are its own
        params.update(model=m.audio_tagger_model, window=ctx.settings.index.audio_tag_window)
    return {**params, **weights_revision(ctx, "audio_tagger", backend)}


TAG_BLOCK_SECONDS = 120.0
"""audio scored per step of the audio-tags stage (a step is also the unit of resumption)"""


def run_audio_tags(ctx: BuildContext) -> dict:
    """Named sounds: an AudioSet tagger scores the audio window by window, each window keeps its
    best labels above the threshold, and a label's consecutive windows become one sound event
    (``audio_tags.jsonl``: start, end, label, best score). Nothing when no tagger can run."""
    from ..models.audio_tagger import label_windows, merge_windows

    params = ctx.params.get("audio_tags") or _audio_tag_params(ctx)
    if params["backend"] == "none":
        write_jsonl(ctx.path("audio_tags.jsonl"), [])
        return {"backend": "none", "events": 0}
    audio = read_pcm(ctx.dir)
    tagger = stage_expert(ctx, "audio_tagger")
    per_block = max(1, int(TAG_BLOCK_SECONDS / tagger.hop))
    starts = list(range(0, max(1, len(audio)), per_block * int(round(tagger.hop * SAMPLE_RATE))))

    def tag(first: int) -> list[dict]:
        return label_windows(tagger, audio, first, per_block, params["top_k"], params["threshold"])

    windows = [row for rows in _checkpointed(ctx, "audio_tags", starts, tag, desc="sounds", unit="block") for row in rows]
    events = merge_windows(windows)
    write_jsonl(ctx.path("audio_tags.jsonl"), [e.model_dump() for e in events])
    seconds = label_seconds(events)
    return {"backend": tagger.name, "model": f"{params['backend']}:{params['model']}", "events": len(events), "labels": len(seconds),
            "top_label_seconds": dict(list(seconds.items())[:8])}


def label_seconds(events) -> dict[str, float]:
    """Seconds each label lasts over ``events`` (anything with ``label``, ``start``, ``end``), longest first."""
    seconds: dict[str, float] = {}
    for e in events:
        seconds[e.label] = seconds.get(e.label, 0.0) + e.end - e.start
    return {label: round(sec, 1) for label, sec in sorted(seconds.items(), key=lambda kv: -kv[1])}


# ---------------------------------------------------------------- video lane


def _frames_params(ctx: BuildContext) -> dict:
    s = ctx.settings.index
    return s.model_dump(
        include={"analysis_fps", "analysis_width", "scene_threshold", "min_scene_len", "keyframe_interval", "keyframe_width", "decode_nonref", "keyframe_reuse_threshold"}
    )


class KeyframePicker:
    """Decides, frame by frame, which sampled frames to keep as keyframes.

    A frame is kept at a detected cut, when new content has settled on screen (a slide replaced by
    another with the same layout: no cut for a colour-based detector, but new text), and at least
    every ``interval`` seconds. A settled change also counts as a cut, dated to the first frame
    that showed it, so the previous picture's span ends where it really ended.
    """

    def __init__(self, interval: float, reuse_threshold: float):
        self.interval = interval
        self.reuse_threshold = reuse_threshold
        self.kf_grey: np.ndarray | None = None
        self.kf_time = float("-inf")
        self.prev_grey: np.ndarray | None = None
        self.change_start: float | None = None

    def consider(self, time: float, grey: np.ndarray, cut: bool) -> tuple[bool, float, bool, bool]:
        """``(keep, keyframe_time, content_cut, same_picture_as_last)`` for one sampled frame."""
        keep, when, content_cut = False, time, False
        if self.kf_grey is None or cut:
            keep = True
        else:
            changed = float(np.mean(np.abs(grey - self.kf_grey) > PIXEL_DELTA)) > CONTENT_CHANGE
            self.change_start = (self.change_start if self.change_start is not None else time) if changed else None
            settled = self.prev_grey is not None and float(np.mean(np.abs(grey - self.prev_grey) > PIXEL_DELTA)) < SETTLED
            if self.change_start is not None and settled:
                keep, when, content_cut = True, self.change_start, True
            elif time - self.kf_time >= self.interval:
                keep = True
        same = False
        if keep:
            same = self.kf_grey is not None and float(np.mean(np.abs(grey - self.kf_grey))) < self.reuse_threshold
            self.kf_grey, self.kf_time, self.change_start = grey, when, None
        self.prev_grey = grey
        return keep, when, content_cut, same


def _merge_cuts(cuts: list[float], within: float) -> list[float]:
    merged: list[float] = []
    for cut in sorted(cuts):
        if not merged or cut - merged[-1] > within:
            merged.append(cut)
    return merged


def run_frames(ctx: BuildContext) -> dict:
    """One decoding pass (shared with the on-screen text lane when both run): scene cuts
    (PySceneDetect's content detector on small frames, plus settled content changes) and keyframes
    (see ``KeyframePicker``). Each new keyframe picture is also handed to the feed of this stage,
    when one is open (``open_feeds``), which is closed when the pass ends, with its error if any."""
    feed = ctx.feeds.get("frames")
    try:
        found = _scenes_and_keyframes(ctx, feed)
    except BaseException as exc:
        if feed is not None:
            feed.close(exc)
        raise
    if feed is not None:
        feed.close()
    return found


def _scenes_and_keyframes(ctx: BuildContext, feed: Feed | None) -> dict:
    import cv2
    from PIL import Image
    from scenedetect import ContentDetector, FrameTimecode

    from .segments import scene_of

    s = ctx.settings.index
    detector = ContentDetector(threshold=s.scene_threshold, min_scene_len=max(1, round(s.min_scene_len * s.analysis_fps)))
    picker = KeyframePicker(s.keyframe_interval, s.keyframe_reuse_threshold)
    times: list[float] = []
    detected: list[int] = []
    content_cuts: list[float] = []
    keyframes: list[Keyframe] = []
    duration = max(ctx.info.duration, 1e-3)
    if ctx.frame_pass is not None:
        frames = ctx.frame_pass.frames("frames")
    else:
        frames = media.scan_frames(ctx.video, s.analysis_fps, s.analysis_width, s.decode_nonref, threads=lane_threads(ctx.settings.models.cpu_threads))
    with closing(frames), atomic_dir(ctx.path("keyframes")) as kdir, ctx.progress(total=round(duration), desc="frames", unit="s") as bar:
        for n, frame in enumerate(frames):
            times.append(frame.time)
            cuts_now = detector.process_frame(FrameTimecode(n, fps=s.analysis_fps), frame.small)
            detected.extend(c.frame_num for c in cuts_now)
            grey = cv2.cvtColor(frame.small, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255.0
            keep, when, content_cut, same = picker.consider(frame.time, grey, bool(cuts_now))
            if keep:
                if content_cut:
                    content_cuts.append(round(when, 3))
                if same:  # the picture did not change: share the previous image
                    prev = keyframes[-1]
                    file, w, h = prev.file, prev.width, prev.height
                else:
                    image = frame.image(s.keyframe_width)
                    file = f"{len(keyframes):06d}.jpg"
                    h, w = image.shape[:2]
                    encoded = io.BytesIO()
                    Image.fromarray(image).save(encoded, format="JPEG", quality=90)
                    data = encoded.getvalue()
                    (kdir / file).write_bytes(data)
                    if feed is not None:  # the very bytes on disk, so a label made now equals one made from the file
                        feed.put((file, data))
                keyframes.append(Keyframe(id=len(keyframes), time=round(when, 3), until=round(when, 3), scene=0, file=file, width=w, height=h))
            bar.update(max(0, round(frame.time) - bar.n))
    if not times:
        from ..errors import MediaError

        raise MediaError(f"{ctx.video.name} has no decodable video frames")
    detector_cuts = [round(times[min(c, len(times) - 1)], 3) for c in detected if 0 < c < len(times)]
    cuts = _merge_cuts(detector_cuts + content_cuts, within=1.5 / s.analysis_fps)
    end = max(ctx.info.duration, times[-1])
    for i, kf in enumerate(keyframes):
        kf.until = keyframes[i + 1].time if i + 1 < len(keyframes) else round(end, 3)
        kf.scene = scene_of(kf.time, cuts)
    write_jsonl(ctx.path("keyframes.jsonl"), [k.model_dump() for k in keyframes])
    write_json(ctx.path("scenes.json"), {"cuts": cuts, "duration": round(end, 3), "sampled_frames": len(times)})
    return {"scenes": len(cuts) + 1, "content_cuts": len(content_cuts), "keyframes": len(keyframes), "keyframe_images": len({k.file for k in keyframes})}


def _picture_params(ctx: BuildContext) -> dict:
    """The coarse picture models run where nothing better looks at the pictures: by default when no
    SigLIP model can run here (the offline profile, or the local one without its weights)."""
    import importlib.util

    wanted = ctx.settings.index.picture_labels
    if wanted == "never" or (wanted == "auto" and stage_backend(ctx, "vision") != "none"):
        return {"backend": "none"}
    backend = stage_backend(ctx, "picture_labels")
    if backend == "none":
        return {"backend": "none"}
    m = ctx.settings.models
    return {
        "backend": backend, "model": backend_model(ctx, "picture_labels", backend), "threshold": m.picture_label_threshold,
        "faces": importlib.util.find_spec("dlib") is not None, "face_threshold": m.face_threshold,
        **weights_revision(ctx, "picture_labels", backend),
    }


PICTURE_BATCH = 16
"""stored keyframe pictures labelled per step (a step is also the unit of resumption)"""
FED_BATCH = 4
"""keyframe pictures labelled together as the frames stage hands them on: the classifier's working
memory grows with the batch (about 50 MB for 4, 190 MB for 16), and during the pass the other lanes
hold theirs, while 4 cost no more CPU a picture than 16"""
READERS = 2
"""threads that decode, prepare and search the coming batches for faces"""


def run_pictures(ctx: BuildContext) -> dict:
    """What the keyframes show, coarsely: the object classifier's label and the number of faces of
    each distinct keyframe picture, merged over consecutive keyframes into spans
    (``pictures.jsonl``). Nothing when the stage does not run here (``_picture_params``).

    When the frames stage runs in the same build, the pictures are labelled as its decoding pass
    saves them (its feed): the pass leaves a core partly idle once the audio lane is done, and the
    labels are then ready when it ends. Pictures on disk that were not fed (a build that resumes
    after the frames stage) are labelled here in batches, each a step of resumption."""
    params = ctx.params.get("pictures") or _picture_params(ctx)
    if params["backend"] == "none":
        write_jsonl(ctx.path("pictures.jsonl"), [])
        return {"backend": "none", "events": 0}
    labeller = stage_expert(ctx, "picture_labels")

    def face_scores(image: np.ndarray) -> list[float]:
        return [face.score for face in labeller.faces(image)] if params["faces"] else []

    def rows(files: list[str], images: list[np.ndarray], views: np.ndarray | None, faces: list[list[float]]) -> list[dict]:
        return [
            {"file": f, "label": found.label if found else None, "description": found.description if found else "",
             "score": found.score if found else 0.0, "faces": scores}
            for f, found, scores in zip(files, labeller.label(images, views), faces)
        ]

    seen: dict[str, dict] = {}
    if (feed := ctx.feeds.get("frames")) is not None:
        with ctx.progress(desc="pictures", unit="picture") as bar:
            for batch in feed.batches(FED_BATCH):
                images = [decode_keyframe(data) for _, data in batch]
                seen.update((row["file"], row) for row in rows([f for f, _ in batch], images, None, [face_scores(i) for i in images]))
                bar.update(len(batch))
    keyframes = [Keyframe(**row) for row in read_jsonl(ctx.path("keyframes.jsonl"))]
    files = sorted({k.file for k in keyframes} - seen.keys())
    seen.update(_label_stored(ctx, labeller, files, face_scores, rows))
    events = picture_events(keyframes, seen)
    write_jsonl(ctx.path("pictures.jsonl"), [e.model_dump() for e in events])
    return {"backend": labeller.name, "model": f"{params['backend']}:{params['model']}", "pictures": len(seen),
            "events": len(events), "faces": params["faces"], "top_label_seconds": dict(list(label_seconds(events).items())[:8])}


def _label_stored(ctx: BuildContext, labeller, files: list[str], face_scores: Callable, rows: Callable) -> dict[str, dict]:
    """``rows`` of keyframe pictures read from disk, a checkpointed batch at a time."""
    from concurrent.futures import ThreadPoolExecutor

    if not files:
        return {}
    batches = [files[i : i + PICTURE_BATCH] for i in range(0, len(files), PICTURE_BATCH)]

    def read(k: int) -> tuple[list[np.ndarray], np.ndarray, list[list[float]]]:
        images = [read_keyframe(ctx.dir, f) for f in batches[k]]
        return images, labeller.views(images), [face_scores(image) for image in images]

    # the next two batches are decoded, prepared (whole) and searched for faces on threads of their own while
    # this one is classified: JPEG decoding, resizing, dlib and onnxruntime all release the GIL, and
    # after the frames stage every core is free for it
    reader = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="pictures-read")
    upcoming: dict[int, Any] = {}

    def look(k: int) -> list[dict]:
        images, views, faces = (upcoming.pop(k, None) or reader.submit(read, k)).result()
        for ahead in range(k + 1, min(k + 1 + READERS, len(batches))):
            if ahead not in upcoming:
                upcoming[ahead] = reader.submit(read, ahead)
        return rows(batches[k], images, views, faces)

    try:
        return {row["file"]: row for done in _checkpointed(ctx, "pictures", list(range(len(batches))), look, desc="pictures", unit="batch") for row in done}
    finally:
        reader.shutdown(cancel_futures=True)


def picture_events(keyframes: list[Keyframe], seen: dict[str, dict]):
    """Consecutive keyframes with the same label (or the same number of faces) as one span, with
    the best score over it."""
    from ..records import PictureEvent

    events: list[PictureEvent] = []
    open_: dict[str, PictureEvent] = {}
    for kf in sorted(keyframes, key=lambda k: k.time):
        row = seen.get(kf.file, {})
        faces = len(row.get("faces") or [])
        now = {
            "object": (row["label"], row["description"], row["score"], 0) if row.get("label") else None,
            "faces": ("1 face" if faces == 1 else f"{faces} faces", "", max(row["faces"]), faces) if faces else None,
        }
        for kind, found in now.items():
            current = open_.get(kind)
            if current is not None and found is not None and current.label == found[0] and current.end >= kf.time - 1e-3:
                current.end = max(current.end, kf.until)
                current.score = max(current.score, found[2])
                continue
            if current is not None:
                events.append(open_.pop(kind))
            if found is not None:
                open_[kind] = PictureEvent(start=kf.time, end=kf.until, kind=kind, label=found[0], description=found[1], score=found[2], count=found[3])
    events.extend(open_.values())
    return sorted(events, key=lambda e: (e.start, e.kind))


def _ocr_params(ctx: BuildContext) -> dict:
    s = ctx.settings
    backend = stage_backend(ctx, "ocr")
    params = {
        "backend": backend, "min_score": s.index.ocr_min_score, "min_height": s.index.ocr_min_height, "fps": s.index.ocr_fps,
        "detect_width": s.index.ocr_detect_width, "decode_nonref": s.index.decode_nonref,
    }
    if backend == "easyocr":  # rapidocr reads whatever it reads: its languages are not a setting
        params.update(languages=s.models.ocr_languages, **weights_revision(ctx, "ocr", backend))
    return params


def open_feeds(ctx: BuildContext, todo: Iterable[Stage]) -> None:
    """A feed from each stage to the one that ``streams_from`` it, when both are to run in this
    build (and the reader has work to do)."""
    names = {s.name for s in todo}
    for stage in STAGES:
        source = stage.streams_from
        if source and stage.name in names and source in names and ctx.params.get(stage.name, {}).get("backend") != "none":
            ctx.feeds[source] = Feed()


def share_frame_pass(ctx: BuildContext, todo: Iterable[str]) -> None:
    """Give the video lane and the on-screen text lane one decoding pass (``ctx.frame_pass``) when
    both are to run: decoding every frame is most of what a pass costs. Sharing paces the video lane
    to the slower text lane, so when a model waits for the keyframes (captions, keyframe
    embeddings) the video lane keeps a pass of its own and finishes first."""
    from .frame_pass import FramePass
    from .screen_text import CHANGE_WIDTH

    todo = set(todo)
    waits_for_keyframes = ctx.params.get("captions", {}).get("backend", "none") != "none" or ctx.params.get("vectors", {}).get("visual") is not None
    if not {"frames", "ocr"} <= todo or waits_for_keyframes:
        return
    s = ctx.settings.index
    lanes = {"frames": (s.analysis_fps, s.analysis_width), "ocr": (s.ocr_fps, CHANGE_WIDTH)}
    ctx.frame_pass = FramePass(ctx.video, lanes, skip_nonref=s.decode_nonref, threads=lane_threads(ctx.settings.models.cpu_threads))


OCR_PIECES, OCR_PIECE_SECONDS = 12, 10.0
"""the OCR pass is checkpointed in about this many pieces of at least this many seconds each (a
killed build resumes at the piece it was in)"""


def run_ocr(ctx: BuildContext) -> dict:
    """Every line of text on screen with its own span (see ``screen_text``): frames sampled at
    ``ocr_fps`` (from the pass shared with the video lane when both run), only what changed is
    detected, only new lines are recognised."""
    from concurrent.futures import ThreadPoolExecutor

    import cv2

    from ..errors import BuildCancelled
    from .screen_text import FrameFeed, TextTracker, TrackerStats, edge_sides, join_pieces

    s = ctx.settings.index
    reader = stage_expert(ctx, "ocr")
    duration = max(ctx.info.duration, 1e-3)
    length = max(OCR_PIECE_SECONDS, np.ceil(duration / OCR_PIECES / 10) * 10)
    bounds = [round(float(t), 3) for t in np.arange(0.0, duration, length)] + [round(duration, 3)]
    pieces = list(zip(bounds, bounds[1:]))
    feed = FrameFeed(ctx.video, s.ocr_fps, s.decode_nonref, threads=lane_threads(ctx.settings.models.cpu_threads), shared=ctx.frame_pass)

    # new lines are recognised on a thread of their own while the next frames are detected: the
    # two models take turns on one core otherwise, and the text lane is the index's longest
    recogniser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ocr-recognise")

    def read(piece: tuple[float, float]) -> dict:
        # each piece is followed from scratch, so that a resumed build reads exactly what an
        # uninterrupted one does; what stays on screen across a boundary is read again there
        tracker = TextTracker(reader, step=1.0 / s.ocr_fps, detect_width=s.ocr_detect_width, min_score=s.ocr_min_score, recognise_on=recogniser)
        for frame in feed.between(*piece):
            if ctx.progress.cancel.is_set():  # another stage failed: stop now, not at the end of the piece
                raise BuildCancelled("the build was cancelled")
            tracker.feed(frame.time, cv2.cvtColor(frame.small, cv2.COLOR_BGR2GRAY), frame.image)
        lines, stats = tracker.finish(piece[1])
        return {"lines": [line.model_dump() for line in lines], "stats": stats, "sides": edge_sides(tracker)}

    try:
        results = _checkpointed(ctx, "ocr", pieces, read, desc="ocr", unit=f"×{length:.0f} s")
    finally:
        feed.close()
        recogniser.shutdown(cancel_futures=True)
    stats = TrackerStats()
    for result in results:
        stats.add(result["stats"])
    lines = join_pieces([OcrLine(**row) for result in results for row in result["lines"]], bounds[1:-1], within=1.0 / s.ocr_fps,
                        sides=[result.get("sides") or {} for result in results])
    write_jsonl(ctx.path("ocr.jsonl"), [line.model_dump() for line in lines])
    model = "+".join(ctx.settings.models.ocr_languages) if stage_backend(ctx, "ocr") == "easyocr" else "pp-ocr"
    return {
        "backend": reader.name, "model": f"{reader.name}:{model}", "lines": len(lines), "pieces": len(pieces), "frames_sampled": stats.frames,
        "frames_examined": stats.examined, "detector_runs": stats.detections, "lines_recognised": stats.recognised,
    }


def _caption_params(ctx: BuildContext) -> dict:
    backend = stage_backend(ctx, "vlm", asked=True) if ctx.settings.index.captions else "none"
    if backend == "none":
        wanted = ctx.fallbacks.get("vlm", {}).get("wanted")
        return {"backend": "none", **({"wanted": wanted} if wanted else {})}
    m = ctx.settings.models
    return {
        "backend": backend, "model": m.vlm_model, "window": ctx.settings.index.caption_window, "fps": m.vlm_fps,
        "max_frames": m.vlm_max_frames, "max_pixels": m.vlm_max_pixels, "max_new_tokens": m.vlm_max_new_tokens,
        **weights_revision(ctx, "vlm", backend),
    }


def caption_windows(cuts: list[float], duration: float, window: float) -> list[tuple[float, float]]:
    """Scenes, cut into pieces no longer than ``window`` seconds (equal pieces within a scene)."""
    bounds = [0.0, *[c for c in cuts if 0 < c < duration], duration]
    out = []
    for start, end in zip(bounds, bounds[1:]):
        pieces = max(1, int(np.ceil((end - start) / window - 1e-9)))
        step = (end - start) / pieces
        out.extend((round(start + i * step, 3), round(start + (i + 1) * step, 3)) for i in range(pieces))
    return [(a, b) for a, b in out if b - a > 0.2]


def run_captions(ctx: BuildContext) -> dict:
    """Dense captions of every scene by the video refiner (``index.captions``; off by default)."""
    params = _caption_params(ctx)
    if params["backend"] == "none":
        write_jsonl(ctx.path("captions.jsonl"), [])
        return {"backend": "none", "captions": 0}
    scenes = json.loads(ctx.path("scenes.json").read_text())
    windows = caption_windows(scenes["cuts"], scenes["duration"], params["window"])
    refiner = ctx.pool.get("vlm")

    def caption(span):
        refined = refiner.refine(ctx.video, span[0], span[1])
        return {"start": span[0], "end": span[1], "text": refined.text, "frame_times": refined.frame_times}

    rows = _checkpointed(ctx, "captions", windows, caption, desc="captions", unit="window")
    write_jsonl(ctx.path("captions.jsonl"), rows)
    return {"backend": refiner.name, "model": f"{params['backend']}:{params['model']}", "captions": len(rows)}


# ---------------------------------------------------------------- joining


def _segment_params(ctx: BuildContext) -> dict:
    return ctx.settings.index.model_dump(include={"min_silence", "segment_max", "segment_min"})


def run_segments(ctx: BuildContext) -> dict:
    from ..models.audio import AcousticFrames, summarize
    from ..records import AcousticEvent, PictureEvent, Segment
    from .segments import scene_of, segment_bounds

    s = ctx.settings.index
    scenes = json.loads(ctx.path("scenes.json").read_text())
    cuts, duration = scenes["cuts"], scenes["duration"]
    spans = [tuple(x) for x in json.loads(ctx.path("speech_spans.json").read_text())]
    speech = [SpeechLine(**row) for row in read_jsonl(ctx.path("speech.jsonl"))]
    if not spans and speech:  # no usable audio, but subtitles: let their cues shape the segments
        spans = [(line.start, line.end) for line in speech]
    keyframes = [Keyframe(**row) for row in read_jsonl(ctx.path("keyframes.jsonl"))]
    ocr = [OcrLine(**row) for row in read_jsonl(ctx.path("ocr.jsonl"))]
    events = [AcousticEvent(**row) for row in read_jsonl(ctx.path("audio_events.jsonl"))]
    frames = AcousticFrames.from_npz(ctx.path("acoustics.npz"))
    sounds = read_jsonl(ctx.path("audio_tags.jsonl"))
    captions = read_jsonl(ctx.path("captions.jsonl"))
    pictures = [PictureEvent(**row) for row in read_jsonl(ctx.path("pictures.jsonl"))]
    top_k = ctx.settings.models.audio_tag_top_k

    bounds = segment_bounds(duration, spans, cuts, min_silence=s.min_silence, max_len=s.segment_max, min_len=s.segment_min)
    segments = []
    for seg_id, (start, end) in enumerate(bounds):
        mid_lines = [line for line in speech if start <= (line.start + line.end) / 2 < end]
        # keyframes whose picture is on screen during the segment
        visible = [k for k in keyframes if k.time < end and k.until > start]
        lines = distinct_lines(line for line in ocr if line.overlaps(start, end))
        segments.append(
            Segment(
                id=seg_id,
                start=start,
                end=end,
                scene=scene_of(start, cuts),
                speech=mid_lines,
                ocr=lines,
                keyframes=[k.id for k in visible],
                audio=summarize(frames, events, start, end, tags=tags_between(sounds, start, end, top_k)),
                caption=captions_between(captions, start, end),
                pictures=[p.text() for p in pictures if p.end > start and p.start < end],
            )
        )
    write_jsonl(ctx.path("segments.jsonl"), [seg.model_dump(exclude_none=True) for seg in segments])
    lengths = [b - a for a, b in bounds]
    return {"segments": len(segments), "mean_seconds": round(float(np.mean(lengths)), 2) if lengths else 0}


def distinct_lines(lines: Iterable[OcrLine]) -> list[OcrLine]:
    """The first line of each text (one text shown twice in a stretch is listed once)."""
    seen: set[str] = set()
    out = []
    for line in lines:
        if line.text not in seen:
            seen.add(line.text)
            out.append(line)
    return out


def tags_between(sounds: list[dict], start: float, end: float, top_k: int) -> list[str]:
    """Labels of the sound events overlapping ``[start, end)``: the ``top_k`` most confident, the
    longer heard first among equals."""
    best: dict[str, tuple[float, float]] = {}
    for event in sounds:
        heard = min(end, event["end"]) - max(start, event["start"])
        if heard > 0:
            score, seconds = best.get(event["label"], (0.0, 0.0))
            best[event["label"]] = (max(score, event["score"]), seconds + heard)
    return [label for label, _ in sorted(best.items(), key=lambda kv: (-kv[1][0], -kv[1][1]))[:top_k]]


def captions_between(captions: list[dict], start: float, end: float) -> str | None:
    """The captions of the windows overlapping ``[start, end)``, each led by its start time."""
    from ..timecodes import format_time

    texts = [f"[{format_time(c['start'])}] {c['text']}" for c in captions if c["end"] > start and c["start"] < end and c["text"].strip()]
    return " ".join(texts) or None


def run_lexical(ctx: BuildContext) -> dict:
    from ..records import Segment
    from .lexical import LexicalIndex
    from .store import segment_texts

    segments = [Segment(**row) for row in read_jsonl(ctx.path("segments.jsonl"))]
    built = {}
    with atomic_dir(ctx.path("bm25")) as tmp:
        for modality, texts in segment_texts(segments).items():
            index = LexicalIndex.build(texts)
            if index is not None:
                index.save(tmp / modality)
                built[modality] = len(index.doc_ids)
    return {"documents": built}


def _vector_params(ctx: BuildContext) -> dict:
    backend = stage_backend(ctx, "vision")
    if backend == "none":
        return {"visual": None}
    return {"visual": {"backend": backend, "model": ctx.settings.models.vision_model, **weights_revision(ctx, "vision", backend)}}


def run_vectors(ctx: BuildContext) -> dict:
    """The FAISS ``visual`` store: one SigLIP embedding per keyframe (keyframes sharing a picture
    share its row's vector; each image is decoded once). The offline profile embeds nothing, and
    says so."""
    visual = _vector_params(ctx)["visual"]
    if visual is None:
        with atomic_dir(ctx.path("vectors")) as tmp:
            write_json(tmp / "stores.json", {"stores": {}, "note": f"no embedding backend in profile {ctx.settings.profile!r}"})
        return {"stores": []}
    from concurrent.futures import ThreadPoolExecutor

    from .vectors import VectorStore

    encoder = ctx.pool.get("vision")
    keyframes = [Keyframe(**row) for row in read_jsonl(ctx.path("keyframes.jsonl"))]
    files = sorted({k.file for k in keyframes})
    batch = max(1, getattr(encoder, "batch_size", 32))
    batches = [files[i : i + batch] for i in range(0, len(files), batch)]

    def decode(names: list[str]) -> list[np.ndarray]:
        return [read_keyframe(ctx.dir, f) for f in names]

    vectors = []
    # the next batch is decoded while this one is embedded (JPEG decoding and the model both
    # release the GIL), keeping at most two batches of pixels in memory
    with ctx.progress(total=len(files), desc="embed", unit="frame") as bar, ThreadPoolExecutor(max_workers=1) as reader:
        upcoming = reader.submit(decode, batches[0]) if batches else None
        for k in range(len(batches)):
            images = upcoming.result()
            if k + 1 < len(batches):
                upcoming = reader.submit(decode, batches[k + 1])
            vectors.append(encoder.embed_images(images))
            bar.update(len(images))
    row_of = {f: r for r, f in enumerate(files)}
    matrix = np.concatenate(vectors) if vectors else np.zeros((0, encoder.dim), np.float32)
    store = VectorStore.build(
        matrix[[row_of[k.file] for k in keyframes]] if keyframes else matrix,
        [k.id for k in keyframes],
        {"modality": "visual", "of": "keyframes", "backend": visual["backend"], "model": visual["model"]},
    )
    with atomic_dir(ctx.path("vectors")) as tmp:
        store.save(tmp, "visual")
        write_json(tmp / "stores.json", {"stores": {"visual": {"rows": len(store), "dim": store.dim, "model": visual["model"]}}})
    return {"stores": ["visual"], "images_embedded": len(files), "dim": store.dim, "model": f"{visual['backend']}:{visual['model']}"}


def _text_vector_params(ctx: BuildContext) -> dict:
    from .passages import UNITS

    backend = stage_backend(ctx, "text_embedder")
    if backend == "none":
        return {"backend": "none"}
    return {"backend": backend, "model": backend_model(ctx, "text_embedder", backend), "units": UNITS, **weights_revision(ctx, "text_embedder", backend)}


def run_text_vectors(ctx: BuildContext) -> dict:
    """FAISS stores for dense text search (``text_vectors/``): one per text modality, a row per
    distinct passage (``passages``) with the segments it belongs to in the store's metadata.
    BM25 still covers every modality when no embedder can run here."""
    from concurrent.futures import ThreadPoolExecutor

    from ..records import Segment
    from .passages import passages
    from .vectors import VectorStore

    params = ctx.params.get("text_vectors") or _text_vector_params(ctx)
    if params["backend"] == "none":
        with atomic_dir(ctx.path("text_vectors")) as tmp:
            write_json(tmp / "stores.json", {"stores": {}, "note": "no text embedder could run: search is lexical (BM25) only"})
        return {"stores": []}
    encoder = stage_expert(ctx, "text_embedder")
    segments = [Segment(**row) for row in read_jsonl(ctx.path("segments.jsonl"))]
    found = passages(segments, params["units"])
    texts = [text for rows in found.values() for text, _ in rows]
    # the engine runs a batch's tokens together: small batches stay in the CPU's caches (batches of 8
    # took 17 % less CPU than 64 on 1122 passages of the generated talk); an embedder with several
    # engines gets that many batches at once (in order: map keeps it)
    batch = 8
    batches = [texts[i : i + batch] for i in range(0, len(texts), batch)]
    vectors = []
    with ctx.progress(total=len(texts), desc="embed text", unit="passage") as bar, \
            ThreadPoolExecutor(max_workers=max(1, getattr(encoder, "engines", 1))) as side_by_side:
        for done in side_by_side.map(encoder.embed_passages, batches):
            vectors.append(done)
            bar.update(len(done))
    matrix = np.concatenate(vectors) if vectors else np.zeros((0, encoder.dim), np.float32)
    stores, row = {}, 0
    with atomic_dir(ctx.path("text_vectors")) as tmp:
        for modality, rows in found.items():
            meta = {"modality": modality, "of": "passages", "backend": params["backend"], "model": params["model"],
                    "revision": params.get("revision"), "segments": [ids for _, ids in rows], "texts": [text for text, _ in rows]}
            store = VectorStore.build(matrix[row : row + len(rows)], list(range(len(rows))), meta)
            store.save(tmp, modality)
            stores[modality] = {"rows": len(rows), "dim": store.dim, "model": params["model"]}
            row += len(rows)
        write_json(tmp / "stores.json", {"stores": stores})
    return {"stores": sorted(stores), "passages": len(texts), "dim": int(matrix.shape[1]), "model": f"{params['backend']}:{params['model']}"}


STAGES: tuple[Stage, ...] = (
    Stage("audio", (), ("audio.npy",), lambda ctx: {"rate": SAMPLE_RATE}, run_audio),
    Stage("vad", ("audio",), ("speech_spans.json",), lambda ctx: ctx.settings.index.model_dump(include={"vad_threshold", "min_silence"}), run_vad),
    # version 3: faster-whisper from the bundled pack by default, lines cut at sentences and pauses;
    # 4: the speech of several VAD spans packed into each 30 s window
    Stage("speech", ("vad",), ("speech.jsonl",), _speech_params, run_speech, role="asr", version=4),
    # version 6: how far the pitch moves in each window, so a tonal sound is told as held or sliding
    Stage("acoustics", ("vad",), ("acoustics.npz", "audio_events.jsonl"), lambda ctx: {"window": ctx.settings.index.acoustic_window}, run_acoustics, version=6),
    # version 2: sound events (label, times, confidence) merged over consecutive windows; 3: YAMNet's
    # own log offset (0.001) in its log-mel frontend
    Stage("audio_tags", ("audio",), ("audio_tags.jsonl",), _audio_tag_params, run_audio_tags, role="audio_tagger", version=3),
    Stage("frames", (), ("keyframes.jsonl", "scenes.json", "keyframes"), _frames_params, run_frames, version=3),
    # version 5: a pass of its own over frames sampled at ocr_fps; each line with its own span;
    # 6: lines matched in reading order (recognition on a thread of its own); 7: looks matched along the
    # roll (a name under several credits is read each time)
    Stage("ocr", (), ("ocr.jsonl",), _ocr_params, run_ocr, role="ocr", version=9),
    Stage("captions", ("frames",), ("captions.jsonl",), _caption_params, run_captions, role="vlm"),
    Stage("vectors", ("frames",), ("vectors",), _vector_params, run_vectors, version=2, role="vision"),
    Stage("pictures", ("frames",), ("pictures.jsonl",), _picture_params, run_pictures, role="picture_labels", streams_from="frames"),
    # version 4: OCR lines carry their own spans; sound events with times; 5: what the picture models saw
    Stage("segments", ("speech", "acoustics", "audio_tags", "ocr", "captions", "pictures"), ("segments.jsonl",), _segment_params, run_segments,
          version=5),
    # version 5: Snowball stemming, and short glued words split ("Latefee"); 6: British spellings read as
    # American ones, agent nouns also counted as their verbs ("Director" ~ "directed"); 7: glued runs split
    # around short function words ("THEFINANCIALSUPPORT"); 8: an agent noun's verb is never a form in
    # "-ing" ("Rollinger" no longer holds "rolling")
    Stage("lexical", ("segments",), ("bm25",), lambda ctx: {}, run_lexical, version=8),
    Stage("text_vectors", ("segments",), ("text_vectors",), _text_vector_params, run_text_vectors, role="text_embedder"),
)


def subtitle_source(video: Path, info: MediaInfo, use_subtitles: bool = True) -> SubtitleSource | None:
    """Sidecar subtitles first, then a text subtitle stream in the container, else None (ASR)."""
    from .subtitles import find_sidecar

    if not use_subtitles:
        return None
    sidecar = find_sidecar(video)
    if sidecar is not None:
        parse_subtitles(sidecar)  # an unreadable file is the user's to fix, before any work starts
        return SubtitleSource("file", path=sidecar, fingerprint=file_fingerprint(sidecar))
    if info.subtitle_streams:
        stream = info.subtitle_streams[0]
        cues = media.read_subtitle_stream(video, stream.index)
        if cues:
            from ..fsutil import stable_hash

            return SubtitleSource("stream", stream=stream.index, fingerprint=stable_hash(cues))
    return None
