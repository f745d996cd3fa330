"""A local chat model's weights and generation (the ModelPool role ``chat``), and the plain text
exchange tools have with it (summaries, translations). Planning with tools over it is the agent's
business (``agent.planners.transformers``)."""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path

from ..config import Settings
from ..errors import ModelUnavailable
from .torch_runtime import load_files, load_pretrained, module_bytes

log = logging.getLogger("staragent.models")

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


STATIC_CACHE_TOKENS = 8192
"""prompt and reply together, on a GPU: Qwen3-4B's cache for them takes 1.2 GB"""


class LocalChatEngine:
    """A causal LM and its tokenizer on one device."""

    name = "transformers-chat"

    def __init__(self, model_dir: Path, label: str, device: str = "cpu", dtype: str = "auto", static_cache_tokens: int | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.model_id = label
        self.device = device
        # One token's work is a few milliseconds of GPU time but hundreds of kernel launches; with a
        # cache of fixed size transformers compiles the decoding step into CUDA graphs, launched once.
        default = STATIC_CACHE_TOKENS if device.startswith("cuda") else 0
        self.static_cache_tokens = default if static_cache_tokens is None else static_cache_tokens
        self._static_cache = None
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
        inputs = self.prompt_ids(messages, tools, thinking).to(self.device)
        new = self.generate_ids(inputs, max_new_tokens=max_new_tokens, temperature=temperature, stop=stop)
        prompt_len = inputs["input_ids"].shape[1]
        text = self.decode(new.tolist())
        if self.inside_thinking(inputs["input_ids"][0].tolist()):
            text = "<think>" + text  # the template opened the reasoning block; the reply starts inside it
        return text, int(prompt_len), int(new.shape[0])

    def generate_ids(self, inputs: dict, *, max_new_tokens: int, temperature: float = 0.0, stop: list[str] | None = None, min_new_tokens: int = 0):
        """The new token ids for a tokenized prompt (``input_ids`` and ``attention_mask``)."""
        from transformers import GenerationConfig

        sampling = temperature > 0
        config = GenerationConfig(
            max_new_tokens=max_new_tokens,
            min_new_tokens=min_new_tokens or None,
            do_sample=sampling,
            temperature=temperature if sampling else None,
            top_p=0.95 if sampling else None,
            eos_token_id=self.stop_ids,
            pad_token_id=self.pad_id,
            stop_strings=stop or None,
        )
        extra = {"tokenizer": self.tokenizer} if stop else {}
        prompt_len = inputs["input_ids"].shape[1]
        with self._lock, self._torch.inference_mode():
            cache = self._cache_for(prompt_len + max_new_tokens)
            try:
                output = self.model.generate(**inputs, generation_config=config, past_key_values=cache, **extra)
            except Exception as exc:  # compiling the decoding step can fail (no compiler): decode as before
                if cache is None:
                    raise
                log.warning("decoding from a fixed-size cache failed (%s); %s decodes without it from now on", exc, self.model_id)
                self.static_cache_tokens, self._static_cache = 0, None
                output = self.model.generate(**inputs, generation_config=config, **extra)
        return output[0, prompt_len:]

    def _cache_for(self, tokens: int):
        """The preallocated cache, emptied, when ``tokens`` fit in it; None to let transformers grow one."""
        if tokens > self.static_cache_tokens:
            return None
        if self._static_cache is None:
            from transformers import StaticCache

            self._static_cache = StaticCache(config=self.model.config, max_cache_len=self.static_cache_tokens)
        self._static_cache.reset()
        return self._static_cache

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
