"""Human review: an export people can read and decide on, and the import of their decisions.

``OUT/review/review.csv`` has one row per question (turn) with everything a reviewer needs (question,
answer, the text of the cited spans, the rubric, the tool calls, the automatic checks) and empty
columns for the decision: ``decision`` (accept / reject, on any row of the sample), ``question_edit``,
``answer_edit``, ``criteria_edit`` (one criterion a line, ``category | name | description``) and
``note``. ``OUT/review/review.html`` shows the same as a static page with the same controls and a
button that downloads the decisions as a CSV of those columns. Either file goes back in with
``staragent datagen import``; the decisions are kept in ``OUT/review/decisions.json`` and applied by
finalisation.
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from typing import Any

from ..bench.harness_errors import DatagenError
from ..bench.sample_records import DEFAULT_WEIGHTS, Criterion, Sample
from ..fsutil import read_json, write_json, write_text
from ..timecodes import format_range

REVIEW_DIR = "review"
DECISIONS = "decisions.json"
DECISION_COLUMNS = ("sample_id", "turn", "decision", "question_edit", "answer_edit", "criteria_edit", "note")
EXPORT_COLUMNS = ("sample_id", "turn", "video_id", "kind", "task", "status", "checks", "video_time", "question", "answer",
                  "cited_text", "criteria", "tool_calls", "decision", "question_edit", "answer_edit", "criteria_edit", "note")  # fmt: skip
DECISION_WORDS = {"accept": "accept", "accepted": "accept", "yes": "accept", "ok": "accept", "keep": "accept",
                  "reject": "reject", "rejected": "reject", "no": "reject", "drop": "reject", "": ""}  # fmt: skip


def criteria_lines(criteria: list[Criterion]) -> str:
    return "\n".join(f"{c.category} | {c.name} | {c.description}" for c in criteria)


def parse_criteria_lines(text: str, where: str) -> list[dict[str, Any]]:
    """``category | name | description`` lines into criteria (weights of their categories)."""
    out = []
    for number, line in enumerate(x for x in text.splitlines() if x.strip()):
        parts = [p.strip() for p in line.split("|", 2)]
        if len(parts) != 3 or not all(parts):
            raise DatagenError(f"{where}: criterion line {number + 1} ({line.strip()!r}) must read 'category | name | description'")
        try:
            criterion = Criterion(category=parts[0], name=parts[1], description=parts[2])
        except ValueError as exc:
            raise DatagenError(f"{where}: criterion line {number + 1}: {exc}") from None
        out.append(criterion.model_copy(update={"weight": DEFAULT_WEIGHTS[criterion.category]}).model_dump(mode="json", exclude_none=True))
    return out


def _cited_text(sample: Sample, turn: Any, spans: dict[int, Any]) -> str:
    lines = []
    for e in getattr(turn, "evidence", None) or []:
        span = spans.get(int(e["segment"]))
        if span is not None:
            lines.append(f"[{format_range(span.start, span.end)}] {span.text()}")
    return "\n".join(lines)


def _calls_text(turn: Any) -> str:
    lines = []
    for c in turn.tool_calls:
        response = json.dumps(c.expected_response, ensure_ascii=False)[:300] if c.expected_response is not None else "(unknown)"
        lines.append(f"{c.tool}({json.dumps(c.parameters, ensure_ascii=False)}) -> {response}")
    return "\n".join(lines)


def _checks_text(sample: Sample, turn: int | None = None) -> str:
    checks = [c for c in sample.meta.get("checks", []) if turn is None or c.get("turn") in (None, turn)]
    return "\n".join(f"{c['level']}: {c['name']}: {c['detail']}" for c in checks)


def _time(turn: Any, spans: dict[int, Any]) -> tuple[float, float] | None:
    found = [spans[int(s)] for s in turn.key_segments if int(s) in spans]
    return (min(s.start for s in found), max(s.end for s in found)) if found else None


def review_rows(items: list[tuple[Sample, Any]]) -> list[dict[str, str]]:
    rows = []
    for sample, desc in items:
        spans = desc.span_map()
        for pair in sample.qa_turns():
            when = _time(pair.question, spans)
            rows.append({
                "sample_id": sample.sample_id, "turn": str(pair.index), "video_id": sample.video_id,
                "kind": str(sample.meta.get("kind", "")), "task": sample.task, "status": str(sample.meta.get("status", "")),
                "checks": _checks_text(sample, pair.index), "video_time": format_range(*when) if when else "",
                "question": pair.question.content, "answer": pair.answer.content,
                "cited_text": _cited_text(sample, pair.answer, spans), "criteria": criteria_lines(pair.answer.criteria),
                "tool_calls": _calls_text(pair.answer), **{c: "" for c in DECISION_COLUMNS[2:]},
            })  # fmt: skip
    return rows


def write_csv(path: Path, rows: list[dict[str, str]], columns: tuple[str, ...]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, buffer.getvalue())


def export_review(out: Path, items: list[tuple[Sample, Any]]) -> dict[str, Path]:
    """Write ``review.csv`` and ``review.html`` under ``OUT/review/``."""
    folder = out / REVIEW_DIR
    rows = review_rows(items)
    write_csv(folder / "review.csv", rows, EXPORT_COLUMNS)
    write_text(folder / "review.html", review_html(items))
    return {"csv": folder / "review.csv", "html": folder / "review.html"}


# ------------------------------------------------------------------------------------------- import


def load_decisions(out: Path) -> dict[str, dict[str, Any]]:
    path = out / REVIEW_DIR / DECISIONS
    return read_json(path) if path.is_file() else {}


def read_decision_rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise DatagenError(f"review file not found: {path}")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "sample_id" not in reader.fieldnames or "decision" not in reader.fieldnames:
            raise DatagenError(f"{path} is not a review CSV: it needs the columns sample_id and decision ({', '.join(DECISION_COLUMNS)})")
        return list(reader)


def import_decisions(out: Path, path: Path, known: dict[str, Sample]) -> dict[str, int]:
    """Merge the decisions of a review CSV into ``OUT/review/decisions.json``; a row naming an unknown
    sample or turn, an unknown decision or an unreadable criterion is an error naming the row."""
    rows = read_decision_rows(path)
    decisions = load_decisions(out)
    changed: dict[str, dict[str, Any]] = {}
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        where = f"{path.name} line {number}"
        sample_id = (row.get("sample_id") or "").strip()
        if sample_id not in known:
            raise DatagenError(f"{where}: no generated sample is called {sample_id!r}; was the file exported from this --out?")
        word = (row.get("decision") or "").strip().lower()
        if word not in DECISION_WORDS:
            raise DatagenError(f"{where}: decision {row.get('decision')!r} is neither accept nor reject (leave it empty for undecided)")
        entry = changed.setdefault(sample_id, {"turns": {}})
        decision = DECISION_WORDS[word]
        if decision and entry.get("decision") != "reject":  # one rejected turn rejects the sample
            entry["decision"] = decision
        if (row.get("note") or "").strip():
            entry["note"] = "; ".join(filter(None, [entry.get("note"), row["note"].strip()]))
        turn_text = (row.get("turn") or "0").strip() or "0"
        if not turn_text.isdigit() or int(turn_text) >= len(known[sample_id].qa_turns()):
            raise DatagenError(f"{where}: {sample_id} has no turn {turn_text!r}")
        pair = known[sample_id].qa_turns()[int(turn_text)]
        edit = {}
        for column, key, current in (("question_edit", "question", pair.question.content), ("answer_edit", "answer", pair.answer.content)):
            value = (row.get(column) or "").strip()
            if value and value != current:
                edit[key] = value
        if (row.get("criteria_edit") or "").strip():
            edit["criteria"] = parse_criteria_lines(row["criteria_edit"], where)
        if edit:
            entry["turns"][turn_text] = edit
    for sample_id, entry in changed.items():
        old = decisions.get(sample_id, {})
        merged = {**old, **{k: v for k, v in entry.items() if k != "turns"}, "turns": {**old.get("turns", {}), **entry["turns"]}}
        decisions[sample_id] = merged
    write_json(out / REVIEW_DIR / DECISIONS, decisions)
    return {
        "rows": len(rows), "samples": len(changed),
        "accepted": sum(1 for e in changed.values() if e.get("decision") == "accept"),
        "rejected": sum(1 for e in changed.values() if e.get("decision") == "reject"),
        "edited": sum(1 for e in changed.values() if e["turns"]),
    }  # fmt: skip


# --------------------------------------------------------------------------------------------- page

_STYLE = """body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em;color:#222}
.card{border:1px solid #ccc;border-radius:8px;padding:.8em 1em;margin:1em 0}.card.fail{border-left:6px solid #c33}
.card.flagged{border-left:6px solid #e9a400}.card.pass{border-left:6px solid #3a3}h2{font-size:1.05em;margin:.2em 0}
.meta{color:#666;font-size:.9em}.turn{border-top:1px dashed #ddd;margin-top:.6em;padding-top:.4em}.q{font-weight:600}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.4em;margin:.3em 0;font-size:.85em}textarea{width:100%;min-height:2.4em}
.checks li.error{color:#b00}.checks li.warning{color:#a60}#bar{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ddd}"""

_SCRIPT = """const COLS=%s;
function q(v){v=v==null?'':String(v);return /[",\\n]/.test(v)?'"'+v.replace(/"/g,'""')+'"':v}
function save(){const d={};document.querySelectorAll('[data-k]').forEach(e=>{if(e.type==='radio'){if(e.checked)d[e.name]=e.value}else d[e.dataset.k]=e.value});localStorage.setItem(KEY,JSON.stringify(d))}
function load(){const d=JSON.parse(localStorage.getItem(KEY)||'{}');document.querySelectorAll('[data-k]').forEach(e=>{if(e.type==='radio'){e.checked=d[e.name]===e.value}else if(d[e.dataset.k]!=null)e.value=d[e.dataset.k]})}
function csv(){const rows=[COLS.join(',')];document.querySelectorAll('.card').forEach(c=>{const id=c.dataset.id;const r=c.querySelector('input[type=radio]:checked');
c.querySelectorAll('.turn').forEach(t=>{const n=t.dataset.turn;const g=k=>(t.querySelector('[data-k$="'+k+'"]')||{}).value||'';
rows.push([id,n,r?r.value:'',g('|question'),g('|answer'),g('|criteria'),g('|note')].map(q).join(','))})});
const a=document.createElement('a');a.href=URL.createObjectURL(new Blob([rows.join('\\n')+'\\n'],{type:'text/csv'}));a.download='decisions.csv';a.click()}
function show(s){document.querySelectorAll('.card').forEach(c=>c.style.display=(s==='all'||c.classList.contains(s))?'':'none')}
const KEY='datagen-review:'+location.pathname;document.addEventListener('change',save);load();"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _card(sample: Sample, desc: Any) -> str:
    spans = desc.span_map()
    status = sample.meta.get("status", "")
    video = Path(sample.video_path or "")
    sid = _e(sample.sample_id)
    radios = "".join(
        f'<label><input type="radio" name="{sid}|decision" data-k="{sid}|decision" value="{v}"> {v}</label> ' for v in ("accept", "reject")
    )
    parts = [
        f'<div class="card {_e(status)}" data-id="{sid}"><h2>{sid} <span class="meta">{_e(sample.meta.get("kind", ""))} · {_e(sample.task)} · '
        f"{_e(status)}</span></h2>",
        f'<div class="meta">scenario: {_e(sample.scenario)}</div><div>decision: {radios}</div>',
    ]
    for pair in sample.qa_turns():
        key = f"{sid}|{pair.index}"
        when = _time(pair.question, spans)
        link = f' <a href="{_e(video.resolve().as_uri() if video.is_absolute() else video)}#t={when[0]:.0f},{when[1]:.0f}">▶ {format_range(*when)}</a>' if when else ""
        checks = [c for c in sample.meta.get("checks", []) if c.get("turn") in (None, pair.index)]
        parts += [
            f'<div class="turn" data-turn="{pair.index}"><div class="q">Q{pair.index + 1} (difficulty {pair.question.difficulty}): {_e(pair.question.content)}{link}</div>',
            f"<div>A: {_e(pair.answer.content)}</div>",
            f"<details><summary>cited spans</summary><pre>{_e(_cited_text(sample, pair.answer, spans))}</pre></details>",
            f"<details open><summary>rubric</summary><pre>{_e(criteria_lines(pair.answer.criteria))}</pre></details>",
        ]
        if pair.answer.tool_calls:
            parts.append(f"<details><summary>expected tool calls</summary><pre>{_e(_calls_text(pair.answer))}</pre></details>")
        if checks:
            parts.append('<ul class="checks">' + "".join(f'<li class="{_e(c["level"])}">{_e(c["name"])}: {_e(c["detail"])}</li>' for c in checks) + "</ul>")
        parts.append(
            "<details><summary>edit</summary>"
            + "".join(f'<label>{what}<textarea data-k="{key}|{what}" placeholder="leave empty to keep"></textarea></label>' for what in ("question", "answer", "criteria", "note"))
            + "</details></div>"
        )
    parts.append("</div>")
    return "".join(parts)


def review_html(items: list[tuple[Sample, Any]]) -> str:
    counts: dict[str, int] = {}
    for sample, _ in items:
        counts[sample.meta.get("status", "")] = counts.get(sample.meta.get("status", ""), 0) + 1
    buttons = " ".join(f'<button onclick="show(\'{s}\')">{s} ({counts.get(s, sum(counts.values()) if s == "all" else 0)})</button>' for s in ("all", "fail", "flagged", "pass"))
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>datagen review</title><style>{_STYLE}</style></head><body>"
        f"<div id='bar'><b>Review of {len(items)} generated samples.</b> Decide, edit (criteria: one per line, "
        f"<code>category | name | description</code>), then <button onclick='csv()'>download decisions.csv</button> and run "
        f"<code>staragent datagen import OUT decisions.csv</code>. Show: {buttons}</div>"
        + "".join(_card(s, d) for s, d in items)
        + f"<script>{_SCRIPT % json.dumps(list(DECISION_COLUMNS))}</script></body></html>"
    )
