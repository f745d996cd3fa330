"""A stand-in for `staragent llm serve` that runs as a process of its own, so a test can kill it:
the OpenAI-compatible stub (openai_stub.py) on a given port, which either holds every chat request
unanswered (``hold``: a server busy with the one before, the others queued behind it) or answers
each with the same short reply (``answer``). Each request it receives adds a line to the file given.

    python tests/llm_standin.py PORT hold|answer REQUESTS_FILE
"""

import sys
import time

from openai_stub import HOLD, HOLD_S, StubServer

MODEL = "stand-in-model"
REPLY = {"content": "The coffee grinder costs $129.50 (0:00-0:10)."}
MAX_REQUESTS = 100


def main(port: int, mode: str, requests: str) -> None:
    def note(body: dict) -> None:
        with open(requests, "a") as out:
            out.write(f"{len(body.get('messages', []))} messages\n")

    script = [HOLD if mode == "hold" else REPLY] * MAX_REQUESTS
    with StubServer(script, model=MODEL, port=port, on_request=note):
        print("ready", flush=True)
        time.sleep(HOLD_S)  # until killed (or, at the latest, stopped after this long)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
