"""The export of a session (``/history export``): time and peak memory for 10,000 hands, against
peers measured in the same run on the same hands.

    python -m bench.export [--hands 10000] [--dir PATH] [--no-big]

A cash session of six players is played into an SQLite file (``tests/storage/export_kit.py``:
every hand through the storage API, as the runtime stores it; about a minute for 10,000 hands,
kept in ``--dir`` for the next run). Then, each timed alone and then run again under
``tracemalloc`` for its peak of Python memory:

- **read**: the session's hands read from storage a page at a time (``load_hands``), nothing
  more: what storage alone costs;
- **phh**: read, replayed and written as PHH texts, kept nowhere: the work of one format;
- **export**: the zip ``/history export`` sends (``build_export``): both formats, streamed into a
  temporary file that spills to disk past a megabyte, its size counted at every hand;
- **all at once**: the same zip built the naive way, every hand loaded and every file held in
  memory before the zip is written to a bytes buffer: what the streaming saves.

Unless ``--no-big``, 90,000 copies of the session's hands are added under new numbers
(straight into the tables, in seconds) and a 100,000-hand session is asked for at Discord's
10 MB (refused from the count alone, no hand read) and at 25 MB (a boosted server, and the most
an export builds: written until the first hand past the limit, then refused with how many
fit); its memory is the process's resident peak, sampled, over where it stood before.

Budgets: memory bounded by a page and the zip's directory, whatever the session; the zip of
10,000 hands within Discord's 10 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import random
import tempfile
import threading
import time
import tracemalloc
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace

from bot.errors import BotError
from bot.runtime import export
from bot.runtime.history import ExportAsk, export_of
from bot.storage import Database, economy, hands, sessions
from bot.storage.hands import StoredHand
from bot.storage.scopes import SessionHands
from engine.pokerstars import write_hand
from tests.storage.export_kit import play_session

GUILD, CHANNEL = 1, 9
USERS = (101, 102, 103, 104, 105, 106)
MB = 1024 * 1024
NOBODY_LIVE = SimpleNamespace(find_in=lambda channel: None, tournament_in=lambda channel: None)
_PLAYER = (
    "player, guild_id, user_id, seat_no, starting_stack, final_stack, contributed, won, vpip,"
    " pfr, showdown, saw_flop, went_to_showdown, won_at_showdown, three_bet_chance, three_bet"
)


async def _session(db: Database, count: int) -> int:
    """The bench's table, played to ``count`` hands if it is not there yet."""
    existing = await db.fetchone("SELECT table_id, hand_count FROM poker_tables LIMIT 1")
    if existing is not None and int(existing[1]) >= count:
        return int(existing[0])
    if existing is not None:
        raise SystemExit("the bench's file holds a shorter session: remove it or use --hands")
    await economy.ensure_guild(db, GUILD)
    start = time.perf_counter()
    played = await play_session(db, random.Random(2024), guild=GUILD, channel=CHANNEL,
                                users=USERS, hands_count=count, pokerkit_splits=False)
    print(f"played {count:,} hands into storage in {time.perf_counter() - start:.0f} s")
    return played.table_id


async def _pages(db: Database, scope: SessionHands) -> AsyncIterator[list[StoredHand]]:
    after = sessions.Page()
    while page := await sessions.session_page(db, scope, after, limit=export.PAGE):
        after = page[-1]
        yield await hands.load_hands(db, [p.hand_id for p in page])


async def _read(db: Database, scope: SessionHands) -> str:
    count = 0
    async for page in _pages(db, scope):
        count += len(page)
    return f"{count:,} hands"


async def _phh(db: Database, scope: SessionHands) -> str:
    written = 0
    async for page in _pages(db, scope):
        for stored in page:
            written += len(hands.phh_text(stored, hands.replayed(stored)))
    return f"{written / MB:.1f} MB of PHH"


def _ask(limit: int) -> ExportAsk:
    return ExportAsk(GUILD, CHANNEL, USERS[0], None, None, None, limit)


async def _export(db: Database, limit: int = 10 * MB) -> str:
    built = await export_of(db, NOBODY_LIVE, _ask(limit), "en", lambda c: "bench")
    built.file.file.close()
    return f"zip {built.file.size / MB:.2f} MB, {built.file.hands:,} hands"


async def _all_at_once(db: Database, scope: SessionHands) -> str:
    """The peer that holds everything: every hand, then every text, then the zip in memory."""
    ids = []
    async for page in _pages(db, scope):
        ids += [stored.hand_id for stored in page]
    loaded = []
    for k in range(0, len(ids), hands.MAX_HANDS_AT_ONCE):
        loaded += await hands.load_hands(db, ids[k:k + hands.MAX_HANDS_AT_ONCE])
    names = {user: f"player{user}" for user in USERS}
    texts, phh = [], {}
    for stored in loaded:
        hand = hands.replayed(stored)
        players = [names[p.user_id] for p in sorted(stored.players, key=lambda p: p.player)]
        texts.append(write_hand(hand, hands.pokerstars_facts(
            stored, names=players, table_name="bench", max_seats=9, small_blind=5,
            viewer_id=USERS[0])))
        phh[stored.hand_no] = hands.phh_text(stored, hand, players=players, viewer_id=USERS[0])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, text in phh.items():
            archive.writestr(f"phh/hand-{number}.phh", text)
        archive.writestr("session.txt", "\n\n\n".join(texts))
    return f"zip {len(out.getvalue()) / MB:.2f} MB"


async def _measure(name: str, run: Callable[[], Awaitable[str]], hands_count: int,
                   base: float | None) -> float:
    start = time.perf_counter()
    what = await run()
    elapsed = time.perf_counter() - start
    tracemalloc.start()
    try:
        await run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    ratio = f"  {elapsed / base:4.1f}x read" if base else ""
    print(f"{name:<12} {elapsed:7.2f} s  {1000 * elapsed / hands_count:6.3f} ms/hand"
          f"  peak {peak / MB:7.1f} MB{ratio}  ({what})")
    return elapsed


async def _grow(db: Database, table_id: int, copies: int) -> None:
    """Copies of the session's hands under new numbers, straight into the tables."""
    row = await db.fetchone("SELECT MAX(hand_no) FROM hands WHERE table_id = ?", (table_id,))
    assert row is not None  # an aggregate always gives its row
    last = int(row[0])
    async with db.write() as tx:
        first_new = int(await tx.scalar("SELECT COALESCE(MAX(hand_id), 0) FROM hands")) + 1
        await tx.execute(
            "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?)"
            " INSERT INTO hands (guild_id, table_id, hand_no, status, config, deck, deck_salt,"
            " deck_digest, deck_scheme, button_seat, chips, pot, result, started_at, ended_at,"
            " practice) SELECT guild_id, table_id, hand_no + k * ?, status, config, deck,"
            " deck_salt, deck_digest, deck_scheme, button_seat, chips, pot, result, started_at,"
            " ended_at, practice FROM hands, n WHERE table_id = ? AND hand_no <= ?"
            " ORDER BY k, hand_no",
            (copies // last, last, table_id, last),
        )
        await tx.execute(
            f"INSERT INTO hand_players (hand_id, {_PLAYER}) SELECT h.hand_id,"
            f" {', '.join('p.' + c for c in _PLAYER.split(', '))}"
            " FROM hands h JOIN hands o ON o.table_id ="
            " h.table_id AND o.hand_no = (h.hand_no - 1) % ? + 1 JOIN hand_players p ON"
            " p.hand_id = o.hand_id WHERE h.hand_id >= ?",
            (last, first_new),
        )
        await tx.execute(
            "INSERT INTO hand_actions (hand_id, seq, action, created_at)"
            " SELECT h.hand_id, a.seq, a.action, a.created_at"
            " FROM hands h JOIN hands o ON o.table_id = h.table_id"
            " AND o.hand_no = (h.hand_no - 1) % ? + 1 JOIN hand_actions a"
            " ON a.hand_id = o.hand_id WHERE h.hand_id >= ?",
            (last, first_new),
        )


class _ResidentPeak:
    """The process's resident memory, sampled every 20 ms from another thread: its peak over a
    run, less where it stood before (tracemalloc would slow a run of minutes five times)."""

    def __init__(self) -> None:
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.base = self.peak = self._now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _now(self) -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * self.page

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self._now())

    def __enter__(self) -> _ResidentPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._now())


async def _refusal(db: Database, limit: int) -> None:
    start = time.perf_counter()
    with _ResidentPeak() as memory:
        try:
            await export_of(db, NOBODY_LIVE, _ask(limit), "en", lambda c: "bench")
            outcome = "built (not refused)"
        except BotError as refused:
            fits = refused.params.get("fits", 0)
            outcome = f"refused: {refused.code}, at most {fits:,} hands fit"
    elapsed = time.perf_counter() - start
    print(f"  at {limit // MB} MB: {outcome} in {elapsed:.2f} s;"
          f" resident memory +{(memory.peak - memory.base) / MB:.1f} MB at its peak")


async def main_async(args: argparse.Namespace) -> None:
    folder = Path(args.dir or tempfile.gettempdir())
    path = folder / f"bench-export-{args.hands}.db"
    db = await Database.open(f"sqlite:///{path}")
    try:
        table_id = await _session(db, args.hands)
        scope = await sessions.table_session(db, table_id)
        count = (await sessions.count_session(db, scope, USERS[0])).hands
        print(f"session of {count:,} hands ({path})")
        base = await _measure("read", lambda: _read(db, scope), count, None)
        await _measure("phh", lambda: _phh(db, scope), count, base)
        await _measure("export", lambda: _export(db), count, base)
        await _measure("all at once", lambda: _all_at_once(db, scope), count, base)
        if args.big:
            big = await db.fetchone("SELECT COUNT(*) FROM hands")
            if big is not None and int(big[0]) < 100_000:
                await _grow(db, table_id, 100_000 - int(big[0]))
            print("a session of 100,000 hands:")
            await _refusal(db, 10 * MB)
            await _refusal(db, 25 * MB)
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--dir", help="where the session's SQLite file is kept")
    parser.add_argument("--no-big", dest="big", action="store_false",
                        help="leave out the 100,000-hand session")
    asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
