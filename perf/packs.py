"""The bundled model packs on this CPU: speech recognition (word error rate and speed), sound
tagging (speed, and the labels it gives), text embeddings (speed) and retrieval with and without
them.

    python perf/packs.py                      # generated media (espeak-ng narration, sounds, slides)
    python perf/packs.py --asr-media talk.mp4 --asr-reference talk.srt [--sounds-media film.mp4]

Speed is given as CPU seconds per minute of audio (the sum over all threads: on a shared machine
it varies far less than the wall clock) and as × real time by the wall clock.
"""

from __future__ import annotations

import argparse
import re
import resource
import shlex
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
sys.path.insert(2, str(Path(__file__).resolve().parent.parent / "tests"))  # the test media factory

from common import WORK, save  # noqa: E402

ASR_CONFIGS = (("base", 1), ("base", 3), ("base", 5), ("tiny.en", 1), ("tiny.en", 5))
SMALL_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


def words_of(text: str) -> list[str]:
    """Lower-case words without punctuation; hyphens split words; small numbers as words."""
    found = re.findall(r"[a-z0-9']+", text.lower().replace("-", " ").replace("–", " "))
    return [SMALL_NUMBERS[int(w)] if w.isdigit() and int(w) < len(SMALL_NUMBERS) else w.strip("'") for w in found]


def word_error_rate(reference: list[str], hypothesis: list[str]) -> float:
    """(substitutions + deletions + insertions) / reference words, by edit distance."""
    row = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        diagonal, row[0] = row[0], i
        for j, hyp in enumerate(hypothesis, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (ref != hyp))
    return row[len(hypothesis)] / max(1, len(reference))


class Clock:
    """Wall and CPU time (all threads of this process) of a block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, _cpu() - self.cpu


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _settings(**models):
    from staragent.config import load_settings

    return load_settings(cache_dir=WORK / "packs-cache", progress=False, models=models)


def generated_talk(folder: Path, minutes: float = 2.0):
    """A generated sample video (espeak-ng narration, slides, tones, noise) and its script."""
    from staragent.samples import generate_sample_video

    video = folder / f"talk-{minutes:g}min.mp4"
    script = generate_sample_video(video, minutes=minutes, seed=11)
    video.with_suffix(".srt").rename(folder / f"{video.stem}.reference.srt")  # not a sidecar: speech comes from the audio
    return video, folder / f"{video.stem}.reference.srt", script


def asr(media: Path, reference: Path, configs=ASR_CONFIGS) -> list[dict]:
    """Each (model, beam) transcribing ``media`` the way the speech stage does."""
    from staragent.index.subtitles import parse_subtitles
    from staragent.media import SAMPLE_RATE, load_audio
    from staragent.models.asr import decoding_groups
    from staragent.models.pool import ModelPool

    audio = load_audio(media)
    truth = words_of(" ".join(line.text for line in parse_subtitles(reference)))
    pool = ModelPool(_settings())
    spans = pool.get("vad").speech_spans(audio, min_silence=0.5)
    rows = []
    for model, beam in configs:
        pool = ModelPool(_settings(asr_model=model, asr_beam_size=beam))
        recognizer = pool.get("asr")
        _, groups = decoding_groups(recognizer, spans)
        with Clock() as clock:
            lines = [line for pieces in groups for line in recognizer.transcribe(audio, pieces)]
        minutes = len(audio) / SAMPLE_RATE / 60
        rows.append({
            "model": model, "beam": beam, "wer": round(word_error_rate(truth, words_of(" ".join(x.text for x in lines))), 4),
            "reference_words": len(truth), "audio_minutes": round(minutes, 2), "speech_minutes": round(sum(b - a for a, b in spans) / 60, 2),
            "cpu_s_per_audio_min": round(clock.cpu / minutes, 2), "wall_x_real_time": round(minutes * 60 / clock.wall, 1),
            "lines": len(lines), "languages": sorted({x.language for x in lines if x.language}),
        })
        print(rows[-1], flush=True)
    return rows


def sounds(media: Path, threshold: float, top_k: int) -> dict:
    """YAMNet over the whole audio of ``media``: speed and the sound events it names."""
    from staragent.index.stages import TAG_BLOCK_SECONDS
    from staragent.media import SAMPLE_RATE, load_audio
    from staragent.models.audio_tagger import label_windows, merge_windows
    from staragent.models.pool import ModelPool

    audio = load_audio(media)
    tagger = ModelPool(_settings()).get("audio_tagger")
    per_block = int(TAG_BLOCK_SECONDS / tagger.hop)
    with Clock() as clock:
        windows = [row for first in range(0, len(audio), per_block * int(round(tagger.hop * SAMPLE_RATE)))
                   for row in label_windows(tagger, audio, first, per_block, top_k, threshold)]
    minutes = len(audio) / SAMPLE_RATE / 60
    events = merge_windows(windows)
    seconds: dict[str, float] = {}
    for e in events:
        seconds[e.label] = seconds.get(e.label, 0.0) + e.end - e.start
    return {
        "media_minutes": round(minutes, 2), "cpu_s_per_audio_min": round(clock.cpu / minutes, 3), "wall_x_real_time": round(minutes * 60 / clock.wall, 1),
        "threshold": threshold, "top_k": top_k,
        "label_seconds": {k: round(v, 1) for k, v in sorted(seconds.items(), key=lambda kv: -kv[1])[:25]},
        "events": [[round(e.start, 2), round(e.end, 2), e.label, e.score] for e in events if e.label != "Speech"][:200],
    }


def embeddings(count: int = 400) -> dict:
    """e5 passages per CPU second (sentences of a generated talk) and one query's latency."""
    from staragent.models.pool import ModelPool
    from staragent.samples.content import TopicWriter

    writer = TopicWriter(5)
    texts: list[str] = []
    while len(texts) < count:
        draft = writer.next()
        texts += draft.lines + [s.text for s in draft.sentences]
    texts = texts[:count]
    embedder = ModelPool(_settings()).get("text_embedder")
    with Clock() as clock:
        embedder.embed_passages(texts)
    latencies = []
    for text in texts[:50]:
        with Clock() as one:
            embedder.embed_queries([text])
        latencies.append(one.wall)
    tokens = sum(embedder.token_count(t) for t in texts)
    return {
        "passages": len(texts), "tokens": tokens, "passages_per_cpu_s": round(len(texts) / clock.cpu, 1), "tokens_per_cpu_s": round(tokens / clock.cpu),
        "passages_per_s": round(len(texts) / clock.wall, 1), "query_ms_p50": round(1000 * float(np.median(latencies)), 1),
    }


def _search_quality(index, cases: list[tuple[str, float, float]], encoders: dict) -> dict:
    """hit@1, hit@3 and mean reciprocal rank of the first hit overlapping each case's span."""
    from staragent.index.hybrid_search import cross_modal_search

    ranks = []
    for query, start, end in cases:
        hits = cross_modal_search(index, query, k=10, encoders=encoders).hits
        ranks.append(next((r for r, h in enumerate(hits, 1) if h.start < end and h.end > start), None))
    n = max(1, len(cases))
    return {
        "cases": len(cases), "hit@1": round(sum(r == 1 for r in ranks) / n, 3), "hit@3": round(sum(r is not None and r <= 3 for r in ranks) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def retrieval(talk_minutes: float = 10.0) -> dict:
    """Search with BM25 alone and with BM25 + e5 on (a) a spec sheet whose questions share no word
    with their slide, (b) the fact questions of a generated talk (subtitled, so speech is exact)."""
    from media_factory import SPEC_SHEET, spec_sheet_video

    from staragent.agent.session import query_encoders
    from staragent.index.builder import build_index
    from staragent.models.pool import ModelPool
    from staragent.samples import generate_sample_video

    settings = _settings()
    pool = ModelPool(settings)
    sheet = spec_sheet_video(WORK / "spec-sheet.mp4")
    talk = WORK / f"retrieval-talk-{talk_minutes:g}min.mp4"
    script = generate_sample_video(talk, minutes=talk_minutes, seed=4)
    sets = {
        "paraphrases (spec sheet)": (sheet.path, [(q, *sheet.slide_span(i)) for i, (_, q) in enumerate(SPEC_SHEET)]),
        "fact questions (generated talk)": (talk, [(f.question, f.start, f.end) for f in script.facts if f.kind == "lookup"]),
    }
    out = {}
    for name, (video, cases) in sets.items():
        index = build_index(video, settings, pool)
        encoders = query_encoders(index, settings, pool)
        out[name] = {"bm25": _search_quality(index, cases, {}), "bm25+e5": _search_quality(index, cases, encoders)}
        print(name, out[name], flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--asr-media", type=Path, help="a video or audio file with speech (default: a generated talk)")
    parser.add_argument("--asr-reference", type=Path, help="its true transcript (.srt or .vtt)")
    parser.add_argument("--asr-label", help="how the report names that media (default: its file name)")
    parser.add_argument("--sounds-media", type=Path, action="append", default=[], help="media whose sounds to tag (repeatable)")
    parser.add_argument("--sounds-label", action="append", default=[], help="how the report names each of them (in order)")
    parser.add_argument("--skip", action="append", default=[], choices=["asr", "sounds", "embeddings", "retrieval"])
    args = parser.parse_args(argv)
    from staragent.config import load_settings

    defaults = load_settings().models
    WORK.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    media, reference = args.asr_media, args.asr_reference
    if media is None:
        media, reference, _ = generated_talk(WORK)
    if "asr" not in args.skip:
        results["asr"] = {"media": args.asr_label or media.name, "rows": asr(media, reference)}
    if "sounds" not in args.skip:
        chosen = args.sounds_media or [media]
        names = args.sounds_label + [m.name for m in chosen[len(args.sounds_label) :]]
        results["sounds"] = {name: sounds(m, defaults.audio_tag_threshold, defaults.audio_tag_top_k) for name, m in zip(names, chosen)}
    if "embeddings" not in args.skip:
        results["embeddings"] = embeddings()
    if "retrieval" not in args.skip:
        results["retrieval"] = retrieval()
    # runs on media given by hand are kept beside the generated-media run of `make bench`
    name = "packs_cpu_given_media" if args.asr_media or args.sounds_media else "packs_cpu"
    command = "python perf/packs.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    print(save(name, {"section": "packs_cpu", "command": command.strip(), **results}))


if __name__ == "__main__":
    main()
