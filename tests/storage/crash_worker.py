"""A stand-in bot for the SIGKILL test: streams chip moves and hand actions into a database
and prints an acknowledgement after each commit, until it is killed.

``python tests/storage/crash_worker.py DATABASE_URL SEED`` (a bare path means an SQLite file)

Lines on stdout, each written only after the transaction it names has committed:

- ``ready``: start-up (migrations, recovery) is done;
- ``ack ledger <entry_id> <reason>``: a chip move and its ledger row;
- ``ack action <hand_id> <seq>``: an accepted action;
- ``ack hand <hand_id> <status>``: a hand started (running), finished or voided.

At start-up it does what the bot does after a crash: every unfinished hand is finished or
voided (chosen at random), so recovery itself runs under the next kill.
"""

from __future__ import annotations

import asyncio
import random
import sys

from bot.storage import Database, StorageError, economy, hands, tables
from bot.storage.hands import HandSeat, PlayerResult, StoredHand
from engine.cards import check_deck
from engine.commitment import DeckCommitment

GUILD = 42
CHANNEL = 4242
HOST = 1
USERS = list(range(100, 108))


def ack(*words: object) -> None:
    # One write per line: a kill can cut the last line short but never mix two.
    sys.stdout.write(" ".join(str(w) for w in ("ack", *words)) + "\n")
    sys.stdout.flush()


async def ack_last_ledger(db: Database) -> None:
    row = await db.fetchone("SELECT entry_id, reason FROM ledger ORDER BY entry_id DESC LIMIT 1")
    assert row is not None
    ack("ledger", row[0], row[1])


async def finish(db: Database, stored: StoredHand, rng: random.Random) -> None:
    starts = [p.starting_stack for p in stored.players]
    winner = rng.randrange(len(starts))
    losses = [0 if i == winner else rng.randint(0, s) for i, s in enumerate(starts)]
    gain = sum(losses)
    results = [
        PlayerResult(
            i,
            starts[i] - losses[i] + (gain if i == winner else 0),
            losses[i] if i != winner else 0,
            gain if i == winner else 0,
            vpip=losses[i] > 0,
            pfr=rng.random() < 0.3,
        )
        for i in range(len(starts))
    ]
    if rng.random() < 0.7:
        await hands.record_hand_result(db, stored.hand_id, {"winner": winner}, results)
        ack("hand", stored.hand_id, "finished")
    else:
        await hands.void_hand(db, stored.hand_id, reason="recovery")
        ack("hand", stored.hand_id, "voided")


async def start(db: Database, table_id: int, rng: random.Random) -> None:
    table = await tables.get_table(db, table_id)
    ready = [s for s in table.seats if s.stack > 0 and s.hand_id is None]
    if len(ready) < 2:
        return
    chosen = rng.sample(ready, rng.randint(2, min(4, len(ready))))
    order = list(range(52))
    rng.shuffle(order)
    deck = check_deck(order)
    commitment = DeckCommitment.commit(deck, rng.randbytes(32))
    hand_id = await hands.start_hand(
        db,
        table_id,
        config={"stacks": [s.stack for s in chosen]},
        deck=deck,
        commitment=commitment,
        players=[HandSeat(i, s.seat_no, s.user_id, s.stack) for i, s in enumerate(chosen)],
    )
    ack("hand", hand_id, "running")
    await ack_last_ledger(db)


async def step(db: Database, table_id: int, rng: random.Random) -> None:
    running = await hands.unfinished_hands(db, table_id)
    if running and rng.random() < 0.5:
        stored = running[0]
        if len(stored.actions) >= rng.randint(3, 12):
            await finish(db, stored, rng)
            await ack_last_ledger(db)
        else:
            seq = len(stored.actions)
            player = seq % len(stored.players)
            await hands.append_action(db, stored.hand_id, seq, {"kind": "call", "player": player})
            ack("action", stored.hand_id, seq)
        return
    if not running and rng.random() < 0.5:
        await start(db, table_id, rng)
        return
    user = rng.choice(USERS)
    kind = rng.choice(["transfer", "buy_in", "top_up", "leave", "grant", "remove"])
    if kind == "transfer":
        await economy.transfer(db, GUILD, user, rng.choice(USERS), rng.randint(1, 300))
    elif kind == "buy_in":
        await tables.buy_in(db, table_id, user, rng.randint(1, 20) * 50)
    elif kind == "top_up":
        await tables.top_up(db, table_id, user, rng.randint(1, 5) * 50)
    elif kind == "leave":
        if await tables.leave_table(db, table_id, user) == 0:
            return
    elif kind == "grant":
        await economy.grant(db, GUILD, user, rng.randint(1, 500), actor_id=HOST)
    else:
        await economy.remove(db, GUILD, user, rng.randint(1, 500), actor_id=HOST)
    await ack_last_ledger(db)


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    db = await Database.open(path if "://" in path else f"sqlite:///{path}")
    await economy.ensure_guild(db, GUILD)
    table = await tables.table_in_channel(db, CHANNEL)
    if table is None:
        table = await tables.create_table(
            db, GUILD, CHANNEL, HOST, config={}, min_buy_in=50, max_buy_in=1_000, max_seats=6
        )
    for stored in await hands.unfinished_hands(db):
        await finish(db, stored, rng)
        await ack_last_ledger(db)
    print("ready", flush=True)
    while True:
        try:
            await step(db, table.table_id, rng)
        except StorageError as exc:
            # Refusals (no funds, seat taken, ...) are part of the stream; anything else is not.
            if exc.code in ("invariant_broken", "hand_chips_mismatch", "seat_mismatch"):
                raise


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
