"""Storage speed: durable chip transfers per second and the latency of appending an action.

``python -m bench.storage [--n 3000] [--dir PATH]`` prints, from one run on one machine:

- transfers/s through ``economy.transfer`` (one committed transaction each, ledger row
  included), one after another and from 100 concurrent tasks, with ``synchronous=NORMAL`` (the
  default: a commit survives the process being killed) and FULL (fsync at every commit: it
  survives power loss too);
- ``hands.append_action`` latency, median and p99, in both modes;
- the peer: the same transfer done with the bare ``sqlite3`` module (no asyncio, no checks),
  same file system, same pragmas; the ratio says what the async layer and the checks cost.

Budgets (DESIGN.md): at least 1,000 durable transfers/s; an append under 1 ms median.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bot.storage import Database, economy, hands, tables
from bot.storage.db import Synchronous
from bot.storage.hands import HandSeat
from engine.cards import FULL_DECK
from engine.commitment import DeckCommitment

GUILD = 1
USERS = (101, 102)


async def _transfers(path: Path, n: int, synchronous: Synchronous, concurrent: int) -> float:
    path.unlink(missing_ok=True)
    db = await Database.open(f"sqlite:///{path}", synchronous=synchronous)
    try:
        await economy.ensure_guild(db, GUILD)
        await economy.update_settings(db, GUILD, starting_balance=10**9)
        for user in USERS:
            await economy.open_wallet(db, GUILD, user)

        async def worker(count: int, flip: int) -> None:
            for i in range(count):
                a, b = USERS if (i + flip) % 2 else USERS[::-1]
                await economy.transfer(db, GUILD, a, b, 1)

        per_task = max(1, n // concurrent)
        start = time.perf_counter()
        await asyncio.gather(*(worker(per_task, k) for k in range(concurrent)))
        elapsed = time.perf_counter() - start
        return per_task * concurrent / elapsed
    finally:
        await db.close()


async def _appends(path: Path, n: int, synchronous: Synchronous) -> tuple[float, float]:
    path.unlink(missing_ok=True)
    db = await Database.open(f"sqlite:///{path}", synchronous=synchronous)
    try:
        await economy.ensure_guild(db, GUILD)
        table = await tables.create_table(
            db, GUILD, 555, USERS[0], config={}, min_buy_in=100, max_buy_in=1000
        )
        for user in USERS:
            await tables.buy_in(db, table.table_id, user, 1000)
        latencies: list[float] = []
        hand_no = 0
        while len(latencies) < n:
            deck = FULL_DECK
            commitment = DeckCommitment.commit(deck)
            seats = [HandSeat(i, i + 1, user, 1000) for i, user in enumerate(USERS)]
            hand_id = await hands.start_hand(
                db,
                table.table_id,
                config={"stacks": [1000, 1000]},
                deck=deck,
                commitment=commitment,
                players=seats,
            )
            # A long hand's worth of actions, then the hand is voided to free the seats.
            for seq in range(100):
                action = {"kind": "call" if seq % 2 else "check", "player": seq % 2}
                start = time.perf_counter()
                await hands.append_action(db, hand_id, seq, action)
                latencies.append(time.perf_counter() - start)
            await hands.void_hand(db, hand_id, reason="bench")
            hand_no += 1
        latencies.sort()
        return statistics.median(latencies) * 1000, latencies[int(len(latencies) * 0.99)] * 1000
    finally:
        await db.close()


def _raw_sqlite(path: Path, n: int, synchronous: Synchronous) -> float:
    """The peer: bare sqlite3, the same three statements per transfer, nothing else."""
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("CREATE TABLE w (user INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
    conn.execute(
        "CREATE TABLE l (id INTEGER PRIMARY KEY, src INTEGER, dst INTEGER, amount INTEGER)"
    )
    conn.executemany("INSERT INTO w VALUES (?, ?)", [(u, 10**9) for u in USERS])
    start = time.perf_counter()
    for i in range(n):
        a, b = USERS if i % 2 else USERS[::-1]
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE w SET balance = balance - 1 WHERE user = ? AND balance >= 1", (a,))
        conn.execute("UPDATE w SET balance = balance + 1 WHERE user = ?", (b,))
        conn.execute("INSERT INTO l (src, dst, amount) VALUES (?, ?, 1)", (a, b))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return n / elapsed


async def _run(n: int, folder: Path) -> None:
    db_path = folder / "bench.db"
    print(f"storage bench: {n} operations per figure, database in {folder}")
    normal = await _transfers(db_path, n, "NORMAL", 1)
    normal_conc = await _transfers(db_path, n, "NORMAL", 100)
    full = await _transfers(db_path, n, "FULL", 1)
    full_conc = await _transfers(db_path, n, "FULL", 100)
    raw_normal = _raw_sqlite(folder / "raw.db", n, "NORMAL")
    raw_full = _raw_sqlite(folder / "raw.db", n, "FULL")
    median_ms, p99_ms = await _appends(db_path, n, "NORMAL")
    full_median_ms, full_p99_ms = await _appends(db_path, n, "FULL")
    rows = [
        ("transfers/s, NORMAL (default), sequential", f"{normal:10.0f}", "budget >= 1000"),
        ("transfers/s, NORMAL (default), 100 tasks", f"{normal_conc:10.0f}", ""),
        ("transfers/s, FULL, sequential", f"{full:10.0f}", ""),
        ("transfers/s, FULL, 100 tasks", f"{full_conc:10.0f}", ""),
        (
            "peer: raw sqlite3 transfers/s, NORMAL",
            f"{raw_normal:10.0f}",
            f"ours/raw {normal / raw_normal:.2f}",
        ),
        (
            "peer: raw sqlite3 transfers/s, FULL",
            f"{raw_full:10.0f}",
            f"ours/raw {full / raw_full:.2f}",
        ),
        ("append_action median ms, NORMAL (default)", f"{median_ms:10.3f}", "budget < 1"),
        ("append_action p99 ms, NORMAL (default)", f"{p99_ms:10.3f}", ""),
        ("append_action median ms, FULL", f"{full_median_ms:10.3f}", ""),
        ("append_action p99 ms, FULL", f"{full_p99_ms:10.3f}", ""),
    ]
    for label, value, note in rows:
        print(f"{label:<44}{value}   {note}".rstrip())
    ok = normal >= 1000 and median_ms < 1.0
    print("budgets met" if ok else "BUDGET MISSED")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--dir", type=Path, default=None, help="folder for the database files")
    args = parser.parse_args()
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        asyncio.run(_run(args.n, args.dir))
    else:
        with tempfile.TemporaryDirectory(prefix="poker-bench-") as folder:
            asyncio.run(_run(args.n, Path(folder)))


if __name__ == "__main__":
    main()
