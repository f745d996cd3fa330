"""Reading a question the way the offline planner needs it: what to search for, which modality the
answer lives in, what kind of answer is wanted, whether it asks for arithmetic over several facts,
whether it names a moment of the video, whether it leans on the previous turn, and whether it
plainly asks for one of the special tools (an ``Intent``: remember, recall, forget, translate,
count, math, web, summarize)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..index.text import STOPWORDS, tokenize
from ..languages import parse_language
from ..timecodes import parse_time

SPEECH_WORDS = {"say", "said", "says", "saying", "mention", "mentioned", "mentions", "talk", "talks", "talked", "spoken",
                "speak", "speaks", "narration", "announce", "announced", "explain", "explained", "told", "tell",
                "state", "stated", "quote", "claim", "claimed"}
OCR_WORDS = {"written", "write", "writes", "screen", "slide", "slides", "text", "sign", "caption", "captions", "displayed",
             "display", "displays", "shown", "title", "label", "read", "reads", "banner", "poster", "board", "headline",
             "onscreen", "on-screen", "printed", "chart", "table"}
AUDIO_WORDS = {"sound", "sounds", "noise", "noises", "beep", "beeps", "tone", "tones", "music", "audio", "hear", "heard",
               "loud", "silence", "silent", "quiet", "applause", "ring", "rings", "chime", "bang", "alarm", "buzz", "whistle",
               "hiss", "static", "pause"}
VISUAL_WORDS = {"color", "colour", "wearing", "wear", "looks", "look", "appearance", "ball", "moving", "moves", "motion",
                "animal", "person", "people", "face", "faces", "object", "objects", "scene", "background", "picture", "image"}
OPERATIONS = {
    "discount": ("after the discount", "after discount", "discounted price", "sale price", "with the discount"),
    "+": ("total", "sum", "combined", "together", "altogether", "add", "plus", "both"),
    "-": ("difference", "more than", "less than", "cheaper", "minus", "subtract", "gap", "exceed", "higher than", "lower than"),
    "*": ("times", "multiplied", "product", "double", "triple"),
    "/": ("ratio", "divided by"),
    "mean": ("average", "mean"),
}
# Words that only say which operation to do; they are not what to search for.
OPERATION_WORDS = {
    "total", "sum", "combined", "together", "altogether", "add", "plus", "difference", "minus", "subtract", "gap",
    "exceed", "times", "multiplied", "product", "double", "triple", "ratio", "divided", "average", "mean", "how",
    "much", "many", "more", "less",
}
FILLER_WORDS = {"video", "clip", "minute", "mark", "time", "exact", "exactly", "right", "just", "immediately", "after",
                "before", "following", "next", "previous", "earlier", "later", "happen", "happens", "appear", "appears"}
INTENT_WORDS = SPEECH_WORDS | OCR_WORDS | AUDIO_WORDS
FOLLOW_UP = re.compile(r"^(and|also|what about|how about|then)\b|\b(it|its|it's|that|this|these|those|they|them|there|he|she|his|her)\b", re.I)
AFTER_BEFORE = re.compile(r"\b(right |just |immediately )?(after|before|following|next|previous|earlier|later)\b", re.I)
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?"
_VIDEO_RANGE = re.compile(rf"\b(?:between|from)\s+({_CLOCK})\s+(?:and|to|-)\s+({_CLOCK})", re.I)
_VIDEO_POINT = re.compile(rf"\b(?:at|around|near)\s+(?:the\s+)?({_CLOCK})(?=\s*(?:mark|into|in the video|of the video))", re.I)
_MINUTE = re.compile(r"\b(?:at|around|in|during)\s+(?:the\s+)?minute\s+(\d+)|\b(\d+)\s+minutes?\s+(?:in|into)\b", re.I)
_FIRST_LAST = re.compile(r"\b(first|last|final)\s+(\d+)\s+(seconds?|minutes?)\b", re.I)
ATTRIBUTE_WORDS = {"price", "cost", "revenue", "population", "growth", "weight", "height", "speed", "score", "sales",
                   "budget", "salary", "capacity", "length", "distance", "age", "temperature", "duration"}
NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million", "billion"}


@dataclass
class Intent:
    """A request for a particular tool, with what that tool needs."""

    kind: str  # remember | recall | forget | translate | count | math | web | summarize
    text: str = ""  # the note, the text to translate, the object to count, the web query, the topic
    language: str | None = None  # translate: the target language (ISO 639-1)
    source: str = "speech"  # translate: what to translate (speech | ocr | text)
    length: str = "medium"  # summarize


@dataclass
class Question:
    text: str
    keywords: list[str]
    wants: set[str] = field(default_factory=set)
    answer_type: str | None = None
    operation: str | None = None
    operands: list[str] = field(default_factory=list)
    time_range: tuple[float, float] | None = None
    relation: str | None = None
    follow_up: bool = False
    owner: str | None = None  # "the Basic and Pro plans of CloudBox" -> "CloudBox"
    asked_for: str | None = None  # "Which room ...", "From which gate ...": the attribute asked about

    @property
    def attributes(self) -> list[str]:
        return [w for w in self.keywords if w.lower() in ATTRIBUTE_WORDS]
    intent: Intent | None = None

    @property
    def topic(self) -> list[str]:
        """Keywords without the words that only say where to look ("said", "screen", "sound")."""
        return [w for w in self.keywords if w.lower() not in INTENT_WORDS] or self.keywords

    @property
    def query(self) -> str:
        """What to search for: the topic, plus the sound words when the question is about a sound."""
        words = self.topic
        if "audio" in self.wants and self.relation is None:
            words = self.keywords
        return " ".join(words) or self.text

    @property
    def tokens(self) -> set[str]:
        return set(tokenize(self.query))


def content_words(text: str) -> list[str]:
    """The words that carry meaning, in order, without stop- and question-words."""
    words = re.findall(r"[A-Za-z0-9$€£][\w.$€£%:'-]*", text)
    out = []
    for w in words:
        bare = w.strip(".,:'").lower()
        if not bare or bare in STOPWORDS or bare in OPERATION_WORDS or bare in FILLER_WORDS:
            continue
        out.append(w.strip(".,'?"))
    return out


def _answer_type(lower: str) -> str | None:
    if re.search(r"\bprice\b|\bcost|\bpaid\b|\bpay\b|\bspend|\bcharge|\bworth\b|\bfee\b|\$", lower):
        return "money"
    if re.search(r"\bpercent|\bpercentage\b|%|\bdiscount|\bgrow|\bgrew\b|\bgrowth\b|\brate\b|\bshare\b|\bturnover\b|\bsave", lower):
        return "percent"
    if re.search(r"\bhow much\b", lower):
        return "number"
    if re.search(r"\bhow many\b|\bnumber of\b|\bcount\b", lower):
        return "number"
    if re.search(r"\bwhat time\b|\bwhen\b|\bdepart|\barriv", lower):
        return "time"
    if re.search(r"\bwhat year\b|\bwhich year\b|\bdate\b|\bwhich day\b", lower):
        return "date"
    if re.search(r"^\s*who\b|\bwho\b|\bwhose\b|\bname of the (person|speaker|designer|host|presenter)", lower):
        return "person"
    if re.search(r"^\s*where\b|\bwhich city\b|\bwhich country\b|\blocation\b", lower):
        return "place"
    if re.search(r"\bhow long\b|\bhow old\b|\bwhat number\b|\bwhich number\b|\bhow far\b|\bhow tall\b|\bhow big\b", lower):
        return "number"
    return None


def _operation(lower: str) -> str | None:
    if re.search(r"\bhow (?:much|many) (?:more|less|fewer|cheaper|higher|lower|bigger|smaller|longer|shorter)\b", lower):
        return "-"
    for op, phrases in OPERATIONS.items():
        for phrase in phrases:
            if re.search(rf"\b{re.escape(phrase)}\b", lower):
                if op == "+" and phrase == "both" and not re.search(r"\b(cost|price|total|together)\b", lower):
                    continue
                return op
    return None


_OWNER = re.compile(r"\bof (?:the )?([A-Z][\w-]*(?: [A-Z][\w-]*)*)")
_NARRATOR = re.compile(r"\b(?:that |which )?the (?:speaker|narrator|presenter|host) (?:mentions|mentioned|says|said|gives|gave|names|named)\b", re.I)


_ASKED_FOR = re.compile(r"\b(?:which|what)\s+([a-z]+)\b")
_NOT_A_NOUN = {"is", "are", "was", "were", "does", "do", "did", "can", "could", "will", "would", "has", "have", "had",
               "kind", "sort", "type", "exactly", "else", "the", "a", "an"}


def _asked_for(lower: str) -> str | None:
    found = _ASKED_FOR.search(lower)
    return found[1] if found and found[1] not in _NOT_A_NOUN else None


def _owner(text: str, operands: list[str]) -> str | None:
    """The one entity every operand belongs to, when the question names it with "of"."""
    owners = {m.group(1) for m in _OWNER.finditer(text)}
    return owners.pop() if len(owners) == 1 and len(operands) >= 2 else None


def _operands(text: str) -> list[str]:
    """Split 'the total price of the X and the Y' into one search per item."""
    parts = re.split(r"\s+(?:and|than|vs\.?|versus|compared to|plus|minus)\s+|,\s*", text)
    parts = [p for p in parts if content_words(p)]
    if len(parts) < 2:
        return []
    # "the Basic and Pro plans of CloudBox": every part is "of CloudBox"
    owners = [m.group(1) for p in parts for m in [_OWNER.search(p)] if m]
    parts = [p if not owners or any(o in p for o in owners) else f"{p} {' '.join(owners)}" for p in parts]
    def attributes(words: list[str]) -> list[str]:
        return [w for w in words if w.lower() in ATTRIBUTE_WORDS]

    shared = attributes(content_words(parts[0]))
    queries = []
    for part in parts:
        words = content_words(part)
        # "the price of the X and the Y": the Y inherits "price" unless it names its own attribute
        queries.append(" ".join(words if attributes(words) else words + shared))
    return queries


def _video_time(text: str) -> tuple[float, float] | None:
    if m := _VIDEO_RANGE.search(text):
        a, b = parse_time(m[1]), parse_time(m[2])
        return (a, b) if b > a else None
    if m := _VIDEO_POINT.search(text):
        t = parse_time(m[1])
        return max(0.0, t - 10), t + 20
    if m := _MINUTE.search(text):
        minute = int(m[1] or m[2])
        return minute * 60.0, minute * 60.0 + 60
    if m := _FIRST_LAST.search(text):
        amount = int(m[2]) * (60 if m[3].startswith("minute") else 1)
        return (0.0, float(amount)) if m[1].lower() == "first" else (-float(amount), 0.0)
    return None


_REMEMBER = re.compile(r"^\s*(?:please\s+)?(?:remember|note|keep in mind|don'?t forget|make a note)(?:\s+(?:that|this))?\s*[:,]?\s+(?P<memo>.+?)\s*$", re.I)
_RECALL = re.compile(
    r"\bwhat (?:did|have) i (?:ask|asked|tell|told) you to (?:remember|note|keep)\b|\bwhat do you remember\b|"
    r"\bwhat (?:notes|have you noted)\b|\bwhat(?:'s| is) in (?:your|the) memory\b|\bremind me what i (?:asked|told) you\b", re.I)
_FORGET = re.compile(r"^\s*(?:please\s+)?(?:forget|delete the note|remove the note)(?:\s+(?:that|about))?\s*(?P<what>.*?)\s*[.!]?$", re.I)
_TRANSLATE = re.compile(r"\btranslat(?:e|ion|ed)\b|\bwhat does (?:it|the \w+|that|this) (?:say|mean) in\b|\bin (?:english|french|german|spanish)\b", re.I)
_TARGET = re.compile(r"\b(?:into|to|in)\s+([A-Za-z][a-z]+(?:\s*\(\w+\))?)", re.I)
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{2,})[\"”'’]")
_COUNT = re.compile(r"\bhow many\s+(?P<what>[a-z][a-z -]*?)\s+(?:are|is|were|can|could|do|does|did|appear|appears|show|shown)\b", re.I)
_SEEN = re.compile(r"\b(?:see|seen|visible|appear|appears|on screen|on-screen|in (?:the|this) (?:frame|picture|image|shot|scene|video)|"
                   r"on stage|standing|sitting|shown|walking)\b", re.I)
_MATH = re.compile(r"\b(?:equation|equations|formula|formulas|expression|expressions|calculation|sum|maths?)\b.*\b(?:board|slide|screen|shown|written|displayed)\b|"
                   r"\bsolve\b.*\b(?:equation|problem|board|slide|screen|shown)\b", re.I)
_WEB_FOR = re.compile(r"\b(?:search|google|look)\s+(?:on\s+)?(?:the\s+)?(?:web|internet|online)\s+(?:for|up)\s+(?P<query>.+)", re.I)
_WEB_ONLINE = re.compile(r"\b(?:search(?:\s+for)?|look\s+up|google|find)\s+(?P<query>.+?)\s+(?:online|on the (?:web|internet)|on google)\b", re.I)
_SUMMARY = re.compile(r"\bsummari[sz]e\b|\bsummary\b|\bgist\b|\bin (?:a )?(?:few|two|three) sentences\b|\brecap\b", re.I)


def _target_language(text: str) -> str | None:
    for match in reversed(_TARGET.findall(text)):
        try:
            return parse_language(re.sub(r"\s*\(.*\)", "", match))
        except InputError:
            continue
    return None


def _strip(text: str) -> str:
    return re.sub(r"^[\s,:;-]+|[\s?.!,:;-]+$", "", text)


def find_intent(text: str) -> Intent | None:
    """The special tool a question plainly asks for, if any."""
    lower = text.lower()
    if m := _REMEMBER.match(text):
        return Intent("remember", _strip(m["memo"]))
    if _RECALL.search(text):
        topic = re.search(r"\babout\s+(.+)$", text, re.I)
        return Intent("recall", _strip(topic[1]) if topic else "")
    if (m := _FORGET.match(text)) and not re.search(r"\bforget(?:s|ting)?\b.*\bwhat\b", lower):
        what = re.sub(r"^(?:the\s+)?notes?\s+(?:about|on|that)\s+", "", _strip(m["what"]), flags=re.I)
        return Intent("forget", what or "all")
    if _TRANSLATE.search(text):
        language = _target_language(text) or "en"
        if quoted := _QUOTED.search(text):
            return Intent("translate", quoted[1].strip(), language, "text")
        on_screen = bool(set(re.findall(r"[a-z-]+", lower)) & OCR_WORDS) or "on screen" in lower
        return Intent("translate", "", language, "ocr" if on_screen else "speech")
    if m := _WEB_FOR.search(text) or _WEB_ONLINE.search(text):
        return Intent("web", _strip(m["query"]))
    if (m := _COUNT.search(text)) and _SEEN.search(text):
        return Intent("count", _strip(m["what"]))
    if _MATH.search(text):
        return Intent("math")
    if _SUMMARY.search(text):
        size = "short" if re.search(r"\b(?:short|brief|briefly|one sentence|quick)\b", lower) else "long" if re.search(r"\b(?:detailed|long|full)\b", lower) else "medium"
        return Intent("summarize", length=size)
    return None


def analyse(text: str, previous: Question | None = None) -> Question:
    text = _NARRATOR.sub("", text).strip()  # "the discount the speaker mentions": "speaker" is no topic
    lower = text.lower()
    words = set(re.findall(r"[a-z'-]+", lower))
    keywords = content_words(text)
    wants = set()
    if words & SPEECH_WORDS:
        wants.add("speech")
    if words & OCR_WORDS or "on screen" in lower:
        wants.add("ocr")
    if words & AUDIO_WORDS:
        wants.add("audio")
    if words & VISUAL_WORDS or re.search(r"what (?:happens|is happening)|describe the", lower):
        wants.add("visual")
    operation = _operation(lower)
    intent = find_intent(text)
    question = Question(
        text=text,
        keywords=keywords,
        wants=wants,
        answer_type=_answer_type(lower),
        operation=operation if intent is None else None,
        operands=_operands(text) if operation and intent is None else [],
        time_range=_video_time(text),
        intent=intent,
    )
    question.owner = _owner(text, question.operands)
    question.asked_for = _asked_for(lower)
    relation = AFTER_BEFORE.search(lower) if question.operation != "discount" else None  # "after the discount" is no time
    if relation:
        question.relation = "before" if relation[2] in ("before", "previous", "earlier") else "after"
    if previous is not None and (FOLLOW_UP.search(text) and len(tokenize(text)) <= 4 or not keywords):
        question.follow_up = True
        if question.relation is None:  # "right after that" is placed by time, not by the earlier topic
            question.keywords = list(dict.fromkeys(keywords + [w for w in previous.keywords if w not in keywords]))
    return question
