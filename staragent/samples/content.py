"""What each slide says, before anything has a time.

A ``TopicWriter`` turns a seed into a stream of ``SlideDraft``s. Each draft is about one entity (a
product, a person, a trip, ...) that appears nowhere else in the video, shows 2-4 lines of concrete
facts, and carries the narration to speak over it: sometimes restating an on-screen fact, sometimes
stating a fact that is only heard, sometimes leaving the screen to speak for itself. Content depends
only on the seed and the slide's position, never on how long the speech turns out to be.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from . import pools

Interlude = Literal["tone", "noise", "chime", "silence", "motion"]

# What follows the narration of slide k is INTERLUDE_CYCLE[k % len]. The cycle opens with a beep, a
# pause and an animation, so that even a one-minute sample holds one of each.
INTERLUDE_CYCLE: tuple[Interlude | None, ...] = (
    "tone", "silence", "motion", "noise", None, "chime", None, "silence", "tone", None,
)

SLIDE_SECONDS = (15.0, 25.0)
SECONDS_PER_CHAR = 0.062  # espeak-ng at 160 words per minute, numbers spelled out


@dataclass
class Claim:
    """One fact, as an on-screen line or a spoken sentence, with the question it answers."""

    text: str
    question: str
    answer: str
    keywords: list[str]
    restated: str | None = None  # a narration sentence that repeats an on-screen claim


@dataclass
class Derived:
    """A fact computed from two claims (a total, a difference, a discounted price)."""

    question: str
    answer: str
    keywords: list[str]
    parts: list[Claim]


@dataclass
class Sentence:
    text: str
    claim: Claim | None = None  # the claim this sentence states, if any


@dataclass
class SlideDraft:
    """A slide's content and narration, not yet placed on the clock."""

    entity: str
    ref: str
    title: str
    shown: list[Claim]
    sentences: list[Sentence]
    derived: list[Derived] = field(default_factory=list)
    interlude: Interlude | None = None
    tone_hz: int | None = None
    ball: str | None = None
    ball_direction: Literal["left-to-right", "right-to-left"] | None = None

    @property
    def lines(self) -> list[str]:
        return [claim.text for claim in self.shown]


@dataclass
class Topic:
    """An entity with the claims a slide about it can make."""

    entity: str  # how the title names it: "Aurora air fryer"
    ref: str  # how a sentence names it: "the Aurora air fryer"
    title: str
    intro: str
    shown: list[Claim]
    spoken: list[Claim]
    derived: list[Derived] = field(default_factory=list)
    must_say: list[Claim] = field(default_factory=list)  # spoken claims a derived fact depends on


def estimate_seconds(text: str) -> float:
    """Rough speaking time of a sentence; only used to decide how much narration a slide gets."""
    expanded = re.sub(r"\d", "xxxxx", text)
    return SECONDS_PER_CHAR * len(expanded)


def _cap(sentence: str) -> str:
    return sentence[0].upper() + sentence[1:]


def _hhmm(rng: random.Random, first: int = 6, last: int = 21) -> tuple[str, str]:
    """A clock time as shown ("07:45") and as a keyword that also matches "7:45"."""
    hour, minute = rng.randint(first, last), rng.randrange(0, 60, 5)
    return f"{hour:02d}:{minute:02d}", f"{hour}:{minute:02d}"


class Registry:
    """Remembers every entity and identifier already used, so none appears twice in a video."""

    def __init__(self) -> None:
        self.used: dict[str, set] = defaultdict(set)

    def pick(self, rng: random.Random, kind: str, options: Sequence[str]) -> str | None:
        """A random unused option, or None when the pool is spent."""
        free = [o for o in options if o not in self.used[kind]]
        if not free:
            return None
        choice = rng.choice(free)
        self.used[kind].add(choice)
        return choice

    def draw(self, kind: str, make: Callable[[], object]) -> object:
        """Draw values with ``make`` until one has not been used before."""
        for _ in range(1000):
            value = make()
            if value not in self.used[kind]:
                self.used[kind].add(value)
                return value
        raise RuntimeError(f"ran out of distinct values for {kind}")


_PRODUCT_NAMES = [f"{b} {p}" for b, p in itertools.product(pools.BRANDS, pools.PRODUCTS)]
_PEOPLE = [f"{f} {s}" for f, s in itertools.product(pools.FIRST_NAMES, pools.LAST_NAMES)]
_DIVISIONS = [f"{n} {k}" for n, k in itertools.product(pools.DIVISIONS, pools.DIVISION_KINDS)]
_WORKSHOPS = [f"{lvl}{s.lower()}" if lvl else s for lvl, s in itertools.product(pools.WORKSHOP_LEVELS, pools.WORKSHOP_SUBJECTS)]
_SERVICES = [p + s for p, s in itertools.product(pools.SERVICE_PREFIXES, pools.SERVICE_SUFFIXES)]
_DISHES = [f"{f} {d}" for f, d in itertools.product(pools.DISH_FLAVOURS, pools.DISHES)]


def _price(rng: random.Random, reg: Registry, low: int, high: int) -> int:
    """A unique shop price ending in 9 (29, 249, 1499 ...)."""
    return reg.draw("price", lambda: rng.randrange(low // 10 + 1, high // 10) * 10 - 1)


def _code(rng: random.Random, reg: Registry) -> str:
    return reg.draw("code", lambda: "".join(rng.choices(pools.CODE_LETTERS, k=2)) + f"-{rng.randint(1000, 9899)}")


def _product(rng: random.Random, reg: Registry) -> Topic | None:
    name = reg.pick(rng, "product", _PRODUCT_NAMES)
    if name is None:
        return None
    ref = f"the {name}"
    price, code = _price(rng, reg, 30, 2000), _code(rng, reg)
    shown = [
        Claim(f"Price: ${price}", f"How much does {ref} cost?", f"${price}", [str(price)], f"It sells for ${price}."),
        Claim(f"Model no. {code}", f"What is the model number of {ref}?", code, [code], f"Its model number is {code}."),
    ]
    spec = rng.choice(("battery", "weight", "colours"))
    if spec == "battery":
        hours = rng.randint(4, 40)
        shown.append(Claim(f"Battery: {hours} hours", f"How long does the battery of {ref} last?",
                           f"{hours} hours", [str(hours)], f"The battery lasts {hours} hours."))
    elif spec == "weight":
        kg = f"{rng.randint(6, 99) / 10:.1f}"
        shown.append(Claim(f"Weight: {kg} kg", f"How much does {ref} weigh?", f"{kg} kg", [kg], f"It weighs {kg} kilograms."))
    else:
        count = rng.randint(2, 9)
        shown.append(Claim(f"Colours: {count}", f"In how many colours does {ref} come?", str(count), [str(count)],
                           f"It comes in {count} colours."))
    years = rng.randint(2, 7)
    day, month = rng.randint(1, 28), rng.choice(pools.MONTHS)
    spoken = [
        Claim(f"The warranty on {ref} lasts {years} years.", f"How long is the warranty on {ref}?",
              f"{years} years", [str(years)]),
        Claim(f"{_cap(ref)} went on sale on {day} {month}.", f"When did {ref} go on sale?",
              f"{day} {month}", [str(day), month]),
    ]
    intro = rng.choice(("Next up, {}.", "Let's look at {}.", "Here is {}."))
    return Topic(name, ref, _cap(name), intro.format(ref), shown, spoken)


def _person(rng: random.Random, reg: Registry) -> Topic | None:
    name = reg.pick(rng, "person", _PEOPLE)
    if name is None:
        return None
    first = name.split()[0]
    role, city = rng.choice(pools.ROLES), rng.choice(pools.CITIES)
    month, year = rng.choice(pools.MONTHS), rng.randint(2008, 2024)
    shown = [
        Claim(f"Role: {role}", f"What is {name}'s role?", role, [role], f"{first} is our {role}."),
        Claim(f"Office: {city}", f"Which city is {name}'s office in?", city, [city], f"{first} works from our {city} office."),
        Claim(f"Joined: {month} {year}", f"When did {name} join the company?", f"{month} {year}",
              [month, str(year)], f"{first} joined in {month} {year}."),
    ]
    team, languages = rng.randint(3, 60), rng.randint(2, 6)
    spoken = [
        Claim(f"{first} leads a team of {team} people.", f"How many people are on {name}'s team?", str(team), [str(team)]),
        Claim(f"{first} speaks {languages} languages.", f"How many languages does {name} speak?",
              str(languages), [str(languages)]),
    ]
    intro = rng.choice(("Please meet {}.", "Let me introduce {}."))
    return Topic(name, name, f"Meet {name}", intro.format(name), shown, spoken)


def _trip(rng: random.Random, reg: Registry) -> Topic | None:
    city = reg.pick(rng, "city", pools.CITIES)
    if city is None:
        return None
    purpose = rng.choice(pools.TRIP_PURPOSES)
    entity = f"{purpose} trip to {city}"
    ref = f"the {purpose.lower()} trip to {city}"
    flight = reg.draw("flight", lambda: f"{rng.choice(pools.AIRLINE_CODES)} {rng.randint(100, 989)}")
    departs, departs_key = _hhmm(rng, 5, 21)
    gate = f"{rng.choice(pools.CODE_LETTERS[:6])}{rng.randint(1, 40)}"
    shown = [
        Claim(f"Flight: {flight}", f"Which flight is booked for {ref}?", flight, [flight], f"We fly out on {flight}."),
        Claim(f"Departure: {departs}", f"What time does the flight for {ref} depart?", departs, [departs_key],
              f"The flight leaves at {departs}."),
        Claim(f"Gate: {gate}", f"From which gate does the flight for {ref} leave?", gate, [gate], f"Boarding is at gate {gate}."),
    ]
    hotel, days = rng.choice(pools.HOTELS), rng.randint(2, 12)
    spoken = [
        Claim(f"The team stays at the {hotel} Hotel.", f"Which hotel does the team stay at on {ref}?",
              f"the {hotel} Hotel", [hotel]),
        Claim(f"{_cap(ref)} lasts {days} days.", f"How many days does {ref} last?", str(days), [str(days)]),
    ]
    intro = rng.choice(("Now, the plan for {}.", "Next, {}."))
    return Topic(entity, ref, entity, intro.format(ref), shown, spoken)


def _results(rng: random.Random, reg: Registry) -> Topic | None:
    unit = reg.pick(rng, "division", _DIVISIONS)
    if unit is None:
        return None
    ref = f"the {unit}"
    quarter = f"{rng.choice(pools.QUARTERS)} {rng.randint(2019, 2025)}"
    revenue = f"{rng.randint(11, 99) / 10:.1f}"
    growth, clients = rng.randint(2, 48), rng.randint(12, 950)
    shown = [
        Claim(f"Revenue: ${revenue} million", f"What revenue did {ref} report for {quarter}?", f"${revenue} million",
              [revenue], f"Revenue came in at ${revenue} million."),
        Claim(f"Growth: {growth}%", f"How much did {ref} grow in {quarter}?", f"{growth}%", [str(growth)],
              f"That is growth of {growth}%."),
        Claim(f"New clients: {clients}", f"How many new clients did {ref} gain in {quarter}?", str(clients),
              [str(clients)], f"We signed {clients} new clients."),
    ]
    turnover, offices = rng.randint(2, 19), rng.randint(2, 9)
    spoken = [
        Claim(f"Staff turnover in {ref} fell to {turnover}%.", f"What was staff turnover in {ref} in {quarter}?",
              f"{turnover}%", [str(turnover)]),
        Claim(f"{_cap(ref)} opened {offices} new offices this quarter.", f"How many new offices did {ref} open in {quarter}?",
              str(offices), [str(offices)]),
    ]
    return Topic(unit, ref, f"{unit}: {quarter}", f"Here are the {quarter} numbers for {ref}.", shown, spoken)


def _workshop(rng: random.Random, reg: Registry) -> Topic | None:
    subject = reg.pick(rng, "workshop", _WORKSHOPS)
    if subject is None:
        return None
    ref = f"the {subject.lower()} workshop"
    day, month, year = rng.randint(1, 28), rng.choice(pools.MONTHS), rng.randint(2024, 2027)
    starts, starts_key = _hhmm(rng, 8, 19)
    room = f"{rng.randint(1, 9)}{rng.choice(pools.CODE_LETTERS[:5])}"
    seats = rng.randint(8, 120)
    options = [
        Claim(f"Date: {day} {month} {year}", f"On what date is {ref}?", f"{day} {month} {year}", [str(day), month],
              f"It takes place on {day} {month}."),
        Claim(f"Starts: {starts}", f"What time does {ref} start?", starts, [starts_key], f"It starts at {starts}."),
        Claim(f"Room: {room}", f"Which room is {ref} in?", room, [room], f"We meet in room {room}."),
        Claim(f"Seats: {seats}", f"How many seats does {ref} have?", str(seats), [str(seats)], f"There are {seats} seats."),
    ]
    shown = sorted(rng.sample(options, rng.randint(2, 4)), key=options.index)
    spoken = []
    teacher = reg.pick(rng, "person", _PEOPLE)
    if teacher is not None:
        spoken.append(Claim(f"{_cap(ref)} is taught by {teacher}.", f"Who teaches {ref}?", teacher, [teacher.split()[-1]]))
    fee = reg.draw("fee", lambda: rng.randrange(20, 600, 5))
    spoken.append(Claim(f"The fee for {ref} is ${fee}.", f"How much does {ref} cost?", f"${fee}", [str(fee)]))
    return Topic(subject, ref, f"Workshop: {subject}", f"Coming up: {ref}.", shown, spoken)


def _plans(rng: random.Random, reg: Registry) -> Topic | None:
    service = reg.pick(rng, "service", _SERVICES)
    if service is None:
        return None
    basic = rng.randint(4, 30)
    pro = basic + rng.randint(6, 45)
    basic_claim = Claim(f"Basic plan: ${basic} a month", f"How much does the Basic plan of {service} cost per month?",
                        f"${basic}", [str(basic)], f"The Basic plan is ${basic} a month.")
    pro_claim = Claim(f"Pro plan: ${pro} a month", f"How much does the Pro plan of {service} cost per month?",
                      f"${pro}", [str(pro)], f"The Pro plan costs ${pro} a month.")
    shown = [basic_claim, pro_claim]
    if rng.random() < 0.5:
        trial = rng.choice((7, 10, 14, 21, 30, 60))
        shown.append(Claim(f"Free trial: {trial} days", f"How long is the free trial of {service}?", f"{trial} days",
                           [str(trial)], f"There is a {trial} day free trial."))
    if rng.random() < 0.5:
        derived = Derived(f"How much do the Basic and Pro plans of {service} cost together per month?",
                          f"${basic + pro}", [str(basic + pro)], [basic_claim, pro_claim])
    else:
        derived = Derived(f"How much more per month does the Pro plan of {service} cost than the Basic plan?",
                          f"${pro - basic}", [str(pro - basic)], [basic_claim, pro_claim])
    saving, users = rng.choice((10, 15, 20, 25, 30)), rng.randint(3, 95)
    spoken = [
        Claim(f"Paying yearly for {service} saves {saving}%.", f"How much does yearly billing save on {service}?",
              f"{saving}%", [str(saving)]),
        Claim(f"{service} now has {users} thousand users.", f"How many users does {service} have?",
              f"{users} thousand", [str(users)]),
    ]
    return Topic(service, service, f"{service} pricing", f"Let's compare the {service} plans.", shown, spoken, [derived])


def _offer(rng: random.Random, reg: Registry) -> Topic | None:
    name = reg.pick(rng, "product", _PRODUCT_NAMES)
    if name is None:
        return None
    ref = f"the {name}"
    # A multiple of 20 keeps every discounted price a whole number of dollars.
    price = reg.draw("price", lambda: rng.randint(2, 150) * 20)
    discount = rng.choice((10, 20, 25, 50))
    ends = rng.choice(pools.WEEKDAYS)
    price_claim = Claim(f"Regular price: ${price}", f"What is the regular price of {ref}?", f"${price}", [str(price)],
                        f"It normally costs ${price}.")
    shown = [
        price_claim,
        Claim(f"Offer ends: {ends}", f"On which day does the offer on {ref} end?", ends, [ends], f"The offer ends on {ends}."),
    ]
    discount_claim = Claim(f"Today {ref} is {discount}% off.", f"What discount is offered on {ref}?", f"{discount}%",
                           [str(discount)])
    sale = price * (100 - discount) // 100
    derived = Derived(f"What does {ref} cost after the discount the speaker mentions?", f"${sale}", [str(sale)],
                      [price_claim, discount_claim])
    return Topic(name, ref, f"Offer: {_cap(name)}", f"One more offer: {ref}.", shown, [discount_claim], [derived],
                 must_say=[discount_claim])


def _warehouse(rng: random.Random, reg: Registry) -> Topic | None:
    city = reg.pick(rng, "city", pools.CITIES)
    if city is None:
        return None
    ref = f"the {city} warehouse"
    pallets, bays = rng.randint(300, 9900), rng.randint(4, 40)
    shift, shift_key = _hhmm(rng, 4, 9)
    shown = [
        Claim(f"Pallets in stock: {pallets}", f"How many pallets are in stock at {ref}?", str(pallets), [str(pallets)],
              f"There are {pallets} pallets in stock."),
        Claim(f"Loading bays: {bays}", f"How many loading bays does {ref} have?", str(bays), [str(bays)],
              f"It has {bays} loading bays."),
        Claim(f"Shift starts: {shift}", f"When does the first shift start at {ref}?", shift, [shift_key],
              f"The first shift starts at {shift}."),
    ]
    orders = rng.randint(120, 4800)
    spoken = [Claim(f"{_cap(ref)} ships {orders} orders a day.", f"How many orders a day does {ref} ship?",
                    str(orders), [str(orders)])]
    manager = reg.pick(rng, "person", _PEOPLE)
    if manager is not None:
        spoken.append(Claim(f"{_cap(ref)} is managed by {manager}.", f"Who manages {ref}?", manager, [manager.split()[-1]]))
    return Topic(f"{city} warehouse", ref, f"{city} warehouse", f"Let's check in on {ref}.", shown, spoken)


def _dish(rng: random.Random, reg: Registry) -> Topic | None:
    dish = reg.pick(rng, "dish", _DISHES)
    if dish is None:
        return None
    ref = f"the {dish.lower()}"
    calories, minutes, price = rng.randint(180, 990), rng.randint(8, 95), rng.randint(7, 39)
    shown = [
        Claim(f"Calories: {calories}", f"How many calories does {ref} have?", str(calories), [str(calories)],
              f"It has {calories} calories."),
        Claim(f"Prep time: {minutes} minutes", f"How long does {ref} take to prepare?", f"{minutes} minutes",
              [str(minutes)], f"It takes {minutes} minutes to prepare."),
        Claim(f"Price: ${price}", f"How much does {ref} cost?", f"${price}", [str(price)], f"It costs ${price}."),
    ]
    shown = shown[: rng.randint(2, 3)]
    chef, day = rng.choice(pools.CHEFS), rng.choice(pools.WEEKDAYS)
    spoken = [
        Claim(f"{_cap(ref)} was created by {chef}.", f"Who created {ref}?", chef, [chef.split()[-1]]),
        Claim(f"{_cap(ref)} is only served on {day}s.", f"On which day is {ref} served?", day, [day]),
    ]
    return Topic(dish, ref, f"On the menu: {dish}", f"Next on the menu, {ref}.", shown, spoken)


TOPIC_KINDS: dict[str, Callable[[random.Random, Registry], Topic | None]] = {
    "product": _product,
    "person": _person,
    "trip": _trip,
    "results": _results,
    "workshop": _workshop,
    "plans": _plans,
    "offer": _offer,
    "warehouse": _warehouse,
    "dish": _dish,
}

_SCREEN_ONLY = (
    "Take a moment to read the details on screen.",
    "The key figures are on the slide.",
    "Everything you need is on the slide.",
)

_FILLERS = (
    "Keep {} in mind for the next section.",
    "That is the short version for {}.",
    "There is more detail about {} in the handout.",
    "We can talk more about {} in the break.",
    "Feel free to note this down.",
    "This part tends to come up in questions.",
    "Let that sink in for a moment.",
)


class TopicWriter:
    """Writes slide drafts one after another from a seed; each entity is used at most once."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.registry = Registry()
        self.kinds = dict(TOPIC_KINDS)
        self.count = 0
        self.last_kind: str | None = None

    def next(self) -> SlideDraft:
        index = self.count
        self.count += 1
        rng = random.Random(f"staragent-sample-slide:{self.seed}:{index}")
        topic = self._topic(rng)
        draft = self._narrate(topic, rng, rng.uniform(*SLIDE_SECONDS))
        self._add_interlude(draft, index, rng)
        return draft

    def _topic(self, rng: random.Random) -> Topic:
        while self.kinds:
            choices = [k for k in self.kinds if k != self.last_kind] or list(self.kinds)
            kind = rng.choice(sorted(choices))
            topic = self.kinds[kind](rng, self.registry)
            if topic is not None:
                self.last_kind = kind
                return topic
            del self.kinds[kind]  # its pool is spent
        raise RuntimeError("every entity pool is spent; the video is too long for the pools")

    def _narrate(self, topic: Topic, rng: random.Random, target: float) -> SlideDraft:
        """Choose what the narrator says over the slide, enough to fill about ``target`` seconds.

        "restate" repeats on-screen lines and adds a spoken-only fact, "spoken" only adds facts the
        screen does not show, "screen" says nothing factual and leaves the lines to be read.
        """
        style = rng.choices(("restate", "spoken", "screen"), weights=(45, 40, 15))[0]
        if style == "screen" and topic.must_say:
            style = "spoken"
        said = list(topic.must_say)
        unsaid = [c for c in topic.spoken if c not in said]
        rng.shuffle(unsaid)
        restatable = [c for c in topic.shown if c.restated]
        rng.shuffle(restatable)
        if style == "restate":
            body = [Sentence(c.restated, c) for c in restatable[:1]] + [Sentence(c.text, c) for c in said + unsaid[:1]]
            extra = [Sentence(c.restated, c) for c in restatable[1:]] + [Sentence(c.text, c) for c in unsaid[1:]]
        elif style == "spoken":
            body = [Sentence(c.text, c) for c in said + unsaid[:1]]
            extra = [Sentence(c.text, c) for c in unsaid[1:]]
        else:
            body, extra = [Sentence(rng.choice(_SCREEN_ONLY))], []
        rng.shuffle(body)
        sentences = [Sentence(topic.intro), *body]
        # Talk fills the slide, so that its only long silences are the ones the script declares:
        # first more of the same kind of fact, then at most three sentences that state nothing new.
        fillers = [Sentence(f.format(topic.ref)) for f in rng.sample(_FILLERS, 3)]
        for sentence in extra + fillers:
            if sum(estimate_seconds(s.text) + 0.5 for s in sentences) + 3.0 >= target:
                break
            sentences.insert(rng.randint(1, len(sentences)), sentence)
        return SlideDraft(topic.entity, topic.ref, topic.title, topic.shown, sentences, topic.derived)

    def _add_interlude(self, draft: SlideDraft, index: int, rng: random.Random) -> None:
        draft.interlude = INTERLUDE_CYCLE[index % len(INTERLUDE_CYCLE)]
        if draft.interlude == "tone":
            draft.tone_hz = rng.choice((440, 660, 880, 1000))
        elif draft.interlude == "motion":
            draft.ball = rng.choice(sorted(pools.BALL_COLOURS))
            draft.ball_direction = rng.choice(("left-to-right", "right-to-left"))
