"""Render docs/performance.md from perf/results/*.json (CPU runs of `make bench`, and GPU
runs recorded on a GPU machine)."""

from __future__ import annotations

import json

from common import RESULTS, ROOT
from report_load import load_section


def _f(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def pipeline_section(data: dict) -> list[str]:
    m, idx, floor = data["machine"], data["index"], data["decode_floor"]
    lines = [
        "## Offline indexing, search and ask (CPU)",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores{', GPU ' + m['gpu'] if m.get('gpu') else ', no GPU'}; measured {m['date']}. "
        f"Command: `{data['command']}`.",
        f"Video: generated sample, {data['video']['minutes']} minutes, 640×360, 25 fps, H.264 + AAC, narration with subtitles.",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| index, fresh cache | {_f(idx['seconds'], 1)} s = **{_f(data['index_x_realtime'], 1)}× real time** |",
        f"| decode floor (PyAV: same frames + audio, nothing else) | {_f(floor['total_seconds'], 1)} s = {_f(data['floor_x_realtime'], 1)}× real time |",
        f"| index time / decode floor | **{_f(data['index_over_floor'])}** |",
        *([f"| CPU time: index / decode floor | {_f(idx['cpu_seconds'], 0)} s / {_f(floor['cpu_seconds'], 0)} s |"] if "cpu_seconds" in idx else []),
        *([_pictures_row(data["picture_cost"])] if data.get("picture_cost") else []),
        *([f"| machine load (1-minute load average after indexing, {m['cores']} cores) | {_f(data['load_average'], 1)} |"] if "load_average" in data else []),
        *([_speech_row(data["speech_recognition"])] if data.get("speech_recognition") else []),
        *([_unsubtitled_row(data["index_without_subtitles"])] if data.get("index_without_subtitles") else []),
        f"| peak memory of the indexing process (max RSS) | {_f(idx['peak_rss_mb'], 0)} MB |",
        f"| search latency p50 / p95 ({data['search_s']['n']} queries) | {_f(data['search_s']['p50'] * 1000, 1)} / {_f(data['search_s']['p95'] * 1000, 1)} ms |",
        f"| ask latency p50 / p95 ({data['ask_s']['n']} questions: every non-visual fact of the script, rule planner) | {_f(data['ask_s']['p50'] * 1000, 0)} / {_f(data['ask_s']['p95'] * 1000, 0)} ms |",
        *[f"| answers that state the fact with evidence inside its span: {kind} questions | {score} |" for kind, score in data.get("answers_right", {}).items()],
        *([f"| `staragent ask` in a fresh process (imports, index, answer), p50 of {data['cold_ask_s']['n']} | {_f(data['cold_ask_s']['p50'], 2)} s |"]
          if data.get("cold_ask_s") else []),
        "",
        "Stage times (seconds; the audio, video and on-screen text lanes run side by side, so they overlap; the video",
        "and on-screen text lanes share one decoding pass, so `frames` ends with `ocr`; within the text lane, new lines are",
        "recognised on a thread of their own while the next frames are detected):",
        "",
        "| stage | seconds | facts |",
        "| --- | --- | --- |",
    ]
    for stage, seconds in idx["stages"].items():
        info = ", ".join(f"{k}={v}" for k, v in idx["info"].get(stage, {}).items())
        lines.append(f"| {stage} | {_f(seconds, 1)} | {info} |")
    return lines + [""]


def _pictures_row(cost: dict) -> str:
    with_, without = cost["with"], cost["without"]
    pairs = ", ".join(f"{r - 1:+.1%}" for r in cost["ratios"])
    return (f"| the picture labels stage's cost: fresh indexes without and with it, {cost['pairs']} pairs in A-B-B-A order after the first "
            f"index, its model packs prepared (medians) | {_f(without['seconds'], 1)} s → {_f(with_['seconds'], 1)} s = **{cost['ratio'] - 1:+.1%}** of index time "
            f"(pairs {pairs}); CPU {_f(without['cpu_seconds'], 0)} s → {_f(with_['cpu_seconds'], 0)} s; peak memory "
            f"{_f(without['peak_rss_mb'], 0)} → {_f(with_['peak_rss_mb'], 0)} MB |")


def _speech_row(asr: dict) -> str:
    info = asr["info"]
    heard = f", {_f(info['speech_seconds'], 0)} s of speech found by VAD" if info.get("speech_seconds") is not None else ""
    heard += f", decoded in {info['windows']} windows of 30 s" if info.get("windows") else ""
    return (f"| speech recognition alone, the same video without its subtitles ({info.get('model', info.get('source'))}{heard}) "
            f"| {_f(asr['seconds'], 1)} s = **{_f(asr['x_realtime'], 1)}× real time** |")


def _unsubtitled_row(run: dict) -> str:
    speech = run["speech"]
    windows = f", {speech['windows']} windows of 30 s" if speech.get("windows") else ""
    return (f"| index without subtitles, fresh cache (speech from {speech.get('model', speech.get('source'))}{windows}) "
            f"| {_f(run['seconds'], 1)} s = **{_f(run['x_realtime'], 1)}× real time**, {_f(run['over_floor'])}× the decode floor |")


def chat_storage_section(data: dict) -> list[str]:
    m, sizes = data["machine"], data["bytes_after_turns"]
    turns = ", ".join(f"{n} turns {int(b) / 1e6:.2f} MB" for n, b in sizes.items())
    return [
        "## Chat storage",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores; measured {m['date']}. Command: `{data['command']}`.",
        f"One thread about a generated {data['video']['minutes']:g}-minute video, rule planner, the video's fact questions with a",
        "follow-up after every third; bytes of `chats.sqlite` and its write-ahead log.",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| chat storage per turn, one thread | **{data['bytes_per_turn'] / 1e3:.1f} kB** ({turns}) |",
        f"| the thread resumed in a new agent answers a follow-up with evidence | {'yes' if data['resumed_answer_has_evidence'] else 'NO'} |",
        "",
    ]


SIGLIP_VARIANTS = {
    "cpu_resize_each_batch_waited_for": "OpenCV resize on the CPU, each batch's result awaited (the path before)",
    "cpu_resize_queued": "OpenCV resize, batches queued",
    "default": "resized on the device, batches queued (the default on a GPU)",
    "default_batch_32": "the same, batch 32 (the setting's default)",
    "default_batch_128": "the same, batch 128",
    "image_tower_only": "the image tower alone on ready tensors",
}


def _siglip_row(variant: str, frames_per_s: float, batch: int) -> str:
    label = SIGLIP_VARIANTS.get(variant, variant) + ("" if variant.startswith("default_batch") else f", batch {batch}")
    value = f"**{_f(frames_per_s, 0)}**" if variant == "default" else _f(frames_per_s, 0)
    return f"| {label} | {value} |"


def _siglip_options_rows(options: dict) -> list[str]:
    """The ``siglip_options`` step: the tower compiled, and the 224 px sibling."""
    if "siglip" not in options:
        return []
    rows = [f"| {'×'.join(map(str, o['image_size']))} | {_f(o['gflops_per_frame'], 0)} | {_f(o['ceiling_frames_per_s'], 0)} | "
            f"{_f(o['eager_frames_per_s'], 0)} | {_f(o['compiled_frames_per_s'], 0)} ({_f(o['compile_seconds'], 0)} s to compile) |"
            for o in options.values()]
    return ["Two ways past that ceiling, on the default path at the same batch (`--only siglip_options`): the tower compiled with "
            "torch.compile, and SigLIP's 224 px checkpoint. Ceilings are at that run's measured matrix rate.", "",
            "| input | GFLOP/frame | ceiling (frames/s) | eager (frames/s) | compiled (frames/s) |", "| --- | --- | --- | --- | --- |",
            *rows, ""]


def _models_rows(data: dict) -> list[str]:
    real = data.get("size") == "real"
    gpu = data["device"] == "cuda"

    def name(model: str) -> str:
        return model if real else f"{model} (tiny stand-in)"

    def mem(row: dict) -> str:
        return f"; peak GPU memory {_f(row.get('gpu_peak_gb'), 1)} GB" if gpu and row.get("gpu_peak_gb") is not None else ""

    lines: list[str] = []
    sig = data.get("siglip", {})
    if "frames_per_s" in sig:
        size = "×".join(str(x) for x in sig["image_size"])
        ceiling = f", against a ceiling of {_f(sig['ceiling_frames_per_s'], 0)} frames/s" if sig.get("ceiling_frames_per_s") else ""
        lines += [
            f"### {name('SigLIP')} keyframe embedding",
            "",
            f"{size} input, {sig['dtype']}, {sig['frames']} keyframes of {sig['keyframe'][1]}×{sig['keyframe'][0]}, resizing included. "
            f"The image tower does {_f(sig['gflops_per_frame'], 0)} GFLOP per frame{ceiling} (the measured matrix rate over that).",
            "",
            "| path | frames/s |",
            "| --- | --- |",
            *(_siglip_row(k, v, sig["batch"]) for k, v in sig["variants_frames_per_s"].items()),
            "",
            f"A text query, one at a time: {_f(sig['query_ms']['p50'], 1)} ms at p50, {_f(sig['query_ms']['p95'], 1)} ms at p95{mem(sig)}.",
            "",
        ]
    lines += _siglip_options_rows(data.get("siglip_options", {}))
    rows = ["| measure | value |", "| --- | --- |"]
    small, large = data.get("whisper_small", {}), data.get("whisper_large", {})
    if "x_realtime" in small:
        batches = ", ".join(f"batch {b}: {_f(x, 0)}×" for b, x in small.get("by_batch", {}).items())
        rows.append(f"| {name('faster-whisper small')}, batched while indexing (beam 1, {small['compute_type']}, {small['tokens_per_window']} tokens "
                    f"per 30 s window, {small['audio_s']} s of audio) | **{_f(small['x_realtime'], 0)}× real time** ({batches}) |")
    if "x_realtime" in large:
        rows.append(f"| {name('faster-whisper large-v3')}, refining a 60 s range (unbatched, beam {large['beam']}, word timestamps, "
                    f"{large['compute_type']}) | **{_f(large['x_realtime'], 1)}× real time** |")
        if "batched_run" in large:
            rows.append(f"| {name('faster-whisper large-v3')}, batched (batch {large['batched_run']['batch']}, beam 1) | "
                        f"{_f(large['batched_run']['x_realtime'], 0)}× real time |")
    ocr = data.get("ocr", {})
    if "seconds_per_hour" in ocr:
        rows.append(f"| {name('EasyOCR')} (CRAFT + CRNN), one detector run on a {ocr['keyframe'][1]}×{ocr['keyframe'][0]} keyframe / one recognised line, "
                    f"p50, CPU pre- and post-processing included | {_f(ocr['detect_ms']['p50'], 1)} ms / {_f(ocr['recognise_line_ms']['p50'], 1)} ms |")
        rows.append(f"| {name('EasyOCR')}, one hour of the talk ({ocr['detector_runs_per_hour']} detector runs, {ocr['lines_per_hour']} lines, "
                    f"the counts of the CPU pipeline benchmark) | **{_f(ocr['seconds_per_hour'], 1)} s** |")
    vlm = data.get("refiner", {})
    if "seconds" in vlm:
        rows.append(f"| {name('Qwen2.5-VL-7B')} refiner, dense caption of a 60 s range ({vlm['frames']} frames, ≤ {vlm['max_pixels']} pixels each, "
                    f"{vlm['new_tokens']} new tokens) | **{_f(vlm['seconds'], 2)} s**{mem(vlm)} |")
    for row in data.get("search", {}).get("by_rows", []):
        where = f"{row['rows']:,} × {row['dim']}, k={row['k']}"
        if "cpu_ms" in row:
            rows.append(f"| exact search, {where}, CPU ({row['cpu']}), p50 | {_f(row['cpu_ms']['p50'], 2)} ms |")
        if "gpu_torch_ms" in row:
            rows.append(f"| exact search, {where}, GPU ({row['gpu']}), p50 one query / 64 queries | "
                        f"{_f(row['gpu_torch_ms']['p50'], 2)} ms / {_f(row['gpu_torch_batch64_ms'], 2)} ms |")
    lines += ["### Speech, the refiner and search", "", *rows, ""]
    plan = data.get("planner", {})
    if "full" in plan:
        lines += [
            f"### {name('Qwen3-4B')} planner",
            "",
            f"{plan['new_tokens']} new tokens; prompt lengths are today's planner prompt and the compact one a small model gets, "
            "as counted with Qwen's tokenizer (`perf/results/prompt_size.json`).",
            "",
            "| decoding | prompt | time to first token | tokens/s |",
            "| --- | --- | --- | --- |",
        ]
        for cache, label in (("growing_cache", "transformers' growing cache (the path before)"),
                             ("fixed_cache_graphs", "fixed-size cache, steps as CUDA graphs (the default on a GPU)")):
            for size_name in ("full", "compact"):
                row = plan.get(cache, {}).get(size_name)
                if row:
                    lines.append(f"| {label} | {row['prompt_tokens']} tokens | {_f(row['first_token_s'], 3)} s | {_f(row['decode_tokens_per_s'], 1)} |")
        warm = plan.get("fixed_cache_graphs", {}).get("warm_up_s")
        lines += ["", *([f"The fixed-size cache's first call compiles the decoding step: {_f(warm, 0)} s, once per process.", ""] if warm else [])]
    pool = data.get("pool", {})
    if "roles" in pool:
        used = f"; {_f(pool['gpu_used_gb'], 1)} GB in use on the GPU by every allocator" if pool.get("gpu_used_gb") is not None else ""
        lines += [
            "### Every expert resident in one ModelPool",
            "",
            "Loaded through the `local` profile's settings, as a user would point them at local folders.",
            "",
            "| role | backend | device | weights (MB) | load (s) |",
            "| --- | --- | --- | --- | --- |",
            *(f"| {r['name']} | {r['backend'].split(':')[0]} | {r['device']} | {_f(r['weights_mb'], 0)} | {_f(r['load_seconds'], 2)} |" for r in pool["roles"]),
            "",
            f"All loaded in {_f(pool['load_seconds'], 1)} s; torch's peak {_f(pool.get('torch_peak_gb'), 1)} GB{used}"
            " (CTranslate2 holds Whisper's weights outside torch).",
            "",
        ]
    estimate = data.get("estimate")
    if real and estimate:
        ocr_on_gpu = "measured" in estimate.get("ocr", "")
        lines += [
            "### One hour of video on the local profile: an estimate",
            "",
            f"From the throughputs above: SigLIP at {_f(estimate['siglip_frames_per_s'], 0)} keyframes/s, Whisper small at "
            f"{_f(estimate['whisper_x_realtime'], 0)}× real time{' and EasyOCR' if ocr_on_gpu else ''} share the GPU; decoding"
            f"{'' if ocr_on_gpu else ', on-screen text'} and sound tags run on the CPU beside them, counted at their cost on 2 cores "
            f"(from {estimate['cpu_lanes_from']}), an upper bound.",
            "",
            "| keyframes | GPU work (s) | CPU lanes (s) | estimate (s) |",
            "| --- | --- | --- | --- |",
            *(f"| {label}: {r['keyframes']} | {_f(r['gpu_seconds'], 1)} | {_f(r['cpu_lane_seconds'], 1)} | **{_f(r['estimate_seconds'], 0)}** |"
              for label, r in estimate["hour_of_video"].items()),
            "",
        ]
    return lines


def models_section(data: dict) -> list[str]:
    m = data["machine"]
    if data.get("size") == "real":
        c = data.get("ceilings", {})
        intro = [
            "## Expert models on a GPU: real-size architectures, random weights",
            "",
            f"GPU: {m['gpu']} ({c.get('bf16_matmul_tflops')} TFLOP/s bf16 matrix products and {c.get('copy_tb_per_s')} TB/s copies, measured); "
            f"CPU: {m['cpu']}, {m['cores']} cores; torch {c.get('torch')}, transformers {c.get('transformers')}, CTranslate2 "
            f"{c.get('ctranslate2')}; measured {m['date']}. Command: `{data['command']}`.",
            "The published architectures with random weights: speed and memory match the real models, the outputs are noise,",
            "so generation lengths are fixed (stated per row). How the GPU machine was set up is in docs/gpu.md.",
        ]
    else:
        intro = [
            "## Expert models: CPU smoke check with tiny random models",
            "",
            "**These numbers say nothing about real speed.** They come from the tiny random-weight stand-ins the tests",
            "use (a few thousand parameters each), run on the CPU, to check that every benchmarked code path works.",
            f"Machine: {m['cpu']}, {m['cores']} cores, no GPU; measured {m['date']}, on a shared machine (expect noise). "
            f"Command: `{data['command']}`.",
        ]
    return [*intro, "", *_models_rows(data)]


def ui_section(data: dict) -> list[str]:
    m, runs = data["machine"], len(data["runs"])

    def row(what: str, key: str, target: str = "") -> str:
        if key not in data:  # a measure added after these results were taken
            return f"| {what} | not measured | | {target} |"
        values = [r[key] for r in data["runs"]]
        return f"| {what} | **{_f(data[key]['p50'])} s** | {_f(min(values))} / {_f(max(values))} s | {target} |"

    def imported(what: str, key: str) -> str:
        if f"{key}_s" not in data:
            return f"| {what} | not measured | | |"
        return f"| {what} | {_f(data[f'{key}_s']['p50'])} s; {_f(data[f'{key}_cpu_s']['p50'])} s CPU | | |"

    def verdict(what: str, key: str, limit: float) -> str:
        wall, cpu = data[key]["p50"], data.get(key.replace("_s", "_cpu_s"), {}).get("p50")
        cpu_part = f" (the server's own CPU time: {_f(cpu)} s)" if cpu is not None else ""
        if wall <= limit:
            return f"{what}: met, {_f(wall)} s at the median{cpu_part}."
        return f"{what}: missed on this machine during these runs, {_f(wall)} s at the median, {_f(wall - limit)} s over{cpu_part}."

    loads = [r["load_average"] for r in data["runs"]]
    return [
        "## The page: start-up and first answer (CPU, offline profile)",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores{', GPU ' + m['gpu'] if m.get('gpu') else ', no GPU'}; measured {m['date']}. "
        f"Command: `{data['command']}`.",
        f"Video: the {data['video']['minutes']:.0f}-minute generated sample, indexed beforehand. {runs} runs, each starting a fresh "
        "`staragent ui`; times are what headless Chromium saw. The machine's load average (runnable processes, for "
        f"{m['cores']} cores) was {min(loads):.1f} to {max(loads):.1f} during the runs"
        + (": it was otherwise idle." if max(loads) < m["cores"] else
           ", so wall times include waiting for a core; the CPU rows give the server's own work, which is about what the wall "
           "time would be on an idle machine."),
        "",
        "| measure | p50 | best / worst | target |",
        "| --- | --- | --- | --- |",
        row("page served: `GET /` answers 200 with the page and its config (video picker, chat), from starting the process", "served_s", "≤ 2 s"),
        row("… CPU time the server used until then", "served_cpu_s"),
        row("page usable in Chromium (its scripts loaded, question box shown), from starting the process", "page_ready_s"),
        imported(f"importing Gradio in a fresh Python as any program does (`import gradio`), p50 of {data.get('import_gradio_s', {}).get('n', 3)} (wall; CPU)", "import_gradio"),
        imported("… as the page does (`staragent.ui.gradio_import`)", "import_gradio_lean"),
        row("video opened (index loaded, first question prepared), after the page loaded", "video_open_s"),
        row("first answer: from pressing Enter to the answer painted on the page (the page's own clock)", "first_answer_s", "≤ 1 s"),
        row("… the same, seen by polling the page through WebDriver (adds its round trips)", "first_answer_polled_s"),
        row("… CPU time the server used for it", "first_answer_cpu_s"),
        "",
        verdict("Page served within 2 s", "served_s", 2.0),
        verdict("First answer within 1 s", "first_answer_s", 1.0),
        "",
        *UI_NOTES,
        "",
    ]


UI_NOTES = [
    "Before the changes below, measured the same way on 2026-11-24 (load average 3.8 to 7.0): page served 9.97 s",
    "(6.09 s of CPU), usable in Chromium 11.51 s, first answer 0.81 s seen through WebDriver (0.22 s of CPU);",
    "`import gradio` alone took 5.24 s of CPU.",
    "",
    "What the start is made of, and what was done about it (profiled with `python -X importtime` and cProfile):",
    "",
    "- Gradio's import is most of it. `import gradio` also regenerates each component's type stub (it parses the",
    "  component's source, rebuilds its `.pyi` and writes it into the installed package when they differ), renders every event's docstring through",
    "  Jinja, imports the MCP SDK for an MCP server the page does not start, and imports pandas for components and",
    "  monitoring statistics the page does not have. `staragent.ui.gradio_import` imports Gradio without these (pandas",
    "  stays importable and loads on first use), with the garbage collector paused, which cuts its CPU time to",
    "  less than half; the page also turns off the statistics Gradio recomputed with pandas after every event, and",
    "  Gradio's run history, which copied every conversation into the browser's storage.",
    "- `import staragent.cli` had come to load NLTK and SciPy (the dataset generator's package imported its whole",
    "  pipeline to export two names); the package now loads them on first use, and a test keeps `--help` light.",
    "- Nothing of the agent is loaded at start: the graph, the index, the models and the conversation store are",
    "  opened with the first video, in the background, after the page is served.",
    "- Gradio still builds its FastAPI app three times (in `Blocks.__exit__`, `queue()` and `mount_gradio_app`; about",
    "  0.1 s of CPU in all); left alone, as avoiding it would mean changing Gradio's own objects.",
    "",
    "Where the first answer's time went: the agent's turn itself takes about 0.1 s of CPU; most of the rest was the",
    "browser drawing the chat again for every tool call, a few milliseconds apart, while the answer waited behind",
    "those draws. The page now sends the steps that arrive together as one update (at most one every 0.15 s; the",
    "first step after a pause and the answer at once, `staragent.ui.pacing`), and the server's objects from the start",
    "are kept out of the garbage collector's rounds (`gc.freeze`).",
]


GPU_NOT_MEASURED = [
    "## Expert models on a GPU: not measured yet",
    "",
    "No GPU was available when the model backends were written, so there are **no GPU figures yet**. On a CUDA",
    "machine, `python perf/models.py --real` builds the real-size architectures with random weights",
    "(SigLIP ViT-SO400M-14 @ 384, Whisper small and large-v3 in CTranslate2 float16, Qwen2.5-VL-7B, Qwen3-4B; about",
    "30 GB under `.cache/bench/models/real`, built once), measures keyframes/s, × real time, refiner latency for a",
    "60 s range, planner tokens/s, FAISS GPU search and peak GPU memory, writes `perf/results/models_gpu.json`",
    "and regenerates this page.",
    "",
]

def packs_section(data: dict) -> list[str]:
    """The bundled model packs on this CPU (``perf/packs.py``)."""
    m = data["machine"]
    lines = [
        "## Model packs on the CPU: Whisper, YAMNet, e5",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, no GPU; measured {m['date']}, on a shared machine: the wall clock",
        "varies with the load, so speed is also given as CPU seconds (all threads) per minute of audio.",
        f"Command: `{data['command']}`.",
        "",
    ]
    if asr := data.get("asr"):
        lines += [
            f"Speech recognition on {asr['media']} ({asr['rows'][0]['audio_minutes']} min, {asr['rows'][0]['speech_minutes']} min of it speech, "
            f"{asr['rows'][0]['reference_words']} words in the reference), the way the speech stage runs it (VAD spans packed into 30 s windows, "
            "batched, int8, word timestamps):",
            "",
            "| model | beam | word error rate | CPU s per audio minute | × real time (wall) |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [f"| {r['model']} | {r['beam']} | {100 * r['wer']:.1f} % | {r['cpu_s_per_audio_min']:.1f} | {r['wall_x_real_time']:.1f} |" for r in asr["rows"]]
        lines += [
            "",
            "The index runs base with beam 3 on the CPU (`models.asr_beam_size` 0, the default; 5 on a GPU). On the "
            "60-minute benchmark's audio, packed, in one process, two rounds each (2026-11-27, same machine): beam 3 "
            "36.0× and 36.2× real time, beam 5 34.1× (and 30.2× while another run shared the machine), with about 6 % "
            "less CPU; word error rate on that espeak narration 13.8 % against 13.65 %. base beats tiny.en on the "
            "narration (17.2 % against 20.8 % on 12 minutes of it, beam 5), so tiny.en is not used for English.",
            "",
        ]
    for name, found in (data.get("sounds") or {}).items():
        labels = ", ".join(f"{label} {sec:.0f} s" for label, sec in list(found["label_seconds"].items())[:12])
        lines += [
            f"YAMNet on {name} ({found['media_minutes']} min): {found['cpu_s_per_audio_min']:.2f} CPU s per audio minute, "
            f"{found['wall_x_real_time']:.0f}× real time; labels (threshold {found['threshold']}, top {found['top_k']} per window) by seconds heard: {labels}.",
            "",
        ]
    if e5 := data.get("embeddings"):
        lines += [
            f"e5 (multilingual-e5-small, 4-bit): {e5['passages_per_cpu_s']:.0f} passages ({e5['tokens_per_cpu_s']} tokens) per CPU second on "
            f"{e5['passages']} sentences of a generated talk, {e5['passages_per_s']:.0f} per second by the wall clock; a query takes "
            f"{e5['query_ms_p50']:.0f} ms (p50).",
            "",
        ]
    if retrieval := data.get("retrieval"):
        lines += ["Search, BM25 alone and BM25 + e5 (a hit counts when it overlaps the span that holds the answer):", "",
                  "| questions | n | BM25 hit@1 / hit@3 / MRR | BM25 + e5 hit@1 / hit@3 / MRR |", "| --- | --- | --- | --- |"]
        for name, r in retrieval.items():
            a, b = r["bm25"], r["bm25+e5"]
            lines.append(f"| {name} | {a['cases']} | {a['hit@1']:.2f} / {a['hit@3']:.2f} / {a['mrr']:.2f} | {b['hit@1']:.2f} / {b['hit@3']:.2f} / {b['mrr']:.2f} |")
        lines.append("")
    return lines


def answers_section(data: dict) -> list[str]:
    m, runs = data["machine"], data["runs"]
    kinds = sorted({k for r in runs for k in r["factqa"]["by_kind"]})
    videos = sorted({v for r in runs for v in r["factqa"]["by_video"]})

    def cell(group: dict | None) -> str:
        return "—" if not group else f"{group['right']}/{group['n']} ({_f(group['accuracy'], 0)}%)"

    header = "| | " + " | ".join(f"`{r['agent']}`" for r in runs) + " |"
    rule = "| --- |" + " --- |" * len(runs)
    lines = [
        "## Answer quality on real media (fact questions)",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores; measured {m['date']}. Command: `{data['command']}` "
        f"({data['questions']} questions of `{data['dataset']}`, run and scored by `staragent bench`, dataset kind `factqa`: "
        "an answer is right when it states the fact and cites evidence inside the expected span).",
        "",
        header,
        rule,
        "| **all questions** | " + " | ".join(f"**{cell(r['factqa'])}**" for r in runs) + " |",
        *[f"| kind: {k} | " + " | ".join(cell(r["factqa"]["by_kind"].get(k)) for r in runs) + " |" for k in kinds],
        *[f"| video: {v} | " + " | ".join(cell(r["factqa"]["by_video"].get(v)) for r in runs) + " |" for v in videos],
        "| tool calls per question (mean) | " + " | ".join(_f(r["tool_calls_per_question"]["mean"], 1) for r in runs) + " |",
        "| answers given after at least one tool call | " + " | ".join(f"{r['answered_after_a_tool_call']}/{r['factqa']['n']}" for r in runs) + " |",
        "| seconds per answer, p50 / p95 | " + " | ".join(f"{_f(r['seconds_per_answer']['p50'])} / {_f(r['seconds_per_answer']['p95'])}" for r in runs) + " |",
        "| prompt / completion tokens (all questions) | " + " | ".join(f"{r['tokens']['prompt']} / {r['tokens']['completion']}" for r in runs) + " |",
        "",
    ]
    return lines


def blind_rounds_section(data: dict) -> list[str]:
    """The first run of every blind round (eval/blind): the figure that predicts a new question."""
    lines = [
        "## Blind rounds: first runs",
        "",
        "Questions about the dev media written by a helper session that had not read the code, committed before their first run "
        f"(`eval/blind/`). Each round's first run is recorded once, good or bad. Command: `{data['command']}`.",
        "",
        "| round | commit | system | right | by kind | machine, date | seconds per answer (p50) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in data["runs"]:
        kinds = ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(r["by_kind"].items()))
        m = r["machine"]
        lines.append(f"| {r['round']} | {r['commit']} | {r['system']} | **{r['right']}/{r['n']} ({100 * r['right'] / r['n']:.0f}%)** | {kinds} "
                     f"| {m['cpu']}, {m['cores']} cores, {m['date']} | {_f(r['seconds_per_answer_p50'])} |")
    return [*lines, "", *[line for note in data.get("notes", []) for line in (note, "")], *_latest_runs(), ""]


def _latest_runs() -> list[str]:
    """The last run of each round with the offline default (``answers_roundNN_cpu.json``, overwritten by
    every run): how the code of that run does on questions it has since been fixed against."""
    latest = []
    for path in sorted(RESULTS.glob("answers_round*_cpu.json")):
        data = json.loads(path.read_text())
        run = next((r for r in data.get("runs", []) if r.get("agent") == "profile:offline"), None)
        if run:
            latest.append(f"{path.stem.removeprefix('answers_round').removesuffix('_cpu')} {run['factqa']['right']}/{run['factqa']['n']}")
    if not latest:
        return []
    return ["Latest offline run of each round (later runs are no blind measure: fixes since may have seen the round's misses; "
            f"`python perf/answers.py --fresh --cases eval/blind/roundNN.json`): {', '.join(latest)}."]


def llm_dev_section(data: dict) -> list[str]:
    """The dev set with the real LLM planner beside the rule planner (perf/llm_dev.py)."""
    m, runs = data["machine"], data["runs"]
    names = [n for n in ("llm", "rules") if n in runs]
    title = {"llm": f"LLM planner ({runs.get('llm', {}).get('model', '?')}, `--profile openai`)", "rules": "rule planner (`offline`)"}
    kinds = sorted({k for n in names for k in runs[n]["by_kind"]})

    def cell(run: dict, kind: str) -> str:
        row = run["by_kind"].get(kind)
        return "—" if row is None else f"{row['right']}/{row['n']}"

    def stat(run: dict, key: str, digits: int = 1) -> str:
        s = run[key]
        return f"{_f(s['p50'], digits)} / {_f(s['p95'], digits)}"

    commands = sorted({runs[n].get("command", data["command"]) for n in names})
    lines = [
        "## The dev set: LLM planner and rule planner",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, no GPU, shared with other jobs (expect noise); measured {m['date']}. "
        f"Command: {', '.join(f'`{c}`' for c in commands)} ({data['dataset']}: questions about three real videos, scored by answer pattern and cited span; "
        "the LLM is served by `staragent llm serve` on the same machine).",
        "",
        *[line for note in data.get("notes", []) for line in (note, "")],
        "| measure | " + " | ".join(title[n] for n in names) + " |",
        "| --- |" + " --- |" * len(names),
        "| **right** | " + " | ".join(f"**{runs[n]['right']}/{runs[n]['questions']} ({_f(runs[n]['accuracy'], 1)}%)**" for n in names) + " |",
        *[f"| right, {kind} | " + " | ".join(cell(runs[n], kind) for n in names) + " |" for kind in kinds],
        "| tool calls per question: all / chosen by the planner | " + " | ".join(
            f"{_f(runs[n]['tool_calls_per_question'])} / {_f(runs[n]['planner_calls_per_question'])}" for n in names) + " |",
        "| answers after at least one tool call: any / one the planner chose | " + " | ".join(
            f"{runs[n]['answers_after_a_tool_call']}/{runs[n]['questions']} / {runs[n]['answers_after_a_planner_call']}/{runs[n]['questions']}" for n in names) + " |",
        "| answers citing a time past the video's end | " + " | ".join(str(runs[n]["answers_citing_times_outside_the_video"]) for n in names) + " |",
        *(["| answers word for word the rule planner's (its draft, kept or put back) | " + " | ".join(
            str(runs[n].get("answers_as_the_rules_drafted", "—")) for n in names) + " |"] if "answers_as_the_rules_drafted" in runs.get("llm", {}) else []),
        "| turns that ended in an error | " + " | ".join(str(runs[n]["errors"]) for n in names) + " |",
        "| seconds per answer, p50 / p95 | " + " | ".join(stat(runs[n], "seconds") for n in names) + " |",
        "| prompt tokens per answer, p50 / p95 | " + " | ".join(stat(runs[n], "prompt_tokens", 0) for n in names) + " |",
        "| completion tokens per answer, p50 / p95 | " + " | ".join(stat(runs[n], "completion_tokens", 0) for n in names) + " |",
        "| targets: ≥ 60% right / every answer after a tool call / no time past the end | " + " | ".join(
            " / ".join("met" if ok else "**not met**" for ok in _llm_targets(runs[n])) for n in names) + " |",
        "",
    ]
    return lines


def _llm_targets(run: dict) -> tuple[bool, bool, bool]:
    """The issue's targets for a planner on the dev set: at least 60% right, every answer given after at
    least one tool call, and no cited time past the video's end."""
    return (
        (run["accuracy"] or 0) >= 60,
        run["answers_after_a_tool_call"] == run["questions"],
        run["answers_citing_times_outside_the_video"] == 0,
    )


def prompt_size_section(data: dict) -> list[str]:
    full, every = data["full"], data["small_all_tools"]
    lines = [
        "## The planner's prompt: full, and for a small model",
        "",
        f"Tokens of the first request (system prompt, tool schemas and the question, rendered by {data['model']}'s own chat "
        f"template and tokenizer); measured {data['machine']['date']}. Command: `{data['command']}`.",
        "",
        "| prompt | tools | tokens |",
        "| --- | --- | --- |",
        f"| full prompt, every tool's full schema | {full['tools']} | **{full['tokens']}** |",
        f"| small-model prompt, every tool's brief schema | {every['tools']} | {every['tokens']} |",
        *[f"| small-model prompt, tools chosen for \"{c['question']}\" ({', '.join(c['tools'])}) | {len(c['tools'])} | **{c['tokens']}** |" for c in data["small"]],
        "",
    ]
    return lines


SECTIONS = {
    "answers_cpu": answers_section, "pipeline_cpu": pipeline_section, "chat_storage": chat_storage_section, "models_cpu_smoke": models_section,
    "models_gpu": models_section, "ui_cpu": ui_section, "packs_cpu": packs_section,
    "prompt_size": prompt_size_section, "llm_dev": llm_dev_section, "blind_rounds": blind_rounds_section,
    "load_cpu": load_section,
}


def render() -> str:
    out = [
        "# Performance",
        "",
        "Generated by `make bench` from `perf/results/*.json`; GPU figures come from runs on a GPU",
        "machine (the command is given with each). Numbers are measurements, not targets.",
        "",
    ]
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        render_section = SECTIONS.get(path.stem) or SECTIONS.get(data.get("section", ""))
        if render_section:
            out.extend(render_section(data))
    if not (RESULTS / "models_gpu.json").exists():
        out.extend(GPU_NOT_MEASURED)
    return "\n".join(out) + "\n"


def main() -> None:
    target = ROOT / "docs" / "performance.md"
    target.parent.mkdir(exist_ok=True)
    target.write_text(render())
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
