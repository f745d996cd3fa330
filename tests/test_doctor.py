"""``staragent doctor``: what can run here and why not, without loading or downloading anything."""

import json

from click.testing import CliRunner

from staragent.cli import main


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
        ("vad", "silero"), ("asr", "pocketsphinx"), ("ocr", "rapidocr"), ("acoustics", "statistics"), ("planner", "rules")
    }
    siglip = rows[("vision", "siglip")]
    assert not siglip["available"] and "hf download timm/ViT-SO400M-14-SigLIP-384" in siglip["detail"] and str(tmp_path / "hub") in siglip["detail"]
    assert "Systran/faster-whisper-large-v3" in rows[("asr_refine", "faster-whisper")]["detail"]
    assert "english_g2.pth" in rows[("ocr", "easyocr")]["detail"]
    assert "STARAGENT_PLANNER__BASE_URL" in rows[("planner", "openai")]["detail"]


def test_local_profile_with_every_model_present(tiny):
    overrides = tiny.settings_overrides()
    env = {"STARAGENT_PROFILE": "local", "STARAGENT_PLANNER__MODEL": overrides["planner"]["model"]}
    env.update({f"STARAGENT_MODELS__{k.upper()}": str(v) for k, v in overrides["models"].items() if k.endswith(("_model", "_dir"))})
    code, out = doctor("--json", env=env)
    report = json.loads(out)
    selected = {k: r for k, r in rows_of(out).items() if r["selected"]}
    assert code == 0 and report["ready"], [r["detail"] for r in selected.values() if not r["available"]]
    assert set(selected) >= {("asr", "faster-whisper"), ("ocr", "easyocr"), ("vision", "siglip"), ("vlm", "qwen2.5-vl"), ("planner", "transformers")}
    if not report["gpu"]["cuda"]:
        assert "runs on the CPU" in selected[("vlm", "qwen2.5-vl")]["detail"]


def test_local_profile_without_weights_is_not_ready(tmp_path):
    code, out = doctor(env={"STARAGENT_PROFILE": "local", "STARAGENT_MODELS__HF_CACHE": str(tmp_path)})
    assert code == 1
    assert "* NO  vision / siglip" in out and "Some backends this profile uses are not available" in out
