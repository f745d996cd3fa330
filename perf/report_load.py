"""The load benchmark's section of docs/performance.md (perf/results/load_cpu.json)."""

from __future__ import annotations

NAMES = {"mcp": "`staragent mcp --http`", "langgraph": "LangGraph server (`langgraph dev`)", "page": "the page (`staragent ui`, Gradio's queue)"}


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f}"


def _row(kind: str, r: dict) -> str:
    lat, threads, memory, indexing = r["latency_s"], r["threads"], r["memory"], r["indexing"]
    thread_cell = f"{threads['intact']}/{r['clients']} intact" + (
        f" ({threads['lost_turns']} turns lost, {threads['foreign_turns']} foreign)" if threads["intact"] != r["clients"] else "")
    flat = {True: "flat", False: "**grows**", None: "—"}[memory.get("flat")]
    memory_cell = (f"{memory['at_settled_mb']:.0f} → {memory['end_mb']:.0f} MB from {memory['settled_after_s']:.0f} s to the end "
                   f"(max {memory['max_mb']:.0f}, trend {memory['trend_mb_per_min']:+.0f} MB/min): {flat}") if memory.get("samples") else "—"
    indexed = f"{indexing['seconds']:.1f} s" if indexing.get("ok") else f"**failed**: {indexing.get('error', '')}"
    return (f"| {NAMES.get(kind, kind)} | {r['requests_per_s']:.1f} | {_ms(lat['p50'])} / {_ms(lat['p95'])} / {_ms(lat['p99'])} "
            f"| {r['errors']} of {r['requests']} | {thread_cell} | {memory_cell} | {indexed} |")


def load_section(data: dict) -> list[str]:
    m = data["machine"]
    shared = f" {data['note']}." if data.get("note") else ""
    lines = [
        "## Load: many clients at once on each server",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, no GPU; measured {m['date']}.{shared} 1-minute load average "
        f"{data['load_average_before']:.1f} before and {data['load_average_after']:.1f} after the run. Command: `{data['command'].strip()}`.",
        f"Each server was started fresh on a cache holding the indexes of two generated videos ({', '.join(data['videos'])}); "
        f"{data['clients']} clients then asked questions for {data['seconds']:.0f} s, each in a thread of its own, one question "
        f"after another, while one more client had the server index a third video ({data['indexed_under_load']}). "
        f"Profile: {data['profile']}. Every thread was read back afterwards (the page's and MCP's from the conversation "
        "store after the server stopped, as a restart sees them; the LangGraph server's through its thread API): it must hold "
        "exactly its client's questions in order. Memory is the RSS of the server's process tree, sampled every "
        f"{next(iter(data['servers'].values()))['memory'].get('sample_every_s', 2):.0f} s; flat means that after the first minute it "
        "grew by less than 1% of its size a minute (least-squares trend of the samples).",
        "",
        "| server | answers/s | latency p50 / p95 / p99 (ms) | errors | threads | memory (RSS) | third video indexed under load in |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *[_row(kind, r) for kind, r in data["servers"].items()],
        "",
        "What made the memory grow before (each turn loaded a state that grew with its thread; `langgraph dev` kept",
        "every checkpoint in the process), what bounds it now, and the run without that change on the same machine:",
        "docs/design.md, under Load.",
        "",
    ]
    for kind, r in data["servers"].items():
        if r["error_samples"]:
            lines += [f"Errors from {NAMES.get(kind, kind)}: " + "; ".join(f"`{e}`" for e in r["error_samples"]), ""]
    return lines
