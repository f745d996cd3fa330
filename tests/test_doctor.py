"""``staragent doctor``: what can run here and why not, without loading or downloading anything."""

import json

import pytest
from click.testing import CliRunner

from staragent.cli import main
from staragent.models.specs import ROLES


def doctor(*args, env=None):
    result = CliRunner().invoke(main, ["doctor", *args], env=env, catch_exceptions=False)
    return result.exit_code, result.output


def rows_of(output):
    return {(r["role"], r["backend"]): r for r in json.loads(output)["backends"]}


def test_offline_is_ready_and_names_what_the_local_profile_would_need(tmp_path):
    code, out = doctor("--json", env={"STARAGENT_MODELS__HF_CACHE": str(tmp_path / "hub"), "STARAGENT_MODELS__EASYOCR_DIR": str(tmp_path / "ocr")})
    assert code == 0 and json.loads(out)["ready"]
    rows = rows_of(out)
    assert all(r["available"] for r in rows.values() if r["selected"])
    assert {k for k, r in rows.items() if r["selected"]} == {
        ("vad", "silero"), ("asr", "faster-whisper"), ("ocr", "rapidocr"), ("audio_tagger", "yamnet"), ("text_embedder", "e5"),
        ("picture_labels", "efficientnet-lite"), ("acoustics", "statistics"), ("planner", "rules"),
    }
    assert rows[("asr", "faster-whisper")]["model"] == "base" and "model pack whisper-base" in rows[("asr", "faster-whisper")]["detail"]
    packs = {p["pack"]: p for p in json.loads(out)["packs"]}
    assert packs["whisper-base"]["serves"] == ["asr / faster-whisper (in use)"] and packs["yamnet"]["serves"] == ["audio_tagger / yamnet (in use)"]
    assert packs["whisper-tiny.en"]["serves"] == ["asr / faster-whisper with models.asr_model = tiny.en"]
    assert packs["efficientnet-lite0"]["serves"] == ["picture_labels / efficientnet-lite (in use)"] and "Apache-2.0" in packs["efficientnet-lite0"]["licence"]
    chat = {"qwen2.5-coder-1.5b-instruct": "llm", "qwen2.5-coder-0.5b-instruct": "llm-small"}  # extras, not the default install
    assert all(p["installed"] and p["problem"] is None and p["size_mb"] > 10 and p["licence"] for name, p in packs.items() if name not in chat)
    for name, extra in chat.items():  # installed, or named with the extra that installs it
        assert packs[name]["installed"] or packs[name]["fix"] == f"pip install 'staragent[{extra}]'"
        assert "staragent llm serve" in packs[name]["serves"][0]
    assert "states no licence" in packs["yamnet"]["licence"] and "Apache-2.0" in packs["yamnet"]["licence"]
    siglip = rows[("vision", "siglip")]
    assert not siglip["available"] and "hf download timm/ViT-SO400M-14-SigLIP-384" in siglip["detail"] and str(tmp_path / "hub") in siglip["detail"]
    assert "Systran/faster-whisper-large-v3" in rows[("asr_refine", "faster-whisper")]["detail"]
    assert "english_g2.pth" in rows[("ocr", "easyocr")]["detail"]
    assert "STARAGENT_PLANNER__BASE_URL" in rows[("planner", "openai")]["detail"]
    assert not rows[("chat", "transformers")]["selected"]  # the rule planner needs no chat model


def test_local_profile_with_every_model_present(tiny):
    overrides = tiny.settings_overrides()
    env = {"STARAGENT_PROFILE": "local", "STARAGENT_PLANNER__MODEL": overrides["planner"]["model"]}
    env.update({f"STARAGENT_MODELS__{k.upper()}": str(v) for k, v in overrides["models"].items() if k.endswith(("_model", "_dir"))})
    code, out = doctor("--json", env=env)
    report = json.loads(out)
    selected = {k: r for k, r in rows_of(out).items() if r["selected"]}
    assert code == 0 and report["ready"], [r["detail"] for r in selected.values() if not r["available"]]
    assert set(selected) >= {("asr", "faster-whisper"), ("ocr", "easyocr"), ("vision", "siglip"), ("vlm", "qwen2.5-vl"), ("chat", "transformers")}
    if not report["gpu"]["cuda"]:
        assert "runs on the CPU" in selected[("vlm", "qwen2.5-vl")]["detail"]


def test_local_profile_without_weights_is_not_ready(tmp_path):
    code, out = doctor(env={"STARAGENT_PROFILE": "local", "STARAGENT_MODELS__HF_CACHE": str(tmp_path)})
    assert code == 1
    assert "* NO  vision / siglip" in out and "Some backends this profile needs are not available" in out


def test_every_expert_role_is_listed_and_tool_experts_are_optional(tmp_path):
    code, out = doctor("--json", env={"STARAGENT_PROFILE": "local", "STARAGENT_MODELS__HF_CACHE": str(tmp_path)})
    rows = rows_of(out)
    shown = {role for role, _ in rows}
    assert set(ROLES) <= shown and "planner" in shown
    detector = rows[("detector", "transformers")]
    assert detector["selected"] and detector["optional"] and not detector["available"]
    assert "google/owlv2-base-patch16-ensemble" in detector["detail"] and "hf download" in detector["detail"]
    assert not rows[("faces", "opencv")]["selected"] and "toolset.faces.detector" in rows[("faces", "opencv")]["detail"]
    assert not rows[("activity", "transformers")]["selected"]


def test_cuda_asked_for_without_a_gpu_is_not_ready():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    code, out = doctor("--json", env={"STARAGENT_MODELS__DEVICE": "cuda"})
    report = json.loads(out)
    assert code == 1 and not report["ready"] and not report["device"]["ok"]
    assert "CUDA is not available" in report["device"]["detail"]
    rows = rows_of(out)
    # models that can use a GPU cannot run where CUDA was asked for; CPU-only bundled ones still can
    assert not rows[("asr", "faster-whisper")]["available"] and "CUDA is not available" in rows[("asr", "faster-whisper")]["detail"]
    assert rows[("asr", "pocketsphinx")]["available"] and rows[("ocr", "rapidocr")]["available"]


def test_doctor_says_which_faiss_is_installed():
    code, out = doctor("--json")
    faiss = json.loads(out)["faiss"]
    assert faiss["packages"] and faiss["gpu"] in (True, False)
    assert ("GPU build" in faiss["detail"]) or ("CPU build" in faiss["detail"] and "pip install faiss-gpu" in faiss["detail"])
