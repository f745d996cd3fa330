"""Reading a question the way the offline planner needs it: what to search for, which modality the
answer lives in, what kind of answer is wanted, whether it asks for arithmetic over several facts,
whether it names a moment of the video, whether it leans on the previous turn, and whether it
plainly asks for one of the special tools (an ``Intent``: remember, recall, forget, translate,
count, math, web, summarize)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import InputError, TimeFormatError
from ...index.text import STOPWORDS, tokenize
from ...languages import parse_language
from ...timecodes import parse_time, point_window

SPEECH_WORDS = {"say", "said", "says", "saying", "mention", "mentioned", "mentions", "talk", "talks", "talked", "spoken",
                "speak", "speaks", "narration", "announce", "announced", "explain", "explained", "told", "tell",
                "state", "stated", "quote", "claim", "claimed"}
OCR_WORDS = {"written", "write", "writes", "screen", "slide", "slides", "text", "sign", "caption", "captions", "displayed",
             "display", "displays", "shown", "title", "label", "read", "reads", "banner", "poster", "board", "headline",
             "onscreen", "on-screen", "printed", "chart", "table"}
SILENCE_WORDS = {"silence", "silent", "quiet", "pause", "nothing"}
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
# "there" is left out: "is there any music?" refers to nothing said before
FOLLOW_UP = re.compile(r"^(and|also|what about|how about|then)\b|\b(it|its|it's|that|this|these|those|they|them|he|she|his|her)\b", re.I)
AFTER_BEFORE = re.compile(r"\b(right |just |immediately )?(after|before|following|next|previous|earlier|later)\b", re.I)
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?"
_HMS = r"\d{1,2}:\d{2}:\d{2}"
# A range of the video: "between 1:00 and 1:30", "at 0:06-0:10", "during 2:00 to 2:30", or a bare
# "00:01:00-00:01:30" (the tool-argument form). A bare "9:00-17:00" may be opening hours, not the video.
_VIDEO_RANGE = re.compile(
    rf"\b(?:between|from|at|during|in|over|within)\s+(?:the\s+)?({_CLOCK})\s*(?:and|to|until|till|-|–|—)\s*({_CLOCK})|"
    rf"(?<![\d:])({_HMS})\s*(?:-|–|—|to)\s*({_HMS})(?![\d:])",
    re.I,
)
# A moment of the video: "at the 3:20 mark", "around 1:05 into the video", "said at 0:07".
_VIDEO_POINT = re.compile(
    rf"\b(?:at|around|near)\s+(?:the\s+)?({_CLOCK})(?=\s*(?:mark|into|in the video|of the video))|"
    rf"\b(?:said|says|say|spoken|heard|shown|written|displayed|happens|happening|on screen|on-screen)\s+(?:\w+\s+)?(?:at|around)\s+({_CLOCK})\b",
    re.I,
)
_MINUTE = re.compile(r"\b(?:at|around|in|during)\s+(?:the\s+)?minute\s+(\d+)|\b(\d+)\s+minutes?\s+(?:in|into)\b", re.I)
_FIRST_LAST = re.compile(r"\b(first|last|final)\s+(\d+)\s+(seconds?|minutes?)\b", re.I)
ATTRIBUTE_WORDS = {"price", "cost", "revenue", "population", "growth", "weight", "height", "speed", "score", "sales",
                   "budget", "salary", "capacity", "length", "distance", "age", "temperature", "duration"}
DURATION_TOKENS = frozenset(tokenize("long last lasts lasting take takes"))
NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million", "billion"}


@dataclass
class Intent:
    """A request for a particular tool, with what that tool needs."""

    kind: str  # remember | recall | forget | translate | count | math | calculate | web | summarize | length
    text: str = ""  # the note, the text to translate, the object to count, the expression, the web query
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
    moment: float | None = None  # the single moment a question names ("around 0:50"), inside time_range
    carried: list[str] = field(default_factory=list)  # the topic a follow-up placed by time keeps for the next one
    relation: str | None = None
    follow_up: bool = False
    owner: str | None = None  # "the Basic and Pro plans of CloudBox" -> "CloudBox"
    asked_for: str | None = None  # "Which room ...", "From which gate ...": the attribute asked about

    @property
    def attributes(self) -> list[str]:
        return [w for w in self.keywords if w.lower() in ATTRIBUTE_WORDS]
    intent: Intent | None = None

    @property
    def names_a_sound(self) -> bool:
        """It asks about a sound, not about silence ("what sound", "which noise")."""
        words = set(re.findall(r"[a-z]+", self.text.lower()))
        return bool(words & (AUDIO_WORDS - {"hear", "heard", "audio", "loud"} - SILENCE_WORDS)) and not words & SILENCE_WORDS

    @property
    def subject(self) -> list[str]:
        """Keywords without the words that only say where to look ("said", "screen", "sound"):
        empty for "what is said between 0:30 and 0:45?"."""
        return [w for w in self.keywords if w.lower() not in INTENT_WORDS]

    @property
    def topic(self) -> list[str]:
        """The subject, or the keywords when the question names nothing beyond where to look."""
        return self.subject or self.keywords

    @property
    def query(self) -> str:
        """What to search for: the topic, plus the sound words when the question is about a sound."""
        words = self.topic
        if "audio" in self.wants and self.relation is None:
            words = self.keywords
        return " ".join(words) or self.text

    @property
    def tokens(self) -> set[str]:
        tokens = set(tokenize(self.query))
        if self.answer_type == "duration":  # "how long does it last": the words only ask for a length
            tokens -= DURATION_TOKENS
        return tokens


_CLOCK_WORD = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?(?:-\d{1,2}:\d{2}(?::\d{2})?)?")


def content_words(text: str) -> list[str]:
    """The words that carry meaning, in order, without stop- and question-words."""
    words = re.findall(r"[A-Za-z0-9$€£][\w.$€£%:'-]*", text)
    out = []
    for w in words:
        bare = w.strip(".,:'").lower()
        if not bare or bare in STOPWORDS or bare in OPERATION_WORDS or bare in FILLER_WORDS or _CLOCK_WORD.fullmatch(bare):
            continue  # a clock time says where to look, not what to look for
        out.append(w.strip(".,'?"))
    return out


def _answer_type(lower: str) -> str | None:
    if re.search(r"\bprices?\b|\bcost(?:s|ing)?\b|\bpaid\b|\bpay\b|\bspen[dt]|\bcharge[sd]?\b|\bworth\b|\bfees?\b|\$", lower):  # not "Costa"
        return "money"
    if re.search(r"\bpercent|\bpercentage\b|%|\bdiscount|\bgrow|\bgrew\b|\bgrowth\b|\brate\b|\bshare\b|\bturnover\b|\bsave", lower):
        return "percent"
    if re.search(r"\bhow much\b", lower):
        return "number"
    if re.search(r"\bhow many\b|\bnumber of\b|\bcount\b", lower):
        return "number"
    if re.search(r"\bwhat time\b|\bdepart|\barriv", lower):
        return "time"
    if re.search(r"\bwhen\b", lower):
        return "when"
    if re.search(r"\bwhat year\b|\bwhich year\b|\bdate\b|\bwhich day\b", lower):
        return "date"
    if re.search(r"^\s*who\b|\bwho\b|\bwhose\b|\bname of the (person|speaker|designer|host|presenter)", lower):
        return "person"
    if re.search(r"^\s*where\b|\bwhich city\b|\bwhich country\b|\blocation\b", lower):
        return "place"
    if re.search(r"\bhow long\b", lower):
        return "duration"
    if re.search(r"\bhow old\b|\bwhat number\b|\bwhich number\b|\bhow far\b|\bhow tall\b|\bhow big\b", lower):
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
    """The one entity every operand belongs to, when the question names it with "of" after the
    last item ("the Basic and Pro plans of CloudBox"); in "the price of the Triton fryer and the
    Kestrel purifier" the "of" belongs to the first item only."""
    owners = {m.group(1) for m in _OWNER.finditer(text)}
    if len(owners) != 1 or len(operands) < 2:
        return None
    owner = owners.pop()
    return owner if owner in operands[-1] else None


_OF_OWNER = re.compile(r"\b([a-z]+)\s+of (?:the )?([A-Z][\w-]*(?: [A-Z][\w-]*)*)")


def _share_owner(parts: list[str]) -> list[str]:
    """Give the parts of a comparison the owner one of them names with "of":
    "the Basic and Pro plans of CloudBox" (named last: it covers every part), "the Pro plan of
    TeamNest ... than the Basic plan" (the other part repeats "plan": a sibling of the same owner);
    but in "the price of the Triton fryer and the Kestrel purifier" the "of" is the fryer's alone."""
    out = list(parts)
    for i, part in enumerate(parts):
        if not (found := _OF_OWNER.search(part)):
            continue
        head, owner = found[1].lower().rstrip("s"), found[2]
        for j, other in enumerate(parts):
            if j != i and not _OWNER.search(other) and (i == len(parts) - 1 or re.search(rf"\b{head}s?\b", other, re.I)):
                out[j] = f"{other} {owner}"
    return out


def _operands(text: str) -> list[str]:
    """Split 'the total price of the X and the Y' into one search per item."""
    parts = re.split(r"\s+(?:and|than|vs\.?|versus|compared to|plus|minus)\s+|,\s*", text)
    parts = [p for p in parts if content_words(p)]
    if len(parts) < 2:
        return []
    parts = _share_owner(parts)
    def attributes(words: list[str]) -> list[str]:
        return [w for w in words if w.lower() in ATTRIBUTE_WORDS]

    shared = attributes(content_words(parts[0]))
    queries = []
    for part in parts:
        words = content_words(part)
        # "the price of the X and the Y": the Y inherits "price" unless it names its own attribute
        queries.append(" ".join(words if attributes(words) else words + shared))
    return queries


def _video_time(text: str) -> tuple[tuple[float, float] | None, float | None]:
    """The stretch of the video a question names, and the single moment when it names one."""
    try:
        if m := _VIDEO_RANGE.search(text):
            a, b = parse_time(m[1] or m[3]), parse_time(m[2] or m[4])
            return ((a, b) if b > a else None), None
    except TimeFormatError:
        return None, None
    try:
        if m := _VIDEO_POINT.search(text):
            moment = parse_time(m[1] or m[2])
            return point_window(moment), moment
    except TimeFormatError:  # "at 1:75" is no moment of the video
        pass
    if m := _MINUTE.search(text):
        minute = int(m[1] or m[2])
        return (minute * 60.0, minute * 60.0 + 60), None
    if m := _FIRST_LAST.search(text):
        amount = int(m[2]) * (60 if m[3].startswith("minute") else 1)
        return ((0.0, float(amount)) if m[1].lower() == "first" else (-float(amount), 0.0)), None
    return None, None


_REMEMBER = re.compile(r"^\s*(?:please\s+)?(?:remember|note|keep in mind|don'?t forget|make a note)(?:\s+(?:that|this))?\s*[:,]?\s+(?P<memo>.+?)\s*$", re.I)
# "My locker code is 4417, remember it." / "The exam is on Friday - please note that."
_REMEMBER_AFTER = re.compile(r"^\s*(?P<memo>.+?)\s*[,;.:!-]*\s*(?:so\s+|and\s+)?(?:please\s+)?(?:remember|note|keep in mind|don'?t forget)\s+(?:it|that|this)\s*[.!]*\s*$", re.I)
_RECALL = re.compile(
    r"\bwhat (?:did|have) i (?:ask|asked|tell|told) you to (?:remember|note|keep)\b|\bwhat do you remember\b|"
    r"\bwhat (?:notes|have you noted)\b|\bwhat(?:'s| is) in (?:your|the) memory\b|\bremind me what i (?:asked|told) you\b", re.I)
_FORGET = re.compile(r"^\s*(?:please\s+)?(?:forget|delete the note|remove the note)(?:\s+(?:that|about))?\s*(?P<what>.*?)\s*[.!]?$", re.I)
_TRANSLATE = re.compile(r"\btranslat(?:e|ion|ed)\b|\bwhat does (?:it|the \w+|that|this) (?:say|mean) in\b|\bin (?:english|french|german|spanish)\b", re.I)
_TARGET = re.compile(r"\b(?:into|to|in)\s+([A-Za-z][a-z]+(?:\s*\(\w+\))?)", re.I)
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{2,})[\"”'’]")
_COUNT = re.compile(r"\bhow many\s+(?P<what>[a-z][a-z -]*?)\s+(?:are|is|were|can|could|do|does|did|appear|appears|show|shown)\b", re.I)
# Things a detector counts in the pictures: "how many faces are there?" needs no "visible" to mean that.
VISIBLE_THINGS = {"person", "people", "face", "faces", "car", "cars", "dog", "dogs", "cat", "cats", "bird", "birds",
                  "chair", "chairs", "bottle", "bottles", "cup", "cups", "ball", "balls", "animal", "animals",
                  "object", "objects", "bicycle", "bicycles", "bus", "buses", "truck", "trucks", "horse", "horses"}
_THERE = re.compile(r"\b(?:are|were|is) there\b", re.I)
# Arithmetic written out in the question itself: "what is 249 plus 129", "compute 17 * 23", "15% of 240".
_NUM = r"[$€£]?\d[\d,]*(?:\.\d+)?"
_OP = r"\s*(?:\*\*|[-+*/x×÷^]|plus|minus|times|multiplied by|divided by|over)\s*"
_EXPRESSION = rf"\(?{_NUM}\)?(?:{_OP}\(?{_NUM}\)?)+|{_NUM}\s*(?:%|percent)\s+of\s+{_NUM}"
_CALCULATE = re.compile(rf"\b(?:what(?:'s|\s+is)|how much is|compute|calculate|evaluate|work out)\s+(?P<expr>{_EXPRESSION})(?![\d:])", re.I)
_WORD_OPERATORS = {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/", "over": "/", "percent": "%"}
_SEEN = re.compile(r"\b(?:see|seen|visible|appear|appears|on screen|on-screen|in (?:the|this) (?:frame|picture|image|shot|scene|video)|"
                   r"on stage|standing|sitting|shown|walking)\b", re.I)
_MATH = re.compile(r"\b(?:equation|equations|formula|formulas|expression|expressions|calculation|sum|maths?)\b.*\b(?:board|slide|screen|shown|written|displayed)\b|"
                   r"\bsolve\b.*\b(?:equation|problem|board|slide|screen|shown)\b", re.I)
_WEB_FOR = re.compile(r"\b(?:search|google|look)\s+(?:on\s+)?(?:the\s+)?(?:web|internet|online)\s+(?:for|up)\s+(?P<query>.+)", re.I)
_WEB_ONLINE = re.compile(r"\b(?:search(?:\s+for)?|look\s+up|google|find)\s+(?P<query>.+?)\s+(?:online|on the (?:web|internet)|on google)\b", re.I)
_VIDEO_LENGTH = re.compile(r"\bhow long is (?:the|this) (?:video|clip|recording)\b|\b(?:length|duration) of (?:the|this) (?:video|clip|recording)\b|"
                           r"\bhow long does (?:the|this) (?:video|clip|recording) (?:last|run|take)\b", re.I)
_SUMMARY = re.compile(r"\bsummari[sz]e\b|\bsummary\b|\bgist\b|\bin (?:a )?(?:few|two|three) sentences\b|\brecap\b", re.I)


def _target_language(text: str) -> str | None:
    for match in reversed(_TARGET.findall(text)):
        try:
            return parse_language(re.sub(r"\s*\(.*\)", "", match))
        except InputError:
            continue
    return None


def written_expression(text: str) -> str:
    """Arithmetic as a person writes it ("249 plus 129", "15 percent of 240") in the calculator's terms."""
    for word, symbol in _WORD_OPERATORS.items():
        text = re.sub(rf"\s*\b{word}\b\s*", f" {symbol} " if symbol != "%" else "% ", text, flags=re.I)
    return re.sub(r"\s+", " ", text).strip()


def _strip(text: str) -> str:
    return re.sub(r"^[\s,:;-]+|[\s?.!,:;-]+$", "", text)


def find_intent(text: str) -> Intent | None:
    """The special tool a question plainly asks for, if any."""
    lower = text.lower()
    if m := _REMEMBER.match(text) or _REMEMBER_AFTER.match(text):
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
    if (m := _COUNT.search(text)) and (_SEEN.search(text) or _THERE.search(text) and m["what"].split()[-1].lower() in VISIBLE_THINGS):
        return Intent("count", _strip(m["what"]))
    if m := _CALCULATE.search(text):
        return Intent("calculate", written_expression(m["expr"]))
    if _VIDEO_LENGTH.search(text):
        return Intent("length")
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
    time_range, moment = _video_time(text)
    question = Question(
        text=text,
        keywords=keywords,
        wants=wants,
        answer_type=_answer_type(lower),
        operation=operation if intent is None else None,
        operands=_operands(text) if operation and intent is None else [],
        time_range=time_range,
        moment=moment,
        intent=intent,
    )
    question.owner = _owner(text, question.operands)
    question.asked_for = _asked_for(lower)
    relation = AFTER_BEFORE.search(lower) if question.operation != "discount" else None  # "after the discount" is no time
    if relation:
        question.relation = "before" if relation[2] in ("before", "previous", "earlier") else "after"
    if previous is not None and (FOLLOW_UP.search(text) and len(tokenize(text)) <= 4 or not keywords):
        question.follow_up = True
        earlier = previous.keywords or previous.carried
        if question.relation is None:  # "right after that" is placed by time, not by the earlier topic
            question.keywords = list(dict.fromkeys(keywords + [w for w in earlier if w not in keywords]))
        else:  # ... but the topic still holds for the question after it
            question.carried = earlier
    return question
