"""What the recap tests share: a night of all-ins, the recap as the channel reads it, and a second
reading of every figure from the stored hands (the engine's all-in EV of each hand replayed,
summed here, never through the storage's own sums)."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from dataclasses import dataclass

from bot.storage import Database, hands
from engine.allin_ev import all_in_ev
from tests.e2e.game_kit import Game, until
from tests.fakediscord import FakeChannel, FakeMessage
from tests.timing import scaled

RECAP = "**Recap of the night**"
ISOLATES = str.maketrans("", "", "\u2066\u2067\u2068\u2069")
ROW = re.compile(r"^(\d+)\. (.+?): \*\*([+-]?[\d,]+)\*\* · (.*)$")
ALL_IN = re.compile(r"^all-in EV net ([+-]?[\d,]+) · luck ([+-]?[\d,]+) \((\d+) all-in hands\)$")


def amount(text: str) -> int:
    return int(text.replace(",", ""))


@dataclass(frozen=True)
class Figures:
    """A player's figures over some hands: net, all-in EV net, luck, all-in hands."""

    net: int = 0
    ev: int = 0
    luck: int = 0
    all_in: int = 0

    def plus(self, net: int, ev: int | None) -> Figures:
        if ev is None:  # no all-in EV of his own in the hand: it counts at its net
            return Figures(self.net + net, self.ev + net, self.luck, self.all_in)
        return Figures(self.net + net, self.ev + ev, self.luck + net - ev, self.all_in + 1)


async def second_reading(db: Database, where: str, params: tuple[object, ...]) -> dict[int,
                                                                                      Figures]:
    """Every player's figures over the finished hands ``where`` selects (a condition on ``h``),
    each hand rebuilt from its stored deck and actions and its all-in EV counted again by the
    engine."""
    rows = await db.fetchall(
        f"SELECT h.hand_id FROM hands h WHERE ({where}) AND h.status = 'finished'"
        " ORDER BY h.hand_id",
        params,
    )
    found: dict[int, Figures] = {}
    for (hand_id,) in rows:
        stored = await hands.load_hand(db, int(hand_id))
        hand = hands.rebuild_hand(stored)
        assert hand.result is not None
        ev = all_in_ev(hand)
        chips = ev.ev_net_chips() if ev is not None else None
        for p in stored.players:
            mine = None if chips is None or hand.folded[p.player] else chips[p.player]
            found[p.user_id] = found.get(p.user_id, Figures()).plus(hand.result.net[p.player],
                                                                    mine)
    return found


@dataclass(frozen=True)
class RecapRow:
    rank: int
    name: str
    net: int
    ev: int | None
    luck: int | None
    all_in: int | None


def recap_rows(text: str) -> list[RecapRow]:
    """The results of a recap's text, as written (names without their isolates)."""
    rows = []
    for line in text.translate(ISOLATES).split("\n"):
        match = ROW.match(line)
        if match is None:
            continue
        rank, name, net, rest = match.groups()
        figures = ALL_IN.match(rest)
        rows.append(RecapRow(
            int(rank), name, amount(net),
            *((amount(figures[1]), amount(figures[2]), int(figures[3])) if figures
              else (None, None, None)),
        ))
    return rows


def recap_csv(message: FakeMessage) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The recap's ledger CSV: its players and its settlement section."""
    (file,) = [a for a in message.attachments if a.filename.endswith(".csv")]
    players, settlement = file.data.decode("utf-8-sig").split("\r\n\r\n")
    title, transfers = settlement.split("\r\n", 1)
    assert title == "settlement"
    return (list(csv.DictReader(io.StringIO(players))),
            list(csv.DictReader(io.StringIO(transfers))))


def recaps_in(game: Game, channel: FakeChannel, head: str = RECAP) -> list[FakeMessage]:
    """The recaps posted in ``channel`` for everybody (not the private ones shown again)."""
    return [m for m in game.fake.messages_in(channel)
            if m.content.startswith(head) and not m.ephemeral]


async def shove_and_call(game: Game, number: int, callers: int) -> None:
    """Hand ``number``: the first player to act goes all in, the next ``callers`` call, the
    others fold."""
    await game.wait_hand(number, timeout=30)
    live = game.live_table()
    shoved, called = False, 0
    while True:
        hand = live.hand
        if hand is None or live.table.hand_number != number or hand.is_over:
            break
        user = game.to_act()
        if user is None:
            await asyncio.sleep(0.01)
            continue
        if not shoved:
            await game.ok(user, "allin")
            shoved = True
        elif called < callers:
            await game.ok(user, "call")
            called += 1
        else:
            await game.ok(user, "fold")
    await game.wait_result(number)


async def pause_between_hands(game: Game) -> None:
    live = game.live_table()
    await game.ok(game.user(live.host_id), "poker", "pause")
    if game.hand is not None:
        await game.passive_round(live.table.hand_number)
    await until(lambda: game.live_table().hand is None, what="the hand to end", timeout=30)


async def all_posted(game: Game, timeout: float = 30.0) -> None:
    """Wait until every recap owed is marked posted (its DMs follow at once)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + scaled(timeout)
    while loop.time() < deadline:
        rows = await game.db.fetchall("SELECT state FROM recaps WHERE state <> 'empty'")
        if rows and all(row[0] in ("posted", "off") for row in rows):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("a recap was never marked posted")
