"""SIGKILL in the middle of a stream of buy-ins and actions, many times at random moments:
after reopening, the invariant holds and everything acknowledged is there."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.storage import Database, invariant
from tests.pgserver import PostgresServer

from .conftest import BACKENDS

pytestmark = pytest.mark.slow  # scheduled first: see tests/conftest.py

WORKER = Path(__file__).with_name("crash_worker.py")
ROOT = Path(__file__).resolve().parents[2]
RUNS = 20


class Acks:
    def __init__(self) -> None:
        self.ledger: dict[int, str] = {}
        self.actions: set[tuple[int, int]] = set()
        self.hands: dict[int, str] = {}

    def read(self, output: str) -> int:
        lines = output.split("\n")
        # The last piece has no newline: a line the kill may have cut short. Ignore it.
        count = 0
        for line in lines[:-1]:
            words = line.split()
            if not words or words[0] != "ack":
                continue
            count += 1
            if words[1] == "ledger":
                self.ledger[int(words[2])] = words[3]
            elif words[1] == "action":
                self.actions.add((int(words[2]), int(words[3])))
            elif words[1] == "hand":
                hand_id, status = int(words[2]), words[3]
                # A later ack (finished/voided) supersedes "running".
                if self.hands.get(hand_id) in (None, "running"):
                    self.hands[hand_id] = status
        return count


async def _verify(url: str, acks: Acks) -> int:
    """Reopen as the bot would and check everything; the number of hands left unfinished."""
    db = await Database.open(url)
    try:
        report = await invariant.check_invariant(db)
        assert report.ok, report
        ledger = {
            row[0]: row[1] for row in await db.fetchall("SELECT entry_id, reason FROM ledger")
        }
        for entry_id, reason in acks.ledger.items():
            assert ledger.get(entry_id) == reason, (entry_id, reason)
        actions = {
            (row[0], row[1]) for row in await db.fetchall("SELECT hand_id, seq FROM hand_actions")
        }
        assert acks.actions <= actions, acks.actions - actions
        statuses = {
            row[0]: row[1] for row in await db.fetchall("SELECT hand_id, status FROM hands")
        }
        for hand_id, status in acks.hands.items():
            if status == "running":
                assert hand_id in statuses
            else:
                assert statuses.get(hand_id) == status, (hand_id, status)
        return sum(1 for s in statuses.values() if s == "running")
    finally:
        await db.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_at_random_moments(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'crash.db'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = asyncio.run(server.create_database())
    rng = random.Random(int(os.environ.get("CRASH_SEED", "20240611")))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    acks = Acks()
    total_acks = 0
    kills_mid_hand = 0
    for _ in range(RUNS):
        proc = subprocess.Popen(
            [sys.executable, "-u", str(WORKER), url, str(rng.randrange(10**9))],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        assert proc.stdout is not None
        # A worker that hangs before "ready" must not hang the test run.
        watchdog = threading.Timer(30, proc.kill)
        watchdog.start()
        first = proc.stdout.readline().decode()
        while first.startswith("ack"):
            acks.read(first)
            first = proc.stdout.readline().decode()
        if first.strip() != "ready":
            proc.kill()
            _, err = proc.communicate()
            raise AssertionError(f"worker did not start: {first!r} {err.decode()}")
        # Die after a random number of acknowledged operations (then a random instant more),
        # so that every run dies in the middle of work however fast the machine is today.
        for _ in range(rng.randrange(0, 30)):
            line = proc.stdout.readline().decode()
            if not line:
                break
            total_acks += acks.read(line)
        time.sleep(rng.uniform(0.0, 0.02))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        watchdog.cancel()
        assert proc.returncode == -signal.SIGKILL, err.decode()
        total_acks += acks.read(out.decode())
        if asyncio.run(_verify(url, acks)):
            kills_mid_hand += 1
    print(f"{RUNS} kills, {total_acks} acks, {kills_mid_hand} with a hand running")
    assert total_acks > RUNS * 10, total_acks
    assert kills_mid_hand > 0
    assert acks.actions and any(s == "finished" for s in acks.hands.values())
