"""Helpers for the tournament tests over the fake Discord: a server with as many members as a
field needs, the live tournament as the bot holds it, and simulated players who act at
whichever table waits for them, through the same slash commands people type."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass

from bot.runtime.tourney import LiveTournament, TournamentTable
from bot.storage import Database, invariant, tournaments
from bot.storage.tournaments import TournamentInfo
from engine.hand import Hand
from tests.e2e.game_kit import Game, settled, until
from tests.e2e.harness import World
from tests.e2e.secrets_kit import hidden_cards, public_leaks
from tests.fakediscord import FakeChannel, FakeGuild, FakeUser
from tests.fakediscord.models import READ_MESSAGE_HISTORY, VIEW_CHANNEL

# Play fast: levels of a few seconds, the big blind doubling.
QUICK_STRUCTURE = (
    "10/20 0.2, 20/40 0.2, 40/80 0.2, 80/160 0.2, 150/300 0.2, 300/600 0.2, 600/1200 1"
)


def big_world(extra: int) -> World:
    """The usual three members (alice, bob, carol whose DMs are closed) and ``extra`` more."""
    alice, bob = FakeUser("alice"), FakeUser("bob")
    carol = FakeUser("carol", dms_open=False)
    others = [FakeUser(f"p{n:02}") for n in range(extra)]
    readonly = FakeChannel("readonly", bot_permissions=VIEW_CHANNEL | READ_MESSAGE_HISTORY)
    guild = FakeGuild.create("Casino", channels=["poker", "lobby", readonly],
                             members=[alice, bob, carol, *others])
    return World(alice=alice, bob=bob, carol=carol, guild=guild)


def members(world: World) -> list[FakeUser]:
    return [m for m in world.guild.members if not m.bot]


def tournament_of(game: Game, channel: FakeChannel | None = None) -> LiveTournament | None:
    return game.runtime.registry.tournament_in((channel or game.channel).id)


async def tournament(game: Game, user: FakeUser, subcommand: str,
                     channel: FakeChannel | None = None, **options: object) -> str:
    """``/tournament <subcommand>`` (its options may include ``name``); the reply's text."""
    handle = await game.fake.slash(user, channel or game.channel, "tournament",
                                   subcommand=subcommand, options=options)
    reply = await settled(handle)
    assert reply.ephemeral, reply
    return reply.content


async def create(game: Game, host: FakeUser, **options: object) -> LiveTournament:
    values: dict[str, object] = {"name": "Friday", "kind": "freeze_out", "buy_in": 100,
                                 "starting_stack": 1000, "structure": QUICK_STRUCTURE}
    values.update(options)
    reply = await tournament(game, host, "create", **values)
    assert reply.startswith("Tournament **"), reply
    live = tournament_of(game)
    assert live is not None
    return live


async def register(game: Game, *players: FakeUser) -> None:
    for player in players:
        reply = await game.slash(player, "tournament", "register")
        assert reply.content.startswith("You're registered"), reply.content


Policy = Callable[[Hand, random.Random], str]


def shove_or_call(hand: Hand, rng: random.Random) -> str:
    """A field that finishes quickly: all-in a third of the time, else check, or call a bet
    (folding to one time in five, so some hands end with cards nobody showed)."""
    legal = hand.legal()
    assert legal is not None
    roll = rng.random()
    if legal.can_raise and roll < 0.33:
        return "allin"
    if legal.can_check:
        return "check"
    return "fold" if roll > 0.8 else "call"


def check_or_fold(hand: Hand, rng: random.Random) -> str:
    """A field that only loses its blinds: it lasts as long as a test needs it."""
    legal = hand.legal()
    assert legal is not None
    return "check" if legal.can_check else "fold"


def always_all_in(hand: Hand, rng: random.Random) -> str:
    legal = hand.legal()
    assert legal is not None
    if legal.can_raise:
        return "allin"
    return "check" if legal.can_check else "call"


@dataclass
class Players:
    """Simulated players: whoever is to act at any table acts there (a slash command in the
    table's channel), until the tournament is over."""

    game: Game
    live: LiveTournament
    policy: Policy = shove_or_call
    seed: int = 1
    idle: frozenset[int] = frozenset()  # users who never act (the clock acts for them)
    actions: int = 0

    async def play_until(self, done: Callable[[], bool], timeout: float = 120.0) -> None:
        rng = random.Random(self.seed)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not done():
            if loop.time() > deadline:
                raise TimeoutError(f"tournament not done after {timeout}s ({self.actions} actions)")
            acted = False
            for table in list(self.live.tables.values()):
                if await self._act_at(table, rng):
                    acted = True
            if not acted:
                await asyncio.sleep(0.02)

    async def _act_at(self, table: TournamentTable, rng: random.Random) -> bool:
        hand = table.hand
        if hand is None or hand.to_act is None:
            return False
        user_id = table.player_of(hand.to_act)
        if user_id in self.idle:
            return False
        name = self.policy(hand, rng)
        user = self.game.fake.users[user_id]
        channel = self.game.fake.channels[table.channel_id]
        handle = await self.game.fake.slash(user, channel, name)
        await settled(handle)
        self.actions += 1
        return True


async def quiet(live: LiveTournament, timeout: float = 30.0) -> None:
    """Wait until everything the tournament asked to say went out, in every channel."""
    await live.flush(timeout)


async def assert_no_hidden_card_in_public(game: Game, live: LiveTournament) -> int:
    """No hole card that was not shown reached the tournament's channel or its threads, in
    any version of any message everybody there could read; how many hidden hands it checked."""
    await quiet(live)
    places = {game.channel.id, *(t.id for t in game.fake.threads_of(game.channel))}
    hidden, shown = await hidden_cards(game.db, "h.tournament_id = ?", (live.tournament_id,))
    leaked = public_leaks(game.fake.events, places, hidden, shown)
    assert leaked == [], leaked
    return len(hidden)


async def stored(db: Database, live: LiveTournament) -> TournamentInfo:
    return await tournaments.get_tournament(db, live.tournament_id)


async def wait_over(game: Game, live: LiveTournament, timeout: float = 30.0) -> TournamentInfo:
    async def over() -> TournamentInfo | None:
        info = await stored(game.db, live)
        return info if info.status == "finished" else None

    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        info = await over()
        if info is not None:
            return info
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the tournament did not finish")
        await asyncio.sleep(0.05)


async def assert_settled(game: Game, info: TournamentInfo) -> None:
    """After any tournament: prizes add up to the buy-ins, the ledger invariant holds, and
    every entrant has exactly one place."""
    await assert_settled_in(game.db, info)


async def assert_settled_in(db: Database, info: TournamentInfo) -> None:
    """:func:`assert_settled` on a database (a bot process's, read after it stopped)."""
    assert info.status == "finished"
    report = await invariant.check_invariant(db)
    assert report.ok, report
    assert info.pool == 0
    assert sum(e.prize or 0 for e in info.entries) == info.buy_in * info.entrants
    assert len({e.user_id for e in info.entries}) == info.entrants == len(info.entries)
    assert all(e.place is not None and 1 <= e.place <= info.entrants for e in info.entries)
    # Places run 1.. with ties taking the places they share.
    places = sorted(e.place or 0 for e in info.entries)
    assert places[0] == 1


__all__ = ["until"]
