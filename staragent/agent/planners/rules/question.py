"""Reading a question the way the offline planner needs it.

A question is read in layers, each by plain English patterns that hold for any video:

- what it asks for: the kind of answer (a person, a moment of the video, an amount, a place ...), and
  where the asker expects it (said, shown on screen, heard, or seen in the pictures);
- where to look: a stretch of the video it names by clock time ("between 1:00 and 1:30"), by
  position ("at the start", "the last piece"), by a named part ("in the Lowry reading", "according
  to the keynote") or relative to something ("right after the applause", "between the two songs");
  words it quotes ("when does she say 'thank you'?");
- how it leans on the conversation: a pronoun that points back ("when does it start?", "what else is
  that person credited for?"), or too few words of its own to stand alone ("and the price?");
- whether it plainly asks for one of the special tools (an ``Intent``: remember, recall, forget,
  translate, count what is visible, read the maths on screen, search the web, calculate, the video's
  length, summarise), or for arithmetic over amounts found in the video.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ....errors import InputError, TimeFormatError
from ....index.text import STOPWORDS, tokenize
from ....languages import parse_language
from ....qa.describing import asks_what_someone_is_like
from ....qa.frame import Placed, placed_terms
from ....qa.language import parse, quoted_phrases, respelled
from ....timecodes import parse_time, point_window
from ....words import (
    NUMBER_WORDS,
    falls_under,
    is_name_word,
    is_noun,
    is_verb,
    names_a_person,
    place_kind_words,
    verb_edge,
)
from ....words import names_a_sound as _names_a_sound_word

POPUP_TOKENS = frozenset(tokenize("popup pop-up dialog prompt alert confirmation notification"))
"""what a person calls text that comes up over a window and goes again"""
CHOICE_TOKENS = frozenset(tokenize("button option choice answer"))
"""what a person calls one of the choices a pop-up offers"""

SPEECH_WORDS = {"say", "said", "says", "saying", "mention", "mentioned", "mentions", "talk", "talks", "talked", "spoken",
                "speak", "speaks", "narration", "announce", "announced", "explain", "explained", "told", "tell",
                "state", "stated", "quote", "claim", "claimed", "urge", "urges", "urged", "words", "line", "lines",
                "sentence", "recite", "recited", "recites", "lyrics", "lyric", "sung", "warn", "warns", "warned", "deliver", "delivers",
                "utter", "utters", "uttered"}
SUNG_WORDS = {"lyrics", "lyric", "sung"}
"""the words of a song are what is heard sung: speech, whatever "song" says about sounds"""
OCR_WORDS = {"written", "write", "writes", "screen", "slide", "slides", "text", "sign", "caption", "captions", "displayed",
             "display", "shown", "title", "titles", "label", "banner", "poster", "board", "headline", "onscreen",
             "on-screen", "printed", "chart", "table", "card", "credits", "credited", "credit", "typed", "type",
             "button", "menu", "dialog", "dialogue", "pop-up", "popup", "window", "tooltip", "clock", "website",
             "url", "logo", "hint", "note", "notice", "message", "warning", "prompt", "tip", "instructions"}
OCR_WORDS |= {f"{w}s" for w in ("button", "menu", "dialog", "pop-up", "popup", "window", "tooltip", "label", "sign", "banner", "hint", "notice",
                                 "message", "warning", "prompt", "tip", "card", "logo")}  # "the tooltips" look where "the tooltip" does
SILENCE_WORDS = {"silence", "silent", "quiet", "pause", "nothing"}
AUDIO_WORDS = {"sound", "sounds", "noise", "noises", "beep", "beeps", "tone", "tones", "music", "audio", "hear", "heard", "hearing",
               "loud", "silence", "silent", "quiet", "applause", "ring", "rings", "chime", "bang", "alarm", "buzz", "whistle",
               "hiss", "static", "pause", "plays", "played", "playing", "song", "bell", "knock", "laugh", "laughter"}
VISUAL_WORDS = {"color", "colour", "wearing", "wear", "looks", "look", "appearance", "ball", "moving", "moves", "motion",
                "animal", "person", "people", "face", "faces", "object", "objects", "scene", "background", "picture", "image"}
# What something looks like: nothing in the offline profile can see it.
_APPEARANCE = re.compile(
    r"\b(?:wear|wears|wearing|wore|dressed|clothes|clothing|outfit|shirt|hat|hair|beard|glasses|eyes|facial|face look|"
    r"what colou?r|which colou?r|colou?r (?:is|are|was|were|of)|look(?:s|ed)? like|appearance|how (?:old|tall) (?:is|was|does)|"
    r"what (?:is|are) (?:he|she|they|the \w+) (?:doing|holding)|what (?:animal|animals)|where (?:is|are) (?:he|she|they) (?:standing|sitting))\b",
    re.I,
)
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
# (what praises a thing says how well it is known, not what it holds: "the famous line", "the memorable quote")
FILLER_WORDS = {"famous", "memorable", "iconic", "celebrated", "video", "clip", "minute", "mark", "time", "exact", "exactly", "right", "just", "immediately", "after",
                "before", "following", "next", "previous", "earlier", "later", "happen", "happens", "appear", "appears",
                "point", "moment", "according", "whose", "whole", "entire", "else", "also", "me", "please", "tell", "give", "know",
                "there", "any", "anything", "get", "gets", "got", "one", "start", "starts", "started", "begin", "begins",
                "began", "end", "ends", "ended", "finish", "finishes", "finished", "besides", "apart", "aside", "except",
                "briefly", "quickly", "roughly", "basically", "shortly", "short", "describe", "anywhere", "somewhere", "actually",
                "really", "bit", "stuff", "approximately"}
INTENT_WORDS = SPEECH_WORDS | OCR_WORDS | AUDIO_WORDS
_HEARING_WORDS = {"hear", "heard", "hearing", "audio", "plays", "played", "playing", "pause", "silent", "quiet", "loud", "sound", "sounds", "noise", "noises",
                  "tone", "tones"}
"""the words that say something is heard without naming what"""
SOUND_TOKENS = frozenset(tokenize(" ".join(AUDIO_WORDS - _HEARING_WORDS)))
"""the words that name a sound ("bell", "applause"), not only that something is heard"""
_SCREEN_ACTIONS = ("click", "tap", "tick")
"""what a user does on a screen, though each is a sound's name too ("what does she click next?")"""
_DONE_TO = re.compile(r"\s+(?:(?:the|a|an|this|that|these|those|its|his|her|their|my|your|on|onto|into|at|through)\b|[A-Z'\"‘“])")
"""after a sound's name, what makes it something done to a thing ("tick the box", "click on Apply",
"click Keep Changes")"""


def sound_words(text: str) -> set[str]:
    """The words of ``text`` that name something heard, lower case: the listed ones ("beep",
    "music"), and any WordNet knows first as a sound ("creaking", "thunder", "footsteps") unless it is
    done to something ("tick the box", "click on Apply": what a screencast shows)."""
    listed = set(re.findall(r"[a-z]+", text.lower())) & AUDIO_WORDS
    found = {word for m in re.finditer(r"\b([A-Za-z]+)\b", text) if (word := m[1].lower()) not in SPEECH_WORDS and word not in listed
             and not word.startswith(_SCREEN_ACTIONS) and not _DONE_TO.match(text, m.end()) and _names_a_sound_word(word)}
    return listed | found


_CREDITS_ONLY = frozenset(tokenize("the end closing opening credits credit roll rolling finish finishes finished"))


def names_only_credits(text: str | None) -> bool:
    """Whether ``text`` names the credits and nothing else ("the end credits finish")."""
    return bool(text) and not set(tokenize(text)) - _CREDITS_ONLY


def named_sounds(text: str) -> set[str]:
    """The words of ``text`` that name what is heard ("bell", "creaking"), not only that something is."""
    return sound_words(text) - _HEARING_WORDS
# The nouns that name a part of a video: "the Lowry reading", "the second song", "the Okafor clip".
PART_NOUNS = ("part", "parts", "reading", "readings", "section", "segment", "clip", "excerpt", "passage", "poem", "speech", "talk",
              "lecture", "chapter", "scene", "interview", "song", "story", "sonnet", "address", "piece", "presentation",
              "demo", "keynote", "story", "recording", "narration", "monologue", "verse", "track", "episode", "act")
_PART = "|".join(sorted(set(PART_NOUNS), key=len, reverse=True))
_GENERIC_PARTS = {"video", "clip", "film", "movie", "cartoon", "animation", "recording", "piece", "part", "section", "segment", "scene", "first", "last",
                  "final", "second", "third", "next", "previous", "opening", "closing", "whole", "entire", "same", "other",
                  "following", "earlier", "later", "current", "that", "this", "one", "title", "card", "slide"}
_VOICES = {"narration", "narrator", "speaker", "presenter", "host", "voice", "voiceover", "commentary", "music", "sound", "sounds"}
VOICE_TOKENS = frozenset(tokenize(" ".join(_VOICES - {"music", "sound", "sounds"})))
"""the words for whoever speaks ("according to the narrator"): they name no topic"""
# What a relation may point at without naming a particular part: "after the narration", "before the music".
_GENRES = {"poem", "sonnet", "song", "speech", "address", "lecture", "interview", "story", "chapter", "keynote", "presentation", "demo",
           "episode", "verse", "track", "monologue"}
"""part nouns that name what a part is: "after the sonnet" points at the sonnet, "after the passage" at no part in particular"""
_GENERIC_TARGETS = frozenset(tokenize(" ".join([*SPEECH_WORDS, *(set(PART_NOUNS) - _GENRES), *_GENERIC_PARTS, *_VOICES, "talking",
                                                  "speaking", "slide", "intro"])))
# Words that say what kind of answer is wanted; the video need not repeat them ("on what date ...").
TYPE_WORDS = frozenset(tokenize("date year day time price cost name number amount percent percentage place city country "
                                "when who where which kind sort type week weekday"))
# ... and those that only say an address is wanted: every web address is one
URL_WORDS = frozenset(tokenize("web website site url link homepage address"))
# "next to the option" and "next door" are places on the screen, not moments
AFTER_BEFORE = re.compile(r"\b(right |just |immediately |shortly )?(after|before|following|next(?!\s+(?:to|door)\b)|previous|earlier|later)\b", re.I)
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?"
_HMS = r"\d{1,2}:\d{2}:\d{2}"
# A range of the video: "between 1:00 and 1:30", "at 0:06-0:10", "during 2:00 to 2:30", either end
# perhaps hedged ("from about 4:00 to around 5:00"), or a bare
# "00:01:00-00:01:30" (the tool-argument form). A bare "9:00-17:00" may be opening hours, not the video.
_HEDGE = r"(?:[^\s\d:]+\s+)?"
"""a word before either end of a range, however the end is qualified ("from around 4:00 to 5:00")"""
_VIDEO_RANGE = re.compile(
    rf"\b(?:between|from|at|during|in|over|within)\s+(?:the\s+)?{_HEDGE}({_CLOCK})\s*(?:and|to|until|till|-|–|—)\s*{_HEDGE}({_CLOCK})|"
    rf"(?<![\d:])({_HMS})\s*(?:-|–|—|to)\s*({_HMS})(?![\d:])",
    re.I,
)
# A moment of the video: "at the 3:20 mark", "around 1:05 into the video", "said at 0:07".
_VIDEO_POINT = re.compile(
    rf"\b(?:at|around|near)\s+(?:the\s+)?({_CLOCK})(?=\s*(?:mark|into|in the video|of the video))|"
    rf"\b(?:said|says|say|spoken|heard|shown|written|displayed|happens|happening|on screen|on-screen)\s+(?:\w+\s+)?(?:at|around)\s+({_CLOCK})\b|"
    # "what's that sound at about 0:58?": a sound is placed in the video, not on a clock
    rf"\b(?:sound|sounds|noise|noises|music|hear|hearing|heard)\b[^?,]{{0,20}}?\b(?:at|around|near)\s+(?:about\s+|roughly\s+|approximately\s+|around\s+)?"
    rf"(?:the\s+)?({_CLOCK}|\d{{1,4}}(?=\s*(?:s|sec|secs|seconds?)\s+(?:mark|in)\b))|"
    # "around 0:16", "at 00:42": no time of day is written with a zero hour, and "around" a clock time
    # is how a viewer points into the video ("at 9:00" may be a schedule's, "around 9:00" rarely is)
    rf"\b(?:around|near|about|approximately|roughly)\s+(?:the\s+)?({_CLOCK})(?!\s*(?:am|pm|a\.m|p\.m|o'?clock)\b)|"
    rf"(?<![\d:])(0?0:\d{{2}}(?::\d{{2}})?)\b|"
    # "about 11 seconds in", "at the 40 second mark": a count of seconds into the video
    rf"\b(\d{{1,4}})\s*(?:s|sec|secs|seconds?)\s+(?:in|into)\b|\b(\d{{1,4}})[\s-]*(?:s|sec|second)\s+mark\b",
    re.I,
)
_MINUTE = re.compile(r"\b(?:at|around|in|during)\s+(?:the\s+)?minute\s+(\d+)|\b(\d+)\s+minutes?\s+(?:in|into)\b", re.I)
_FIRST_LAST = re.compile(r"\b(first|last|final)\s+(\d+|" + "|".join(NUMBER_WORDS) + r"|)\s*(seconds?|minutes?)\b", re.I)
""""the first 2 minutes", "the last thirty seconds", "the first minute" (one)"""
ATTRIBUTE_WORDS = {"price", "cost", "revenue", "population", "growth", "weight", "height", "speed", "score", "sales",
                   "budget", "salary", "capacity", "length", "distance", "age", "temperature", "duration"}
DURATION_TOKENS = frozenset(tokenize("long last lasts lasting take takes run runs seconds minutes hours stay stays remain remains"))
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|he|him|his|she|her|hers|that|this|those|these)\b", re.I)
_POINTER = (r"\b(?:that|this|those|these|his|her|their|its)\s+(?P<pointed>person|man|woman|one|ones|people|sound|noise|line|song|tune|part|speech|moment|"
            r"name|place|company|thing|word|words|piece|reading|poem|passage|clip|scene|shot|text|card|title|caption|credit|credits|"
            r"slide|sign|label|message|note|notice|dialog|pop-up|popup|window|screen|button|setting|option|choice|menu|logo|role|job|"
            r"quote|phrase|sentence|question|announcement|event)\b")
_BACK = re.compile(
    _POINTER + r"|\b(?:it|its|they|them|their|he|him|his|she|her|hers)\b|"
    r"\b(?:after|before|about|of|at|from|like) (?:that|this)\b|^\s*(?:and|also|then|so|what about|how about)\b|\bwhich one\b|\bthe same\b|\bthen\s*\??$",
    re.I,
)
_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "2nd": 2, "3rd": 3, "4th": 4,
             "5th": 5, "6th": 6, "7th": 7, "8th": 8}
_PLACE_IN_ORDER = {**_ORDINALS, "first": 1, "last": -1}
"""an ordinal on a noun that picks one of several in order ("the last dialog", "the first one"): -1 is the last"""
_NTH = r"(?P<n>" + "|".join(_ORDINALS) + r")"
_PART_OR_WORK = r"(?:" + _PART + r"|text|book|work)"
_ORDINAL = re.compile(r"\b" + _NTH + r"\s+(?:[a-z]+\s+)?" + _PART_OR_WORK + r"\b(?:\s+(?:that|which)\s+(?:is|was|gets)\s+(?:read|shown|played|heard))?", re.I)
"""a part of the video by its place in the order of parts ("the second text that is read")"""
_ORDINAL_SAID_AFTER = re.compile(r"\b(?:which|what)\s+" + _PART_OR_WORK + r"\s+(?:comes?|came|is|was|gets?)"
                                 r"(?:\s+(?:read|shown|played|heard|performed|presented|sung))?\s+" + _NTH + r"\b", re.I)
"""the same, with the place said after the part ("which reading comes third?")"""
_COMES = r"\b(?:appears?|appeared|shows? up|showed up|(?:is|are|was|were|gets?) (?:shown|seen|displayed|heard|said|written|read|played|sung|performed|presented)|comes? up|came up|comes?|came)\s+{}\b"
"""something that comes first (or last): "what text appears first?" places the question at the start"""
_POSITION_START = re.compile(
    r"\b(?:at|in|near|from|towards?)\s+the\s+(?:very\s+)?(?:start|beginning|outset|opening)\b(?!\s+of\b)|\bopening\b|\bopens?\s+the\s+(?:video|film|clip|show)\b|"
    r"\b(?:starts?|begins?)\s+the\s+(?:video|film|clip)\b|\bfirst\s+(?:" + _PART + r"|thing)\b|\bintro(?:duction)?\b|" + _COMES.format("first"),
    re.I,
)
_NAMED_EDGE = re.compile(r"\b(?:the|its)\s+(?P<name>(?:[A-Z][\w'’.-]*\s+){1,3})(?P<edge>opening|beginning|intro|introduction|ending|close)\b")
"""the edge of a named part ("the Dickens opening"): where in that part, not where in the video"""
_POSITION_END = re.compile(
    r"\b(?:at|in|near|towards?)\s+the\s+(?:very\s+)?(?:end|close|finish)\b(?!\s+of\s+(?!the\s+(?:video|film|clip|movie)\b))|\bclosing\b|\bend credits\b|\b(?:last|final)\s+(?:" + _PART + r"|thing|words?)\b|"
    r"\bends?\s+the\s+(?:video|film|clip)\b|\boutro\b|" + _COMES.format("last"),
    re.I,
)
_SCOPE_PATTERNS = (
    # "in the Lowry reading", "summarise the Okafor clip", "the Marlow excerpt"
    re.compile(rf"\b(?:the|this|that)\s+(?P<scope>(?:[\w'’.-]+\s+){{0,4}}?(?:{_PART}))\b", re.I),
    # "according to the Marlow excerpt, ..."
    re.compile(r"\baccording to (?:the\s+)?(?P<scope>[^,?.]+?)(?:,|\?|$|\s+(?:what|who|how|when|where|which|why|is|are|does|did)\b)", re.I),
    # "what does the sonnet say", "what does Okafor urge"
    re.compile(r"\b(?:what|how|who|whom|which)\s+(?:\w+\s+)?(?:does|did|do)\s+(?P<scope>(?:the\s+)?[\w'’.-]+(?:\s+[A-Z][\w'’.-]+)?)\s+"
               r"(?:say|says|mention|describe|call|calls|urge|urges|claim|argue|tell|ask|address|addressing|pin|list|compare|deliver|recite|quote|utter)\b", re.I),
    # "sum up what Brandt says", "what Okafor argues": the speaker is where to look
    re.compile(r"\bwhat\s+(?P<scope>[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)?)\s+(?:says|said|mentions|describes|argues|claims|urges|asks|tells|talks about)\b"),
    # "the famous line Kennedy delivers", "the words the narrator repeats": who says them is where to look
    re.compile(r"\b(?:line|lines|words|quote|quotation|phrase|sentence|saying)\s+(?:that\s+)?(?P<scope>(?:the\s+)?[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)?)\s+"
               r"(?:says|said|delivers|delivered|speaks|spoke|utters|uttered|recites|recited|repeats|repeated|quotes|quoted|reads|read)\b"),
    # "the poem calls ...", "the narrator pins ..."
    re.compile(r"^\s*(?:the\s+)?(?P<scope>(?:[\w'’.-]+\s+){0,2}?(?:" + _PART + r"))\s+(?:calls|says|mentions|describes|compares|claims|tells)\b", re.I),
)
_NOT_A_SCOPE = {"the video", "this video", "the clip", "this clip", "the speaker", "the narrator", "the user", "the video say",
                "you", "i", "we", "they", "he", "she", "it", "the film", "this film", "the movie", "the reader", "the person"}
_PART_ABOUT = re.compile(r"\bwhat(?:'s| is| was) (?:the |this |that )?[\w' -]{1,40}? about\s*\??$", re.I)  # "what is the sonnet about?"
_VOICE_SAYS = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+(?:does|did|do|will)\s+(?:the (?:presenter|narrator|speaker|host|voice|commentator|reader|announcer)|he|she|they)\s+"
                         r"(?:say|mention|talk|explain|describe)\b")
_BETWEEN = re.compile(r"\bbetween\s+(?:the\s+)?(?P<a>[^?,]+?)\s+and\s+(?:the\s+)?(?P<b>[^?,]+?)(?:\?|,|$)", re.I)
_WHICH_FIRST = (
    re.compile(r"\b(?:which|what)\b[^,?]{0,30}?\b(?:first|earlier|sooner)\b[,:]?\s*(?P<a>[^?]+?)\s+or\s+(?P<b>[^?]+?)\s*\??$", re.I),
    re.compile(r"^\s*(?:is|are|was|were)\s+(?P<a>[^?]+?)\s+(?:before or after|after or before)\s+(?P<b>[^?]+?)\s*\??$", re.I),
    re.compile(r"^\s*(?:does|do|did)\s+(?P<a>[^?]+?)\s+(?:come|happen|play|appear|start|begin|ring|sound|occur|run)\s+"
               r"(?:before or after|after or before|before|earlier than)\s+(?P<b>[^?]+?)\s*\??$", re.I),
)
"""two things whose order is asked ("which comes first, A or B?", "is A before or after B?", "does A come before B?")"""
_OPENING_RELATION = re.compile(r"^\s*(?:right\s+|just\s+)?(after|before)\s+([^,?]+),", re.I)
"""a clause that opens a question with the moment it is about: "After the host stops talking, ..." """
_RELATIVE = re.compile(
    r"\b(?P<close>right\s+|just\s+|immediately\s+|shortly\s+|directly\s+)?(?P<rel>after|before|following|preceding)\s+"
    r"(?P<what>(?:the\s+)?[^?,]+?)(?:\?|,|\.(?:\s|$)|$)", re.I
)
# A part named by what someone says in it: "the speaker finishes talking about X", "she mentions X".
_SAID_PART = re.compile(
    r"^(?:(?:the\s+)?(?:speaker|narrator|presenter|host|reader|lecturer|teacher|he|she|they|someone|we|you|i)\s+)?"
    r"(?:(?:has\s+)?(?:finish(?:es|ed)?|stops?|stopped|is done|starts?|started|begins?|began)\s+)?"
    r"(?:(?:talk|speak)(?:s|ing|ed)?\s+about|spoke\s+about|mention(?:s|ed|ing)?|say(?:s|ing)?|said|"
    r"discuss(?:es|ed|ing)?|explain(?:s|ed|ing)?|describ(?:es|ed|ing))\s+(?P<what>.+)$",
    re.I,
)
# "when they search, what is the file called?": a clause that places the question, then the question
_WHEN_CLAUSE = re.compile(r"^\s*(?:and\s+|so\s+|ok\s+)?(?:when|once|whenever|as soon as)\b[^?]*?(?:,|\s[-–—:])\s*(?:then\s+|so\s+)?"
                          r"(?=(?:what(?:'?s)?|which|who|whose|how|where)\b)", re.I)
# "after they hit apply a box pops up - what are its buttons?": any clause, then a separator, then the question
_LEADING_CLAUSE = re.compile(r"^(?P<lead>[^?]+?)(?:,|\s[-–—:;])\s*(?:then\s+|so\s+|but\s+)?"
                             r"(?=(?:what(?:'?s)?|which|who|whose|how|where|when)\b)", re.I)
_MOMENT_ASK = re.compile(
    r"^\s*(?:and\s+)?(?:when\b|at what (?:time|point|moment|minute|second)\b|at which (?:point|moment|time)\b|what time (?:in the video|into)\b|"
    r"how far (?:in|into)\b|how long into\b|how many (?:seconds|minutes|secs|mins) (?:in|into)\b|what(?:'s| is) the timestamp\b|where in the (?:video|clip|film)\b)",
    re.I,
)
_START_VERBS = re.compile(r"\b(?:start|starts|started|begin|begins|began|open|opens|opened|appear|appears|appeared|come up|comes up|"
                          r"show up|shows up|first|switched|turned|pop up|pops up|play|plays|kick off|kicks off)\b", re.I)
_END_VERBS = re.compile(r"\b(?:end|ends|ended|finish|finishes|finished|stop|stops|stopped|close|closes|closed|disappear|disappears)\b", re.I)
_OVERVIEW = re.compile(
    r"\bwhat(?:'s| is| was)? (?:this|the) (?:whole |entire )?(?:video|clip|film|movie|cartoon|animation|recording)(?!['’]s\b)(?: (?:about|showing|demonstrating|explaining|teaching))?\b\??|"
    r"\bwhat (?:is|does) (?:this|the) (?:video|clip|film|movie|recording) (?:about|show|demonstrate|explain|teach|cover)\b|"
    r"\b(?:rundown|overview|outline|synopsis|recap|gist|summary|summari[sz]e|sum up|main points|key points)\b|"
    r"\bwhat (?:\w+ )?(?:happens|is happening|goes on) in (?:this|the) (?:video|clip|film|movie|cartoon|animation|short)\b|\bwhat(?:'s| is) (?:in|on) (?:this|the) (?:video|clip)\b|"
    r"\bwhat (?:does|did) (?:the|this) (?:user|person|presenter|speaker|host) (?:do|show|demonstrate)\b.*\b(?:video|clip|screencast|recording|tutorial)\b|"
    r"\bdescribe\b.*\b(?:video|clip|screencast|recording|tutorial|film)\b|"
    r"\bwalk (?:me|us) through\b|\bstep[- ]by[- ]step\b|\bwhat (?:are )?the steps\b|"
    r"\bwhat(?:'s| is) (?:in|on) (?:this|the) (?:\w+ ){0,2}(?:video|clip|screencast|recording|tutorial|film|movie|credits|part|section|reading)\b|"
    r"\b(?:plot|storyline) (?:of|in) (?:this|the) (?:\w+ )?(?:video|clip|film|movie|cartoon|animation|short|episode)\b|"
    r"\bwhat(?:'s| is) the (?:plot|storyline)\b|\bin (?:a )?(?:few|couple of|one|two|three|four|five)(?: or (?:two|three|four|five))? (?:sentences|lines)\b",
    re.I,
)
_COUNT_NAMES = re.compile(r"\bhow many (?:people|persons|names|members|artists|speakers|contributors|credits)\b.*\b(?:named|listed|credited)\b|\bhow many names\b", re.I)
_COUNT_MENTIONS = re.compile(r"\bhow (?:many times|often)\b.*\b(?:mention\w*|say|says|said|shown|appear\w*|heard|come up|comes up)\b", re.I)
_COUNTED_PARTS = sorted(set(PART_NOUNS) - {"parts", "readings", "scene", "clip", "verse", "track"} | {"text", "work", "book", "title"}, key=len, reverse=True)
_COUNT_PARTS = re.compile(r"\bhow many (?:of (?:the|these|those) )?(?:different |separate |distinct )?(?:" + "|".join(_COUNTED_PARTS)
                          + r")(?:es|s)?\b(?! of\b)", re.I)
"""how many parts the video has ("how many readings are there?"), counted from its on-screen titles"""
_LISTED_PARTS = "|".join(sorted(set(_COUNTED_PARTS) - {"text", "title"} | {"author", "writer", "poet", "composer", "novel"}, key=len, reverse=True))
_LIST_PARTS = re.compile(r"\b(?:what|which)\s+(?:different\s+|separate\s+)?(?:" + _LISTED_PARTS + r")(?:es|s)\s+(?:are|were)\b(?!\s+(?:about|said)\b)|"
                         r"\blist (?:all |each |every )?(?:of )?the (?:" + _LISTED_PARTS + r")(?:es|s)\b", re.I)
"""which parts the video has ("what readings are in the video?", "which authors are featured?"): the
parts are counted and listed the same way, by their on-screen titles"""
_EDGE_FIRST = r"first|at first|to begin with|at the (?:very )?(?:start|beginning)|in the beginning"
_EDGE_LAST = r"last|final|at the (?:very )?end|in the end|finally"
_SEQUENCE = re.compile(r"\bwhat(?:'s|\s+is|\s+was)?\s+the\s+(?:very\s+)?(?:(?P<first>first)|last|final)\s+thing\b|"
                       r"\bwhat\s+(?:happens|happened|is shown|is said|appears|comes up|does (?:the |a |this )?\w+ do|did (?:the |a |this )?\w+ do)\b"
                       r".*?\b(?:(?P<first2>" + _EDGE_FIRST + r")|" + _EDGE_LAST + r")\b", re.I)
_ACTORS = frozenset(tokenize("user person presenter speaker host narrator someone they man woman people viewer thing happen happens happened "
                             "shown said appear appears come comes first last final start beginning end finally very video clip"))
"""what a question of what happens first or last is worded with, beside the edge: no thing to look for"""
_MANY = re.compile(r"\b(?:people|persons|everyone|everybody|names|list|name (?:all|the|every|each)|who (?:are|were) (?:all )?the \w+s|"
                   r"(?:what|which) (?:two|three|four|five|both)(?: \w+){0,2} (?:\w+s|people)\b|what (?:are|were) the (?:\w+ )?\w+s\b|"
                   r"(?:what|which) (?:two|three|four|five|both)\s*\?)", re.I)
"""a question that asks for every answer there is, not the best one"""
_SUPERLATIVES = {"shortest": "shortest", "briefest": "shortest", "longest": "longest", "oldest": "oldest", "newest": "newest",
                 "most recent": "newest"}
_COMPARED_PARTS = "|".join(sorted(set(_COUNTED_PARTS) - {"text", "title"} | {"one", "novel", "clip"}, key=len, reverse=True))
_MOST = "|".join(_SUPERLATIVES)
_COMPARE_PARTS = re.compile(r"\b(?:which|what)\s+(?:of\s+(?:the|these|those)\s+)?(?:" + _COMPARED_PARTS + r")(?:es|s)?\b(?:\s+\w+){0,3}?\s+"
                            r"(?:is|was|are|were|runs?|ran|lasts?|lasted|takes?|took|goes\s+on|went\s+on)\s+(?:for\s+)?(?:the\s+)?(?P<most>" + _MOST + r")\b|"
                            r"\b(?:which|what|how long)(?:'s|\s+is|\s+was)\s+the\s+(?P<most2>" + _MOST + r")\s+(?:of\s+the\s+)?(?:" + _COMPARED_PARTS + r")", re.I)
"""which part stands out by its length or its year ("which of the readings is the shortest?",
"what's the oldest work in the video?"): the parts are found by their on-screen titles and compared"""
_ROLE_OF = re.compile(r"\b(?:job|jobs|role|roles|position|function|task|tasks|responsibilit(?:y|ies)|credited (?:for|as|with)|"
                      r"responsible for|in charge of)\b|\bwhat (?:did|does|do) .{2,60}? do\b|"
                      r"\b(?:show|shows|turn|turns|pop|pops) up\b.*\b(?:anywhere|somewhere) else\b|"
                      r"\b(?:appear|appears|listed|named|credited|mentioned)\b.*\b(?:anywhere|somewhere) else\b", re.I)
"""asks what a person did: "what was Ada Brook's job?", "what is Ada Brook credited for?", "does he
show up anywhere else in the credits?" """
_PERSON_ROLE = re.compile(r"\b(?:narrator|reader|speaker|presenter|host|author|writer|director|producer|composer|singer|"
                          r"designer|creator|owner|user|interviewer|guest|actor|voice)\b", re.I)
_ROLE_VERBS = {"voiced": "voice", "voices": "voice", "narrated": "narrator", "narrates": "narrator", "sang": "singer", "sings": "singer",
               "reads": "reader", "read": "reader",
               "composed": "composer", "directed": "director", "produced": "producer"}
_PERSON_DOING = re.compile(r"\bwho\s+(?:\w+\s+)?(?P<verb>" + "|".join(_ROLE_VERBS) + r")\b", re.I)
"""a role asked for by what the person did ("who voiced the bunny?"), as its noun"""


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
    """the words that carry meaning, in order (the scope's words too)"""
    wants: set[str] = field(default_factory=set)
    answer_type: str | None = None
    wh: str = "other"
    operation: str | None = None
    operands: list[str] = field(default_factory=list)
    time_range: tuple[float, float] | None = None
    """a stretch the question names by clock time; a negative start counts from the end (last N minutes)"""
    moment: float | None = None  # the single moment a question names ("around 0:50"), inside time_range
    quoted: list[str] = field(default_factory=list)
    scope: str | None = None
    """a named part of the video to look in: "the Lowry reading", "Okafor" """
    position: str | None = None  # start | end: the part of the video the question places itself in
    relation: str | None = None  # after | before
    relation_to: str | None = None  # what the relation is relative to ("the Lowry passage ends")
    relation_said: bool = False  # ... named as something said ("after she talks about X"): its edge is in the speech
    relation_close: bool = False  # "just before", "right after": next to the edge, not anywhere on that side
    relation_to_title: bool = False  # "the text before the title": relative to when the title (the opening's biggest text) is up
    asks_character: bool = False  # "how is he described?", "is he a bad guy?": what a person is like (``qa.describing``)
    between: tuple[str, str] | None = None
    first_of: tuple[str, str] | None = None  # "which comes first, the bell or the creak?": the two things to put in order
    asks_moment: bool = False  # the answer is a moment of the video ("when does X start?")
    moment_edge: str = "start"  # start | end: which edge of the thing the moment is asked for
    appearing: bool = False  # the moment asked for is when something comes or goes, not when something is done to it
    refers_back: bool = False  # a pronoun points at the previous turn ("when does it start?")
    pointed: str | None = None  # the kind of thing a demonstrative points back at ("when does that credit appear?")
    pronoun: bool = False  # ... a pronoun proper, not only a leading "and" ("and who did the music?")
    follow_up: bool = False  # ... or the question has too few words of its own to stand alone
    carried: list[str] = field(default_factory=list)  # the topic a follow-up placed by time keeps for the next one
    visual_only: bool = False  # about what things look like
    overview: bool = False  # what the video (or a named part of it) is about
    summary_length: str = "medium"  # short | medium | long: how long an overview the question asks for
    count: str | None = None  # names | mentions | parts: "how many people are named", "how many times is X said", "how many readings"
    many: bool = False  # asks for everyone or everything that answers ("name the people credited with ...")
    sequence: str | None = None  # first | last: what happens first (or last) in the video, with nothing else asked ("what does the user do first?")
    compare: str | None = None  # shortest | longest | oldest | newest: the part that stands out ("which reading is the shortest?")
    role: str | None = None  # "narrator", "director": the role a person question asks about
    role_of: bool = False  # what the person the question names did ("what was Ada Brook's job?"): the label of their name
    excludes_previous: bool = False  # "what ELSE ...": not what the last answer already said
    besides: str | None = None  # "besides the bell, what else ...": what the answer is not
    order: str | None = None  # "earliest" ("what was it set to at first?") or "latest" ("in the end")
    asks_a_question: bool = False  # "what does the dialog ask?": a line that is itself a question answers
    owner: str | None = None  # "the Basic and Pro plans of CloudBox" -> "CloudBox"
    asked_for: str | None = None  # "Which room ...", "From which gate ...": the attribute asked about
    asks_title: bool = False  # about a title (the biggest text on screen)
    item_nth: int | None = None  # "the second monitor" (2): one of the things a settings panel describes, counted in the order they came up
    popup_nth: int | None = None  # "the first tooltip" (1), "the second tooltip" (2), "the last pop-up" (-1): which pop-up, in time
    asked: str = ""  # the question proper, after a clause that only places it ("after they hit apply a box pops up - what are its buttons?")
    video_title: bool = False  # ... the video's own title
    credits: bool = False  # about the credits (the run of names and roles shown at the end or the start)
    addressee: bool = False  # whom a speaker talks to ("who is she addressing?"): the listeners they name
    author: bool = False  # "whose novel ...": the person a work is by, as its title card names them
    words_at: str | None = None  # start | end: "how does the passage begin?", "what are its last words?"
    ordinal: int | None = None  # "the third reading": the video's parts counted in order (2 and on; first and last are positions; -1, "the last one" after a question about parts, is the last)
    placed: Placed | None = None  # "is the Acer one left or right of the laptop?": the two things on screen it relates
    intent: Intent | None = None

    @property
    def attributes(self) -> list[str]:
        return [w for w in self.keywords if w.lower() in ATTRIBUTE_WORDS]

    @property
    def names_a_sound(self) -> bool:
        """It asks about a sound, not about silence ("what sound", "which noise")."""
        words = set(re.findall(r"[a-z]+", self.text.lower()))
        return bool(sound_words(self.text) - {"hear", "heard", "audio", "loud"} - SILENCE_WORDS) and not words & SILENCE_WORDS

    @property
    def names_silence(self) -> bool:
        """It asks about a silence ("how long is the pause?")."""
        return bool(set(re.findall(r"[a-z]+", self.text.lower())) & SILENCE_WORDS)

    @property
    def subject(self) -> list[str]:
        """Keywords without the words that only say where to look ("said", "screen", "sound"):
        empty for "what is said between 0:30 and 0:45?". A sound word is the subject when the question
        is not about listening ("who did the music?")."""
        where = INTENT_WORDS if "audio" in self.wants or self.answer_type not in NOT_HEARD else INTENT_WORDS - AUDIO_WORDS
        if "audio" not in self.wants and re.search(r"\bcredit(?:s|ed|ing)?\b", self.text, re.I):
            where = where - AUDIO_WORDS  # "the card crediting the music and sound design": what is credited, not where to listen
        if self.answer_type == "person":  # "who did the logo and poster design?": the logo is what someone made, not where to look
            where = where - _MADE_THINGS
        if made := _MADE.search(self.text):  # "who designed the logo?": the logo is what is asked about, not where to look
            where = where - set(re.findall(r"[a-z-]+", self.text[made.end() :].lower()))
        return [w for w in self.keywords if w.lower() not in where]

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
        """The search tokens of the question's own words (none for "what was said at 1:00?")."""
        tokens = set(tokenize(" ".join(self.keywords if "audio" in self.wants and self.relation is None else self.topic)))
        if self.answer_type == "duration":  # "how long does it last": the words only ask for a length
            tokens -= DURATION_TOKENS
        if self.video_title:  # "when does the film's title come up": no word of it is in the title itself
            tokens -= _TITLE_TOKENS
        return tokens

    @property
    def scope_tokens(self) -> set[str]:
        """The words of the part the question names, and of what it is placed relative to."""
        scope = set(tokenize(self.scope or "")) | set(tokenize(self.relation_to or ""))
        for part in self.between or ():
            scope |= set(tokenize(part))
        return scope

    @property
    def focus_tokens(self) -> set[str]:
        """The question's words without those of the part it names (they say where, not what)."""
        return (self.tokens - self.scope_tokens) or self.tokens

    @property
    def asked_tokens(self) -> set[str]:
        """The tokens of the question proper (see ``asked``), else all of the question's."""
        return set(tokenize(self.asked)) or self.tokens

    @property
    def names_popup(self) -> bool:
        """Whether the question is about text that came up over a window ("the pop-up", "the dialog"),
        without quoting it ("when does the 'Drag to change' tip pop up?" finds it by its words)."""
        # something that pops up is a pop-up when it is what is asked for, or has the buttons asked for
        # a quote names the pop-up itself, unless what is asked is one of its choices ("the buttons on the 'Save changes?' dialog")
        return (bool(_POPUP_NOUN.search(self.text)) or _pops_up(self.text, asked=self.asked_for != "button")) \
            and (not self.quoted or bool(set(tokenize(self.asked_for or "")) & CHOICE_TOKENS))

    @property
    def required_tokens(self) -> set[str]:
        """The words an answering line should hold: the question's own words, without those that
        only say what kind of answer is wanted ("date", "which flower") or where to look."""
        asked = set(tokenize(self.asked_for or ""))
        return self.focus_tokens - TYPE_WORDS - asked


_CLOCK_WORD = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?(?:-\d{1,2}:\d{2}(?::\d{2})?)?")


_NEGATED = re.compile(r"(?:do|does|did|is|are|was|were|has|have|had|ca|wo|would|could|should|must)n['’]t")
"""an auxiliary with "not" ("doesn't", "won't"): a function word like the auxiliary itself"""


def content_words(text: str) -> list[str]:
    """The words that carry meaning, in order, without stop- and question-words."""
    words = re.findall(r"[A-Za-z0-9$€£][\w.$€£%:'’-]*", text)
    # "times" asks for a product ("3 times the price") or a count ("how many times"); else it is a word ("the best of times")
    counted = _MULTIPLIED.search(text.lower()) or re.search(r"\bhow many times\b", text, re.I)
    operation_words = OPERATION_WORDS if counted else OPERATION_WORDS - {"times"}
    # a pronoun in chat's spelling ("what does it warn u about") is no more content than "you"
    pronouns = {t.lower_ for t in parse(text) if t.pos_ == "PRON"}
    out = []
    for w in words:
        bare = w.strip(".,:'’").lower()
        bare = re.sub(r"['’]s$", "", bare)
        if not bare or bare in STOPWORDS or bare in pronouns or _NEGATED.fullmatch(bare) or bare in operation_words or bare in FILLER_WORDS \
                or _CLOCK_WORD.fullmatch(bare) or _question_word(bare):
            continue  # a clock time says where to look, not what to look for
        out.append(re.sub(r"['’]s$", "", w.strip(".,'’?")))
    return out


# The kind of answer a question asks for, by the first pattern it matches (in this order).
_POPUP_NOUN = re.compile(r"\b(?:pop-?ups?|dialogs?|prompts?|alerts?|notifications?|confirmations?)\b(?!\s+(?:up|the|a|an|you|me|us|them|him|her)\b)", re.I)
"""a pop-up named as a thing, not the verb ("the tip pops up", "prompts you")"""
_ANSWER_TYPES = tuple((kind, re.compile(pattern)) for kind, pattern in (
    ("money", r"\bprices?\b|\bcost(?:s|ing)?\b|\bpaid\b|\bpay\b|\bspen[dt]|\bcharge[sd]?\b|\bworth\b|\bfees?\b|\bbudget\b|\$|"
              r"\b(?:sells?|sold|went|goes) for\b|\bhow much (?:did|does|do|will|would) .{1,60}\b(?:sell|earn|make|raise|fetch|gross)\b"),  # not "Costa"
    ("percent", r"\bpercent|\bpercentage\b|%|\bdiscount|\bgrow|\bgrew\b|\bgrowth\b|\brate\b|\b(?:market|revenue|audience|user|mobile|pie) share\b|\bshare of\b|\bturnover\b|\bhow much\b.{0,40}\bsav(?:e|es|ed|ing)\b"),
    ("url", r"\b(?:web ?(?:sites?|address(?:es)?|pages?)|urls?|links?|homepages?)\b"),
    ("duration", r"\bhow many (?:seconds|minutes|hours)\b(?:.*\b(?:last|lasts|long|run|runs|take|takes)\b|\s+(?:is|was) (?:the|this|it)\b)"),
    ("number", r"\bhow much\b|\bhow many\b|\bnumber of\b|\bcount\b"),
    ("time", r"\bwhat time\b|\bdepart|\barriv"),
    # "when was the novel published?", "when was the speech given?": a date in history, not a moment of the video
    ("date", r"\bwhen (?:was|were|did)\b[^?]*\b(?:published|written|write|born|founded|released|given|delivered|built|painted|composed|"
             r"premiered|established|invented|signed|printed|recorded|died|die|publish)\b"),
    ("when", r"\bwhen\b"),
    ("date", r"\bwhat year\b|\bwhich year\b|\bin what year\b|\bdate\b|\bwhich day\b|\bwhat day\b"),
    ("person", r"^\s*(?:and\s+)?who\b|\bwho\b|\bwhose\b|\bwhom\b|\b(?:which|what) (?:character|person|man|woman|people|persons)\b|\bname of the (?:person|speaker|designer|host|presenter|man|woman|narrator|user|owner|author|artist|character|guest|reporter|instructor)\b|"
               r"\bwhat(?:'s| is) (?:his|her|their) name\b|\bwhat(?:'s| is) the name of the (?:man|woman|person|boy|girl)\b"),
    ("place", r"^\s*where\b|\b(?:which|what) (?:city|country|town|state|region|province|village|capital|continent)\b|\blocation\b|"
              r"\bwhere (?:was|were|is|are)\b"),
    ("duration", r"\bhow long\b"),
    ("number", r"\bhow old\b|\bwhat number\b|\bwhich number\b|\bhow far\b|\bhow tall\b|\bhow big\b|\bhow large\b|\bwhat size\b|\bhow heavy\b"),
    ("entity", r"\bwhich\s+(?!one\b)[a-z]+|\bwhat\s+(?!is\b|are\b|was\b|were\b|does\b|do\b|did\b|can\b|happens?\b|about\b|else\b)[a-z]+\s+(?:is|are|was|were|does|do|did)\b"),
))


# A sound never states a name, a place, a date or an address: "who did the music?", "where was the
# sound mixing done?" are answered by the credits, not by listening.
NOT_HEARD = {"person", "place", "url", "date"}
_TITLE_WORD = re.compile(r"\b(?:title|titles|title card|heading|headline)\b")
TITLE_TOKENS = frozenset(tokenize("title titles heading headline card cards"))
"""what asks for a title: the kind of line wanted, not words the title holds"""
_VIDEO_TITLE = re.compile(r"\b(?:the|its|this)\s+(?:(?:film|video|movie|show|clip|episode|series)(?:'s)?\s+)?title\b(?!\s+of\s+(?!(?:the|this)\s+(?:film|video|movie|show|clip)))")
_NAME_OF_WORK = re.compile(r"\b(?:the )?name of (?:the|this) (?:film|video|movie|show|clip|episode|series)\b|"
                           r"\bwhat(?:'s| is) (?:the|this) (?:film|video|movie|show|clip|episode|series) (?:called|named|titled)\b|"
                           r"\bwhat(?:'s| is) it (?:called|named|titled)\b")
# Verbs of making something: what follows them is the thing made, even a word that otherwise only
# says where to look ("who designed the logo", "which studio produced the title sequence")
_MADE_THINGS = {"logo", "logos", "poster", "posters", "banner", "banners", "chart", "website", "titles", "captions", "menu"}
_MADE = re.compile(r"\b(?:design(?:ed|s)?|creat(?:ed|es?)|made|makes?|drew|draws?|drawn|paint(?:ed|s)?|produc(?:ed|es?)|"
                   r"compos(?:ed|es?)|buil[dt]s?|illustrat(?:ed|es?)|animat(?:ed|es?)|craft(?:ed|s)?)\b", re.I)
_TITLE_TOKENS = frozenset(tokenize("title card film video movie show clip episode series come comes appear appears shown displayed"))
# "what is the third chapter called?", "what's the song titled?": the same as asking for its title;
# the verb is no word the answer holds
_CALLED = re.compile(r"\bwhat(?:'s| is| was| are| were)\b[^?]*?\s(?P<verb>called|named|titled|entitled)\s*(?:\?|$)")
_ADDRESSEE = re.compile(  # "who is she addressing?", "who does he speak to?": the object asked, not the speaker
    r"\bwho(?:m)?\s+(?:is|was|are|were|does|did|do|will)\s+(?!(?:talking|speaking|addressing)\b)[^?]*?"
    r"\b(?:address(?:es|ing|ed)?|talk(?:s|ing|ed)? to|speak(?:s|ing)? to|spoke to)\b(?!\s+(?:the|a|an|his|her|their|our|my)\b)|\bto whom\b")
_AUTHOR = re.compile(r"\bwhose\s+(?:\w+\s+)?(?:novel|book|poem|story|text|work|song|play|essay|article|letter|painting|"
                     + _PART + r")s?\b")
# (with "this", the one being watched, a word may say what kind it is: "this screen recording", "this short film")
_IN_THE_VIDEO = re.compile(r"\b(?:(?:in|throughout|during|of|for|from) )?(?:the (?:whole |entire )?|this (?:whole |entire |(?P<kind>[a-zA-Z]+) )?)"
                           r"(?:video|film|movie|clip|recording)\b(?!'s)", re.I)


def _kind_of_video(m: re.Match) -> str | None:
    """The word that says what kind the video mentioned by ``m`` is ("screen" in "this screen
    recording"); None where there is none, or it is a name ("this Austen recording" is a part)."""
    return m["kind"] if m["kind"] and not is_name_word(m["kind"]) else None


def _no_video(m: re.Match) -> str:
    """Nothing for a mention of the video itself: it is no topic."""
    return m[0] if m["kind"] and _kind_of_video(m) is None else " "


def _medium_only(m: re.Match) -> str:
    """A mention of the video without the word saying what kind it is ("this screen recording": "this
    recording"): what is asked about it is read the same whatever it is called."""
    return m[0] if not _kind_of_video(m) else m[0][: m.start("kind") - m.start()] + m[0][m.end("kind") - m.start() + 1 :]


_NEAR_EDGE = re.compile(r"\b(?:near|towards?|close to|around)\s+the\s+(?:very\s+)?(?:end|start|beginning|close)\b", re.I)
_WORDS_AT = re.compile(  # the words a part opens or closes with, not the moment it does
    r"\bhow (?:does|did|do) (?P<a>.+?) (?P<edge>begin|start|open|end|finish|close|conclude)\b(?!\s+(?:at|in|on)\b)|"
    r"\b(?P<edge2>first|opening|last|closing|final) (?:words?|lines?|sentences?)\b", re.I)
_CREDITS = re.compile(r"\bcredits\b|\bcredits? (?:roll|start|begin)")
_OPENING_CREDITS = re.compile(r"\b(?:opening|start(?:ing)?|beginning|first)\s+credits\b")
_WHAT_SOUND = re.compile(r"^\s*(?:and\s+)?(?:what|which)\s+(?:(?:kind|sort|type)s?\s+of\s+)?(?:sound|noise)s?\b")
_WH_CLAUSE = re.compile(r"^\s*(?:and\s+)?(?:what|which|who|whose|how)\b")


def _pops_up(text: str, asked: bool = True) -> bool:
    """Whether something "pops up" in ``text`` (the verb with its particle, as the parser reads it)
    and, with ``asked``, is what the question asks for (its subject holds the question word: "what
    hint pops up when they hover?"), so it is a pop-up, whatever it is called; "when does the title
    pop up?" asks when something appears, no pop-up."""
    doc = parse(text)
    for t in filter(_is_pop_up, doc):
        # (its subject; or the noun right before it, where the parser hung that noun on another verb)
        subjects = [s for s in t.children if s.dep_ in ("nsubj", "nsubjpass")] or [doc[t.i - 1]] * (t.i > 0 and doc[t.i - 1].pos_ == "NOUN")
        if not asked or any(w.tag_ in _WH_TAGS for s in subjects for w in s.subtree):
            return True
        # "a box pops up - what does it say?": said of it, then asked about "it", the thing that popped up
        # ("when does the title pop up?" asks no more of it)
        said = not any(w.tag_ in _WH_TAGS for w in t.subtree)
        if said and any(s.pos_ == "NOUN" for s in subjects) and any(w.lower_ == "it" and w.dep_ in ("nsubj", "nsubjpass") and w.i > t.i for w in doc):
            return True
    return False


def _is_pop_up(token) -> bool:
    """Whether a parsed token is the verb "pop" with its particle "up"."""
    return token.lemma_.lower() == "pop" and any(c.dep_ == "prt" and c.lower_ == "up" for c in token.children)


def _leading_topic(text: str) -> str | None:
    """The part a question names by a phrase set before it ("kennedy part - what does he say ...",
    "shakespeare poem: what do they hope never dies?"): a leading noun phrase with no verb, as the
    parser reads it; None otherwise."""
    if (m := _LEADING_CLAUSE.match(text)) is None:
        return None
    lead = parse(m["lead"].strip())
    root = next((t for t in lead if t.dep_ == "ROOT"), None)
    # a noun phrase ("kennedy part"), not a phrase that says how to answer ("in one or two sentences")
    if root is None or root.pos_ not in ("NOUN", "PROPN") or any(t.pos_ in ("VERB", "AUX") or t.tag_ in _WH_TAGS for t in lead):
        return None
    words = [t.text for t in lead if not (t.is_punct or t.pos_ in ("DET", "CCONJ", "INTJ"))]
    return " ".join(words) or None


def _leading_place(text: str) -> str | None:
    """The part a question names by a prepositional phrase it opens with, up to its first comma
    ("in the jane austen bit, if the guy had ... what does the narrator say ..."): the phrase's words
    after the preposition, when it opens with a definite or demonstrative determiner or a name, as
    the parser reads it (a preposition of time places the question against a part instead, see
    ``_relation``); None otherwise."""
    from ....qa.frame import TEMPORAL
    head, comma, rest = text.partition(",")
    if not comma or not rest.strip():
        return None
    lead = parse(head.strip())
    if len(lead) < 2 or lead[0].pos_ != "ADP" or lead[0].lower_ in TEMPORAL or any(t.pos_ in ("VERB", "AUX") or t.tag_ in _WH_TAGS for t in lead):
        return None
    # a part is a thing known to both ("the austen bit", "that scene", a name); "in one or two sentences",
    # "in a few words" say how to answer
    known = lead[1].pos_ == "PROPN" or lead[1].morph.get("Definite") == ["Def"] or "Dem" in lead[1].morph.get("PronType")
    if not known:
        return None
    words = [t.text for t in lead[1:] if not (t.is_punct or t.pos_ in ("DET", "CCONJ", "INTJ"))]
    return " ".join(words) if any(t.pos_ in ("NOUN", "PROPN") for t in lead) else None


def _popup_nth(text: str) -> tuple[int | None, str | None]:
    """Which pop-up a question names by its place in time ("the first little tooltip", "the second
    tooltip", "the last dialog"), and the word that says so: the ordinal the parser finds on a noun
    naming a pop-up; (None, None) when it names none."""
    for token in parse(text):
        # a noun for a pop-up, or the thing said to pop up ("the first little tooltip that pops up")
        popping = any(_is_pop_up(c) for c in token.children if c.dep_ == "relcl") or token.dep_ == "nsubj" and _is_pop_up(token.head)
        if token.pos_ == "NOUN" and (set(tokenize(token.text)) & POPUP_TOKENS or popping) and (nth := _ordinal_on(token)) is not None:
            return nth[0], nth[1].text
    return None, None


def _ordinal_on(noun) -> tuple[int, object] | None:
    """The place in order an ordinal modifying ``noun`` gives ("the second tooltip": 2; "first" 1,
    "last" -1), and the ordinal's token, as the parser reads it; None without one."""
    for child in noun.children:
        if child.dep_ == "amod" and child.lower_ in _PLACE_IN_ORDER:
            return _PLACE_IN_ORDER[child.lower_], child
    return None


def _main_question(text: str) -> str:
    """The question proper, as the parser reads it: the last sentence, when an earlier one only
    tells what happened ("after hitting apply a box asks if the display looks ok. what are its
    buttons?"); and from the question word of the main clause on, when the text opens with a
    subordinate "when" ("when they hover over the box what hint pops up"); else ``text``."""
    doc = parse(text)
    sentences = list(doc.sents)

    def asks(sentence) -> bool:  # opens as a question (a question word or an auxiliary first)
        first = next((t for t in sentence if not (t.is_punct or t.pos_ in ("CCONJ", "INTJ"))), None)
        return first is not None and (first.tag_ in _WH_TAGS or first.pos_ == "AUX")

    if len(sentences) > 1 and asks(sentences[-1]) and not any(asks(s) or s.text.rstrip().endswith("?") for s in sentences[:-1]):
        return text[sentences[-1].start_char:]  # (a question before it, "who narrates it? whats their name", is the question)
    opening = next((t for t in doc if t.pos_ not in ("CCONJ", "INTJ", "PUNCT")), None)
    # a subordinate "when ..." or a place ("on the kennedy title card where does it say ...") before the question word
    # (a "who" or "what" the parser hangs under a clause still asks: "who is the reader doing the dickens
    # passage, whats their name?" asks who; a subordinate clause opens with an adverb, "when", "where")
    if opening is None or not (opening.tag_ == "WRB" and opening.head.dep_ == "advcl" or opening.pos_ == "ADP"):
        return text
    # (after a place the parser may take the question for a relative clause: "the card where does it say"; the
    # question word with an auxiliary right after it opens a question)
    main = next((t for t in doc if t.i > opening.i and t.tag_ in _WH_TAGS and (_in_main_clause(t) or opening.pos_ == "ADP"
                                                                              and t.i + 1 < len(doc) and doc[t.i + 1].pos_ == "AUX")), None)
    if main is not None and opening.pos_ == "ADP" and opening in (main.head, main.head.head):
        return text  # "at what point ...": the preposition is the question's own
    return text[main.idx:] if main is not None else text


def _in_main_clause(token) -> bool:
    while token.dep_ != "ROOT":
        if token.dep_ in ("advcl", "relcl", "ccomp", "acl"):
            return False
        token = token.head
    return True


def _after_clause(text: str) -> str:
    """The question after an opening clause that only places it, else the whole text: "when the popup
    comes up, which option do they pick?" asks which option, and so does "after they click apply a box
    pops up - which option do they pick?". A text that opens as a question of its own ("what did he
    say, and who heard it?", "is it on, which one?") has no such clause."""
    text = _main_question(_without_leading_adverbs(text))  # "roughly how many minutes in ...": how many minutes in
    if m := _WHEN_CLAUSE.match(text):
        return text[m.end():]
    m = _LEADING_CLAUSE.match(text)
    if m is None:
        return text
    opening = next((t for t in parse(m["lead"]) if t.pos_ not in ("CCONJ", "INTJ", "PUNCT")), None)
    if opening is None or opening.tag_ in _WH_TAGS or opening.pos_ == "AUX":
        return text
    return text[m.end():]


def _with_antecedent(text: str, asked: str) -> str:
    """The question proper with the pronoun it asks about replaced by the thing the clause before it
    names, as the parser reads them: "the card has a date and place on it, what is it?" asks what the
    date and place are; "the last card gives a web address, what is it?" asks for the address. Only a
    pronoun that is what a form of "be" is about, after an opening clause whose verb has an object."""
    if asked == text or not text.endswith(asked):
        return asked
    doc = parse(asked)
    pronoun = next((t for t in doc if t.pos_ == "PRON" and t.tag_ not in _WH_TAGS and t.dep_ in ("nsubj", "attr") and t.head.lemma_ == "be"), None)
    if pronoun is None:
        return asked
    lead = parse(text[: len(text) - len(asked)])
    root = next((t for t in lead if t.dep_ == "ROOT"), None)
    thing = None if root is None else next(
        (t for t in root.children if t.dep_ in ("dobj", "attr") and t.pos_ in ("NOUN", "PROPN")), None)
    if thing is None:
        return asked
    named = " and ".join(" ".join([*(c.text for c in n.lefts if c.dep_ == "compound"), n.text]) for n in (thing, *thing.conjuncts))
    return asked[: pronoun.idx] + "the " + named + asked[pronoun.idx + len(pronoun.text):]


def _without_leading_adverbs(text: str) -> str:
    """``text`` without the adverbs that open it before a question word ("roughly how many minutes
    in", "exactly when"), as the parser tags them: they say how precise to be, not what is asked."""
    doc = parse(text)
    lead = 0
    while lead < len(doc) and doc[lead].pos_ == "ADV" and doc[lead].tag_ != "WRB":
        lead += 1
    if lead == 0 or lead == len(doc) or doc[lead].tag_ not in _WH_TAGS:
        return text
    return text[doc[lead].idx:]


def _without_relative_clauses(text: str) -> str:
    """``text`` without the clauses that only say which thing is meant, as the parser reads it: "the
    name of the guy who thought about how much he could do" asks for a name, not an amount."""
    doc = parse(text)
    inside = {t.i for clause in doc if clause.dep_ == "relcl" for t in clause.subtree}
    return "".join(t.text_with_ws for t in doc if t.i not in inside).strip() if inside else text


def _agent_nouns(verb: str) -> list[str]:
    """The nouns English makes for one who does ``verb`` (narrate: narrator; read: reader)."""
    stem = verb[:-1] if verb.endswith("e") else verb
    return list(dict.fromkeys([f"{verb}r" if verb.endswith("e") else f"{verb}er", f"{stem}or", f"{verb}er"]))


def _role_by_doing(text: str) -> str | None:
    """Someone asked for by what they are doing, as the parser reads it: a verb's -ing form after a
    kind of person ("the person narrating", "the guy reading the sonnet") or after "as" ("who is
    credited as producing it"), as the noun for one who
    does it when WordNet knows that noun as a kind of person (narrator, reader); else None. Someone
    doing something over a question ("the woman working out how much she could lend") is someone in
    what is told, picked out by what they do there, not a role the video credits."""
    words = list(parse(text))
    for n, t in enumerate(words):
        # "the guy reading": the -ing form on a kind of person; "who's listed as producing it": on "as"
        described = t.dep_ == "acl" and t.head.pos_ == "NOUN" and names_a_person(t.head.lemma_.lower())
        clause = next((words[n + 1:m] for m in range(n + 1, len(words)) if words[m].is_punct), words[n + 1:])
        if any(w.tag_ in _WH_TAGS for w in clause):
            continue
        if t.tag_ == "VBG" and (described or (t.dep_ == "pcomp" and t.head.lower_ == "as")):
            found = next((noun for noun in _agent_nouns(t.lemma_.lower()) if names_a_person(noun) is True), None)
            if found:
                return found
    return None


def _at_which(text: str) -> re.Match | None:
    """"at what timestamp does it begin?", "at which mark ...", or with the "at" left at the end
    ("what timestamp do the credits start at?"): a question that asks at which point of something, as
    the parser reads it (the preposition "at" over a noun a question word determines), asks for a
    moment whatever the noun, unless the noun has a kind of its own (a price: the caller asks only when
    the answer type is none or a bare thing). The match covers the question word and the noun."""
    doc = parse(text)
    words = [t for t in doc if not t.is_punct]
    if len(words) >= 3 and words[0].lower_ == "at" and words[1].lower_ in ("what", "which") and words[2].pos_ == "NOUN" \
            and words[2].head.i == words[0].i:
        return re.match(rf"\s*at\s+{words[1].lower_}\s+{re.escape(words[2].text)}\b", text, re.I)
    if len(words) >= 4 and words[0].lower_ in ("what", "which") and words[1].pos_ == "NOUN" and words[-1].lower_ == "at" \
            and words[-1].head.lemma_ != "be" and not any(c.dep_ == "pobj" and c.i != words[1].i for c in words[-1].children):
        # "what timestamp do the credits start at?": the same question with its "at" left at the end (not "what
        # resolution was it at?", where "be at" gives a setting's value)
        return re.match(rf"\s*{words[0].lower_}\s+{re.escape(words[1].text)}\b", text, re.I)
    return None


def _asks_for_a_person(text: str) -> bool:
    """Whether the question asks for someone, as the parser and WordNet read it: the name of a kind
    of person ("the name of the guy who ..."), or which one of them ("what poet wrote it?")."""
    for t in parse(text):
        asked = None
        if t.lemma_.lower() == "name" and t.pos_ == "NOUN":
            asked = next((o for p in t.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children if o.dep_ == "pobj"), None)
        elif t.tag_ == "WDT" and t.dep_ == "det" and t.head.pos_ == "NOUN":
            asked = t.head
        if asked is not None and asked.pos_ == "NOUN" and names_a_person(asked.lemma_.lower()):
            return True
    return False


def _opens_with_who(text: str) -> bool:
    """Whether the question proper opens with "who" (after any "so", "and", "ok"), as the parser reads
    it: then it asks for someone, whatever a clause after it asks ("who is the man wondering how much
    he could do?" is no question about an amount)."""
    first = next((t for t in parse(text) if not (t.is_punct or t.pos_ in ("INTJ", "CCONJ") or t.dep_ == "intj")), None)
    return first is not None and first.tag_ in ("WP", "WP$") and first.lower_ in ("who", "whom", "whose")


def _answer_type(lower: str) -> str | None:
    if _WHAT_SOUND.search(lower):
        return None  # the sound itself is the answer: its label or its description, not a name or a time
    if _opens_with_who(lower):
        return "person"
    for kind, pattern in _ANSWER_TYPES:
        if kind == "when" and _WH_CLAUSE.search(lower):
            continue  # "what is said when the door opens": "when" places the question, it asks no time
        if pattern.search(lower) and not (kind == "time" and _MOMENT_ASK.search(lower)):  # "at what time does X begin": a moment
            return kind
    return None


_EMBEDDED_TYPES = {"when": "date", "who": "person", "whom": "person", "whose": "person", "where": "place"}
"""what a yes/no question asks to be told when a question sits inside it ("does it say when he gave
the speech?"): the video states a date, a person or a place"""


def _embedded_type(text: str) -> str | None:
    """The answer type of a question asked inside a yes/no question ("does it say when ...", "do they
    mention who ..."), found by the parser: a question word that does not open the sentence, in a
    clause hung on a verb of saying or showing. "Does he laugh when the door opens?" asks no time."""
    words = [t for t in parse(text) if not t.is_punct]
    for t in words[1:]:
        if t.tag_ in ("WRB", "WP", "WP$") and t.lower_ in _EMBEDDED_TYPES:
            verb = t.head.head if t.head.dep_ in ("advcl", "ccomp", "xcomp") else t.head
            if verb.lemma_.lower() in SPEECH_WORDS or verb.lower_ in SPEECH_WORDS | OCR_WORDS:
                return _EMBEDDED_TYPES[t.lower_]
    return None


def said_only_by_verb(text: str) -> bool:
    """Whether speech is asked for only by a verb of saying ("what licence does it say at the end?"),
    which written words answer as well as a voice, and not by a noun that names speech ("the
    narration", "the lyrics", "the dialogue"), as the parser reads ``text``."""
    if _SPOKEN_DIALOGUE.search(text.lower()):
        return False
    saying = [t for t in parse(text) if t.lower_ in SPEECH_WORDS or t.lemma_.lower() in SPEECH_WORDS]
    return bool(saying) and all(t.pos_ in ("VERB", "AUX") for t in saying)


_WH_TAGS = ("WDT", "WP", "WP$", "WRB")


def _passive(text: str) -> bool:
    """Whether the parser reads ``text`` in the passive voice."""
    return any(t.dep_ in ("auxpass", "nsubjpass") for t in parse(text))


def _question_word(word: str) -> str | None:
    """The question word ``word`` is, as the parser reads it alone: "whats" typed without its
    apostrophe is "what" and "s"."""
    first = next(iter(parse(word)), None)
    return first.lower_ if first is not None and first.tag_ in _WH_TAGS else None


def _edge_verbs(text: str) -> dict[str, set[str]]:
    """The verbs of ``text`` that say something begins or ends, by meaning (``words.verb_edge``: "kick
    in", "commence", "wrap up"), by edge ("start" | "end"), each with its words (the verb and its
    particle): they say which edge of the thing is asked for, not what to look for."""
    found: dict[str, set[str]] = {}
    for t in parse(text):
        # the small parser takes a rarer verb for a noun ("do the credits commence?"): a word WordNet
        # knows as a verb and not as a noun is a verb
        if t.pos_ != "VERB" and not (t.pos_ == "NOUN" and is_verb(t.lemma_.lower()) and not is_noun(t.lemma_.lower())):
            continue
        particles = [c for c in t.children if c.dep_ == "prt"]
        lemma = "_".join([t.lemma_.lower(), *(c.lower_ for c in particles)])
        if (edge := verb_edge(lemma)) is not None:
            found.setdefault(edge, set()).update([t.lower_, *(c.lower_ for c in particles)])
    return found


def _without_verbs(keywords: list[str], text: str) -> list[str]:
    """``keywords`` without those the parser reads as verbs in ``text``."""
    verbs = {t.lower_ for t in parse(text) if t.pos_ == "VERB"}
    return [w for w in keywords if w.lower() not in verbs]


def _wh(lower: str) -> str:
    lower = re.sub(r"^\s*(?:and|so|but|also|ok|okay|now|then)[,\s]+", "", lower)
    first = re.match(r"\s*(?:in|on|at|for|from|to|by|with|under|according to [^,]+,)?\s*(\w+)", lower)
    word = first[1] if first else ""
    word = _question_word(word) or word if word and word not in STOPWORDS else word
    if word in ("who", "whom", "whose"):
        return "who"
    if word in ("when", "where", "why", "which", "what", "how"):
        return word
    if word in ("is", "are", "was", "were", "does", "do", "did", "can", "could", "has", "have", "had", "will", "would", "should"):
        return "yesno"
    found = re.search(r"\b(who|when|where|why|which|what|how)\b", lower)
    return found[1] if found else "other"


_MULTIPLIED = re.compile(r"(?:\d|\b(?:" + "|".join(NUMBER_WORDS) + r"))\s+times\b|\btimes\s+(?:as|more|less|bigger|larger|"
                         r"higher|smaller|greater|the|that|this|its|their)\b")


_ACTION = r"(?:typing|clicking|pressing|scrolling|dragging|selecting|searching|changing|editing|saving|applying|tapping)\b(?!\s+(?:the|a|an|on|in|into|to|it|this|that)\b)"
"""an action named without its object ("before typing"): a state of the screen, not a moment to find"""
_ORDER = re.compile(r"(?P<early>\bat first\b|\binitially\b|\boriginally\b|\bto begin with\b|\bbefore (?:any|the) change|\bbefore (?:any )?" + _ACTION + ")|"
                    r"\bin the end\b|\bfinally\b|\beventually\b|\bafter (?:all )?the changes\b|\bafter (?:all the )?" + _ACTION, re.I)
_ASKS_A_QUESTION = re.compile(r"\bwhat (?:does|did|do|will) (?:it|this|that|he|she|they|(?:the|a|this|that) [\w -]{1,30}?)(?<! to) ask\b(?!\s+(?:for|about)\b)|"
                             r"\bwhat (?:question|questions) (?:does|did|do|is|are|was|were)\b", re.I)
_BESIDES = re.compile(r"\b(?:besides|apart from|aside from|other than|except(?:\s+for)?)\s+(?:the\s+)?([^,?.;]{2,80}?)\s*(?:,|\?|$|\s+(?:what|who|which|where|when|how|is|are|was|were|does|did|do)\b)", re.I)


# the stopwords that still say something: a place in time or space, having, quantity, negation
_MEANING_STOPWORDS = frozenset({"above", "after", "again", "against", "all", "before", "below", "between", "both", "down", "each",
                                "few", "had", "has", "have", "having", "into", "more", "most", "no", "nor", "not", "off",
                                "once", "only", "out", "over", "own", "same", "through", "under", "until", "up"})
_HAVE = frozenset({"had", "has", "having"})


def function_words(text: str) -> frozenset[str]:
    """The stopwords of ``text`` that carry meaning, as tokens ("had" counted as "have"); the search
    leaves them out, so a line is matched on them only when a question has nothing else."""
    words = {"have" if w in _HAVE else w for w in re.findall(r"[a-z]+", text.lower()) if w in _MEANING_STOPWORDS}
    return frozenset(t for w in words for t in tokenize(w, keep_stopwords=True))


def _without(keywords: list[str], phrase: str) -> list[str]:
    """``keywords`` less the words of ``phrase`` that says where or when to look ("the last thing
    shown", "at first"), not what to look for; all of them if nothing else is left."""
    said = {w.lower() for w in re.findall(r"[a-z0-9]+", phrase, re.I)}  # "2nd" as well as "second"
    return [w for w in keywords if w.lower() not in said] or keywords


def _operation(lower: str) -> str | None:
    if re.search(r"\bhow (?:much|many) (?:more|less|fewer|cheaper|higher|lower|bigger|smaller|longer|shorter)\b", lower):
        return "-"
    for op, phrases in OPERATIONS.items():
        for phrase in phrases:
            if re.search(rf"\b{re.escape(phrase)}\b", lower):
                if phrase == "times" and not _MULTIPLIED.search(lower):
                    continue  # "the best of times", "how many times": no product asked for
                if phrase == "ratio" and re.search(r"\b(?:aspect|compression|contrast)\s+ratio\b", lower):
                    continue  # a named property of a picture or a file, read off the video, not a division
                if op == "+" and phrase == "both" and not re.search(r"\b(cost|price|total|together)\b", lower):
                    continue
                if _names_a_stretch(lower, phrase):
                    continue  # "the noise in the gap between the two readings": a place in the video, not a sum to do
                return op
    return None


def _names_a_stretch(lower: str, phrase: str) -> bool:
    """Whether the operation word ``phrase`` is, as the parser reads ``lower``, a noun with its own
    article governed by a preposition ("in the gap between them", "during the break"): a place or
    a stretch the question points at, not the value it asks for ("in total" has no article)."""
    if " " in phrase:
        return False
    return any(t.lower_ == phrase and t.dep_ == "pobj" and any(c.dep_ == "det" for c in t.children) for t in parse(lower))


_OWNER = re.compile(r"\bof (?:the )?([A-Z][\w-]*(?: [A-Z][\w-]*)*)")
_NARRATOR = re.compile(r"\b(?:that |which )?the (?:speaker|narrator|presenter|host) (?:mentions|mentioned|says|said|gives|gave|names|named)\b", re.I)
_ASKED_WORDS = ("which", "what")
_ASKED_FOR = re.compile(r"\b(?:" + "|".join(_ASKED_WORDS) + r")\s+([a-z]+)\b")
_NOT_A_NOUN = {"is", "are", "was", "were", "does", "do", "did", "can", "could", "will", "would", "has", "have", "had",
               "kind", "sort", "type", "exactly", "else", "the", "a", "an", "two", "three", "time", "point", "year", "of"}


def _plural(noun: str | None) -> bool:
    """Whether the thing asked for is named in the plural ("what options ...", "which buttons ..."):
    the answer is every one there is."""
    return bool(noun) and noun.endswith("s") and not noun.endswith(("ss", "us", "is")) and is_noun(noun[:-1])


def _singular(noun: str) -> str:
    """"buttons" -> "button"; a word WordNet lists as it is ("res", "credits", "news"), or that is no
    plural, as it is."""
    if not _plural(noun) or is_noun(noun):
        return noun
    return next((t.lemma_.lower() for t in parse(noun)), noun)


def _asked_for(lower: str) -> str | None:
    found = _ASKED_FOR.search(lower)
    if found and found[1] not in _NOT_A_NOUN:
        return found[1]
    # "what are the 2 buttons on it?", "what's the resolution": a form of "be" after the question word
    # asks for the subject the parser finds, as "which buttons" does
    from ....qa.frame import asked_noun
    doc = parse(lower)
    wh = next((t for t in doc if t.tag_ in _WH_TAGS), None)
    if wh is None:
        return None
    if found is not None:  # "what is ...", the word after the question word
        copula = any(t.idx == found.start(1) and t.lemma_ == "be" for t in doc)
    else:  # "what's ...": the parser splits the contraction
        copula = wh.lower_ in _ASKED_WORDS and wh.i + 1 < len(doc) and doc[wh.i + 1].lemma_ == "be"
    return asked_noun(wh) if copula else None


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


def _amount(word: str) -> int:
    return 1 if not word else int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def _video_time(text: str) -> tuple[tuple[float, float] | None, float | None]:
    """The stretch of the video a question names, and the single moment when it names one. "The
    last 2 minutes" is ``(-120, 0)``: it counts from the end, which only the video's length fixes."""
    try:
        if m := _VIDEO_RANGE.search(text):
            a, b = parse_time(m[1] or m[3]), parse_time(m[2] or m[4])
            return ((a, b) if b > a else None), None
    except TimeFormatError:
        return None, None
    try:
        if m := _VIDEO_POINT.search(text):
            moment = parse_time(next(g for g in m.groups() if g))
            return point_window(moment), moment
    except TimeFormatError:  # "at 1:75" is no moment of the video
        pass
    if m := _MINUTE.search(text):
        minute = int(m[1] or m[2])
        return (minute * 60.0, minute * 60.0 + 60), None
    if (m := _FIRST_LAST.search(text)) and (m[2] or not m[3].lower().endswith("s")):  # "the first minutes": no count
        amount = _amount(m[2]) * (60 if m[3].lower().startswith("minute") else 1)
        return ((0.0, float(amount)) if m[1].lower() == "first" else (-float(amount), 0.0)), None
    return None, None


def resolve_range(time_range: tuple[float, float], duration: float | None) -> tuple[float, float]:
    """A named stretch in seconds of this video: one counted from the end ("the last 2 minutes")
    placed before the end, and an end past the video cut."""
    start, end = time_range
    if start < 0:
        return (max(0.0, duration + start), duration) if duration else (0.0, -start)
    return (start, min(end, duration)) if duration else (start, end)


_REMEMBER = re.compile(r"^\s*(?:please\s+)?(?:remember|note|keep in mind|don'?t forget|make a note)(?:\s+(?:that|this))?\s*[:,]?\s+(?P<memo>.+?)\s*$", re.I)
# "My locker code is 4417, remember it." / "The exam is on Friday - please note that."
_REMEMBER_AFTER = re.compile(r"^\s*(?P<memo>.+?)\s*[,;.:!-]*\s*(?:so\s+|and\s+)?(?:please\s+)?(?:remember|note|keep in mind|don'?t forget)\s+(?:it|that|this)\s*[.!]*\s*$", re.I)
_RECALL = re.compile(
    r"\bwhat (?:did|have) i (?:ask|asked|tell|told) you to (?:remember|note|keep)\b|\bwhat do you remember\b|"
    r"\bwhat (?:notes|have you noted)\b|\bwhat(?:'s| is) in (?:your|the) memory\b|\bremind me what i (?:asked|told) you\b", re.I)
_FORGET = re.compile(r"^\s*(?:please\s+)?(?:forget|delete the note|remove the note)(?:\s+(?:that|about))?\s*(?P<what>.*?)\s*[.!]?$", re.I)
_TRANSLATE = re.compile(r"\btranslat(?:e|ion|ed)\b|\bwhat does (?:it|the \w+|that|this) (?:say|mean) in\b|\bin (?:english|french|german|spanish)\b", re.I)
_TARGET = re.compile(r"\b(?:into|to|in)\s+([A-Za-z][a-z]+(?:\s*\(\w+\))?)", re.I)
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
_MATH = re.compile(r"\b(?P<thing>equation|equations|formula|formulas|expression|expressions|calculation|sum|maths?)\b.*\b(?:board|slide|screen|shown|written|displayed)\b|"
                   r"\bsolve\b.*\b(?:equation|problem|board|slide|screen|shown)\b", re.I)
_WEB_FOR = re.compile(r"\b(?:search|google|look)\s+(?:on\s+)?(?:the\s+)?(?:web|internet|online)\s+(?:for|up)\s+(?P<query>.+)", re.I)
_WEB_ONLINE = re.compile(r"\b(?:search(?:\s+for)?|look\s+up|google|find)\s+(?P<query>.+?)\s+(?:online|on the (?:web|internet)|on google)\b", re.I)
_VIDEO_LENGTH = re.compile(
    r"\bhow long is (?:the|this) (?:whole |entire |full )?(?:video|clip|recording|film|movie)\b(?!['’]s)|"
    r"\b(?:length|duration|running time|runtime) of (?:the|this) (?:whole |entire |full )?(?:video|clip|recording|film|movie)\b(?!['’]s)|"
    r"\bhow long does (?:the|this) (?:whole |entire )?(?:video|clip|recording|film|movie) (?:last|run|take|go on)\b|"
    r"\bhow long (?:is it|does it last|does it run)\s*\??$|"  # (see _ITS_LENGTH)
    r"\bwhen (?:does|did|will) (?:the|this) (?:whole |entire )?(?:video|clip|recording|film|movie) (?:end|finish|stop)\b",  # its end is its length
    re.I,
)
_SPOKEN_DIALOGUE = re.compile(r"\bdialog(?:ue)?s?\b(?!\s+(?:box|window))(?=.*\b(?:language|spoken|characters?|actors?|accents?)\b)|"
                              r"\b(?:language|characters?|actors?|accents?)\b.*\bdialog(?:ue)?s?\b(?!\s+(?:box|window))")
"""the dialogue of a film, what its characters say ("what language is the dialogue in?"), not a window on screen"""
_ITS_LENGTH = re.compile(r"\bhow long (?:is it|does it last|does it run)\s*\??$", re.I)
"""the length of "it": the video's, unless an earlier question named something in it"""


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


REPORTED_WORDS = 4
"""the fewest words a clause reported after a verb of saying needs to be looked for as a quote"""


def reported_words(text: str) -> str | None:
    """Words the question reports someone saying without quotation marks ("Kennedy says ask not
    what your country can do for you... how does he end it?"), as the parser reads them: the clause
    hung on a verb of saying, when it is long enough to be a quotation and is not itself asked about
    (it opens with no question word) or told in other words (no "that", "if" or "whether")."""
    doc = parse(text)
    for verb in doc:
        if verb.lemma_.lower() not in SPEECH_WORDS and verb.lower_ not in SPEECH_WORDS:
            continue
        clauses = [c for c in verb.children if c.dep_ in ("ccomp", "xcomp") and c.i > verb.i]
        if any(next(t for t in c.subtree if not t.is_punct).tag_ in _WH_TAGS for c in clauses):
            continue  # "does it say which port to plug it into": what is said is asked about (the parser may split it in two)
        if any((t.tag_ in ("WDT", "WP", "WP$") or t.lower_ == "where") and verb in (t.head, t.head.head)
               and "conj" not in (t.dep_, t.head.dep_) for t in doc):  # (not "she says X, and then what?")
            # "what year does it say it was first published", "where does it say the speech was given": the
            # question word hangs on the saying and asks into what is said ("when does he say ..." asks
            # when it is said: a quotation)
            continue
        for clause in clauses:
            words = [t for t in clause.subtree if not t.is_punct]
            if len(words) < REPORTED_WORDS or any(t.dep_ == "mark" for t in clause.children):
                continue
            return doc[words[0].i : words[-1].i + 1].text
    return None


def _said_by_things(text: str) -> set[str]:
    """The verbs of saying in ``text`` whose subject is a thing ("what year does it say ...", "what
    does the card say?"): a title card says it as much as a voice, so they are no sign that the
    answer is speech."""
    found = set()
    for token in parse(text):
        subjects = [c for c in token.children if c.dep_ == "nsubj"] if token.lower_ in SPEECH_WORDS else []
        if subjects and all(_a_thing(s) for s in subjects):
            found.add(token.lower_)
    return found


def _a_thing(token) -> bool:
    """Whether a subject names a thing, no person: a neuter or demonstrative pronoun as the parser's
    morphology reads it ("it", "this"), or a noun WordNet does not file under persons ("the card")."""
    if token.pos_ == "PRON":
        return token.morph.get("Gender") == ["Neut"] or token.morph.get("PronType") == ["Dem"]
    return token.pos_ == "NOUN" and names_a_person(token.lemma_.lower()) is False


def without_interjections(text: str) -> str:
    """``text`` without the interjections that open it, as the parser tags them ("ok and what about
    ...", "well, who ...", "hmm"): they say nothing of what is asked, and hide how it begins."""
    doc = parse(text)
    i = 0
    while i < len(doc) and (doc[i].tag_ == "UH" or (i and doc[i].is_punct)):
        i += 1
    return text[doc[i].idx :] if 0 < i < len(doc) else text


def with_apostrophes(text: str) -> str:
    """``text`` with the apostrophe typed back into a question word (or an existential "there")
    glued to its "s" ("whens the credits start", "theres a hint ..."): the parser splits these into
    "when" and "s", and the question reads as "when's" does."""
    out = text
    for token in reversed(parse(text)):
        following = token.nbor() if token.i + 1 < len(token.doc) else None
        if (token.tag_ in _WH_TAGS or token.tag_ == "EX") and not token.whitespace_ and following is not None and following.lower_ == "s":
            out = out[: following.idx] + "'" + out[following.idx :]
    return out


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
        if quoted := quoted_phrases(text):
            return Intent("translate", quoted[0], language, "text")
        on_screen = bool(set(re.findall(r"[a-z-]+", lower)) & OCR_WORDS) or "on screen" in lower
        return Intent("translate", "", language, "ocr" if on_screen else "speech")
    if m := _WEB_FOR.search(text) or _WEB_ONLINE.search(text):
        return Intent("web", _strip(m["query"]))
    # (units of time are no things seen: "how many seconds in does the title come up?" asks a moment)
    if (m := _COUNT.search(text)) and (_SEEN.search(text) or _THERE.search(text) and m["what"].split()[-1].lower() in VISIBLE_THINGS) \
            and not _COUNT_NAMES.search(text) and not _COUNT_MENTIONS.search(text) and not _COUNT_PARTS.search(text) \
            and not falls_under(m["what"].split()[0].lower(), "time_unit"):
        return Intent("count", _strip(m["what"]))
    if m := _CALCULATE.search(text):
        return Intent("calculate", written_expression(m["expr"]))
    if _VIDEO_LENGTH.search(text):
        return Intent("length")
    if (m := _MATH.search(text)) and not (m["thing"] and _verb_at(text, m.start("thing"))):  # "sum up the steps ... on screen": a verb, no sum shown
        return Intent("math")
    return None


def _verb_at(text: str, at: int) -> bool:
    """Whether the word of ``text`` that starts at ``at`` is a verb, as the parser reads it."""
    return any(t.idx == at and t.pos_ == "VERB" for t in parse(text))


def _scope(text: str, quoted: list[str]) -> str | None:
    """The named part of the video the question looks in, if any."""
    bare = text
    for i, q in enumerate(quoted):  # quoted words are no grammar, but may name the part ("the 'Thanks' section")
        bare = bare.replace(q, f" QUOTED{i} ")
    for pattern in _SCOPE_PATTERNS:
        for m in pattern.finditer(bare):
            scope = re.sub(r"QUOTED(\d+)", lambda n: quoted[int(n[1])], _strip(m["scope"]))
            scope = re.sub(r"[\"'‘’“”]\s*|\s*[\"'‘’“”]", " ", f" {scope} ").strip() if quoted else scope
            scope = re.sub(r"\s+", " ", scope)
            scope = re.sub(r"^(?:the|this|that)\s+", "", scope, flags=re.I)
            # "the Arctic Council in this clip": the part is what follows "in this", the words before it the topic
            scope = re.sub(r"^.*?\b(?:in|from|during|within)\s+(?:the|this|that)\s+", "", scope, flags=re.I)
            words = scope.lower().split()
            if not words or f"the {scope.lower()}" in _NOT_A_SCOPE or scope.lower() in _NOT_A_SCOPE:
                continue
            if all(w in _GENERIC_PARTS or w in _VOICES or w in STOPWORDS for w in words):
                continue  # "in the clip", "after the narration": no particular part
            return scope
    return None


_SUBJECT_OF = {"them": "they", "us": "we", "me": "i", "him": "he", "her": "she", "you": "you", "themselves": "they", "himself": "he",
               "herself": "she", "ourselves": "we", "myself": "i", "yourself": "you"}


def _in_front_of(text: str, m: re.Match) -> bool:
    """"What did they have before them?": "before" a pronoun for the clause's own subject is a
    place (in front of them), not a time; "who spoke before him?" is a time."""
    what = m["what"].strip().lower()
    subject = _SUBJECT_OF.get(re.sub(r"[^a-z]", "", what.split()[0]) if what else "")
    return m["rel"].lower() == "before" and subject is not None and re.search(rf"\b{subject}\b", text[: m.start()], re.I) is not None


_LOOK_AFTER = re.compile(r"\b(?:look|looks|looked|looking)\s+after\b", re.I)


_WHAT_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how) about\b")
"""a follow-up that asks the last question again of something else ("and what about the acer one?")"""


def _elliptical(text: str) -> bool:
    """Whether a follow-up is only a phrase, with no verb and no question word of its own ("ok and the
    austen one?", "and the second tooltip, the one that shows up later?"): as the parser reads it, it
    asks the question before again, of what it names, as "and what about ...?" does."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("NOUN", "PROPN", "NUM", "ADJ") or not list(root.children):
        return False  # a word alone ("thanks", "cool") is no phrase naming something
    # what describes the thing named (a relative clause, "the screen they plugged in"; a participle,
    # "the laptops built in one") is part of its name, not a question of its own
    outside = [t for t in doc if not any(a.dep_ in ("relcl", "acl") for a in [t, *t.ancestors])]
    return not any(t.pos_ in ("VERB", "AUX") or t.tag_ in ("WP", "WP$", "WRB") or t.lower_ in ("what", "which") for t in outside)


def _within_clause(text: str, at: int, what: str) -> str:
    """``what`` (the words after "after" or "before" at ``at``) cut where the parser ends the phrase or
    clause that word opens: "after the poem finishes there's a ringing noise" is after "the poem
    finishes", not after the noise."""
    doc = parse(text)
    word = next((t for t in doc if t.idx >= at), None)
    if word is None:
        return what
    head = word.head if word.dep_ == "mark" else word
    # "after the poem ends there's a noise ...": a clause opened by "there" that the parser hung on
    # the verb in the clause is the sentence's own, said after it
    there = [c for c in head.children if c.dep_ == "ccomp" and min(c.subtree, key=lambda t: t.i).dep_ == "expl"]
    inside = [t for t in head.subtree if not any(t.i >= min(x.i for x in c.subtree) for c in there)]
    last = max(inside, key=lambda t: t.i)
    end = last.idx + len(last)
    main = word.head
    # "after hitting apply a box pops up": the verb the clause leads to has no subject, and the parser
    # took it for the object of the verb in the clause, whose phrase ends right before that verb
    if word.dep_ == "prep" and main.pos_ in ("VERB", "AUX") and last.i + 1 == main.i \
            and last.dep_ == "dobj" and last.head.i != main.i and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in main.children):
        end = min(t.idx for t in last.subtree)
    start = text.find(what, at)
    return what if start < 0 or end <= start or end >= start + len(what) else text[start:end]


_POINTS_BACK = re.compile(r"(?:that|this|it|then|they|he|she|the previous one)\b", re.I)
"""what a relation points at when it is relative to what the last answer cited ("after that")"""


def _relation(text: str, lower: str, operation: str | None, quoted: list[str]) -> tuple[str | None, str | None, tuple[str, str] | None, bool, bool]:
    """``(after|before, relative to what, (between a, b), whether that is named as something said,
    whether it is relative to the title)``."""
    # "who looked after the finances": a verb, not a moment after them
    text, lower = (_LOOK_AFTER.sub("minded", t) for t in (text, lower))
    if operation == "discount" or re.search(r"\bhow (?:long|much time|many (?:seconds|minutes))\b", lower):
        # "after the discount", "how long before it reverts": no moment of the video; but a clause that
        # opens the question sets one ("After the host stops talking, how long is it quiet?")
        if not (m := _OPENING_RELATION.match(text)):
            return None, None, None, False, False
        text = f"{m[1]} {m[2]}?"
    if m := _BETWEEN.search(text):
        a, b = _strip(m["a"]), _strip(m["b"])
        if not re.match(r"^\d", a):  # "between 1:00 and 1:30" is a clock range, read elsewhere
            return None, None, (a, b), False, False
    if (m := _RELATIVE.search(text)) and _in_front_of(text, m):
        return None, None, None, False, False
    if m:
        rel = "before" if m["rel"].lower() in ("before", "preceding") else "after"
        # "after the Lowry passage ends": the part is what matters; its edge is the relation's
        clause = _within_clause(text, m.start("rel"), m["what"])
        what, second, other = _second_relation(_strip(clause))
        later = _RELATIVE.search(text, text.find(clause, m.start("rel")) + len(clause)) if second is None else None
        if later and not _POINTS_BACK.match(later["what"]):
            # "after the poem ends there's a noise before the next part starts": a second relation,
            # opening a clause of its own later in the sentence (not "... before it goes back": the
            # moment the question asks about)
            second = "before" if later["rel"].lower() in ("before", "preceding") else "after"
            other = _strip(_within_clause(text, later.start("rel"), later["what"]))
        what = _edge_stripped(what)
        # "after the poem ends and before the next part starts": between them, and after the poem should
        # the next part be named by where it is rather than by its words
        gap = (what, other) if second is not None and second != rel and second in ("after", "before") and (other := _edge_stripped(other)) else None
        said = False
        if spoken := _SAID_PART.match(what):  # "the speaker finishes talking about X": X, where it is said
            what, said = _strip(spoken["what"]), True
        for q in quoted:
            if q in text[m.start():]:
                what = q
        to_title = False
        if _POINTS_BACK.match(what):
            what = None  # "after that", "before it reverts": relative to what the last answer cited
        elif not set(tokenize(what)) - _GENERIC_TARGETS:
            # "after the narration": no particular part, the one the question's topic is in; but "before
            # the title" names a moment: when the title is on screen
            to_title, what = bool(_TITLE_WORD.search(what.lower())), None
        return rel, what, gap if what is not None else None, said and what is not None, to_title
    if found := AFTER_BEFORE.search(lower):
        return ("before" if found[2] in ("before", "previous", "earlier") else "after"), None, None, False, False
    return None, None, None, False, False


def _second_relation(what: str) -> tuple[str, str | None, str]:
    """The part a relation is to, and a second relation coordinated after it: ``(first part, the
    second's direction or None, its part)``. "after the poem finishes and before the next part
    starts": ("the poem finishes", "before", "the next part starts"). The cut is at a coordinating
    conjunction followed by a temporal word (``qa.frame.TEMPORAL``) or ending the text, as the parser reads it."""
    from ....qa.frame import TEMPORAL
    doc = parse(what)
    for token in doc:
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if token.pos_ == "CCONJ" and (following is None or following.lower_ in TEMPORAL):
            second = what[following.idx + len(following.text):].strip() if following is not None else ""
            return what[: token.idx].rstrip(), TEMPORAL[following.lower_] if following is not None else None, second
    return what, None, ""


def _edge_stripped(what: str) -> str:
    """A part without the verb that names its edge ("the Lowry passage ends": the Lowry passage)."""
    return re.sub(r"\s+(?:ends?|ended|finishes|finished|is over|was over|stops|stopped|starts|started|begins|began|is done|comes)"
                  r"(?:\s+(?:talking|speaking|reading|playing))?$", "", _strip(what), flags=re.I)


def _without_title(text: str, video_name: str | None) -> str:
    """``text`` less a run of two or more capitalised words that the video's file is named with ("who
    did the music for Big Harbour Nights?" about big_harbour_nights_720p.mp4): the video itself, no topic."""
    if not video_name:
        return text
    named = {w for w in re.split(r"[^a-z0-9]+", video_name.lower().rsplit(".", 1)[0]) if w}

    def drop(m: re.Match) -> str:
        words = [re.sub(r"'s$", "", w).strip("'").lower() for w in m[0].split()]  # (in quotes too: "the title 'Big Harbour Nights'")
        return " " if len(words) >= 2 and all(w in named for w in words) else m[0]

    text = re.sub(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+", drop, text)
    # typed in lower case ("the big harbour nights title"): three of its words or more in a row
    words = list(re.finditer(r"[\w'-]+", text))
    runs, run = [], []
    for w in [*words, None]:
        if w is not None and re.sub(r"'s$", "", w[0]).strip("'") in named:
            run.append(w)
            continue
        if len(run) >= 3:
            runs.append((run[0].start(), run[-1].end()))
        run = []
    for start, end in reversed(runs):
        text = text[:start] + text[end:].lstrip()
    # "the readings video", "that bunny film": words of its name right before a word for a video name it whole
    words = list(re.finditer(r"[\w'-]+", text))
    for i in reversed(range(1, len(words))):
        if words[i][0].lower() in _GENERIC_PARTS:
            j = i
            while j > 0 and re.sub(r"'s$", "", words[j - 1][0].lower()) in named:
                j -= 1
            if j < i:
                text = text[: words[j].start()] + text[words[i - 1].end():].lstrip()  # "the film", as if typed so
    return text


@functools.lru_cache(maxsize=1)
def _unplaced_summary_ask() -> Callable[[str], bool]:
    from ....qa.operation import SummaryAsk

    return SummaryAsk()


def analyse(text: str, previous: Question | None = None, video_name: str | None = None,
            asks_summary: Callable[[str], bool] | None = None) -> Question:
    """What ``text`` asks, read in the light of the question before it; ``video_name``: the video's
    file name, whose words a question may use to name the video itself; ``asks_summary``: the fitted
    model that tells a request for an overview (``qa.operation.SummaryAsk`` over the video's words;
    without one, the same model over no video's words)."""
    text = respelled(with_apostrophes(without_interjections(re.sub(r"\s+", " ", text.replace("’", "'").replace("‘", "'")).strip())))
    quoted = quoted_phrases(text)
    reported = None if quoted else reported_words(text)
    if reported:
        quoted = [reported]  # looked for like a quotation: the line that holds them is what the question is about
    bare = text
    for q in quoted:  # quoted words are looked for, not read as the question's grammar
        bare = bare.replace(q, " ")
    text_for_topic = _NARRATOR.sub("", text).strip()  # "the discount the speaker mentions": "speaker" is no topic
    text_for_topic = _NEAR_EDGE.sub(" ", text_for_topic)  # "near the end of the video" says where, not what
    text_for_topic = _without_title(text_for_topic, video_name)
    text_for_topic = _IN_THE_VIDEO.sub(_no_video, text_for_topic)  # "who directed the film?", "what appears first in it?": the video itself is no topic
    lower, bare_lower = text.lower(), bare.lower()
    set_aside = _BESIDES.search(bare)
    # "what sounds are there besides speech?": what is set aside is not where the asker expects the answer
    words = set(re.findall(r"[a-z'-]+", bare_lower[: set_aside.start(1)] + bare_lower[set_aside.end(1):] if set_aside else bare_lower))
    words -= {kind.lower() for m in _IN_THE_VIDEO.finditer(bare) if (kind := _kind_of_video(m))}  # "this screen recording" asks for no screen text
    keywords = content_words(text_for_topic)
    edges = _edge_verbs(bare)
    keywords = [w for w in keywords if w.lower() not in set().union(*edges.values())]  # "when do the credits kick in?": not "kick"
    time_range, moment = _video_time(text)
    if time_range is not None:
        # "what's going on from 1:00 to 1:30?": with the stretch named, a verb alone ("going", "doing") names nothing to find there
        keywords = _without_verbs(keywords, text_for_topic)
    wants = set()
    spoken_dialogue = bool(_SPOKEN_DIALOGUE.search(bare_lower))
    if (words - _said_by_things(bare)) & SPEECH_WORDS or spoken_dialogue:
        wants.add("speech")
    if (words & OCR_WORDS - ({"dialog", "dialogue"} if spoken_dialogue else set()) or "on screen" in bare_lower) and not _VOICE_SAYS.search(bare_lower):
        wants.add("ocr")  # "what does the presenter say about screen resolution?": a voice, whatever the topic
    credited = bool(words & {"credit", "credits", "credited", "crediting"})  # "the music credit": a role written on screen, not a sound
    # "is anything playing under the credits, or is it silent?": over the credits, a question of sound
    if sound_words(bare) and _answer_type(bare_lower) not in NOT_HEARD and not words & SUNG_WORDS and (not credited or words & SILENCE_WORDS):
        wants.add("audio")
    if words & VISUAL_WORDS or re.search(r"what (?:happens|is happening)|describe the", bare_lower):
        wants.add("visual")
    operation = _operation(bare_lower)
    intent = find_intent(text)
    if intent is not None and intent.kind == "length" and _ITS_LENGTH.search(text) and previous is not None \
            and previous.intent is None and not previous.overview and not previous.video_title:
        intent = None  # "which speech is in it?" then "how long does it last?": the speech, not the video
    # (the video's own name is no part: "before the Big Harbour Nights title" is before its title)
    relation, relation_to, between, relation_said, relation_to_title = _relation(_without_title(bare, video_name), bare_lower, operation, quoted)
    relation_close = bool(relation and (close := _RELATIVE.search(bare)) and close["close"])
    first_of = next(((_strip(m["a"]), _strip(m["b"])) for pattern in _WHICH_FIRST if (m := pattern.search(bare))), None)
    if first_of:
        relation = relation_to = between = None  # "is the speech before or after the poem?": both are found, then put in order
        relation_to_title = False
    if relation and quoted and (m := re.search(r"\b(?:after|before|following|preceding)\s+['\"“‘]", text, re.I)):
        relation_to = next((q for q in quoted if text[m.end() - 1 :].lstrip("'\"“‘").startswith(q)), relation_to)
    # the question proper, after any "when ...," that places it, and what its "it" stands for
    asked_lower = _with_antecedent(bare_lower, _after_clause(bare_lower))
    question = Question(
        text=text,
        keywords=keywords,
        wants=wants,
        answer_type=_answer_type(_without_relative_clauses(asked_lower)) or ("person" if _asks_for_a_person(asked_lower) else None),
        wh=_wh(asked_lower),
        operation=operation if intent is None else None,
        operands=_operands(text) if operation and intent is None else [],
        time_range=time_range,
        moment=moment,
        quoted=quoted,
        intent=intent,
        relation=relation,
        relation_to=relation_to,
        # "what do they say right after the line about X?": in a question about what is said, X is said too
        relation_said=relation_said or (relation_to is not None and "speech" in wants and relation_to not in quoted),
        relation_close=relation_close,
        relation_to_title=relation_to_title,
        between=between,
        first_of=first_of,
    )
    question.asked = asked_lower
    question.asks_character = asks_what_someone_is_like(bare)
    question.owner = _owner(text, question.operands)
    asked_noun = _asked_for(asked_lower)
    question.asked_for = _singular(asked_noun) if asked_noun else None  # "which buttons" asks for buttons as "which button" does
    if question.answer_type == "entity" and question.asked_for in place_kind_words():
        question.answer_type = "place"  # "which place ...", "what town ...": a kind WordNet files places under, known by name
    aside = _BESIDES.search(text)
    unset = text[: aside.start()] + text[aside.end(1):] if aside else text  # "in the video besides speech": the video
    unset = _IN_THE_VIDEO.sub(_no_video, _without_title(unset, video_name))  # "in the readings video", "in the screen recording": the whole of it, no part
    question.scope = (_scope(unset, quoted) or _leading_topic(unset) or _leading_place(unset)) if time_range is None and not first_of else None
    if question.scope and _IN_THE_VIDEO.fullmatch(f"the {question.scope.split()[-1]}"):
        question.scope = None  # "in the screen recording": a kind of the video itself (its head noun names the medium), no part
    if names_only_credits(question.scope):
        question.scope = None  # "according to the credits": where they are is known (the closing part), no part to search for
    question.popup_nth, ordinal_word = _popup_nth(bare)
    if ordinal_word:
        question.keywords = _without(question.keywords, ordinal_word)  # "the last pop-up": which one, not a word in it
    if question.scope and set(tokenize(question.scope)) <= POPUP_TOKENS | set(tokenize(ordinal_word or "")):
        question.scope = None  # "the dialog", "the confirmation pop-up": found by how it came up over a window, not by its words
    if question.scope and any(set(tokenize(question.scope)) <= set(tokenize(part)) for part in [question.relation_to or "", *(between or ())]):
        question.scope = None  # "after the Lowry passage": the part is what the moment is relative to, not where to look
    named_work = _NAME_OF_WORK.search(bare_lower)  # "what is the film called?": its title
    called = _CALLED.search(bare_lower)
    # (a title card named only to place the question asks for no title: "on the kennedy title card where does it say ...")
    # (nor does one named only to place the question: "the text before the title")
    question.asks_title = bool((_TITLE_WORD.search(asked_lower) and not relation_to_title) or named_work or called)
    if relation_to_title:
        # the title is found by its size, not by the word "title"
        question.keywords = [w for w in question.keywords if not set(tokenize(w)) <= TITLE_TOKENS] or question.keywords
    if called:
        question.keywords = _without(question.keywords, called["verb"])
    question.credits = bool(_CREDITS.search(bare_lower))
    question.addressee = bool(_ADDRESSEE.search(bare_lower))
    question.author = bool(_AUTHOR.search(bare_lower))
    # "how much of Sense and Sensibility is read - what does the title card say?": the card of the work it names, not the video's title
    names_a_work = bool(re.search(r"(?<=[a-z,;:]\s)(?:[A-Z][a-z]+|[A-Z]{2,5}\b)", text_for_topic))
    question.video_title = question.asks_title and bool(_VIDEO_TITLE.search(bare_lower) or _VIDEO_TITLE.search(text_for_topic.lower()) or named_work) \
        and not question.scope and time_range is None \
        and not names_a_work
    if question.video_title and previous is not None and not (previous.video_title or previous.overview) \
            and (own := _VIDEO_TITLE.search(bare_lower)) and own[0].startswith("its"):
        question.video_title = False  # "what year does its title card give?" after a question about one part: that part's card
    if question.video_title:
        question.position = "start"  # the film's own title is shown near its beginning
        if placed := _POSITION_START.search(bare):  # "the title that comes up at the beginning": where, not what
            question.keywords = _without(question.keywords, placed[0])
    elif question.credits and not question.scope and time_range is None:
        question.position = "start" if _OPENING_CREDITS.search(bare_lower) else "end"
    elif edge_of := _NAMED_EDGE.search(bare):
        question.scope = question.scope or edge_of["name"].strip()
        question.keywords = _without(question.keywords, edge_of["edge"])
    elif placed := _POSITION_START.search(bare):
        question.position, question.keywords = "start", _without(question.keywords, placed[0])
    elif placed := _POSITION_END.search(bare):
        question.position, question.keywords = "end", _without(question.keywords, placed[0])
    if question.wh == "yesno" and question.answer_type in (None, "when", "entity") and (embedded := _embedded_type(asked_lower)):
        question.answer_type = embedded  # "does it say when he gave that speech?": yes, and when
        if question.wants & {"speech", "ocr"}:
            question.wants |= {"speech", "ocr"}  # a date, a name or a place the video gives is said or shown
    asked = _MOMENT_ASK.search(asked_lower) or (_at_which(asked_lower) if question.answer_type in (None, "entity") else None)
    question.asks_moment = bool(asked) and question.answer_type not in ("time", "date")
    if question.credits and question.answer_type == "time":
        question.asks_moment, question.answer_type = True, "when"  # the credits have no clock: "what time do they roll?" asks where in the video
    if question.asks_moment and asked:
        # "how many seconds in", "how far into": the form of a question for a moment, no words of its topic
        question.keywords = _without(question.keywords, asked[0])
        # ... and where its question word made only a thing of it ("at what point"), a moment is what it asks for;
        # a kind the thing has stays ("when does the web address appear?": an address is looked for)
        generic = (None, "entity", "number", "count", "duration")
        question.answer_type = "when" if question.answer_type in generic else question.answer_type
    if (m := _WORDS_AT.search(bare)) and not question.asks_moment:
        edge = (m["edge"] or m["edge2"]).lower()
        question.words_at = "start" if edge in ("begin", "start", "open", "first", "opening") else "end"
        question.keywords = _without(question.keywords, edge)  # "the first line of ...": where in it, not what
        if question.scope:  # "the first line of the poem": the poem
            question.scope = re.sub(r"^(?:first|opening|last|closing|final)\s+(?:words?|lines?|sentences?)\s+(?:of|in)\s+(?:the\s+)?", "",
                                    question.scope, flags=re.I) or None
        elif question.time_range is None and not reported and not (previous is not None and _PRONOUN.search(bare)):
            question.position = question.words_at  # "how does the film end?": its closing part ("how does it end?": the part the last answer was about)
    starts, ends = bool(_START_VERBS.search(bare)) or "start" in edges, bool(_END_VERBS.search(bare)) or "end" in edges
    question.moment_edge = "end" if ends and not starts else "start"
    # "is it switched on?", "does it get turned off?": in the passive, something is done to the thing, it does not come or go
    question.appearing = (starts or ends) and not _passive(bare)
    question.visual_only = bool(_APPEARANCE.search(bare)) and not re.search(
        r"\b(?:colou?r|font|size) of (?:the )?(?:text|title|letters|words|writing|caption|font|sign)\b|\bwritten\b|\bsays?\b", bare_lower)
    asks_summary = asks_summary or _unplaced_summary_ask()
    # the phrasings written down before, and the fitted model for the endless others
    # (the video named by its own title reads as "the film": "what is the bunny film about?")
    plain, plain_bare = (_IN_THE_VIDEO.sub(_medium_only, _without_title(t, video_name)) for t in (text, bare))
    question.overview = bool(_OVERVIEW.search(plain_bare) or asks_summary(plain) or (question.scope and _PART_ABOUT.search(bare))) \
        and intent is None and not quoted
    if question.overview and question.scope and question.scope.lower().split()[-1] in ("story", "plot", "storyline"):
        question.scope = None  # "what's the story of this film?", "the gist of the story": the whole film's, not a part called a story
    if re.search(r"\b(?:short|brief|briefly|one sentence|quick|in a (?:word|line))\b", bare_lower):
        question.summary_length = "short"
    elif re.search(r"\b(?:detailed|long|full|complete|rundown|everything)\b", bare_lower):
        question.summary_length = "long"
    if _COUNT_NAMES.search(bare):
        question.count = "names"
    elif compared := _COMPARE_PARTS.search(bare):
        question.count, question.compare = "parts", _SUPERLATIVES[(compared["most"] or compared["most2"]).lower()]
        question.keywords = _without(question.keywords, compared[0])
    elif counted_parts := _COUNT_PARTS.search(bare) or _LIST_PARTS.search(bare):
        question.count, question.keywords = "parts", _without(question.keywords, counted_parts[0])
    elif _COUNT_MENTIONS.search(bare):
        question.count = "mentions"
    if question.count == "parts":
        question.overview = False  # "quick overview: what readings are in this?" lists the parts
    question.role_of = question.answer_type != "person" and not question.asks_moment and bool(_ROLE_OF.search(bare))
    # a role named inside a relative clause describes the one asked for, it is not asked ("the guy, the one the reader says ...")
    if question.answer_type == "person" and (role := _PERSON_ROLE.search(_without_relative_clauses(asked_lower))):
        question.role = role[0].lower()
    elif question.answer_type == "person" and (doing := _PERSON_DOING.search(bare)):
        question.role = _ROLE_VERBS[doing["verb"].lower()]
    elif question.answer_type == "person":
        question.role = _role_by_doing(asked_lower)
    if question.role and falls_under(question.role, "writer") and (question.ordinal or question.scope):
        # "who is the author of the second piece?" asks whose that piece is: the name on its card, not a line saying "authorities"
        question.author, question.keywords = True, [w for w in question.keywords if w.lower() != question.role]
    question.many = bool(_MANY.search(bare)) or _plural(asked_noun)
    if (edge := _SEQUENCE.search(bare)) and not set(tokenize(" ".join(question.keywords))) - _ACTORS:
        question.sequence = "first" if edge["first"] or edge["first2"] else "last"
        question.position = "start" if question.sequence == "first" else "end"
    question.excludes_previous = bool(re.search(r"\belse\b|\bother\b|\banother\b", bare_lower))
    if set_aside:
        question.besides = set_aside[1].strip()
    question.asks_a_question = bool(_ASKS_A_QUESTION.search(bare))
    if counted := _ORDINAL.search(bare) or _ORDINAL_SAID_AFTER.search(bare):
        question.ordinal, question.keywords = _ORDINALS[counted["n"].lower()], _without(question.keywords, counted[0])
        question.scope = None  # the part is found by its place in the order, not by its words
    elif (nth := _ordinal_adverb(bare)) is not None:
        # "who wrote the thing that's read second?": the part done in that place of the order
        question.ordinal, question.keywords = nth[0], [w for w in question.keywords if w.lower() not in nth[1]]
        question.scope = None
    elif previous is not None and (nth := _ordinal_one(bare)) is not None:
        # "ok and the last one, what year ...?" after a question about the first piece: that kind of part, by its place
        question.ordinal, question.keywords = nth[0], [w for w in question.keywords if w.lower() not in nth[1]]
        question.scope = None
    elif question.popup_nth is None and (item := _ordinal_item(bare)) is not None:
        # "the second monitor": which of the things on screen, by its place in the order, not a word to find
        question.item_nth, question.keywords = item[0], _without(question.keywords, item[1])
    if ordered := _ORDER.search(bare):
        question.order = "earliest" if ordered["early"] else "latest"
        question.keywords = _without(question.keywords, ordered[0])
        if question.relation_to and question.relation_to.lower() in ordered[0].lower():
            question.relation = question.relation_to = None  # "before any change": the first state, no moment to place it by
    back = _BACK.search(bare) if previous is not None else None
    question.refers_back = back is not None
    question.pointed = back["pointed"].lower() if back is not None and back["pointed"] else None
    question.pronoun = bool(_PRONOUN.search(bare))
    what_about = previous is not None and (bool(_WHAT_ABOUT.match(lower)) or _elliptical(bare))
    if what_about and question.answer_type is None:
        # "and what about the acer one?": what was asked before, asked of something else (so "the music"
        # after "who directed it?" is what someone did, not where to listen)
        question.answer_type, question.asked_for = previous.answer_type, previous.asked_for
        if question.answer_type in NOT_HEARD:
            question.wants = question.wants - {"audio"}  # a name, a place or a date is not heard, whatever the words
        if previous.asked_for:
            question.keywords = list(dict.fromkeys([*question.keywords, previous.asked_for]))
    own_words = question.subject
    if previous is not None and (question.refers_back and len(own_words) <= 4 or not keywords or (not own_words and question.pronoun) or re.match(r"^\s*and\b", lower) or what_about):
        question.follow_up = True
        # the earlier topic says where this one is (its own words say what it asks), and it holds
        # for the question after it too ("and before that?")
        question.carried = previous.keywords or previous.carried
        if not own_words and question.relation is None and not question.asks_moment:  # "and the price?" alone
            question.keywords = list(dict.fromkeys(keywords + question.carried))
    # the parser may hang the question on a clause that only places it ("once they've dragged things
    # around in the preview, where does ... end up"): the question proper is read alone then
    question.placed = _placed(bare) or (_placed(question.asked) if question.asked and question.asked != bare.lower() else None)
    return question


def _ordinal_adverb(text: str) -> tuple[int, set[str]] | None:
    """The place in order an ordinal used as an adverb of a verb gives ("the thing that's read second":
    2, "who speaks third"), as the parser reads it, and its word; None without one, or where a phrase
    on the verb says what the order is of ("who comes third in the race?")."""
    for t in parse(text):
        # ("who comes third in the race?": the verb's own phrase names what the order is of)
        if t.lower_ in _ORDINALS and t.dep_ == "advmod" and t.head.pos_ == "VERB" and not any(c.dep_ == "prep" for c in t.head.children):
            return _ORDINALS[t.lower_], {t.lower_}
    return None


def _ordinal_item(text: str) -> tuple[int, str] | None:
    """The place in order, from the second on, that an ordinal gives the noun it modifies ("the 2nd
    screen": 2), and the ordinal as written; None without one."""
    for t in parse(text):
        if t.pos_ == "NOUN" and (nth := _ordinal_on(t)) is not None and nth[0] >= 2:
            return nth[0], nth[1].text
    return None


def _ordinal_one(text: str) -> tuple[int, set[str]] | None:
    """The place in order that "one" with an ordinal names, as the parser reads it ("the last one":
    -1, "the second one": 2; "first" and "last" too), and the words that say it; None without one."""
    for t in parse(text):
        if t.lower_ == "one" and t.pos_ in ("NUM", "NOUN") and (nth := _ordinal_on(t)) is not None:
            return nth[0], {nth[1].lower_, t.lower_}
    return None


def _placed(text: str) -> Placed | None:
    return placed_terms(parse(text))
