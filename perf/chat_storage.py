"""Chat storage benchmark: bytes the conversation store (``chats.sqlite`` and its write-ahead log)
holds after N turns of one thread about a generated 10-minute video, rule planner.

The questions are the video's own facts (speech and on-screen text), with a follow-up ("What was
said right after that?") after every third one, so tool results, evidence and follow-ups all land in
the thread. After the last turn the thread is resumed in a fresh agent and asked once more, to check
that what is kept is enough to go on.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from common import WORK, save
from pipeline import sample_video

CHECKPOINTS = (10, 20, 30)
FOLLOW_UP = "What was said right after that?"


def store_bytes(cache: Path) -> int:
    from staragent.agent.runner import CHAT_DB

    return sum(p.stat().st_size for p in cache.glob(CHAT_DB + "*") if p.is_file())


def questions(video: Path, count: int) -> list[str]:
    from staragent.samples import SampleScript

    script = SampleScript.load(video.with_name(video.stem + ".facts.json"))
    facts = [f.question for f in script.facts if f.modality != "visual"]
    out: list[str] = []
    while len(out) < count:
        for fact in facts:
            out.append(fact)
            if len(out) % 3 == 2:
                out.append(FOLLOW_UP)
    return out[:count]


def main(minutes: float = 10.0) -> dict:
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings

    video = sample_video(minutes)
    cache = WORK / "chat-cache"
    shutil.rmtree(cache, ignore_errors=True)
    settings = load_settings(cache_dir=cache, progress=False)
    asked = questions(video, max(CHECKPOINTS))
    sizes = {}
    with VideoAgent(settings) as agent:
        agent.session(video)  # index first: the store is measured alone
        chat = agent.chat(video, "storage")
        for turn, question in enumerate(asked, 1):
            chat.ask(question)
            if turn in CHECKPOINTS:
                sizes[turn] = store_bytes(cache)
                print(f"{turn} turns: {sizes[turn] / 1e6:.2f} MB", flush=True)
    with VideoAgent(settings) as agent:  # a new process would do the same: open the store, resume the thread
        resumed = agent.chat(video, "storage").ask(FOLLOW_UP)
    first, last = min(CHECKPOINTS), max(CHECKPOINTS)
    data = {
        "section": "chat_storage",
        "command": "python perf/run.py chat_storage",
        "video": {"minutes": minutes, "file": video.name},
        "bytes_after_turns": {str(k): v for k, v in sizes.items()},
        "bytes_per_turn": (sizes[last] - sizes[first]) / (last - first),
        "resumed_answer_has_evidence": bool(resumed.evidence),
    }
    save("chat_storage", data)
    return data


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
