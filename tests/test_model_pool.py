"""The ModelPool: lazy shared loading, thread safety, memory reporting, the memory budget, and the
messages a user gets when a model is missing."""

import shutil
import threading
import time

import pytest

from staragent.config import load_settings
from staragent.errors import ModelUnavailable
from staragent.models.pool import ModelPool, ModelSpec
from staragent.models.specs import chosen_backend

MB = 2**20


class Weights:
    def __init__(self, name, size):
        self.name = name
        self.size = size

    def memory_bytes(self):
        return self.size


def fake_spec(name, size_mb, loads, delay=0.0):
    def loader(settings, device):
        loads.append(name)
        time.sleep(delay)
        return Weights(name, size_mb * MB)

    return ModelSpec(name, loader, size_hint=lambda settings: size_mb * MB)


def test_concurrent_first_calls_load_once_and_share_one_object(settings):
    loads = []
    pool = ModelPool(settings, specs={"slow": fake_spec("slow", 1, loads, delay=0.2)})
    got = []
    threads = [threading.Thread(target=lambda: got.append(pool.get("slow"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert loads == ["slow"] and len(got) == 8 and all(m is got[0] for m in got)
    [row] = pool.report()
    assert row["name"] == "slow" and row["device"] == "cpu" and row["weights_mb"] == 1.0


def test_memory_budget_unloads_the_least_recently_used(tmp_path):
    settings = load_settings(cache_dir=tmp_path, models={"memory_budget_gb": 1.0})
    loads = []
    pool = ModelPool(settings, specs={n: fake_spec(n, 400, loads) for n in "abc"})
    pool.get("a")
    pool.get("b")
    pool.get("a")  # b is now the least recently used
    pool.get("c")  # 3 x 400 MB does not fit in 1 GB
    assert sorted(m.name for m in pool.loaded()) == ["a", "c"]
    assert pool.memory_bytes() <= 1024 * MB
    pool.get("b")  # comes back on demand, pushing out the now-oldest
    assert sorted(m.name for m in pool.loaded()) == ["b", "c"] and loads == ["a", "b", "c", "b"]


def test_a_model_larger_than_the_budget_still_loads_alone(tmp_path):
    settings = load_settings(cache_dir=tmp_path, models={"memory_budget_gb": 0.5})
    pool = ModelPool(settings, specs={"small": fake_spec("small", 100, []), "huge": fake_spec("huge", 2048, [])})
    pool.get("small")
    assert pool.get("huge").size == 2048 * MB
    assert [m.name for m in pool.loaded()] == ["huge"]


def test_unload_and_register(settings):
    loads = []
    pool = ModelPool(settings, specs={"a": fake_spec("a", 1, loads)})
    first = pool.get("a")
    pool.unload("a")
    assert pool.loaded() == [] and pool.get("a") is not first
    pool.register(fake_spec("a", 2, loads))  # a new spec replaces the loaded model too
    assert pool.get("a").size == 2 * MB and loads == ["a", "a", "a"]
    pool.unload()
    assert pool.loaded() == []


def test_missing_weights_name_the_model_where_we_looked_and_how_to_get_it(tmp_path):
    cache = tmp_path / "hub"
    settings = load_settings(cache_dir=tmp_path, profile="local", models={"hf_cache": str(cache), "vision_model": "acme/siglip-missing"})
    with pytest.raises(ModelUnavailable) as err:
        ModelPool(settings).get("vision")
    message = str(err.value)
    assert "acme/siglip-missing" in message and str(cache) in message
    assert "hf download acme/siglip-missing" in message and "STARAGENT_MODELS__VISION_MODEL" in message


def test_a_missing_local_folder_is_named(tmp_path):
    settings = load_settings(cache_dir=tmp_path, profile="local", planner={"model": str(tmp_path / "no-such-model")})
    with pytest.raises(ModelUnavailable, match="no-such-model.*not a folder"):
        ModelPool(settings).get("chat")


def test_a_half_downloaded_folder_says_what_is_missing(tmp_path):
    folder = tmp_path / "partial"
    folder.mkdir()
    settings = load_settings(cache_dir=tmp_path, profile="local", models={"asr_model": str(folder)})
    with pytest.raises(ModelUnavailable, match="lacks model.bin, tokenizer.json"):
        ModelPool(settings).get("asr")


@pytest.mark.parametrize(("role", "model", "setting", "broken", "what"), [
    ("chat", "qwen3", "planner", "tokenizer.json", "chat model's tokenizer"),
    ("vlm", "qwen_vl", "vlm_model", "processor_config.json", "video refiner's processor"),
    ("audio_lm", "audio_flamingo", "audio_lm_model", "config.json", "audio-language model's config"),
    ("audio_tagger", "ast", "audio_tagger_model", "preprocessor_config.json", "audio tagger's feature extractor"),
])
def test_a_damaged_file_beside_the_weights_is_named_not_a_crash(tiny, tmp_path, role, model, setting, broken, what):
    folder = tmp_path / "damaged"
    shutil.copytree(getattr(tiny, model), folder)
    (folder / broken).write_text('{"cut off": ')
    choice = {"planner": {"model": str(folder)}} if setting == "planner" else {"models": {setting: str(folder)}}
    settings = load_settings(cache_dir=tmp_path, profile="local", **choice)
    with pytest.raises(ModelUnavailable, match=f"cannot load the {what} from {folder}"):
        ModelPool(settings).get(role)


def test_roles_the_profile_does_not_use_say_how_to_turn_them_on(settings):
    for role in ("vision", "vlm", "audio_tagger", "audio_lm", "asr_refine"):
        with pytest.raises(ModelUnavailable, match="--profile local"):
            ModelPool(settings).get(role)


def test_asking_for_cuda_without_one_is_an_error(tmp_path):
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    settings = load_settings(cache_dir=tmp_path, models={"device": "cuda"})
    with pytest.raises(ModelUnavailable, match="CUDA is not available"):
        ModelPool(settings, specs={"a": ModelSpec("a", lambda s, d: Weights("a", 1), wants_gpu=True)}).get("a")


def test_profiles_pick_backends_and_settings_override_them(tmp_path):
    offline = load_settings(cache_dir=tmp_path)
    local = load_settings(cache_dir=tmp_path, profile="local")
    mixed = load_settings(cache_dir=tmp_path, profile="local", models={"ocr": "rapidocr", "vlm": "none"})
    roles = ("asr", "asr_refine", "ocr", "vision", "vlm", "audio_tagger", "audio_lm")
    assert [chosen_backend(offline, r) for r in roles] == ["pocketsphinx", "none", "rapidocr", "none", "none", "none", "none"]
    assert [chosen_backend(local, r) for r in roles] == ["faster-whisper", "faster-whisper", "easyocr", "siglip", "qwen2.5-vl", "transformers", "transformers"]
    assert chosen_backend(mixed, "ocr") == "rapidocr" and chosen_backend(mixed, "vlm") == "none" and chosen_backend(mixed, "vision") == "siglip"
    assert (offline.planner_backend, local.planner_backend, load_settings(profile="openai").planner_backend) == ("rules", "transformers", "openai")


def fake_gpu(monkeypatch):
    """Pretend this machine has one CUDA device (the loaders here never touch it)."""
    from staragent.models import pool as pool_module
    from staragent.models import torch_runtime

    monkeypatch.setattr(pool_module, "cuda_available", lambda: True)
    monkeypatch.setattr(torch_runtime, "cuda_allocated", lambda device: 0)


def gpu_spec(name, size_mb, loads):
    spec = fake_spec(name, size_mb, loads)
    return ModelSpec(name, spec.loader, wants_gpu=True, size_hint=spec.size_hint)


def test_the_budget_holds_per_device(tmp_path, monkeypatch):
    fake_gpu(monkeypatch)
    settings = load_settings(cache_dir=tmp_path, models={"memory_budget_gb": 1.0})
    loads = []
    pool = ModelPool(settings, specs={"host": fake_spec("host", 600, loads), **{n: gpu_spec(n, 400, loads) for n in ("g1", "g2", "g3")}})
    for name in ("host", "g1", "g2"):
        pool.get(name)
    # 1.4 GB in all, but 0.6 on the host and 0.8 on the GPU: each fits its own budget
    assert sorted(m.name for m in pool.loaded()) == ["g1", "g2", "host"]
    assert {m.name: m.device for m in pool.loaded()} == {"host": "cpu", "g1": "cuda", "g2": "cuda"}
    assert pool.memory_bytes("cuda:0") == 800 * MB and pool.memory_bytes("cpu") == 600 * MB
    pool.get("g3")  # the GPU is full: its least recently used model goes, the host's stays
    assert sorted(m.name for m in pool.loaded()) == ["g2", "g3", "host"]


def test_loads_onto_one_device_take_turns(settings):
    running, most = [], []
    guard = threading.Lock()

    def loader(settings, device):
        with guard:
            running.append(1)
            most.append(len(running))
        time.sleep(0.05)
        with guard:
            running.pop()
        return Weights("m", MB)

    pool = ModelPool(settings, specs={n: ModelSpec(n, loader) for n in "abcd"})
    threads = [threading.Thread(target=pool.get, args=(n,)) for n in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(pool.loaded()) == 4 and max(most) == 1


def test_size_hints_come_from_the_weight_files_each_backend_loads(tiny, tmp_path):
    import shutil

    from staragent.models.specs import role_spec

    overrides = tiny.settings_overrides()
    easyocr = shutil.copytree(tiny.easyocr, tmp_path / "easyocr")
    (easyocr / "latin_g2.pth").write_bytes(b"0" * 1000)  # another language's file is not counted
    overrides["models"]["easyocr_dir"] = str(easyocr)
    settings = load_settings(cache_dir=tmp_path, **overrides)
    assert role_spec("asr").size_hint(settings) == (tiny.whisper / "model.bin").stat().st_size
    easyocr_files = [easyocr / "craft_mlt_25k.pth", easyocr / "english_g2.pth"]
    assert role_spec("ocr").size_hint(settings) == sum(f.stat().st_size for f in easyocr_files)
    assert role_spec("vision").size_hint(settings) == (tiny.siglip / "open_clip_model.safetensors").stat().st_size
    offline = load_settings(cache_dir=tmp_path)
    assert role_spec("asr").size_hint(offline) == 0  # pocketsphinx: bundled, nothing to count


def test_settings_come_from_the_toml_file_named_by_staragent_config(tmp_path, monkeypatch):
    config = tmp_path / "staragent.toml"
    config.write_text(
        'profile = "local"\nmax_steps = 9\n\n[models]\nocr = "rapidocr"\nmemory_budget_gb = 20.5\nocr_languages = ["en", "fr"]\n\n'
        '[planner]\nmodel = "/models/qwen3"\n'
    )
    monkeypatch.setenv("STARAGENT_CONFIG", str(config))
    settings = load_settings()
    assert (settings.profile, settings.max_steps, settings.planner.model) == ("local", 9, "/models/qwen3")
    assert settings.models.memory_budget_gb == 20.5 and settings.models.ocr_languages == ["en", "fr"]
    assert chosen_backend(settings, "ocr") == "rapidocr" and chosen_backend(settings, "vision") == "siglip"  # the file's choice, then the profile's
    monkeypatch.setenv("STARAGENT_MAX_STEPS", "3")  # the environment wins over the file
    assert load_settings().max_steps == 3 and load_settings(max_steps=4).max_steps == 4


def test_an_agent_reports_and_unloads_the_models_it_loaded(tmp_path):
    from staragent.agent.runner import VideoAgent

    settings = load_settings(cache_dir=tmp_path)
    with VideoAgent(settings) as agent:
        agent.pool.get("vad")
        [row] = agent.loaded_models()
        assert row["name"] == "vad" and row["device"] == "cpu"
        pool = agent.pool
    assert pool.loaded() == []  # closing the agent unloaded them
    shared = ModelPool(settings)
    shared.get("vad")
    with VideoAgent(settings) as agent:
        agent._pool = shared  # a pool someone else owns
        assert [r["name"] for r in agent.loaded_models()] == ["vad"]
    assert [m.name for m in shared.loaded()] == ["vad"]
