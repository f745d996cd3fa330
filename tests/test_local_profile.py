"""The ``local`` profile end to end with tiny random-weight experts: indexing with every stronger
backend (recorded in the manifest), invalidation of only the stages a backend feeds, visual search
through SigLIP, and ``VideoAgent.ask`` planned by the local transformers chat model."""

import json
import shutil

import pytest
from tiny_models import patch_easyocr_checksums

from staragent.agent.runner import VideoAgent
from staragent.config import load_settings
from staragent.index.builder import build_index
from staragent.models.pool import ModelPool


def local_settings(tiny, cache, **index):
    settings = load_settings(cache_dir=cache, progress=False, **tiny.settings_overrides())
    # ASR instead of the sidecar subtitles; captions on; frames read at their own size (fast OCR)
    settings.index = settings.index.model_copy(update={"subtitles": False, "captions": True, "ocr_min_height": 0, **index})
    return settings


@pytest.fixture(scope="module")
def easyocr_patched(tiny):
    with pytest.MonkeyPatch.context() as mp:
        patch_easyocr_checksums(mp, tiny.easyocr_md5)
        yield


@pytest.fixture(scope="module")
def local_build(tiny, foreign, easyocr_patched, tmp_path_factory):
    cache = tmp_path_factory.mktemp("local-cache")
    settings = local_settings(tiny, cache)
    pool = ModelPool(settings)
    reports = []
    index = build_index(foreign.path, settings, pool, report=reports.append)
    return index, settings, pool, cache


def test_the_manifest_records_which_experts_built_the_index(local_build, tiny):
    index, settings, _, _ = local_build
    models = index.manifest.models
    assert models == {
        "asr": f"faster-whisper:{tiny.whisper}",
        "ocr": "easyocr:en",
        "vision": f"siglip:{tiny.siglip}",
        "audio_tagger": f"transformers:{tiny.ast}",
        "vlm": f"qwen2.5-vl:{tiny.qwen_vl}",
        "text_embedder": "e5:multilingual-e5-small",
    }
    assert index.manifest.profile == "local"
    assert index.stage_info("speech")["source"] == f"faster-whisper:{tiny.whisper}"
    assert index.manifest.stages["speech"].params["model"] == str(tiny.whisper)


def test_segments_carry_tags_and_captions_and_keyframes_are_embedded(local_build):
    index, _, _, _ = local_build
    assert index.speech and all(line.source.startswith("faster-whisper:") for line in index.speech)
    assert all(seg.audio.tags for seg in index.segments if seg.end - seg.start >= 1.0)  # threshold 0: every window is tagged
    captioned = [seg for seg in index.segments if seg.caption]
    assert captioned and all(seg.caption.startswith("[") for seg in captioned)
    store = index.vectors("visual")
    assert store is not None and len(store) == len(index.keyframes) and store.dim == 32
    assert store.meta["model"] and "visual" in index.vector_modalities() and {"speech", "audio", "caption"} <= set(index.vector_modalities())
    captions = [json.loads(line) for line in (index.dir / "captions.jsonl").read_text().splitlines()]
    assert captions[0]["start"] == 0.0 and captions[-1]["end"] == pytest.approx(index.duration, abs=0.5)


def test_a_changed_backend_reruns_only_the_stages_it_feeds(local_build, tiny, foreign, tmp_path):
    _, _, pool, cache = local_build
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)

    def rebuild(settings):
        reports = []
        build_index(foreign.path, settings, pool if settings.models == pool.settings.models else None, report=reports.append)
        return {line.split()[0] for line in reports if not line.startswith(("index of", "indexed", "indexing"))}

    assert rebuild(local_settings(tiny, copy)) == set()
    other_siglip = tmp_path / "siglip-copy"
    shutil.copytree(tiny.siglip, other_siglip)
    settings = local_settings(tiny, copy)
    settings.models = settings.models.model_copy(update={"vision_model": str(other_siglip)})
    assert rebuild(settings) == {"vectors"}
    settings.models = settings.models.model_copy(update={"audio_tag_threshold": 0.9})
    joins = {"segments", "lexical", "text_vectors"}
    assert rebuild(settings) == {"audio_tags", *joins}
    settings.index = settings.index.model_copy(update={"captions": False})
    assert rebuild(settings) == {"captions", *joins}
    settings.models = settings.models.model_copy(update={"asr": "pocketsphinx"})
    rebuilt = rebuild(settings)
    assert rebuilt == {"speech", *joins}
    manifest = json.loads(next((copy / "index").glob("*/manifest.json")).read_text())
    assert manifest["models"]["asr"] == "pocketsphinx:en-us" and "vlm" not in manifest["models"]  # no captions now
    assert manifest["models"]["vision"] == f"siglip:{other_siglip}"


def test_visual_search_uses_the_siglip_text_tower(local_build, foreign):
    index, settings, pool, _ = local_build
    with VideoAgent(settings, chat_model=object()) as agent:
        agent._pool = pool
        session = agent.session(foreign.path)
        assert "visual" in session.tool_ctx.extras["query_encoders"]
        assert "pictures can be searched by description" in session.capabilities()
        found = agent.search(foreign.path, "a blue slide with a moving box", ["visual"], k=3)
    assert found.searched == ["visual"] and found.hits and all("visual" in hit.ranks for hit in found.hits)


def test_an_index_embedded_by_another_model_is_not_searched_visually(local_build, foreign, tmp_path):
    from staragent.agent.session import query_encoders

    index, settings, pool, _ = local_build
    offline = load_settings(cache_dir=tmp_path)
    assert "visual" not in query_encoders(index, offline, pool)
    assert "speech" in query_encoders(index, offline, pool)  # the text was embedded by the e5 both profiles use
    other = settings.model_copy(update={"models": settings.models.model_copy(update={"vision_model": "acme/other-siglip"})})
    assert "visual" not in query_encoders(index, other, pool)
    without_e5 = settings.model_copy(update={"models": settings.models.model_copy(update={"text_embedder": "none"})})
    assert set(query_encoders(index, without_e5, pool)) == {"visual"}


def test_ask_runs_with_the_local_transformers_planner(local_build, foreign):
    from staragent.agent.planners.transformers import TransformersChatModel

    _, settings, pool, _ = local_build
    with VideoAgent(settings) as agent:
        agent._pool = pool
        session = agent.session(foreign.path)
        assert isinstance(session.chat_model, TransformersChatModel) and session.chat_model.engine is pool.get("chat")
        answer = agent.ask(foreign.path, "What is the price of the coffee grinder?")
    assert answer.profile == "local" and isinstance(answer.answer, str) and answer.answer
    assert answer.tokens.input > 500 and answer.tokens.output > 0  # the prompt carries the tools' schemas


def test_recorded_tool_calls_drive_the_graph_through_the_chat_template(local_build, foreign, monkeypatch):
    """The model's output is replaced by recorded replies (a search call, then an answer); the
    prompt, the tool round trip through the chat template, parsing and the graph are all real."""
    _, settings, pool, _ = local_build
    engine = pool.get("chat")
    replies = iter([
        '<think>Search first.</think>\n<tool_call>\n{"name": "cross_modal_search", "arguments": {"query": "coffee grinder price", "k": 3},}\n</tool_call>',
        "The slide says the grinder costs $129.50 (0:00-0:10).",
    ])
    prompts = []

    def generate(input_ids, attention_mask=None, **kwargs):
        import torch

        prompts.append(engine.tokenizer.decode(input_ids[0]))
        reply = engine.tokenizer(next(replies) + "<|im_end|>", add_special_tokens=False, return_tensors="pt")["input_ids"]
        return torch.cat([input_ids, reply], dim=1)

    monkeypatch.setattr(engine.model, "generate", generate)
    with VideoAgent(settings) as agent:
        agent._pool = pool
        answer = agent.ask(foreign.path, "What does the coffee grinder cost?")
    assert [s.tool for s in answer.trajectory] == ["cross_modal_search"] and answer.trajectory[0].ok
    assert answer.trajectory[0].args == {"query": "coffee grinder price", "k": 3}
    assert answer.answer == "The slide says the grinder costs $129.50 (0:00-0:10)."
    assert '"name": "cross_modal_search"' in prompts[0] and "<tools>" in prompts[0]
    assert "<tool_response>" in prompts[1] and "129.50" in prompts[1]  # the search result went back to the model


def test_an_offline_index_records_its_bundled_backends(foreign_index):
    # speech came from the sidecar subtitles, so no recogniser is named
    assert foreign_index.manifest.models == {
        "ocr": "rapidocr:pp-ocr", "audio_tagger": "yamnet:yamnet", "text_embedder": "e5:multilingual-e5-small",
        "picture_labels": "efficientnet-lite:efficientnet-lite0",
    }
    assert "visual" not in foreign_index.vector_modalities() and {"speech", "ocr"} <= set(foreign_index.vector_modalities())
    assert foreign_index.stage_info("audio_tags")["backend"] == "yamnet"


def test_tools_run_searches_pictures_like_the_agent(local_build, foreign, tiny):
    from click.testing import CliRunner

    from staragent.cli import main

    _, settings, _, cache = local_build
    env = {f"STARAGENT_{part.upper()}": json.dumps(getattr(settings, part).model_dump(mode="json")) for part in ("models", "planner", "index")}
    env["STARAGENT_PROFILE"] = "local"
    query = json.dumps({"query": "a blue slide with a moving box", "modalities": ["visual"], "k": 3})
    ran = CliRunner().invoke(main, ["--quiet", "--cache-dir", str(cache), "tools", "run", "cross_modal_search", "--args", query, "--video", str(foreign.path), "--json"], env=env)
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    assert "visual" not in found["not_searched"] and found["results"] and all("visual" in hit["matched"] for hit in found["results"])


def test_a_missing_expert_falls_back_to_the_offline_backend_until_its_weights_arrive(local_build, tiny, foreign, tmp_path):
    _, _, _, cache = local_build
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    settings = local_settings(tiny, copy)
    arriving = tmp_path / "whisper-arriving"
    settings.models = settings.models.model_copy(update={"asr_model": str(arriving)})
    reports = []
    index = build_index(foreign.path, settings, report=reports.append)  # does not fail
    fallback = index.stage_info("speech")["fallback"]
    # the next best: the bundled whisper base, not pocketsphinx
    assert (fallback["wanted"], fallback["used"]) == ("faster-whisper", "faster-whisper:base") and "whisper-arriving" in fallback["reason"]
    params = index.manifest.stages["speech"].params
    assert index.manifest.models["asr"] == "faster-whisper:base" and (params["backend"], params["model"]) == ("faster-whisper", "base")
    assert any(line.startswith("speech") and "fallback" in line for line in reports)
    assert index.manifest.models["vision"] == f"siglip:{tiny.siglip}"  # the other experts ran as usual

    shutil.copytree(tiny.whisper, arriving)
    reports = []
    index = build_index(foreign.path, settings, report=reports.append)
    assert {line.split()[0] for line in reports if not line.startswith(("index of", "indexed", "indexing"))} == {"speech", "segments", "lexical", "text_vectors"}
    assert "fallback" not in index.stage_info("speech") and index.manifest.models["asr"] == f"faster-whisper:{arriving}"


def test_index_says_when_an_expert_was_replaced(foreign, foreign_index, session_cache, tmp_path):
    from click.testing import CliRunner

    from staragent.cli import main

    copy = tmp_path / "cache"
    shutil.copytree(session_cache, copy, ignore=shutil.ignore_patterns("*.lock"))
    env = {"STARAGENT_MODELS__ASR": "faster-whisper", "STARAGENT_MODELS__ASR_MODEL": str(tmp_path / "no-whisper")}
    result = CliRunner().invoke(main, ["--cache-dir", str(copy), "--quiet", "index", str(foreign.path), "--no-subtitles"], env=env)
    assert result.exit_code == 0, result.output
    assert "note: speech used faster-whisper:base instead of faster-whisper" in result.output and "no-whisper" in result.output


def test_captions_asked_for_in_a_profile_without_a_video_refiner_are_noted(foreign, foreign_index, session_cache, tmp_path):
    from click.testing import CliRunner

    from staragent.cli import main

    copy = tmp_path / "cache"
    shutil.copytree(session_cache, copy, ignore=shutil.ignore_patterns("*.lock"))
    result = CliRunner().invoke(main, ["--cache-dir", str(copy), "--quiet", "index", str(foreign.path)], env={"STARAGENT_INDEX__CAPTIONS": "true"})
    assert result.exit_code == 0, result.output
    assert "note: captions used none instead of qwen2.5-vl: no vlm model in the 'offline' profile" in result.output
    stages = [json.loads(path.read_text())["stages"] for path in (copy / "index").glob("*/manifest.json")]
    [fallback] = [found for stage in stages if (found := stage.get("captions", {}).get("info", {}).get("fallback"))]
    assert (fallback["wanted"], fallback["used"]) == ("qwen2.5-vl", "none")


def test_new_weights_under_the_same_id_rerun_the_stage_they_feed(local_build, tiny, foreign, tmp_path):
    _, _, _, cache = local_build
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    siglip = tmp_path / "siglip"
    shutil.copytree(tiny.siglip, siglip)
    settings = local_settings(tiny, copy)
    settings.models = settings.models.model_copy(update={"vision_model": str(siglip)})

    def rebuilt():
        reports = []
        build_index(foreign.path, settings, report=reports.append)
        return {line.split()[0] for line in reports if not line.startswith(("index of", "indexed", "indexing"))}

    assert rebuilt() == {"vectors"}  # another folder
    assert rebuilt() == set()
    from safetensors.torch import load_file, save_file

    weights = siglip / "open_clip_model.safetensors"
    tensors = load_file(str(weights))
    save_file({name: t * 1.01 for name, t in tensors.items()}, str(weights))  # retrained: same id, same size
    assert rebuilt() == {"vectors"}


def test_ocr_languages_matter_only_to_easyocr(foreign, foreign_index, session_cache, tmp_path):
    copy = tmp_path / "cache"
    shutil.copytree(session_cache, copy, ignore=shutil.ignore_patterns("*.lock"))
    reports = []
    build_index(foreign.path, load_settings(cache_dir=copy, progress=False, models={"ocr_languages": ["fr", "de"]}), report=reports.append)
    assert reports and reports[0].startswith("index of") and "up to date" in reports[0]


def test_a_hub_snapshot_is_the_weights_revision(tiny, tmp_path):
    from staragent.models.specs import revision

    snapshot = tmp_path / "hub" / "models--acme--siglip" / "snapshots" / "0123abcd"
    shutil.copytree(tiny.siglip, snapshot)
    (tmp_path / "hub" / "models--acme--siglip" / "refs").mkdir()
    (tmp_path / "hub" / "models--acme--siglip" / "refs" / "main").write_text("0123abcd")
    settings = load_settings(cache_dir=tmp_path, profile="local", models={"hf_cache": str(tmp_path / "hub"), "vision_model": "acme/siglip"})
    assert revision(settings, "vision") == "0123abcd"
    assert revision(settings, "ocr", "rapidocr") is None  # bundled: nothing to fingerprint


def test_transcribe_speech_listens_again_with_the_refinement_recogniser(local_build, registry, tiny, tmp_path):
    from staragent.tools import ToolContext

    index, settings, _, _ = local_build
    large = tmp_path / "whisper-large"  # a second copy, so that its name tells the two passes apart
    shutil.copytree(tiny.whisper, large)
    settings = settings.model_copy(update={"models": settings.models.model_copy(update={"asr_refine_model": str(large)})})
    ctx = ToolContext(settings=settings, models=ModelPool(settings), index=index)
    ctx.models.get("asr_refine").options.update(max_new_tokens=12)  # random weights babble; keep it short
    done = registry.get("transcribe_speech")(ctx, {"timestamp": "0:10-0:15"})
    assert index.stage_info("speech")["source"] == f"faster-whisper:{tiny.whisper}"
    assert done.source == f"faster-whisper:{large}" and done.lines
    assert all(10.0 <= line.start <= line.end <= 15.0 for line in done.lines)


def test_without_siglip_weights_the_coarse_picture_labels_stand_in(local_build, tiny, foreign, tmp_path):
    index, _, _, cache = local_build
    assert index.stage_info("pictures")["backend"] == "none" and not index.pictures  # SigLIP looks at the pictures here
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    settings = local_settings(tiny, copy)
    settings.models = settings.models.model_copy(update={"vision_model": str(tmp_path / "siglip-missing")})
    index = build_index(foreign.path, settings)
    assert index.stage_info("vectors") == {"stores": []} or index.vectors("visual") is None
    assert index.manifest.models["picture_labels"] == "efficientnet-lite:efficientnet-lite0"
    assert index.stage_info("pictures")["pictures"] == len({k.file for k in index.keyframes})
