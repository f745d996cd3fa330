"""Put slide drafts on the clock: ``build_script`` turns (minutes, seed) into a ``SampleScript``.

Each slide opens with a short lead-in, then its sentences, each as long as its spoken clip, with
natural pauses between them; then its interlude (a beep, noise burst, chime or pause, with clear air
around it so that no speech overlaps it, or a ball animation as a scene of its own); then a short
tail. Scene boundaries fall on frame times. The last slide is fitted to the requested length by
dropping its least important sentences if it must, and holding the picture if there is time left.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..errors import InputError
from . import pools
from .content import Claim, Derived, Interlude, Sentence, SlideDraft, TopicWriter
from .script import AudioEventSpec, Cue, Fact, SampleScript, Slide
from .speech import Voice, choose_voice

LEAD_IN = 0.6  # quiet before a slide's first sentence
PAUSE = (0.35, 0.65)  # between sentences
TAIL = 0.8  # quiet after a slide's last sound
EVENT_CLEARANCE = 0.6  # no speech this close to a beep, noise burst or chime
SILENCE_SECONDS = (3.0, 8.0)
SOUND_SECONDS = (1.0, 2.0)
CHIME_SECONDS = 1.5
MOTION_SECONDS = (5.0, 7.0)
MIN_LAST_SLIDE = 15.0  # a slide that would leave less than this behind it becomes the last one

MIN_SECONDS = 10.0
MAX_MINUTES = 240.0
MIN_SIZE = (480, 270)  # below this the slide text gets too small to read back reliably
MAX_SIZE = (3840, 2160)
FPS_RANGE = (1, 60)


def check_settings(minutes: float, seed: int, fps: int, width: int, height: int) -> None:
    """Raise ``InputError`` explaining the first setting that cannot make a sample video."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"seed must be a whole number, got {seed!r}")
    if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not math.isfinite(minutes) or minutes <= 0:
        raise InputError(f"minutes must be a positive number, got {minutes!r}")
    if minutes * 60 < MIN_SECONDS:
        raise InputError(f"minutes={minutes} is too short: a sample needs at least {MIN_SECONDS:.0f} seconds "
                         f"(minutes >= {MIN_SECONDS / 60:.2f}) to hold one narrated slide")
    if minutes > MAX_MINUTES:
        raise InputError(f"minutes={minutes} is too long: at most {MAX_MINUTES:.0f} minutes are supported")
    if not isinstance(fps, int) or isinstance(fps, bool) or not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise InputError(f"fps must be a whole number from {FPS_RANGE[0]} to {FPS_RANGE[1]}, got {fps!r}")
    for name, value, low, high in (("width", width, MIN_SIZE[0], MAX_SIZE[0]), ("height", height, MIN_SIZE[1], MAX_SIZE[1])):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{name} must be a whole number of pixels, got {value!r}")
        if value < low:
            raise InputError(f"{width}x{height} is too small: the minimum is {MIN_SIZE[0]}x{MIN_SIZE[1]}, "
                             "below which slide text is too small to read reliably")
        if value > high:
            raise InputError(f"{width}x{height} is too large: the maximum is {MAX_SIZE[0]}x{MAX_SIZE[1]}")
        if value % 2:
            raise InputError(f"{name}={value} must be even (H.264 in yuv420p halves the colour resolution)")


def build_script(minutes: float, seed: int = 0, fps: int = 25, width: int = 640, height: int = 360,
                 tts: bool | None = None) -> SampleScript:
    """The script of a sample video, without rendering it.

    Timings come from the length of each spoken clip, so speech is synthesised (in memory) to
    measure it; with the same ``tts`` choice this returns exactly the script
    ``generate_sample_video`` saves for the same arguments.
    """
    check_settings(minutes, seed, fps, width, height)
    return lay_out(minutes, seed, fps, width, height, choose_voice(tts))


def lay_out(minutes: float, seed: int, fps: int, width: int, height: int, voice: Voice,
            progress: bool = False) -> SampleScript:
    """Draft slides from the seed and place them on the clock until the video is full."""
    duration = round(minutes * 60 * fps) / fps
    writer = TopicWriter(seed)
    timeline = _Timeline(seed, fps, duration)
    batch = math.ceil(duration / 20.0) + 1  # slides average about 20 s; more are drafted if needed
    while not timeline.full:
        drafts = [writer.next() for _ in range(batch)]
        voice.prepare([s.text for d in drafts for s in d.sentences], progress)
        for draft in drafts:
            timeline.place(draft, voice)
            if timeline.full:
                break
        batch = 4
    facts = sorted(timeline.facts, key=lambda f: (f.start, f.slide))
    for number, fact in enumerate(facts):
        fact.id = f"f{number:03d}"
    return SampleScript(
        seed=seed, minutes=minutes, duration=round(duration, 3), fps=fps, width=width, height=height, tts=voice.name,
        slides=timeline.slides, narration=timeline.cues, audio_events=timeline.events, facts=facts,
    )


@dataclass
class _Arrangement:
    """Where a slide's sounds fall when it starts at a given time."""

    spans: list[tuple[float, float]]
    event: tuple[float, float] | None
    slide_end: float
    scene_end: float  # end of the motion scene after the slide, or the slide's own end


class _Timeline:
    """Accumulates scenes, cues, events and facts as drafts are placed one after another."""

    def __init__(self, seed: int, fps: int, duration: float) -> None:
        self.seed, self.fps, self.duration = seed, fps, duration
        self.t = 0.0
        self.full = False
        self.slides: list[Slide] = []
        self.cues: list[Cue] = []
        self.events: list[AudioEventSpec] = []
        self.facts: list[Fact] = []
        self._drafts = 0

    def _snap(self, t: float) -> float:
        """The first frame time at or after ``t``."""
        return math.ceil(t * self.fps - 1e-6) / self.fps

    def place(self, draft: SlideDraft, voice: Voice) -> None:
        rng = random.Random(f"staragent-sample-timing:{self.seed}:{self._drafts}")
        self._drafts += 1
        sentences = list(draft.sentences)
        lengths = {s.text: voice.duration(s.text) for s in sentences}
        pauses = [rng.uniform(*PAUSE) for _ in sentences]
        interlude = draft.interlude
        sound_seconds = {
            "silence": rng.uniform(*SILENCE_SECONDS),
            "tone": rng.uniform(*SOUND_SECONDS),
            "noise": rng.uniform(*SOUND_SECONDS),
            "chime": CHIME_SECONDS,
            "motion": rng.uniform(*MOTION_SECONDS),
        }
        previous = self._last_background()
        background = rng.choice([c for c in pools.SLIDE_BACKGROUNDS if c != previous])

        def arrange() -> _Arrangement:
            return self._arrange(sentences, lengths, pauses, interlude, sound_seconds[interlude] if interlude else 0.0)

        plan = arrange()
        last = self.duration - plan.scene_end < MIN_LAST_SLIDE
        if last:
            while plan.scene_end > self.duration + 1e-9 and (sentences or interlude):
                interlude = self._shorten(sentences, interlude)
                plan = arrange()
            self.full = True
        self._record(draft, sentences, plan, interlude, background, last)

    def _last_background(self) -> str | None:
        return next((s.background for s in reversed(self.slides) if s.kind == "slide"), None)

    def _arrange(self, sentences: list[Sentence], lengths: dict[str, float], pauses: list[float],
                 interlude: Interlude | None, sound_seconds: float) -> _Arrangement:
        t = self.t + LEAD_IN
        spans = []
        for i, sentence in enumerate(sentences):
            if i:
                t += pauses[i]
            spans.append((round(t, 3), round(t + lengths[sentence.text], 3)))
            t += lengths[sentence.text]
        event = None
        if interlude == "silence":
            event = (t + 0.2, t + 0.2 + sound_seconds)
            end = event[1]
        elif interlude in ("tone", "noise", "chime"):
            event = (t + EVENT_CLEARANCE, t + EVENT_CLEARANCE + sound_seconds)
            end = event[1] + EVENT_CLEARANCE
        else:
            end = t + TAIL
        slide_end = self._snap(end)
        scene_end = self._snap(slide_end + sound_seconds) if interlude == "motion" else slide_end
        if event:
            event = (round(event[0], 3), round(event[1], 3))
        return _Arrangement(spans, event, slide_end, scene_end)

    @staticmethod
    def _shorten(sentences: list[Sentence], interlude: Interlude | None) -> Interlude | None:
        """Drop the least useful remaining item: a filler, then the interlude, then the last sentence."""
        fillers = [i for i, s in enumerate(sentences) if i and s.claim is None]
        if fillers:
            del sentences[fillers[-1]]
        elif interlude is not None:
            return None
        elif sentences:
            sentences.pop()
        return interlude

    def _record(self, draft: SlideDraft, sentences: list[Sentence], plan: _Arrangement, interlude: Interlude | None,
                background: str, last: bool) -> None:
        index = len(self.slides)
        slide_end = plan.slide_end
        scene_end = plan.scene_end
        if last:  # hold the final picture until the video ends
            scene_end = self.duration
            if interlude != "motion":
                slide_end = self.duration
        slide = Slide(index=index, start=round(self.t, 3), end=round(slide_end, 3), title=draft.title, lines=draft.lines,
                      kind="slide", background=background)
        self.slides.append(slide)
        spans: dict[int, tuple[float, float]] = {}
        for sentence, (start, end) in zip(sentences, plan.spans, strict=True):
            self.cues.append(Cue(start=start, end=end, text=sentence.text, slide=index))
            if sentence.claim is not None:
                spans[id(sentence.claim)] = (start, end)
        self._record_claims(draft, slide, spans)
        if plan.event is not None:
            self._record_event(draft, slide, interlude, plan.event)
        if interlude == "motion":
            self._record_motion(draft, slide, scene_end)
        self.t = scene_end

    def _fact(self, draft: SlideDraft, slide: int, **fields) -> None:
        self.facts.append(Fact(id="", topic=draft.entity, slide=slide, **fields))

    def _record_claims(self, draft: SlideDraft, slide: Slide, spans: dict[int, tuple[float, float]]) -> None:
        restated = {id(s.claim) for s in draft.sentences if s.claim is not None and id(s.claim) in spans}
        for claim in draft.shown:
            carried = ["ocr", "speech"] if id(claim) in restated else ["ocr"]
            self._fact(draft, slide.index, modality="ocr", start=slide.start, end=slide.end, modalities=carried,
                       **_answer(claim))
        shown = {id(c) for c in draft.shown}
        for sentence in draft.sentences:
            claim = sentence.claim
            if claim is not None and id(claim) not in shown and id(claim) in spans:
                start, end = spans[id(claim)]
                self._fact(draft, slide.index, modality="speech", start=start, end=end, **_answer(claim))
        for derived in draft.derived:
            self._record_derived(draft, slide, derived, shown, spans)

    def _record_derived(self, draft: SlideDraft, slide: Slide, derived: Derived, shown: set[int],
                        spans: dict[int, tuple[float, float]]) -> None:
        parts = []
        for claim in derived.parts:
            if id(claim) in shown:
                parts.append(("ocr", slide.start, slide.end))
            elif id(claim) in spans:
                parts.append(("speech", *spans[id(claim)]))
            else:
                return  # a part was cut for time, so the sum cannot be worked out
        self._fact(
            draft, slide.index, modality=parts[0][0], kind="arithmetic",
            start=min(p[1] for p in parts), end=max(p[2] for p in parts),
            modalities=list(dict.fromkeys(p[0] for p in parts)),
            text=" | ".join(c.text for c in derived.parts),
            question=derived.question, answer=derived.answer, keywords=derived.keywords,
        )

    def _record_event(self, draft: SlideDraft, slide: Slide, kind: str, span: tuple[float, float]) -> None:
        start, end = span
        if kind == "silence":
            detail = f"{end - start:.1f} s of silence"
            question = f"What is heard right after the speaker finishes talking about {draft.ref}?"
            answer, keywords = f"silence, for about {round(end - start)} seconds", ["silence"]
        else:
            detail, answer, keywords = {
                "tone": (f"{draft.tone_hz} Hz beep", f"a {draft.tone_hz} Hz beep", ["beep"]),
                "noise": ("white-noise burst", "a burst of white noise", ["noise"]),
                "chime": ("three-note chime", "a three-note chime", ["chime"]),
            }[kind]
            question = f"What sound is heard at the end of the slide about {draft.ref}, after the narration?"
        frequency = float(draft.tone_hz) if kind == "tone" else None
        self.events.append(AudioEventSpec(start=start, end=end, kind=kind, detail=detail, frequency=frequency))
        self._fact(draft, slide.index, modality="audio", start=start, end=end, text=detail, question=question,
                   answer=answer, keywords=keywords)

    def _record_motion(self, draft: SlideDraft, slide: Slide, end: float) -> None:
        motion = Slide(index=slide.index + 1, start=slide.end, end=round(end, 3), title="Animation", lines=[], kind="motion",
                       background=pools.MOTION_BACKGROUND, ball=draft.ball, direction=draft.ball_direction)
        self.slides.append(motion)
        self.facts.append(Fact(
            id="", modality="visual", start=motion.start, end=motion.end, slide=motion.index,
            text=f"{_article(draft.ball)} {draft.ball} ball moves across the screen from {draft.ball_direction.replace('-to-', ' to ')}",
            topic=f"animation after {draft.entity}",
            question=f"What colour is the ball that moves across the screen right after the slide about {draft.ref}?",
            answer=draft.ball, keywords=[draft.ball],
        ))


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _answer(claim: Claim) -> dict:
    return {"text": claim.text, "question": claim.question, "answer": claim.answer, "keywords": list(claim.keywords)}
