"""A local chat model's weights and generation (the ModelPool role ``chat``), and the plain text
exchange tools have with it (summaries, translations). Planning with tools over it is the agent's
business (``agent.planners.transformers``)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from ..config import Settings
from ..errors import ModelUnavailable
from .torch_runtime import load_files, load_pretrained, module_bytes

_END_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>", "</s>")
_LEADING_THINK = re.compile(r"^\s*<think>(.*?)(?:</think>|$)", re.S)


def strip_reasoning(text: str) -> tuple[str, str]:
    """``(text without reasoning, the reasoning)``. Only a ``<think>`` block at the start is
    reasoning (one cut off by the token limit runs to the end); a tag further on is part of the
    answer."""
    block = _LEADING_THINK.match(text)
    if block is None:
        return text.strip(), ""
    return text[block.end() :].strip(), block.group(1).strip()


class LocalChatEngine:
    """A causal LM and its tokenizer on one device."""

    name = "transformers-chat"

    def __init__(self, model_dir: Path, label: str, device: str = "cpu", dtype: str = "auto"):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.model_id = label
        self.device = device
        self.tokenizer = load_files(AutoTokenizer, model_dir, "chat model's tokenizer")
        if not self.tokenizer.chat_template:
            raise ModelUnavailable(f"chat model {label!r} has no chat template, so tools cannot be shown to it; use an instruct/chat model")
        self.model = load_pretrained(AutoModelForCausalLM, model_dir, device, dtype)
        ends = {self.tokenizer.convert_tokens_to_ids(t) for t in _END_MARKERS if t in self.tokenizer.get_vocab()}
        configured = self.model.generation_config.eos_token_id
        ends |= set(configured if isinstance(configured, list) else [configured] if configured is not None else [])
        if self.tokenizer.eos_token_id is not None:
            ends.add(self.tokenizer.eos_token_id)
        self.stop_ids = sorted(ends)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.stop_ids[0]
        self._lock = threading.Lock()
        self._torch = torch

    def memory_bytes(self) -> int:
        return module_bytes(self.model)

    def prompt_ids(self, messages: list[dict], tools: list[dict] | None, thinking: bool):
        return self.tokenizer.apply_chat_template(
            messages,
            tools=tools or None,
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            sanitize_control_tokens=True,
            enable_thinking=thinking,  # Qwen3's switch; templates without it ignore it
        )

    def generate(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        *,
        max_new_tokens: int = 1024,
        temperature: float = 0.0,
        thinking: bool = False,
        stop: list[str] | None = None,
    ) -> tuple[str, int, int]:
        """``(raw text of the reply, prompt tokens, generated tokens)``."""
        from transformers import GenerationConfig

        inputs = self.prompt_ids(messages, tools, thinking).to(self.device)
        sampling = temperature > 0
        config = GenerationConfig(
            max_new_tokens=max_new_tokens,
            do_sample=sampling,
            temperature=temperature if sampling else None,
            top_p=0.95 if sampling else None,
            eos_token_id=self.stop_ids,
            pad_token_id=self.pad_id,
            stop_strings=stop or None,
        )
        extra = {"tokenizer": self.tokenizer} if stop else {}
        with self._lock, self._torch.inference_mode():
            output = self.model.generate(**inputs, generation_config=config, **extra)
        prompt_len = inputs["input_ids"].shape[1]
        new = output[0, prompt_len:]
        text = self.decode(new.tolist())
        if self.inside_thinking(inputs["input_ids"][0].tolist()):
            text = "<think>" + text  # the template opened the reasoning block; the reply starts inside it
        return text, int(prompt_len), int(new.shape[0])

    def inside_thinking(self, prompt_ids: list[int]) -> bool:
        """Whether the prompt ends inside a ``<think>`` block (templates of reasoning models open one
        for the reply), so that what the model writes first is reasoning."""
        tail = self.tokenizer.decode(prompt_ids[-8:], skip_special_tokens=False)
        return tail.rfind("<think>") > tail.rfind("</think>")

    def decode(self, ids: list[int]) -> str:
        """Text of generated ids, keeping tool-call markup (some tokenizers call it special) but
        not the end-of-turn and padding tokens."""
        ids = [i for i in ids if i not in self.stop_ids and i != self.pad_id]
        return self.tokenizer.decode(ids, skip_special_tokens=False)




class EngineChat:
    """One plain exchange at a time with the engine the pool holds as ``role`` (looked up per call,
    so the pool may unload it in between), decoding as the planner settings say."""

    def __init__(self, pool, settings: Settings, role: str = "chat"):
        self.pool, self.role = pool, role
        planner = settings.planner
        self.max_new_tokens, self.temperature, self.thinking = planner.max_tokens, planner.temperature, planner.thinking

    def reply(self, system: str, user: str) -> str:
        """The model's answer to ``user`` under the instructions ``system``, without its reasoning."""
        engine = self.pool.get(self.role)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        text, _, _ = engine.generate(messages, None, max_new_tokens=self.max_new_tokens, temperature=self.temperature, thinking=self.thinking)
        return strip_reasoning(text)[0]
