"""Short test videos made with a different toolchain than ``staragent.samples``: OpenCV's MPEG-4
writer and Hershey fonts for the pictures, numpy for the sound, PyAV only to mux. They stand in for
videos "nobody here made": other codecs, fonts, containers and subtitle formats."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RATE = 16_000


@dataclass
class Slide:
    seconds: float
    lines: list[str]
    background: tuple[int, int, int] = (40, 40, 40)
    moving_box: bool = False
    painter: Callable[[np.ndarray], None] | None = None  # draws more on the slide (BGR image)
    animate: Callable[[np.ndarray, float], None] | None = None  # draws on each frame (BGR image, seconds into the slide)


@dataclass
class Sound:
    start: float
    end: float
    kind: str  # "tone" | "noise" | "speech" | "melody"
    freq: float = 1000.0


@dataclass
class Cue:
    start: float
    end: float
    text: str


@dataclass
class ForeignVideo:
    path: Path
    slides: list[Slide]
    sounds: list[Sound]
    cues: list[Cue] = field(default_factory=list)

    def slide_span(self, index: int) -> tuple[float, float]:
        start = sum(s.seconds for s in self.slides[:index])
        return start, start + self.slides[index].seconds

    @property
    def duration(self) -> float:
        return sum(s.seconds for s in self.slides)


def _frames(slides: list[Slide], fps: int, size: tuple[int, int]):
    import cv2

    width, height = size
    for slide in slides:
        base = np.full((height, width, 3), slide.background, np.uint8)
        for i, line in enumerate(slide.lines):
            scale = 1.4 if i == 0 else 1.0
            cv2.putText(base, line, (30, 70 + 60 * i), cv2.FONT_HERSHEY_DUPLEX, scale, (255, 255, 255), 2, cv2.LINE_AA)
        if slide.painter is not None:
            slide.painter(base)
        count = int(round(slide.seconds * fps))
        for n in range(count):
            frame = base.copy()
            if slide.moving_box:
                x = int((width - 60) * n / max(1, count - 1))
                cv2.rectangle(frame, (x, height - 90), (x + 60, height - 30), (0, 0, 255), -1)
            if slide.animate is not None:
                slide.animate(frame, n / fps)
            yield frame


def _speechlike(n: int, rng: np.random.Generator) -> np.ndarray:
    """Voiced buzz with a syllable rhythm: what a voice activity detector takes for speech."""
    t = np.arange(n) / RATE
    pitch = 120 + 20 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / RATE
    voice = sum(np.sin(k * phase) / k for k in range(1, 12))
    envelope = 0.5 * (1 + np.sin(2 * np.pi * 4 * t)) ** 2
    return (0.25 * voice * envelope + 0.01 * rng.standard_normal(n)).astype(np.float32)


def _melody(n: int) -> np.ndarray:
    """Plucked notes of a major scale, a new one every 0.4 s, each with its overtones dying away."""
    notes = (262, 294, 330, 349, 392, 440, 494, 523)
    step = int(0.4 * RATE)
    t = np.arange(step) / RATE
    out = np.zeros(n + step, np.float32)
    for k, lo in enumerate(range(0, n, step)):
        f = notes[(3 * k) % len(notes)]
        out[lo : lo + step] += 0.3 * np.exp(-3 * t) * sum(np.sin(2 * np.pi * f * h * t) / h**1.5 for h in range(1, 7))
    return out[:n]


def _spoken(text: str, n: int) -> np.ndarray | None:
    """``text`` read by espeak-ng, fitted into ``n`` samples; None when espeak-ng is missing."""
    import shutil
    import subprocess
    import tempfile

    if not shutil.which("espeak-ng"):
        return None
    from staragent.media import load_audio

    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "say.wav"
        subprocess.run(["espeak-ng", "-s", "170", "-w", str(wav), text], check=True, capture_output=True)
        voice = load_audio(wav)
    out = np.zeros(n, np.float32)
    out[: min(n, len(voice))] = 0.8 * voice[:n]
    return out


def _audio(duration: float, sounds: list[Sound], cues: list[Cue], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    audio = np.zeros(int(duration * RATE), np.float32)
    for s in sounds:
        lo, hi = int(s.start * RATE), int(s.end * RATE)
        n = hi - lo
        words = " ".join(c.text for c in cues if c.start < s.end and c.end > s.start)
        if s.kind == "speech" and words and (voice := _spoken(words, n)) is not None:
            audio[lo:hi] = voice
        elif s.kind == "tone":
            audio[lo:hi] = 0.3 * np.sin(2 * np.pi * s.freq * np.arange(n) / RATE)
        elif s.kind == "noise":
            audio[lo:hi] = 0.3 * rng.uniform(-1, 1, n)
        elif s.kind == "melody":
            audio[lo:hi] = _melody(n)
        elif s.kind == "speech":
            audio[lo:hi] = _speechlike(n, rng)
    return audio


def _srt_time(t: float) -> str:
    ms = int(round(t * 1000))
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def write_srt(path: Path, cues: list[Cue]) -> None:
    path.write_text("\n".join(f"{i}\n{_srt_time(c.start)} --> {_srt_time(c.end)}\n{c.text}\n" for i, c in enumerate(cues, 1)), encoding="utf-8")


def write_vtt(path: Path, cues: list[Cue]) -> None:
    body = "\n".join(f"{_srt_time(c.start).replace(',', '.')} --> {_srt_time(c.end).replace(',', '.')} align:start\n<v Host>{c.text}</v>\n" for c in cues)
    path.write_text("WEBVTT\n\n" + body, encoding="utf-8")


def make_video(
    path: Path,
    slides: list[Slide],
    sounds: list[Sound] = (),
    cues: list[Cue] = (),
    *,
    subtitles: str | None = "srt",
    audio: bool = True,
    fps: int = 10,
    size: tuple[int, int] = (640, 360),
    faststart: bool = False,
    codec: str = "mpeg4",
) -> ForeignVideo:
    """Write ``path`` (.mp4 or .mkv). ``subtitles``: "srt" | "vtt" sidecar, "embedded" stream, None.
    ``codec``: "mpeg4" (MPEG-4 Part 2, which browsers do not play) or "libx264" (H.264, which they do)."""
    import av
    import cv2

    path = Path(path)
    silent = path.with_name(path.stem + ".noaudio.avi")
    writer = cv2.VideoWriter(str(silent), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    for frame in _frames(slides, fps, size):
        writer.write(frame)
    writer.release()
    duration = sum(s.seconds for s in slides)
    samples = _audio(duration, list(sounds), list(cues))

    srt_source = None
    if subtitles == "embedded":  # FFmpeg's SubRip demuxer gives packets a container can carry
        srt_source = path.with_name(path.stem + ".embedded.srt")
        write_srt(srt_source, list(cues))
    options = {"movflags": "faststart"} if faststart else {}
    with av.open(str(silent)) as src, av.open(str(path), "w", options=options) as out:
        vout = out.add_stream(codec, rate=fps)
        vout.width, vout.height, vout.pix_fmt = size[0], size[1], "yuv420p"
        vout.bit_rate = 600_000
        aout = None
        if audio:
            aout = out.add_stream("aac", rate=RATE)
            aout.layout = "mono"
        subs_in = av.open(str(srt_source)) if srt_source else None
        sout = out.add_stream_from_template(subs_in.streams.subtitles[0]) if subs_in else None
        for n, frame in enumerate(src.decode(video=0)):
            frame = frame.reformat(format="yuv420p")
            frame.pts = n
            for packet in vout.encode(frame):
                out.mux(packet)
        for packet in vout.encode():
            out.mux(packet)
        if aout is not None:
            pts = 0
            for lo in range(0, len(samples), 1024):
                chunk = av.AudioFrame.from_ndarray(samples[None, lo : lo + 1024], format="flt", layout="mono")
                chunk.sample_rate, chunk.pts = RATE, pts
                pts += chunk.samples
                for packet in aout.encode(chunk):
                    out.mux(packet)
            for packet in aout.encode():
                out.mux(packet)
        if subs_in is not None:
            for packet in subs_in.demux(subs_in.streams.subtitles[0]):
                if packet.dts is not None:
                    packet.stream = sout
                    out.mux(packet)
            subs_in.close()
    silent.unlink()
    if srt_source:
        srt_source.unlink()
    if subtitles == "srt":
        write_srt(path.with_suffix(".srt"), list(cues))
    elif subtitles == "vtt":
        write_vtt(path.with_suffix(".vtt"), list(cues))
    return ForeignVideo(path=path, slides=list(slides), sounds=list(sounds), cues=list(cues))


def conference_video(path: Path, **kwargs) -> ForeignVideo:
    """Four slides (the third with a moving box), narration cues, a tone, a noise burst, silences."""
    slides = [
        Slide(10, ["Coffee Grinder Z9", "Price: $129.50", "Made in Porto"], (90, 40, 20)),
        Slide(10, ["Keynote Speaker", "Dr. Amara Singh", "Room 4B at 10:15"], (20, 70, 30)),
        Slide(8, ["Live Demo"], (30, 30, 90), moving_box=True),
        Slide(10, ["Attendance", "Visitors: 4,280", "Growth: 12%"], (60, 60, 60)),
    ]
    sounds = [
        Sound(1.0, 4.0, "speech"),
        Sound(11.0, 14.5, "speech"),
        Sound(21.0, 22.5, "tone", 1000.0),
        Sound(24.0, 25.0, "noise"),
        Sound(29.0, 33.0, "speech"),
    ]
    cues = [
        Cue(1.0, 4.0, "This grinder has a five year warranty."),
        Cue(11.0, 14.5, "Our keynote speaker flew in from Nairobi this morning."),
        Cue(29.0, 33.0, "Attendance grew for the third year in a row."),
    ]
    return make_video(path, slides, sounds, cues, **kwargs)


SKIN_BGR = (140, 180, 230)
FACE_MARKS = {  # what tells the drawn people apart (BGR colour, rows relative to the face centre)
    "alice": ((200, 60, 30), -24, -6),  # blue glasses
    "bob": ((40, 160, 40), 6, 20),  # green moustache
    "carol": ((250, 250, 250), -6, 8),  # white cheeks
}


def draw_face(image: np.ndarray, centre: tuple[int, int], who: str, radius: int = 60) -> None:
    """A face-like drawing: a skin-coloured disc with eyes and the mark of ``who`` (see FACE_MARKS)."""
    import cv2

    x, y = centre
    cv2.circle(image, (x, y), radius, SKIN_BGR, -1, cv2.LINE_AA)
    for dx in (-20, 20):
        cv2.circle(image, (x + dx, y - 14), 4, (30, 30, 30), -1)
    colour, top, bottom = FACE_MARKS[who]
    cv2.rectangle(image, (x - 40, y + top), (x + 40, y + bottom), colour, -1)


def face_image(who: str, size: int = 256) -> np.ndarray:
    """A gallery photo: one face, centred on a dark background (RGB)."""
    image = np.full((size, size, 3), (90, 30, 20), np.uint8)
    draw_face(image, (size // 2 + 16, size // 2 + 16), who)  # on a cell centre, like the detector likes
    return image[..., ::-1].copy()


def lecture_video(path: Path, **kwargs) -> ForeignVideo:
    """Maths on a slide, a French sign with French narration, then three faces (two known)."""
    def faces(image):
        for who, x in (("alice", 112), ("bob", 304), ("carol", 496)):
            draw_face(image, (x, 208), who)

    slides = [
        Slide(6, ["Algebra", "Solve: 3x + 5 = 20", "Total = 249 + 129"], (60, 30, 20)),
        Slide(6, ["Sortie de secours", "Bienvenue a Paris"], (70, 40, 20)),
        Slide(6, [], (90, 30, 20), painter=faces),
    ]
    sounds = [Sound(6.5, 10.0, "speech")]
    cues = [Cue(6.5, 10.0, "Bonjour tout le monde")]
    return make_video(path, slides, sounds, cues, **kwargs)


@dataclass
class Caption:
    """Text drawn with a TrueType font at ``xy`` (pixels), ``size`` pixels high."""

    text: str
    xy: tuple[int, int]
    size: int


def tour_video(path: Path) -> ForeignVideo:
    """A 96-second 720p H.264 tour announcement drawn with Pillow's TrueType font: text placed
    anywhere on the picture, dark-on-light and light-on-dark, a tone, a noise burst, and narration
    with an .srt — a second renderer besides the OpenCV slides above."""
    import av
    from PIL import Image, ImageDraw, ImageFont

    width, height, fps = 1280, 720, 12
    pages = [  # (seconds, background, text colour, captions)
        (24, (235, 230, 215), (30, 30, 60), [Caption("City Museum Tour", (80, 60), 64), Caption("Ticket price: 48 EUR", (80, 260), 44), Caption("Doors open 19:30", (700, 600), 40)]),
        (24, (20, 20, 20), (250, 200, 80), [Caption("Guest lecture", (400, 80), 56), Caption("Prof. Kenji Watanabe", (360, 300), 48), Caption("Hall C, capacity 1,250 seats", (330, 520), 36)]),
        (24, (200, 225, 240), (120, 20, 20), [Caption("Registration", (60, 60), 60), Caption("Deadline: 14 March 2025", (60, 200), 42), Caption("Late fee: 15 EUR", (60, 330), 34)]),
        (24, (245, 245, 245), (0, 90, 0), [Caption("Questions", (480, 300), 80)]),
    ]
    cues = [Cue(3, 7, "Welcome to the city museum tour."), Cue(8, 12, "The museum was founded in 1887."),
            Cue(27, 31, "Our guide today is Maria Gonzalez."), Cue(51, 55, "Please register before the deadline."),
            Cue(75, 79, "The old bridge is 342 meters long.")]
    sounds = [Sound(c.start, c.end, "speech") for c in cues] + [Sound(40, 42, "tone", 880), Sound(88, 89, "noise")]
    duration = sum(p[0] for p in pages)
    samples = _audio(duration, sounds, cues, seed=3)
    codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
    with av.open(str(path), "w") as out:
        video = out.add_stream(codec, rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        audio = out.add_stream("aac", rate=RATE)
        audio.layout = "mono"
        n, pts = 0, 0
        for seconds, background, colour, captions in pages:
            page = Image.new("RGB", (width, height), background)
            draw = ImageDraw.Draw(page)
            for caption in captions:
                draw.text(caption.xy, caption.text, font=ImageFont.load_default(size=caption.size), fill=colour)
            picture = av.VideoFrame.from_image(page)
            for _ in range(seconds * fps):  # one picture, then its second of sound: packets interleave
                picture.pts = n
                n += 1
                packets = list(video.encode(picture))
                if n % fps == 0:
                    chunk = av.AudioFrame.from_ndarray(samples[None, pts : pts + RATE], format="flt", layout="mono")
                    chunk.sample_rate, chunk.pts = RATE, pts
                    pts += RATE
                    packets += audio.encode(chunk)
                for packet in packets:
                    out.mux(packet)
        for packet in [*video.encode(), *audio.encode()]:
            out.mux(packet)
    write_srt(path.with_suffix(".srt"), cues)
    slides = [Slide(p[0], [c.text for c in p[3]]) for p in pages]
    return ForeignVideo(path=path, slides=slides, sounds=sounds, cues=cues)


def anthology_video(path: Path) -> ForeignVideo:
    """Three readings, each under its own title card, with a tone, a noise burst and a silence
    between them: a video made of named parts."""
    slides = [
        Slide(12, ["The Lighthouse Keeper - Maria Duarte", "Recorded in 1998"], (40, 50, 80)),
        Slide(4, [], (10, 10, 10)),
        Slide(12, ["Harvest Notes - Tomas Berg", "Oslo, 3 May 2004"], (70, 60, 20)),
        Slide(4, [], (10, 10, 10)),
        Slide(12, ["Closing Remarks - Lena Ortiz"], (30, 70, 40)),
    ]
    sounds = [
        Sound(1.0, 5.0, "speech"), Sound(6.0, 10.0, "speech"), Sound(13.0, 15.0, "tone", 660.0),
        Sound(17.0, 21.0, "speech"), Sound(22.0, 26.0, "speech"), Sound(29.0, 31.0, "noise"),
        Sound(33.0, 37.0, "speech"), Sound(38.0, 42.0, "speech"),
    ]
    cues = [
        Cue(1.0, 5.0, "The lamp was lit every evening at dusk."),
        Cue(6.0, 10.0, "Ships passed the northern rocks without harm."),
        Cue(17.0, 21.0, "The wheat came in early that year."),
        Cue(22.0, 26.0, "We stored the grain in the old stone barn."),
        Cue(33.0, 37.0, "Thank you all for listening tonight."),
        Cue(38.0, 42.0, "We will meet again next spring."),
    ]
    return make_video(path, slides, sounds, cues, subtitles="srt")


SPEC_SHEET = [  # (what a slide says, a question asking for it in other words)
    ("Weight: 187 g", "how heavy is it"),
    ("Battery life: 22 hours", "how long does it run between charges"),
    ("Price: $499", "what does it cost"),
    ("Display: 6.1 inch OLED", "how big is the screen"),
    ("Warranty: 2 years", "what guarantee comes with it"),
    ("Finish: midnight blue", "which colour is it"),
    ("Rated IP68 underwater", "can I take it swimming"),
    ("Storage: 256 GB", "how many photos fit on it"),
    ("On sale from 3 March", "when can I buy one"),
    ("Made in Tallinn, Estonia", "which country is it built in"),
]
"""One product's facts, a slide each, and questions that share no word with their slide."""
SPEC_COLOURS = [(120, 40, 30), (30, 110, 40), (40, 40, 130), (110, 100, 20), (100, 30, 110), (20, 100, 110), (70, 70, 70), (140, 70, 20), (20, 60, 140), (90, 130, 60)]


def spec_sheet_video(path: Path, seconds: float = 3.0, **kwargs) -> ForeignVideo:
    """A slide per ``SPEC_SHEET`` fact, each in a colour of its own (a cut between any two)."""
    slides = [Slide(seconds, [line], colour) for (line, _), colour in zip(SPEC_SHEET, SPEC_COLOURS)]
    return make_video(path, slides, subtitles=None, **kwargs)


@dataclass
class Overlay:
    """Text drawn over the picture from ``start`` to ``end`` seconds (fading in over ``fade``),
    at ``xy`` (pixels of its baseline's left end), moving up ``scroll`` pixels per second."""

    text: str
    start: float
    end: float
    xy: tuple[int, int]
    scale: float = 0.9
    fade: float = 0.0
    scroll: float = 0.0
    strip: bool = False  # on a dark strip, as captions are

    def visible_at(self, t: float, height: int, whole: bool = True) -> bool:
        """On screen at ``t``: whole, or at least partly."""
        y = self.xy[1] - self.scroll * (t - self.start)
        if whole:
            return self.start <= t < self.end and y - 30 >= 0 and y + 8 <= height
        return self.start <= t < self.end and y + 8 >= 0 and y - 30 <= height


def draw_overlays(overlays: list[Overlay]) -> Callable[[np.ndarray, float], None]:
    """An ``animate`` function for a ``Slide``: a slowly drifting background under the overlays."""
    import cv2

    def animate(frame: np.ndarray, t: float) -> None:
        frame[:, :, 0] = np.clip(frame[:, :, 0].astype(np.int16) + int(2 * t), 0, 255).astype(np.uint8)  # the shot never stands still
        x = int(40 * t) % frame.shape[1]
        cv2.circle(frame, (x, 150), 18, (60, 160, 220), -1)
        for o in overlays:
            if not o.start <= t < o.end:
                continue
            alpha = 1.0 if not o.fade else min(1.0, (t - o.start) / o.fade)
            x, y = o.xy[0], int(round(o.xy[1] - o.scroll * (t - o.start)))
            layer = frame.copy()
            if o.strip:
                (w, h), _ = cv2.getTextSize(o.text, cv2.FONT_HERSHEY_DUPLEX, o.scale, 2)
                cv2.rectangle(layer, (x - 12, y - h - 12), (x + w + 12, y + 14), (10, 10, 10), -1)
            cv2.putText(layer, o.text, (x, y), cv2.FONT_HERSHEY_DUPLEX, o.scale, (255, 255, 255), 2, cv2.LINE_AA)
            cv2.addWeighted(layer, alpha, frame, 1 - alpha, 0, dst=frame)

    return animate


def overlay_video(path: Path) -> tuple[ForeignVideo, list[Overlay]]:
    """One 27-second shot with no cut: a drifting background and a moving disc under a title that
    stays, two captions in turn, a lower third, a list revealed line by line and scrolling credits."""
    overlays = [
        Overlay("The ferry leaves at 9:40", 2.4, 6.4, (150, 330), fade=0.3, strip=True),
        Overlay("Tickets cost 12 euros", 6.4, 10.6, (160, 330), fade=0.3, strip=True),
        Overlay("Lena Okafor", 4.3, 12.3, (30, 250), scale=1.0),
        Overlay("Harbour master", 4.3, 12.3, (30, 285), scale=0.8),
        Overlay("Step 1: check in", 12.6, 19.0, (330, 120)),
        Overlay("Step 2: board", 14.6, 19.0, (330, 170)),
        Overlay("Step 3: sail away", 16.6, 19.0, (330, 220)),
        Overlay("Camera  Ravi Menon", 19.5, 27.0, (390, 390), scale=0.8, scroll=60.0),
        Overlay("Sound  Ines Duarte", 19.5, 27.0, (390, 450), scale=0.8, scroll=60.0),
    ]
    slide = Slide(27, ["Harbour Report"], (70, 50, 30), animate=draw_overlays(overlays))
    return make_video(path, [slide], [Sound(1.0, 3.0, "tone")], subtitles=None), overlays


CREDIT_ROLL = ["MUSIC", "Mira Castell", "EDITING", "Tomas Reed", "Mira Castell", "LIGHTING", "Mira Castell", "SOUND", "Jon Abe"]
"""a roll in which one name is listed under three headings"""


def credits_roll_video(path: Path, speed: float = 70.0, spacing: int = 36) -> tuple[ForeignVideo, list[Overlay]]:
    """End credits rolling up a drifting background, a line every ``spacing`` pixels at ``speed``
    pixels per second: faster than a sampled frame a second can follow by the nearest look alone."""
    height = 360
    seconds = (height + 40 + spacing * len(CREDIT_ROLL)) / speed
    overlays = [
        Overlay(text, 0.0, seconds, (200 if text.isupper() else 260, height + 40 + spacing * i), scale=0.8, scroll=speed)
        for i, text in enumerate(CREDIT_ROLL)
    ]
    slide = Slide(seconds, [], (70, 50, 30), animate=draw_overlays(overlays))
    return make_video(path, [slide], subtitles=None, audio=False), overlays


def _photo(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An RGB (or grey) photo resized to ``size`` as BGR."""
    import cv2

    rgb = image if image.ndim == 3 else np.stack([image] * 3, -1)
    return cv2.resize(np.ascontiguousarray(rgb[..., :3][..., ::-1]), size, interpolation=cv2.INTER_AREA)


def photo_album_video(path: Path, seconds: float = 6.0) -> tuple[ForeignVideo, dict[str, tuple[float, float]]]:
    """scikit-image's sample photos, one per shot: the coffee cup, the cat, two astronauts side by
    side, a brick wall. Returns the video and each shot's span by name."""
    from skimage import data

    width, height = 640, 360
    astronaut = _photo(data.astronaut()[:, 28:484], (width // 2, height))  # cropped to the half's shape, not squeezed
    shots = {
        "coffee": _photo(data.coffee(), (width, height)),
        "cat": _photo(data.chelsea(), (width, height)),
        "two astronauts": np.concatenate([astronaut, astronaut], axis=1),
        "bricks": _photo(data.brick(), (width, height)),
    }

    def painter(image: np.ndarray):
        return lambda frame: frame.__setitem__(Ellipsis, image)

    slides = [Slide(seconds, [], painter=painter(image)) for image in shots.values()]
    video = make_video(path, slides, subtitles=None, audio=False, codec="libx264")
    return video, {name: video.slide_span(i) for i, name in enumerate(shots)}


SETTINGS_BOXES = {"Mirror displays": 4.4, "Sticky edges": 9.6, "Night light": None}
"""a screencast's check boxes and when each is ticked (None: never); 9.6 s is just before the text
lane's first piece boundary (10 s), so that tick is seen across it"""


def settings_video(path: Path) -> tuple[ForeignVideo, dict[str, float | None]]:
    """A 14-second settings screencast: three labelled check boxes on a light window, each ticked at
    its time in ``SETTINGS_BOXES`` by a pointer that comes over the box a second before and leaves a
    second after; the pointer also hovers over "Night light" from 6 to 7.5 s without ticking it."""
    import cv2

    rows = {label: 110 + 70 * i for i, label in enumerate(SETTINGS_BOXES)}

    def pointer(frame: np.ndarray, x: int, y: int) -> None:
        cv2.fillPoly(frame, [np.array([(x, y), (x, y + 26), (x + 7, y + 19), (x + 18, y + 19)], np.int32)], (0, 0, 0))

    def animate(frame: np.ndarray, t: float) -> None:
        for label, y in rows.items():
            cv2.rectangle(frame, (60, y - 18), (82, y + 4), (90, 90, 90), 2)
            ticked_at = SETTINGS_BOXES[label]
            if ticked_at is not None and t >= ticked_at:
                cv2.rectangle(frame, (62, y - 16), (80, y + 2), (200, 120, 40), -1)
                cv2.line(frame, (64, y - 7), (70, y), (255, 255, 255), 3)
                cv2.line(frame, (70, y), (79, y - 14), (255, 255, 255), 3)
            cv2.putText(frame, label, (100, y), cv2.FONT_HERSHEY_DUPLEX, 0.9, (30, 30, 30), 2, cv2.LINE_AA)
        for label, ticked_at in SETTINGS_BOXES.items():
            if ticked_at is not None and ticked_at - 1.0 <= t < ticked_at + 1.0:
                pointer(frame, 70, rows[label] - 6)
        if 6.0 <= t < 7.5:
            pointer(frame, 70, rows["Night light"] - 6)

    slide = Slide(14, ["Display settings"], (235, 235, 235), animate=animate)
    return make_video(path, [slide], audio=False, subtitles=None), dict(SETTINGS_BOXES)
