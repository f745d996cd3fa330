"""translate_text and translate_speech.

Text goes to the ``translator`` expert (Marian per pair, or NLLB / M2M100 / mBART-50), else to the
``chat`` model. Speech into English goes to Whisper's own translate task (``asr_refine``) when it is
loaded, which hears the audio instead of reading a transcript; otherwise the transcript's lines are
translated one by one and keep their times.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from ..errors import ModelUnavailable, ToolError
from ..languages import known_language, language_name, parse_language
from ..limits import MAX_TRANSLATE_CHARS
from ..models.asr import shift_lines
from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .common import Span, TimeRangeArg, ask_chat, span


def _llm_translate(chat, texts: list[str], source: str | None, target: str) -> list[str]:
    reply = ask_chat(
        chat, "translate_text", {"texts": texts},
        source=language_name(source) if source else "the language it is written in", target=language_name(target),
    )
    try:
        out = json.loads(reply[reply.index("[") : reply.rindex("]") + 1])
    except ValueError:
        out = None
    if not isinstance(out, list) or len(out) != len(texts):
        if len(texts) == 1 and reply.strip():
            return [reply.strip()]
        raise ToolError("the chat model did not return one translation per text")
    return [str(t) for t in out]


def translate_texts(ctx: ToolContext, texts: list[str], source: str | None, target: str, needed_by: str) -> tuple[list[str], str]:
    """Translations of ``texts`` and the name of the model that made them: the translation model,
    else the chat model, else the error that says what is missing."""
    if source == target:
        return list(texts), "none (same language)"
    try:
        translator = ctx.expert("translator", needed_by)
    except ToolError as missing:
        translator, problem = None, missing
    if translator is not None:
        try:
            return translator.translate(texts, source, target), translator.name
        except ModelUnavailable as exc:  # loaded, but it does not cover this pair
            where = f"{language_name(source) if source else 'an unknown language'} to {language_name(target)}"
            problem = ToolError(f"{needed_by} cannot translate {where}: {exc}")
    chat = ctx.chat_model()
    if chat is not None:
        return _llm_translate(chat, texts, source, target), "chat"
    raise problem


class TranslatedText(ToolResult):
    text: str
    translated_text: str
    from_lang: str | None
    to_lang: str
    model: str

    def summary(self) -> str:
        return f"{self.from_lang or '?'}->{self.to_lang}: {self.translated_text[:130]}"


class TranslateText(Tool):
    name = "translate_text"
    description = (
        "Translate a text (for example on-screen text read with extract_scene_text) from one language into "
        "another. Languages: ISO codes such as 'fr' or names such as 'French'; from_lang may be 'auto'."
    )
    needs_video = False
    requires = (("translator", "chat"),)

    class Args(BaseModel):
        text: str = Field(description="the text to translate")
        from_lang: str = Field("auto", description="language of the text, e.g. 'de' ('auto' if unknown)")
        to_lang: str = Field(description="language to translate into, e.g. 'en'")

    Result = TranslatedText

    def run(self, ctx: ToolContext, args: Args) -> TranslatedText:
        text = args.text.strip()
        if not text:
            raise ToolError("translate_text needs a non-empty text")
        if len(text) > MAX_TRANSLATE_CHARS:
            raise ToolError(f"the text is longer than {MAX_TRANSLATE_CHARS} characters; translate it in parts")
        source, target = parse_language(args.from_lang, allow_auto=True), parse_language(args.to_lang)
        [translated], model = translate_texts(ctx, [text], source, target, self.name)
        return TranslatedText(text=text, translated_text=translated, from_lang=source, to_lang=target, model=model)


class TranslatedLine(Span):
    text: str = Field(description="the translation")
    original: str | None = Field(None, description="the words as spoken (None when the audio was translated directly)")


class SpeechTranslation(ToolResult):
    timestamp: str
    from_lang: str | None
    to_lang: str
    translated_transcript: str
    lines: list[TranslatedLine]
    method: str = Field(description="whisper-translate (from the audio) or the model that translated the transcript")
    note: str | None = None

    def evidence(self) -> list[Evidence]:
        return [Evidence(start=x.start, end=x.end, modality="speech", text=x.text, source="translate_speech") for x in self.lines]

    def summary(self) -> str:
        return f"{self.timestamp} ->{self.to_lang}: {(self.translated_transcript or self.note or '')[:120]}"


class TranslateSpeech(Tool):
    name = "translate_speech"
    description = (
        "Translate what is said in a time range into another language, line by line with timestamps. "
        "timestamp: a range such as \"00:03:00-00:03:30\"; from_lang may be 'auto'."
    )
    requires = (("translator", "asr_refine", "chat"),)  # Whisper's translate task covers speech into English

    class Args(BaseModel):
        timestamp: TimeRangeArg
        from_lang: str = Field("auto", description="language spoken, e.g. 'fr' ('auto' if unknown)")
        to_lang: str = Field(description="language to translate into, e.g. 'en'")

    Result = SpeechTranslation

    def run(self, ctx: ToolContext, args: Args) -> SpeechTranslation:
        index = ctx.require_index()
        start, end = ctx.time_range(args.timestamp)
        source, target = parse_language(args.from_lang, allow_auto=True), parse_language(args.to_lang)
        common = {"timestamp": format_range(start, end), "from_lang": source, "to_lang": target}
        if target == "en" and index.has_audio and (whisper := ctx.optional_expert("asr_refine")) is not None:
            heard = shift_lines(whisper.transcribe(index.audio(start, end), None, language=source, task="translate"), start, end)
            lines = [TranslatedLine(**span(x.start, x.end), text=x.text.strip()) for x in heard]
            note = None if lines else "nobody speaks in this range"
            return SpeechTranslation(**common, translated_transcript=" ".join(x.text for x in lines), lines=lines, method=f"whisper-translate:{whisper.name}", note=note)
        spoken = index.speech_between(start, end)
        if not spoken:
            note = "nobody speaks in this range" if index.has_audio else "the video has no audio track and no subtitles here"
            return SpeechTranslation(**common, translated_transcript="", lines=[], method="none", note=note)
        source = source or known_language(x.language for x in spoken)
        translated, model = translate_texts(ctx, [x.text for x in spoken], source, target, self.name)
        lines = [TranslatedLine(**span(x.start, x.end), text=t, original=x.text) for x, t in zip(spoken, translated)]
        common["from_lang"] = source
        return SpeechTranslation(**common, translated_transcript=" ".join(x.text for x in lines), lines=lines, method=model)
