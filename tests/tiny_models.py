"""Tiny, randomly initialised stand-ins for every expert model, built and saved the way the real
ones are published, so that the backends' real loading code reads them: transformers folders
(config, weights, tokenizer with a chat template, processor), a CTranslate2 Whisper, an open_clip
folder, and easyocr ``.pth`` files. Nothing is downloaded; each builder takes a second or two.

Experts only tools use (second half of this module):
- ``owlv2``, ``marian``, ``m2m100``, ``videomae``: randomly initialised transformers checkpoints with
  a word-level tokenizer made on the spot.
- ``yunet_like`` / ``sface_like``: ONNX networks with the inputs and outputs OpenCV's FaceDetectorYN
  and FaceRecognizerSF expect, with weights set by hand: the "detector" finds skin-coloured discs
  (see ``media_factory.draw_face``), the "recogniser" describes the colours in the middle of the
  aligned face, so faces drawn with different marks get different features.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np

# Tokens the tiny chat, vision-language and audio-language models share. Tool-call and reasoning
# tags are ordinary added tokens (as in Qwen), the others are special.
CONTROL_TOKENS = [
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|video_pad|>", "<|image_pad|>",
    "<sound>", "<|audio_bos|>", "<|AUDIO|>", "<|audio_eos|>",
]
TAG_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]

# A Qwen-style chat template written for these tests: tools in the system turn, tool calls as
# <tool_call> JSON, tool results in <tool_response>, images/videos/audio as placeholder tokens,
# and Qwen3's enable_thinking switch.
CHAT_TEMPLATE = """
{%- set sys = messages[0].content if messages and messages[0].role == 'system' else '' -%}
{%- if tools or sys -%}
<|im_start|>system
{{ sys }}
{% if tools -%}
Tools you can call, one JSON object per call inside <tool_call></tool_call> tags, as {"name": ..., "arguments": {...}}:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>
{%- endif %}<|im_end|>
{% endif -%}
{%- for message in messages -%}
{%- if message.role == 'system' -%}
{%- elif message.role == 'tool' -%}
<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% elif message.role == 'assistant' -%}
<|im_start|>assistant
{{ message.content or '' }}
{%- for call in message.tool_calls or [] %}
{%- set fn = call.function if call.function is defined else call %}
<tool_call>
{"name": "{{ fn.name }}", "arguments": {{ fn.arguments if fn.arguments is string else fn.arguments | tojson }}}
</tool_call>
{%- endfor %}<|im_end|>
{% else -%}
<|im_start|>{{ message.role }}
{% if message.content is string %}{{ message.content }}{% else %}{% for part in message.content %}{% if part.type == 'video' %}<|vision_start|><|video_pad|><|vision_end|>{% elif part.type == 'image' %}<|vision_start|><|image_pad|><|vision_end|>{% elif part.type == 'audio' %}<sound>{% else %}{{ part.text }}{% endif %}{% endfor %}{% endif %}<|im_end|>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% if enable_thinking is defined and enable_thinking is false %}<think>

</think>

{% endif -%}
{%- endif -%}
"""

CORPUS = [
    "What is the price of the coffee grinder? The keynote speaker is from Nairobi.",
    '{"name": "cross_modal_search", "arguments": {"query": "grinder price", "k": 5}}',
    '{"name": "transcribe_speech", "arguments": {"timestamp": "00:00:10-00:00:20"}}',
    "A slide shows a chart; a dog barks, music plays, people applaud at 12:30.",
]


def build_tokenizer(folder: Path, vocab_size: int = 600):
    """A byte-level BPE tokenizer (any text encodes) with the chat template, saved to ``folder``."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS * 20, trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in CONTROL_TOKENS])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    hf = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None)
    hf.chat_template = CHAT_TEMPLATE
    folder.mkdir(parents=True, exist_ok=True)
    hf.save_pretrained(folder)
    return hf


def _seed(seed: int = 0) -> None:
    import torch

    torch.manual_seed(seed)


def _instantiate(model_class, config, dtype=None, device=None):
    """A randomly initialised model, created directly in ``dtype`` (real-size models for the GPU
    benchmark would not fit in float32 twice) and on ``device`` (a GPU draws billions of random
    weights in a second, a CPU thread in a minute)."""
    import torch

    previous = torch.get_default_dtype()
    if dtype is not None:
        torch.set_default_dtype(dtype)
    try:
        with torch.device(device or "cpu"):
            return model_class(config)
    finally:
        torch.set_default_dtype(previous)


def tiny_qwen3(folder: Path, dims: dict | None = None, dtype=None, device=None) -> Path:
    """A 2-layer Qwen3 causal LM with the test tokenizer and chat template (``dims`` overrides the
    config, e.g. with Qwen3-4B's sizes for the GPU benchmark)."""
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    tok = build_tokenizer(folder)
    _seed()
    config = Qwen3Config(**{
        "vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "max_position_embeddings": 32768, "tie_word_embeddings": True,
        "eos_token_id": tok.convert_tokens_to_ids("<|im_end|>"), "pad_token_id": tok.pad_token_id, **(dims or {}),
    })
    model = _instantiate(Qwen3ForCausalLM, config, dtype, device)
    model.generation_config = GenerationConfig(eos_token_id=config.eos_token_id, pad_token_id=config.pad_token_id)
    model.save_pretrained(folder)
    return folder


def tiny_qwen25_vl(folder: Path, dims: dict | None = None, dtype=None, device=None) -> Path:
    """A 1-layer Qwen2.5-VL (vision tower and language model) with an image/video processor;
    ``dims`` may replace ``text_config`` and ``vision_config`` entries."""
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
    )
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    tok = build_tokenizer(folder)
    ids = {t: tok.convert_tokens_to_ids(t) for t in CONTROL_TOKENS}
    _seed()
    dims = dims or {}
    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
            "num_key_value_heads": 2, "max_position_embeddings": 32768,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1]},
            "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"], "bos_token_id": None, **dims.get("text_config", {}),
        },
        vision_config={
            "depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "out_hidden_size": 32, "fullatt_block_indexes": [0],
            "window_size": 56, **dims.get("vision_config", {}),
        },
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"],
    )
    model = _instantiate(Qwen2_5_VLForConditionalGeneration, config, dtype, device)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(folder)
    processor = Qwen2_5_VLProcessor(
        image_processor=Qwen2VLImageProcessor(), tokenizer=tok, video_processor=Qwen2VLVideoProcessor(), chat_template=CHAT_TEMPLATE
    )
    processor.save_pretrained(folder)
    return folder


AUDIO_LABELS = ["Speech", "Music", "Dog", "Siren", "Applause"]


def tiny_ast(folder: Path) -> Path:
    """A 1-layer Audio Spectrogram Transformer classifier over 2 s of audio, five AudioSet labels."""
    from transformers import ASTConfig, ASTFeatureExtractor, ASTForAudioClassification

    _seed()
    config = ASTConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, max_length=200, num_mel_bins=64,
        id2label=dict(enumerate(AUDIO_LABELS)), label2id={label: i for i, label in enumerate(AUDIO_LABELS)},
    )
    ASTForAudioClassification(config).save_pretrained(folder)
    ASTFeatureExtractor(num_mel_bins=64, max_length=200).save_pretrained(folder)
    return folder


def _tiny_audio_lm(folder: Path, classes: tuple[str, str, str], audio_config: dict, token_field: str, audio_markup: str) -> Path:
    """A 1-layer audio-language model (Whisper-style encoder + Qwen2 LM) and its processor, whose
    chat template writes ``audio_markup`` where the audio goes."""
    import transformers
    from transformers import WhisperFeatureExtractor

    config_class, model_class, processor_class = (getattr(transformers, name) for name in classes)
    tok = build_tokenizer(folder)
    end = tok.convert_tokens_to_ids("<|im_end|>")
    audio_token = "<|AUDIO|>" if "<|AUDIO|>" in audio_markup else audio_markup
    _seed()
    config = config_class(
        audio_config=audio_config,
        text_config=dict(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=32768, eos_token_id=end, pad_token_id=tok.pad_token_id),
        **{token_field: tok.convert_tokens_to_ids(audio_token)},
    )
    model = model_class(config)
    model.generation_config.eos_token_id = end
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    template = CHAT_TEMPLATE.replace("<sound>", audio_markup)
    processor_class(WhisperFeatureExtractor(feature_size=128), tok, chat_template=template).save_pretrained(folder)
    return folder


def tiny_audio_flamingo(folder: Path) -> Path:
    """Audio Flamingo 3 in miniature; audio is the <sound> token."""
    return _tiny_audio_lm(
        folder, ("AudioFlamingo3Config", "AudioFlamingo3ForConditionalGeneration", "AudioFlamingo3Processor"),
        dict(num_mel_bins=128, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, hidden_size=16, max_source_positions=1500),
        "audio_token_id", "<sound>",
    )


def tiny_qwen2_audio(folder: Path) -> Path:
    """Qwen2-Audio in miniature; audio is <|audio_bos|><|AUDIO|><|audio_eos|>."""
    return _tiny_audio_lm(
        folder, ("Qwen2AudioConfig", "Qwen2AudioForConditionalGeneration", "Qwen2AudioProcessor"),
        dict(num_mel_bins=128, encoder_layers=1, encoder_attention_heads=2, encoder_ffn_dim=32, d_model=16, max_source_positions=1500),
        "audio_token_index", "<|audio_bos|><|AUDIO|><|audio_eos|>",
    )


def _whisper_tokenizer():
    """Whisper's token layout (51866 ids, as large-v3): byte tokens and fillers standing for the
    BPE merges, the empty token CTranslate2 reads as "multilingual", then <|endoftext|>, the
    start token, 100 languages, the task tokens and 1501 timestamps."""
    from faster_whisper.tokenizer import _LANGUAGE_CODES
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    vocab = {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    while len(vocab) < 50256:
        vocab[f"\u0120w{len(vocab)}"] = len(vocab)  # decodes as " w123": word-like text
    vocab[""] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<|endoftext|>", "<|startoftranscript|>", *[f"<|{c}|>" for c in _LANGUAGE_CODES],
                "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]
    tok.add_special_tokens([AddedToken(s, special=True) for s in specials])
    tok.add_tokens([AddedToken("<|%.2f|>" % (i * 0.02), special=False) for i in range(1501)])
    return tok, _LANGUAGE_CODES


def tiny_whisper_ct2(folder: Path, dims: dict | None = None, quantization: str | None = None, device=None) -> Path:
    """A 1-layer multilingual Whisper, converted to CTranslate2 as faster-whisper expects it
    (``dims`` overrides the WhisperConfig, e.g. with large-v3's sizes)."""
    import torch
    from ctranslate2.converters import TransformersConverter
    from transformers import (
        GenerationConfig,
        PreTrainedTokenizerFast,
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
    )

    tok, languages = _whisper_tokenizer()
    ids = tok.get_vocab()
    source = folder.with_name(folder.name + "-hf")
    eot = ids["<|endoftext|>"]
    PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>").save_pretrained(source)
    _seed()
    config = WhisperConfig(**{
        "vocab_size": tok.get_vocab_size(), "num_mel_bins": 80, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
        "decoder_attention_heads": 2, "d_model": 32, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "max_source_positions": 1500,
        "max_target_positions": 448, "decoder_start_token_id": ids["<|startoftranscript|>"], "eos_token_id": eot, "pad_token_id": eot,
        "bos_token_id": eot, "suppress_tokens": [], "begin_suppress_tokens": [eot], **(dims or {}),
    })
    model = _instantiate(WhisperForConditionalGeneration, config, device=device)
    with torch.no_grad():  # confident (peaked) outputs, so Whisper's fallback rarely re-decodes,
        model.model.decoder.embed_tokens.weight.mul_(30)
        special = [i for t, i in ids.items() if t == "" or t.startswith("<|")]
        model.model.decoder.embed_tokens.weight[special] = 0  # and words, not control tokens, come out
        model.model.decoder.embed_tokens.weight[eot] = model.model.decoder.embed_tokens.weight[ids["\u0120w1000"]]
    model.generation_config = GenerationConfig(
        decoder_start_token_id=config.decoder_start_token_id, eos_token_id=eot, pad_token_id=eot, suppress_tokens=[], begin_suppress_tokens=[eot],
        lang_to_id={f"<|{c}|>": ids[f"<|{c}|>"] for c in languages}, is_multilingual=True,
        task_to_id={"transcribe": ids["<|transcribe|>"], "translate": ids["<|translate|>"]}, no_timestamps_token_id=ids["<|notimestamps|>"],
    )
    model.save_pretrained(source)
    WhisperFeatureExtractor(feature_size=config.num_mel_bins).save_pretrained(source)
    converter = TransformersConverter(str(source), copy_files=["tokenizer.json", "preprocessor_config.json"])
    converter.convert(str(folder), quantization=quantization, force=True)
    return folder


def tiny_siglip(folder: Path, builtin: str | None = None, device: str | None = None) -> Path:
    """An open_clip SigLIP-style model (ViT image tower, bidirectional text tower, sigmoid bias)
    with 32-dim embeddings, as a ``local-dir`` folder with its own tokenizer. ``builtin`` takes the
    architecture of one of open_clip's configs instead (e.g. ``ViT-SO400M-14-SigLIP-384``)."""
    import open_clip
    from safetensors.torch import save_file

    tok = build_tokenizer(folder)
    model_cfg = {
        "embed_dim": 32, "init_logit_bias": -10, "custom_text": True,
        "vision_cfg": {"image_size": 32, "patch_size": 8, "width": 32, "layers": 1, "head_width": 16, "mlp_ratio": 2.0, "pool_type": "avg"},
        "text_cfg": {"context_length": 16, "vocab_size": len(tok), "width": 32, "heads": 2, "layers": 1,
                     "mlp_ratio": 2.0, "no_causal_mask": True, "proj_bias": True, "pool_type": "last", "norm_kwargs": {"eps": 1e-6}},
    }
    if builtin:
        model_cfg = open_clip.get_model_config(builtin)
    model_cfg["text_cfg"]["hf_tokenizer_name"] = "local"  # the tokenizer saved beside it
    model_cfg["text_cfg"].pop("tokenizer_kwargs", None)
    config = {
        "model_cfg": model_cfg,
        "preprocess_cfg": {"mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5], "interpolation": "bicubic", "resize_mode": "squash"},
    }
    (folder / "open_clip_config.json").write_text(json.dumps(config))
    _seed()
    model = open_clip.create_model(f"local-dir:{folder}", load_weights=False, device=device or "cpu")
    save_file({k: v.contiguous().cpu() for k, v in model.state_dict().items()}, str(folder / "open_clip_model.safetensors"))
    return folder


def tiny_easyocr(folder: Path) -> dict[str, str]:
    """easyocr's CRAFT detector and English recogniser with random weights (their real, fixed
    architectures), named as easyocr expects. Returns ``file -> published md5``: random weights
    cannot match easyocr's checksums, so tests patch its check with these."""
    import torch
    from easyocr.config import recognition_models
    from easyocr.craft import CRAFT
    from easyocr.model.vgg_model import Model

    folder.mkdir(parents=True, exist_ok=True)
    _seed()
    torch.save(CRAFT().state_dict(), folder / "craft_mlt_25k.pth")
    english = recognition_models["gen2"]["english_g2"]
    recogniser = Model(input_channel=1, output_channel=256, hidden_size=256, num_class=len(english["characters"]) + 1)
    torch.save({f"module.{k}": v for k, v in recogniser.state_dict().items()}, folder / english["filename"])
    return easyocr_published_md5()


def easyocr_published_md5() -> dict[str, str]:
    """``file -> md5`` that easyocr expects of the detector and English recogniser files."""
    from easyocr.config import detection_models, recognition_models

    english = recognition_models["gen2"]["english_g2"]
    return {"craft_mlt_25k.pth": detection_models["craft"]["md5sum"], english["filename"]: english["md5sum"]}


def tone(seconds: float, hz: float = 440.0, rate: int = 16000) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


class TinyModels:
    """Every tiny model, built on first use into ``root`` and kept for the test session."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @functools.cached_property
    def qwen3(self) -> Path:
        return tiny_qwen3(self.root / "qwen3")

    @functools.cached_property
    def qwen_vl(self) -> Path:
        return tiny_qwen25_vl(self.root / "qwen2.5-vl")

    @functools.cached_property
    def ast(self) -> Path:
        return tiny_ast(self.root / "ast")

    @functools.cached_property
    def audio_flamingo(self) -> Path:
        return tiny_audio_flamingo(self.root / "audio-flamingo-3")

    @functools.cached_property
    def qwen2_audio(self) -> Path:
        return tiny_qwen2_audio(self.root / "qwen2-audio")

    @functools.cached_property
    def whisper(self) -> Path:
        return tiny_whisper_ct2(self.root / "whisper-ct2")

    @functools.cached_property
    def siglip(self) -> Path:
        return tiny_siglip(self.root / "siglip")

    @functools.cached_property
    def easyocr_md5(self) -> dict[str, str]:
        return tiny_easyocr(self.root / "easyocr")

    @property
    def easyocr(self) -> Path:
        self.easyocr_md5  # noqa: B018 - builds the files
        return self.root / "easyocr"

    def settings_overrides(self) -> dict:
        """``load_settings`` keywords for the local profile with every expert replaced by its tiny
        stand-in, on the CPU, with small batches and short generations."""
        return {
            "profile": "local",
            "models": {
                "device": "cpu", "asr_model": str(self.whisper), "asr_refine_model": str(self.whisper), "asr_beam_size": 1, "asr_batch_size": 4,
                "easyocr_dir": str(self.easyocr), "vision_model": str(self.siglip), "vision_batch_size": 4,
                "vlm_model": str(self.qwen_vl), "vlm_max_new_tokens": 8, "vlm_max_pixels": 56 * 56 * 4, "vlm_max_frames": 8,
                "audio_tagger_model": str(self.ast), "audio_tag_threshold": 0.0, "audio_lm_model": str(self.audio_flamingo),
                "audio_lm_max_new_tokens": 8,
            },
            "planner": {"model": str(self.qwen3), "max_tokens": 12},
        }


def scripted_generation(engine, replies, monkeypatch):
    """Replace the tiny model's generation with ``replies``, one per call; the prompts it was given
    (rendered by the real chat template) are returned as they come."""
    import torch

    prompts = []
    replies = iter(replies)

    def generate(input_ids, attention_mask=None, **kwargs):
        prompts.append(engine.tokenizer.decode(input_ids[0]))
        reply = engine.tokenizer(next(replies) + "<|im_end|>", add_special_tokens=False, return_tensors="pt")["input_ids"]
        return torch.cat([input_ids, reply], dim=1)

    monkeypatch.setattr(engine.model, "generate", generate)
    return prompts


def patch_easyocr_checksums(monkeypatch, md5: dict[str, str]) -> None:
    """Random weights cannot match easyocr's published checksums: report the expected ones for
    the tiny files (everything else about loading them is easyocr's own code)."""
    import easyocr.easyocr

    real = easyocr.easyocr.calculate_md5
    monkeypatch.setattr(easyocr.easyocr, "calculate_md5", lambda path: md5.get(Path(path).name) or real(path))


# ---------------------------------------------------------------- experts only tools use

SKIN_RGB = (230, 180, 140)


def word_tokenizer(words: list[str], special: list[str], max_length: int = 32):
    """A fast tokenizer over whole words (plus ``special`` tokens), saved like any other."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", "<s>", *special, *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>", bos_token="<s>",
        model_max_length=max_length, extra_special_tokens=special,
    )


def owlv2(directory: Path) -> Path:
    import torch
    from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor, Owlv2Processor

    tokenizer = word_tokenizer(["a", "photo", "of", "person", "cup", "car", "dog", "laptop", "box", "red"], [], max_length=16)
    config = Owlv2Config(
        text_config=dict(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37,
                         max_position_embeddings=16, pad_token_id=0, bos_token_id=3, eos_token_id=1),
        vision_config=dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, image_size=64, patch_size=16),
        projection_dim=32,
    )
    torch.manual_seed(0)
    Owlv2ForObjectDetection(config).save_pretrained(directory)
    Owlv2Processor(image_processor=Owlv2ImageProcessor(size={"height": 64, "width": 64}), tokenizer=tokenizer).save_pretrained(directory)
    return directory


def _seq2seq_sizes(vocab: int) -> dict:
    return dict(vocab_size=vocab, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64, pad_token_id=0, eos_token_id=1)


TRANSLATION_WORDS = ["bonjour", "hello", "tout", "le", "monde", "everyone", "the", "world", "sortie", "exit", "bienvenue", "welcome"]


def marian(directory: Path) -> Path:
    import torch
    from transformers import MarianConfig, MarianMTModel

    tokenizer = word_tokenizer(TRANSLATION_WORDS, [])
    torch.manual_seed(0)
    MarianMTModel(MarianConfig(**_seq2seq_sizes(len(tokenizer)), decoder_start_token_id=0, forced_eos_token_id=1)).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def m2m100(directory: Path) -> Path:
    """A multilingual model whose tokenizer knows NLLB's language codes for English and French."""
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration

    tokenizer = word_tokenizer(TRANSLATION_WORDS, ["eng_Latn", "fra_Latn"])
    torch.manual_seed(0)
    M2M100ForConditionalGeneration(M2M100Config(**_seq2seq_sizes(len(tokenizer)), decoder_start_token_id=1)).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def videomae(directory: Path, labels: list[str]) -> Path:
    import torch
    from transformers import VideoMAEConfig, VideoMAEForVideoClassification, VideoMAEImageProcessor

    config = VideoMAEConfig(image_size=32, patch_size=8, num_frames=4, tubelet_size=2, hidden_size=32, num_hidden_layers=1,
                            num_attention_heads=2, intermediate_size=37, num_labels=len(labels),
                            id2label=dict(enumerate(labels)), label2id={v: i for i, v in enumerate(labels)})
    torch.manual_seed(0)
    VideoMAEForVideoClassification(config).save_pretrained(directory)
    VideoMAEImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(directory)
    return directory


# ----------------------------------------------------------------------------------- faces (ONNX)

FACE_CELLS = 4  # a drawn face is about four 32-pixel cells across


def yunet_like(path: Path) -> Path:
    """A network with YuNet's interface: input "input" (1, 3, H, W) BGR 0-255 with H, W multiples of
    32; for each stride s in 8, 16, 32 the outputs cls_s, obj_s (1, N, 1), bbox_s (1, N, 4) and kps_s
    (1, N, 10) over the N = (H/s)(W/s) cells. Only stride 32 ever fires: at the cell that is a local
    maximum of skin colour (red well above blue), with a box of FACE_CELLS cells around it."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def const(name, array):
        return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)

    nodes, inits = [], [
        const("skin_w", np.array([-1 / 255, 0, 1 / 255], np.float32).reshape(1, 3, 1, 1)),
        const("skin_b", [-0.2]),
        const("gain", [100.0]), const("level", [0.06]), const("sharp", [1e4]), const("one", [1.0]), const("zero", [0.0]),
        numpy_helper.from_array(np.array([1, -1, 1], np.int64), "flat_shape"),
    ]
    nodes += [
        helper.make_node("Conv", ["input", "skin_w", "skin_b"], ["redness"]),
        helper.make_node("Relu", ["redness"], ["skin"]),
    ]
    half = 0.5
    box = [half, half, math.log(FACE_CELLS), math.log(FACE_CELLS)]
    eye_dx, eye_dy, mouth_dx, mouth_dy = 0.6, 0.45, 0.45, 0.8
    kps = [half - eye_dx, half - eye_dy, half + eye_dx, half - eye_dy, half, half + 0.1, half - mouth_dx, half + mouth_dy, half + mouth_dx, half + mouth_dy]
    inits += [const("box", np.array(box, np.float32).reshape(1, 1, 4)), const("kps", np.array(kps, np.float32).reshape(1, 1, 10))]
    outputs = []
    for stride in (8, 16, 32):
        s = str(stride)
        nodes.append(helper.make_node("AveragePool", ["skin"], ["cell" + s], kernel_shape=[stride, stride], strides=[stride, stride]))
        if stride == 32:
            nodes += [
                helper.make_node("AveragePool", ["cell32"], ["near32"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
                helper.make_node("MaxPool", ["near32"], ["max32"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
                helper.make_node("Sub", ["max32", "near32"], ["gap32"]),
                helper.make_node("Mul", ["gap32", "sharp"], ["gap32x"]),
                helper.make_node("Sub", ["one", "gap32x"], ["peak32raw"]),
                helper.make_node("Relu", ["peak32raw"], ["peak32"]),  # 1 at local maxima, 0 elsewhere
                helper.make_node("Sub", ["near32", "level"], ["above32"]),
                helper.make_node("Mul", ["above32", "gain"], ["logit32"]),
                helper.make_node("Sigmoid", ["logit32"], ["prob32"]),
                helper.make_node("Mul", ["prob32", "peak32"], ["score32"]),
            ]
        else:
            nodes.append(helper.make_node("Mul", ["cell" + s, "zero"], ["score" + s]))
        nodes += [
            helper.make_node("Reshape", ["score" + s, "flat_shape"], ["cls_" + s]),
            helper.make_node("Identity", ["cls_" + s], ["obj_" + s]),
            helper.make_node("Mul", ["cls_" + s, "zero"], ["blank" + s]),
            helper.make_node("Add", ["blank" + s, "box"], ["bbox_" + s]),
            helper.make_node("Add", ["blank" + s, "kps"], ["kps_" + s]),
        ]
    for kind, width in (("cls", 1), ("obj", 1), ("bbox", 4), ("kps", 10)):
        for stride in (8, 16, 32):
            outputs.append(helper.make_tensor_value_info(f"{kind}_{stride}", TensorProto.FLOAT, [1, None, width]))
    graph = helper.make_graph(
        nodes, "yunet_like", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, None, None])], outputs, inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def sface_like(path: Path) -> Path:
    """A network with SFace's interface: an aligned 112x112 RGB face in, a feature row out. The
    feature is the colour of each 14-pixel cell of the face's middle, minus skin colour, so skin
    says nothing and the marks that tell the drawn people apart say everything."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    inits = [
        numpy_helper.from_array(np.array([0, 0, 28, 28], np.int64), "starts"),
        numpy_helper.from_array(np.array([1, 3, 84, 84], np.int64), "ends"),
        numpy_helper.from_array(np.array(SKIN_RGB, np.float32).reshape(1, 3, 1, 1), "skin"),
    ]
    nodes = [
        helper.make_node("Slice", ["data", "starts", "ends"], ["middle"]),
        helper.make_node("AveragePool", ["middle"], ["cells"], kernel_shape=[14, 14], strides=[14, 14]),
        helper.make_node("Sub", ["cells", "skin"], ["marks"]),
        helper.make_node("Flatten", ["marks"], ["feature"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "sface_like", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 112, 112])],
        [helper.make_tensor_value_info("feature", TensorProto.FLOAT, [1, 48])], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
