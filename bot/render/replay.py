"""A finished hand as an animated GIF: the table at each step, a caption saying what happened.

Why GIF and not APNG: Discord shows an APNG attachment as a still image (it keeps the first
frame only; its API team called that intended, discord/discord-api-docs#6359), while a GIF
plays in the channel. GIF holds 256 colours, which is what the table image is drawn in anyway
(:mod:`bot.render.encode`): every frame is mapped to the same fixed palette, so nothing is lost
that the PNG keeps, and consecutive frames differ in a few places only. Pillow stores each
frame after the first as the box that changed, its unchanged pixels transparent, so a
six-player hand of twenty steps weighs a few hundred kilobytes at the table's full size.

A hand may run long (a raising war is a frame per raise), and the replay must stay under
:data:`MAX_BYTES` whatever the hand: beyond :data:`MAX_FRAMES` steps the single actions are
thinned (every street, the all-in and the end stay), and a GIF still too heavy is drawn again
smaller, at three quarters and then half the size. Holding the frames costs a megabyte each
while the GIF is written, which is what caps their number.

The words come with the frames: the presenter writes each caption and the hand's story in the
catalog's language; the renderer only lays them out and fits the story into the alt text.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.fonts import Weight, draw_text, faces_for
from bot.render.labels import DEFAULT_LABELS, Labels
from bot.render.layout import CANVAS
from bot.render.model import ReplayFrame, ReplayView
from bot.render.palettes import table_palette
from bot.render.table import draw_table
from bot.render.theme import RGB

__all__ = [
    "CAPTION_HEIGHT",
    "MAX_BYTES",
    "MAX_FRAMES",
    "RenderedAnimation",
    "ReplayFrame",
    "ReplayView",
    "draw_replay_frame",
    "render_replay",
    "replay_alt_text",
]

MAX_BYTES = 1_000_000  # a replay is posted under a megabyte
MAX_FRAMES = 40
SCALES = (1.0, 0.75, 0.5)
CAPTION_HEIGHT = 64  # the strip under the table that says what happened
CAPTION_SIZE = 26
COUNTER_SIZE = 18
STRIP: RGB = (16, 20, 26)  # a name plate's fill: already in the palette, edges and all
WHITE: RGB = (244, 244, 240)
SOFT: RGB = (200, 206, 212)
GOLD: RGB = (255, 204, 77)
TRACK: RGB = (56, 62, 70)


@dataclass(frozen=True, slots=True)
class RenderedAnimation:
    """A finished animation: GIF bytes, the alt text to attach, its size, frames and a name."""

    data: bytes
    alt_text: str
    width: int
    height: int
    frames: int
    filename: str = "replay.gif"


def draw_replay_frame(frame: ReplayFrame, index: int, count: int,
                      labels: Labels = DEFAULT_LABELS) -> Image.Image:
    """The table of one step with the caption strip under it: the caption centred, a bar of
    how far the replay has come, and the step's number."""
    width, height = CANVAS
    canvas = Image.new("RGB", (width, height + CAPTION_HEIGHT), STRIP)
    canvas.paste(draw_table(frame.view, labels), (0, 0))
    # The bar runs along the top of the strip: the whole width is the whole hand.
    canvas.paste(TRACK, (0, height, width, height + 4))
    done = round(width * (index + 1) / count)
    canvas.paste(GOLD, (0, height, done, height + 4))
    counter = f"{index + 1}/{count}"
    draw_text(canvas, (width - 22, height + 42), counter, COUNTER_SIZE, SOFT,
              weight=Weight.REGULAR, align="right")
    draw_text(canvas, (width / 2, height + 44), frame.caption, CAPTION_SIZE, WHITE,
              align="center", max_width=width - 2 * 110)
    return canvas


def render_replay(view: ReplayView, labels: Labels = DEFAULT_LABELS,
                  max_bytes: int = MAX_BYTES) -> RenderedAnimation:
    """The replay as a looping GIF within ``max_bytes`` (every frame in the table's palette)
    and its alt text."""
    frames = thinned(view.frames, MAX_FRAMES)
    while True:
        for scale in SCALES:
            data, size = _gif(frames, labels, scale)
            if len(data) <= max_bytes:
                return RenderedAnimation(data, replay_alt_text(view, labels), size[0], size[1],
                                         len(frames))
        fewer = thinned(frames, len(frames) // 2)
        if len(fewer) == len(frames):
            raise ValueError(f"a replay of {len(frames)} steps does not fit {max_bytes} bytes")
        frames = fewer


def thinned(frames: Sequence[ReplayFrame], limit: int) -> tuple[ReplayFrame, ...]:
    """At most ``limit`` frames (more only if the milestones alone are more): every milestone,
    and single actions evenly spread between them."""
    if len(frames) <= limit:
        return tuple(frames)
    others = [k for k, frame in enumerate(frames) if not frame.milestone]
    room = max(0, limit - (len(frames) - len(others)))
    keep = {others[round(j * (len(others) - 1) / (room - 1))] for j in range(room)} if (
        room > 1) else set(others[-1:]) if room == 1 else set()
    return tuple(frame for k, frame in enumerate(frames) if frame.milestone or k in keep)


def _gif(frames: Sequence[ReplayFrame], labels: Labels,
         scale: float) -> tuple[bytes, tuple[int, int]]:
    palette = table_palette()
    count = len(frames)
    drawn = []
    for k, frame in enumerate(frames):
        with faces_for(labels.locale):
            image = draw_replay_frame(frame, k, count, labels)
        if scale != 1.0:
            image = image.resize((round(image.width * scale), round(image.height * scale)),
                                 Image.Resampling.LANCZOS)
        drawn.append(image.quantize(palette=palette, dither=Image.Dither.NONE))
    out = io.BytesIO()
    # optimize: each frame after the first is stored as the box that changed, the pixels that
    # did not change inside it transparent, which is what keeps a hand under a megabyte.
    drawn[0].save(out, "GIF", save_all=True, append_images=drawn[1:], loop=0, optimize=True,
                  duration=[round(frame.seconds * 1000) for frame in frames])
    return out.getvalue(), drawn[0].size


def replay_alt_text(view: ReplayView, labels: Labels = DEFAULT_LABELS,
                    limit: int = ALT_TEXT_LIMIT) -> str:
    """The hand in words within ``limit`` characters: the title, the story, the outcome. When
    it does not fit, the story is cut (marked "…") before the outcome is, since who won and
    what was shown is what a reader came for."""
    space = labels.alt_space
    whole = space.join((view.title, *view.story, *view.outcome))
    if len(whole) <= limit:
        return whole
    tail = space.join(("…", *view.outcome))
    room = limit - len(tail) - len(space)
    head = view.title
    for sentence in view.story:
        longer = head + space + sentence
        if len(longer) > room:
            break
        head = longer
    text = head + space + tail
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"
