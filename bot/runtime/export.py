"""A session's hands as one zip: a PHH file per hand and the whole session as the text
PokerStars writes, which PokerTracker 4, Hold'em Manager 3 and GTO Wizard import.

**What it shows.** Each file shows what its asker may see, the rule of ``/history hand``: the
hands shown and his own hole cards, nothing else (``engine.pokerstars``; PHH writes the
others ``????``). Every player keeps one name through the whole file, in both formats: the
session's roster, in the order they first played, made safe by
:func:`engine.pokerstars.safe_names` (no name can hold a phrase of the format).

**Bounded.** A session may hold 100,000 hands, and the zip must fit the file Discord takes
(10 MB, more on a boosted server; never more than :data:`LARGEST_ZIP` here). So the hands
are read from storage a page at a time (:data:`PAGE` hands,
``bot.storage.sessions.session_page``), each written into the zip on a
temporary file as soon as it is replayed, and never held beyond its page: what stays in
memory is a page, the zip's directory and the buffers of two temporary files, which spill to
disk past :data:`SPOOL` bytes. The PHH files go into the zip as they come; the PokerStars text
is one file, and a zip takes one file at a time, so it is kept on its own temporary file and
copied in at the end. It is deflated as it grows, as the zip will deflate it, only to be
counted, so the zip's size is known exactly at every hand and the build stops at the first
hand past the limit, with how many hands fit: a session too big for one file costs at most
the work of the part that fits. A session whose zip directory alone would pass the limit
(:func:`floor_size`) is refused before any hand is read.

Replaying and writing a hand is CPU work: :class:`ZipBuilder` does it in a worker thread, a
page at a time, while storage is read on the event loop.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Final

from bot.errors import BotError
from bot.storage import Database, hands, sessions
from bot.storage.hands import StoredHand
from bot.storage.scopes import SessionHands
from bot.storage.sessions import Page
from engine.pokerstars import HAND_SEPARATOR, safe_names, write_hand

__all__ = [
    "LARGEST_ZIP",
    "PAGE",
    "SPOOL",
    "ExportFile",
    "SessionFacts",
    "TableFacts",
    "ZipBuilder",
    "build_export",
    "floor_size",
    "too_large_error",
]

PAGE: Final = 200
"""Hands read and written at a time."""
LARGEST_ZIP: Final = 25 * 1024 * 1024
"""The largest zip built, whatever Discord would take (a server boosted to level 3 takes 100
MB): the zip's directory stays in memory while it is built, about half a kilobyte a hand, so a
25 MB file of some 35,000 hands holds some 20 MB at its end, and a bigger one would hold more."""
SPOOL: Final = 1 << 20
"""Bytes a temporary file holds in memory before it moves to disk."""

# A zip's fixed costs per file (local header, directory entry: each with the file's name) and
# at its end, from the format (APPNOTE 4.3.7, 4.3.12, 4.3.16); the names are ASCII.
_LOCAL_HEADER: Final = 30
_DIRECTORY_ENTRY: Final = 46
_END_RECORD: Final = 22


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What the file says of a table the session's hands were dealt at."""

    name: str  # its channel's (made safe by the writer)
    max_seats: int


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What an export needs besides the stored hands.

    ``names``: display names by user id (a name missing is written ``Player<n>``);
    ``tables``: by table id; ``small_blind_at``: the stakes' small blind at a level (None for
    a cash hand), for a hand whose configuration posts none at its place; ``buy_in``: a
    tournament's; ``viewer_id``: the asker, whose own hole cards the files show; ``limit``:
    the most bytes the zip may take; ``stem``: the files' name without extension.
    """

    viewer_id: int
    names: Mapping[int, str]
    tables: Mapping[int, TableFacts]
    small_blind_at: Callable[[int | None], int]
    limit: int
    stem: str
    buy_in: int = 0
    event: str | None = None


@dataclass(slots=True)
class ExportFile:
    """A finished zip: ``file`` (rewound; close it once sent), its ``size`` and its hands."""

    file: IO[bytes]
    size: int
    hands: int
    filename: str


def floor_size(stem: str) -> tuple[int, int]:
    """The fewest bytes any zip of a session takes, and the fewest each of its hands adds:
    headers and directory entries alone, each PHH file's name as short as a name can be (one
    digit for its table and its hand), nothing written. A session above the limit by this
    count is refused before a hand is read."""
    text = len(_text_name(stem))
    fixed = _END_RECORD + _LOCAL_HEADER + _DIRECTORY_ENTRY + 2 * text
    each = _LOCAL_HEADER + _DIRECTORY_ENTRY + 2 * len(_phh_name(stem, 1, 1))
    return fixed, each


def _text_name(stem: str) -> str:
    return f"{stem}/{stem}.txt"


def _phh_name(stem: str, table_id: int, hand_no: int) -> str:
    return f"{stem}/phh/table-{table_id}-hand-{hand_no}.phh"


class _TooLarge(Exception):
    def __init__(self, written: int) -> None:
        super().__init__(written)
        self.written = written


class ZipBuilder:
    """The zip of one session, written hand by hand (see the module doc). Not thread-safe:
    one page at a time, in one thread after another."""

    def __init__(self, facts: SessionFacts, roster: Sequence[int]) -> None:
        self.facts = facts
        safe = safe_names([facts.names.get(user_id, "") for user_id in roster])
        self.names: dict[int, str] = dict(zip(roster, safe, strict=True))
        # Both files outlive this call: finish() hands the zip on, discard() closes them.
        self.file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL)  # noqa: SIM115
        self.zip = zipfile.ZipFile(self.file, "w", zipfile.ZIP_DEFLATED)
        self.text: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL)  # noqa: SIM115
        self.text_name = _text_name(facts.stem)
        # The PokerStars text deflated as the zip will deflate it (zipfile's own settings), to
        # know its size: what came out so far, and what went in since the deflater last gave
        # something (it holds that much at most, not yet written).
        self._deflate = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        self._text_out = 0
        self._text_held = 0
        self._directory = _END_RECORD + _DIRECTORY_ENTRY + len(self.text_name)
        self.hands = 0

    def size(self) -> int:
        """The zip's size, exactly, if it ended now: the files written, the PokerStars text
        as deflate will end it, and the directory."""
        return self._size(self._text_out + len(self._deflate.copy().flush()))

    def _size(self, text: int) -> int:
        header = _LOCAL_HEADER + len(self.text_name)
        return self.file.tell() + header + text + self._directory

    def _past_limit(self) -> bool:
        # Deflate never writes more than its input and 5 bytes a block of 64 KB (a stored
        # block); it may also still hold its look-ahead (262 bytes) of the input before. While
        # even that fits, the exact count (a copy of the deflater, flushed) can wait, and most
        # hands never need it.
        held = self._text_held + 262
        if self._size(self._text_out + held + 5 * (held // 65_535 + 2)) <= self.facts.limit:
            return False
        return self.size() > self.facts.limit

    def add(self, page: Sequence[StoredHand]) -> None:
        """Write a page of hands; raises ``_TooLarge`` at the first hand past the limit."""
        for stored in page:
            self._add(stored)
            if self._past_limit():
                raise _TooLarge(self.hands - 1)

    def _add(self, stored: StoredHand) -> None:
        facts = self.facts
        hand = hands.replayed(stored)
        players = sorted(stored.players, key=lambda p: p.player)
        names = [self.names[p.user_id] for p in players]
        table = facts.tables[stored.table_id]
        stars = hands.pokerstars_facts(
            stored, names=names, table_name=table.name, max_seats=table.max_seats,
            small_blind=facts.small_blind_at(stored.level), viewer_id=facts.viewer_id,
            buy_in=facts.buy_in)
        text = write_hand(hand, stars)
        data = (text if not self.hands else HAND_SEPARATOR + text).encode()
        self.text.write(data)
        out = len(self._deflate.compress(data))
        self._text_out += out
        # Output means a block was written: what it held then, it holds no longer, but for
        # the input of this call, some of which may still wait.
        self._text_held = len(data) if out else self._text_held + len(data)
        phh = hands.phh_text(stored, hand, players=names, event=facts.event,
                             viewer_id=facts.viewer_id)
        name = _phh_name(facts.stem, stored.table_id, stored.hand_no)
        self.zip.writestr(name, phh)
        self._directory += _DIRECTORY_ENTRY + len(name)
        self.hands += 1

    def finish(self) -> ExportFile:
        """Put the PokerStars text in, close the zip and rewind it."""
        self.text.seek(0)
        with self.zip.open(self.text_name, "w") as entry:
            shutil.copyfileobj(self.text, entry)
        self.text.close()
        self.zip.close()
        size = self.file.tell()
        if size > self.facts.limit:
            self.discard()
            raise _TooLarge(self.hands - 1)
        self.file.seek(0)
        return ExportFile(self.file, size, self.hands, f"{self.facts.stem}.zip")

    def discard(self) -> None:
        self.zip.close()
        self.text.close()
        self.file.close()


async def build_export(
    db: Database, scope: SessionHands, roster: Sequence[int], facts: SessionFacts
) -> ExportFile:
    """The zip of ``scope``'s hands for ``facts.viewer_id``, or ``export_too_large`` naming
    how many hands would fit. Storage is read here, a page at a time; each page is replayed
    and written in a worker thread."""
    builder = ZipBuilder(facts, roster)
    after = Page()
    try:
        while True:
            page = await sessions.session_page(db, scope, after, limit=PAGE)
            if not page:
                break
            after = page[-1]
            stored = await hands.load_hands(db, [p.hand_id for p in page])
            await asyncio.to_thread(builder.add, stored)
        return await asyncio.to_thread(builder.finish)
    except _TooLarge as too_large:
        raise too_large_error(facts.limit, too_large.written) from None
    finally:
        if builder.zip.fp is not None:  # not finished: the files go
            builder.discard()


def too_large_error(limit: int, fits: int) -> BotError:
    """The refusal of a zip past ``limit`` bytes, of which ``fits`` hands would fit."""
    return BotError("export_too_large", megabytes=f"{limit / (1 << 20):.3g}", fits=max(fits, 0))
