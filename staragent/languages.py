"""Language names and codes: what people and planners write ("French", "fr", "fra", "fr-FR") read
into one ISO 639-1 code, and that code written the way each family of translation models wants it
(NLLB ``fra_Latn``, M2M100 ``__fr__``, mBART-50 ``fr_XX``)."""

from __future__ import annotations

from .errors import InputError
from .limits import quoted

# ISO 639-1 -> (English name, NLLB-200 code, mBART-50 code or "")
LANGUAGES: dict[str, tuple[str, str, str]] = {
    "ar": ("Arabic", "arb_Arab", "ar_AR"),
    "bg": ("Bulgarian", "bul_Cyrl", ""),
    "bn": ("Bengali", "ben_Beng", "bn_IN"),
    "ca": ("Catalan", "cat_Latn", ""),
    "cs": ("Czech", "ces_Latn", "cs_CZ"),
    "da": ("Danish", "dan_Latn", ""),
    "de": ("German", "deu_Latn", "de_DE"),
    "el": ("Greek", "ell_Grek", ""),
    "en": ("English", "eng_Latn", "en_XX"),
    "es": ("Spanish", "spa_Latn", "es_XX"),
    "et": ("Estonian", "est_Latn", "et_EE"),
    "fa": ("Persian", "pes_Arab", "fa_IR"),
    "fi": ("Finnish", "fin_Latn", "fi_FI"),
    "fr": ("French", "fra_Latn", "fr_XX"),
    "he": ("Hebrew", "heb_Hebr", "he_IL"),
    "hi": ("Hindi", "hin_Deva", "hi_IN"),
    "hr": ("Croatian", "hrv_Latn", "hr_HR"),
    "hu": ("Hungarian", "hun_Latn", ""),
    "id": ("Indonesian", "ind_Latn", "id_ID"),
    "it": ("Italian", "ita_Latn", "it_IT"),
    "ja": ("Japanese", "jpn_Jpan", "ja_XX"),
    "ko": ("Korean", "kor_Hang", "ko_KR"),
    "lt": ("Lithuanian", "lit_Latn", "lt_LT"),
    "lv": ("Latvian", "lvs_Latn", "lv_LV"),
    "ms": ("Malay", "zsm_Latn", ""),
    "nl": ("Dutch", "nld_Latn", "nl_XX"),
    "no": ("Norwegian", "nob_Latn", ""),
    "pl": ("Polish", "pol_Latn", "pl_PL"),
    "pt": ("Portuguese", "por_Latn", "pt_XX"),
    "ro": ("Romanian", "ron_Latn", "ro_RO"),
    "ru": ("Russian", "rus_Cyrl", "ru_RU"),
    "sk": ("Slovak", "slk_Latn", ""),
    "sl": ("Slovenian", "slv_Latn", "sl_SI"),
    "sr": ("Serbian", "srp_Cyrl", ""),
    "sv": ("Swedish", "swe_Latn", "sv_SE"),
    "sw": ("Swahili", "swh_Latn", "sw_KE"),
    "ta": ("Tamil", "tam_Taml", "ta_IN"),
    "th": ("Thai", "tha_Thai", "th_TH"),
    "tl": ("Tagalog", "tgl_Latn", "tl_XX"),
    "tr": ("Turkish", "tur_Latn", "tr_TR"),
    "uk": ("Ukrainian", "ukr_Cyrl", "uk_UA"),
    "ur": ("Urdu", "urd_Arab", "ur_PK"),
    "vi": ("Vietnamese", "vie_Latn", "vi_VN"),
    "zh": ("Chinese", "zho_Hans", "zh_CN"),
}
_ALIASES = {
    "chinese (simplified)": "zh", "mandarin": "zh", "farsi": "fa", "bahasa": "id", "filipino": "tl",
    "castilian": "es", "flemish": "nl", "norwegian bokmal": "no", "nb": "no", "iw": "he",
}
_BY_NAME = {name.lower(): code for code, (name, _, _) in LANGUAGES.items()}
_BY_NLLB = {nllb.lower(): code for code, (_, nllb, _) in LANGUAGES.items()}
_BY_THREE = {nllb.split("_")[0]: code for code, (_, nllb, _) in LANGUAGES.items()} | {
    "fre": "fr", "ger": "de", "dut": "nl", "chi": "zh", "cze": "cs", "gre": "el", "per": "fa", "rum": "ro", "slo": "sk",
    "zho": "zh", "ara": "ar", "fas": "fa", "msa": "ms", "nor": "no", "srp": "sr", "swa": "sw", "lav": "lv",
}


def parse_language(text: str | None, *, allow_auto: bool = False) -> str | None:
    """``"French"``, ``"fr"``, ``"fra"``, ``"fr-FR"``, ``"fra_Latn"`` -> ``"fr"``. ``"auto"`` (or
    nothing) -> None when ``allow_auto``. Anything else is an ``InputError`` that lists examples."""
    raw = (text or "").strip()
    lower = raw.lower()
    if not raw or lower in ("auto", "detect", "any", "unknown"):
        if allow_auto:
            return None
        raise InputError("a language is needed here: give an ISO 639-1 code such as 'fr' or a name such as 'French'")
    code = (
        (lower if lower in LANGUAGES else None)
        or _BY_NAME.get(lower)
        or _ALIASES.get(lower)
        or _BY_NLLB.get(lower)
        or _BY_THREE.get(lower)
        or _region_tagged(lower)
    )
    if code is None:
        raise InputError(
            f"unknown language {quoted(raw)}: give an ISO 639-1 code (en, fr, de, es, zh, ...) or an English name (French, German, ...)"
        )
    return code


def _region_tagged(lower: str) -> str | None:
    """``fr-FR``, ``pt_BR``, ``zh-Hans`` -> the base language when it is known."""
    for sep in ("-", "_"):
        if sep in lower:
            base = lower.split(sep, 1)[0]
            return base if base in LANGUAGES else None
    return None


def known_language(values) -> str | None:
    """The code of the first of ``values`` (names or codes, None allowed) that is a known language."""
    for value in values:
        try:
            if code := parse_language(value, allow_auto=True):
                return code
        except InputError:
            continue
    return None


def language_name(code: str) -> str:
    return LANGUAGES[code][0] if code in LANGUAGES else code


def model_codes(code: str) -> list[str]:
    """The spellings of ``code`` used by multilingual translation models, most common first."""
    _, nllb, mbart = LANGUAGES.get(code, ("", "", ""))
    return [c for c in (nllb, f"__{code}__", mbart, code) if c]
