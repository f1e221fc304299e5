"""Helpers for the game's end-to-end tests: the real bot (``bot.client.PokerBot``) against the
fake Discord, with quick pacing, a deck the test may stack, and shortcuts to play."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from bot.client import PokerBot
from bot.i18n import t
from bot.runtime.cash import CashTable
from bot.runtime.config import RuntimeOptions
from bot.runtime.manager import GameRuntime
from bot.storage import Database, invariant
from engine.cards import Card, shuffled_deck
from engine.hand import Hand, deck_from_cards
from engine.table import Table, TableOptions
from tests.e2e.harness import World, running_bot, settings_for
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    InteractionCallback,
    InteractionHandle,
)
from tests.timing import scaled

T = TypeVar("T")

STARTING_BALANCE = 10_000  # storage's default for a new wallet
DEFERRED = 5  # the "thinking…" response that a later message replaces


class StackedDeck:
    """Deals the decks a test queued, then shuffled ones."""

    def __init__(self) -> None:
        self.queue: deque[tuple[Card, ...]] = deque()

    def __call__(self) -> Sequence[Card]:
        return self.queue.popleft() if self.queue else shuffled_deck()

    def push(self, deck: Sequence[Card]) -> None:
        self.queue.append(tuple(deck))


def quick_options(deck: StackedDeck, **changes: Any) -> RuntimeOptions:
    """Pacing for tests: a short pause between hands, no time bank, a 1 s minimum timer, and
    a generous channel budget, which ``running_game`` gives the fake Discord too
    (``test_game_pacing`` runs with Discord's real one on both sides)."""
    base = RuntimeOptions(
        next_hand_delay=0.05,
        channel_sends=100,
        channel_window=1.0,
        calm_edit_interval=0.05,
        time_bank=0.0,
        time_bank_refill=0.0,
        time_bank_cap=0.0,
        min_timer=1,
        default_timer=30,
        drain_timeout=2.0,
        # Leases renew every third of this: never inside a test counting its writes.
        lease_seconds=3600.0,
        runout_pause=0.0,
        bot_pause=(0.0, 0.01),
        deck_factory=deck,
    )
    return replace(base, **changes)


async def until(check: Callable[[], T | None], *, timeout: float = 5.0, what: str = "") -> T:
    """Poll in-process state (the live_table changes without telling the fake) with a deadline
    (``timeout`` on a free machine, stretched with the load)."""
    timeout = scaled(timeout)
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what or 'condition'} not reached within {timeout}s")
        await asyncio.sleep(0.01)


@dataclass
class Game:
    """One running bot, its fake Discord, and the table of #poker."""

    fake: FakeDiscord
    bot: PokerBot
    world: World
    deck: StackedDeck
    channel: FakeChannel = field(init=False)

    def __post_init__(self) -> None:
        self.channel = self.world.guild.channel("poker")

    # -- the bot's side --------------------------------------------------------------------

    @property
    def runtime(self) -> GameRuntime:
        runtime = self.bot.runtime
        assert isinstance(runtime, GameRuntime)
        return runtime

    @property
    def db(self) -> Database:
        return self.runtime.db

    def live_table(self, channel: FakeChannel | None = None) -> CashTable:
        return self.runtime.registry.cash_table_in((channel or self.channel).id)

    @property
    def hand(self) -> Hand | None:
        return self.live_table().hand

    def user(self, user_id: int) -> FakeUser:
        return self.fake.users[user_id]

    def to_act(self) -> FakeUser | None:
        live_table = self.live_table()
        hand = live_table.hand
        if hand is None or hand.to_act is None:
            return None
        return self.user(live_table.player_of(hand.to_act))

    async def wait_turn(self, timeout: float = 5.0) -> FakeUser:
        return await until(self.to_act, timeout=timeout, what="a player to act")

    async def wait_hand(self, number: int, timeout: float = 20.0) -> Hand:
        """Hand ``number`` dealt and being played (a first deal waits for the renderer's
        warm-up and its messages, slow on a busy machine)."""

        def dealt() -> Hand | None:
            live_table = self.live_table()
            hand = live_table.hand
            return hand if hand is not None and live_table.table.hand_number == number else None

        return await until(dealt, timeout=timeout, what=f"hand #{number}")

    async def wait_result(self, number: int, timeout: float = 20.0) -> FakeMessage:
        return await self.fake.wait_for_message(
            lambda m: m.content.startswith(f"**Hand #{number}: result**"),
            channel=self.channel,
            kinds=("create",),
            timeout=timeout,
        )

    async def turn_message(self, user: FakeUser, number: int, after: int = 0) -> FakeMessage:
        """The table message of hand ``number`` once it names ``user`` to act."""
        return await self.fake.wait_for_message(
            lambda m: f"Hand #{number} ·" in m.content and f"{user.mention} to act" in m.content,
            channel=self.channel,
            after=after,
            timeout=20,
        )

    async def wait_idle(self, timeout: float = 20.0) -> None:
        await self.live_table().messenger.flush(timeout)

    # -- the players' side -----------------------------------------------------------------

    async def slash(
        self,
        who: FakeUser,
        name: str,
        subcommand: str | None = None,
        *,
        channel: FakeChannel | None = None,
        **options: Any,
    ) -> InteractionCallback:
        handle = await self.fake.slash(
            who, channel or self.channel, name, subcommand=subcommand, options=options
        )
        return await settled(handle)

    async def poker(self, who: FakeUser, subcommand: str, **options: Any) -> InteractionCallback:
        return await self.slash(who, "poker", subcommand, **options)

    async def ok(self, who: FakeUser, name: str, subcommand: str | None = None,
                 **options: Any) -> str:
        """Run a command that must succeed; its (ephemeral) reply."""
        reply = await self.slash(who, name, subcommand, **options)
        assert reply.ephemeral, reply
        assert not reply.content.startswith(("Something went wrong", "It's not")), reply
        return reply.content

    async def balance(self, user: FakeUser) -> int:
        """The user's wallet, as ``/chips balance`` tells him."""
        reply = await self.slash(user, "chips", "balance")
        match = re.search(r"([\d,]+) chips", reply.content)
        assert match, reply.content
        return int(match[1].replace(",", ""))

    async def table_message(self, timeout: float = 20.0) -> FakeMessage:
        """The table's current message, once posted (the first waits for the renderer's
        warm-up, slow on a busy machine)."""
        live_table = self.live_table()
        message_id = await until(lambda: live_table.message_id, timeout=timeout, what="table msg")
        return self.fake.message(message_id)

    async def open_table(
        self, *players: FakeUser, buy_in: int = 1000, **options: Any
    ) -> CashTable:
        """The first player opens a table in #poker (``options`` for ``/poker create``) and
        every player sits down with ``buy_in``; the table's live_table."""
        await self.ok(players[0], "poker", "create", **options)
        for player in players:
            await self.ok(player, "poker", "join", buy_in=buy_in)
        return self.live_table()

    async def passive_round(self, number: int) -> None:
        """Play hand ``number`` to its end by checking or calling, through slash commands."""
        while True:
            hand = self.hand
            if hand is None or self.live_table().table.hand_number != number:
                return
            user = self.to_act()
            if user is None:
                await asyncio.sleep(0.01)
                continue
            legal = hand.legal()
            assert legal is not None
            await self.ok(user, "check" if legal.can_check else "call")


def button_id(message: FakeMessage, action: str, arg: int | None = None) -> str:
    """The custom id of the button for ``action`` (and raise-to ``arg``) on a message."""
    pattern = re.compile(
        rf"poker:\d+:{re.escape(action)}(?:@\d+\.\d+)?" + (rf":{arg}" if arg is not None else "")
    )
    found = [cid for cid in message.custom_ids() if pattern.fullmatch(cid)]
    assert len(found) == 1, (action, arg, message.custom_ids())
    return found[0]


async def settled(handle: InteractionHandle, timeout: float = 20.0) -> InteractionCallback:
    """The bot's answer to an interaction: its first response, or, when that was a deferral
    ("thinking…"), the message that replaced it."""
    callback = await handle.response()
    if callback.type != DEFERRED:
        return callback
    message = await handle.wait_original(timeout=timeout)
    data = {"content": message.content, "flags": message.flags,
            "embeds": list(message.embeds), "components": list(message.components)}
    return InteractionCallback(4, data, message.attachments, message)


UPDATED = 7  # the interaction answered by updating the message its button is on


def last_action_line(content: str) -> str | None:
    """The table message's "Last: ..." line, if it has one."""
    prefix = t("table.last_action", action="")
    return next((ln for ln in content.split("\n") if ln.startswith(prefix)), None)


async def press_answer(handle: InteractionHandle, timeout: float = 20.0) -> str:
    """What the presser saw: a private reply's text, or, when the press was answered by the
    table message's own update, ``"table: "`` and that update's last-action line (its whole
    text when it has none: the hand is over)."""
    callback = await settled(handle, timeout)
    if callback.type == UPDATED:
        assert callback.message is not None and handle.message == callback.message.id
        return f"table: {last_action_line(callback.content) or callback.content}"
    assert callback.ephemeral, callback
    return callback.content


def seat_order(options: TableOptions, seats: dict[int, int], seed: int) -> tuple[int, ...]:
    """Players of the first hand in engine order, as a table seeded ``seed`` will deal it."""
    table = Table(options, random.Random(seed))
    for user_id, seat in seats.items():
        table.join(user_id, options.buy_in_range[1], seat=seat)
    table.start_hand(shuffled_deck())
    return tuple(int(p) for p in table.hand_players)


def stack_deck(order: Sequence[int], holes: dict[int, str], board: str) -> tuple[Card, ...]:
    """A deck dealing ``holes`` (user id -> "AsKd") to the players in ``order`` and the board."""
    from engine.cards import parse_cards

    return deck_from_cards(
        len(order), [parse_cards(holes[user]) for user in order], parse_cards(board)
    )


async def total_chips(db: Database, guild_id: int) -> tuple[int, int, int]:
    """(wallets, seats, running hands) of the guild; checks the ledger invariant too."""
    report = await invariant.check_invariant(db, guild_id=guild_id)
    assert report.ok, report
    if not report.guilds:
        # The bot registers a server when Discord says it is there (GUILD_CREATE), and a first
        # command may come before that is stored, on a busy machine: no row, no chip yet.
        return 0, 0, 0
    (balance,) = report.guilds
    return balance.wallets, balance.seats, balance.hands


@contextlib.asynccontextmanager
async def running_game(
    fake: FakeDiscord,
    world: World,
    data_dir: Path,
    *,
    deck: StackedDeck | None = None,
    options: RuntimeOptions | None = None,
    seed: int | None = None,
    database_url: str | None = None,
    metrics: bool = False,
    **client_options: Any,
) -> AsyncIterator[Game]:
    """The real bot as ``poker-bot`` builds it, running against ``fake`` (on an SQLite file in
    ``data_dir``, or on ``database_url``); with ``metrics``, serving ``/metrics``, ``/healthz``
    and ``/readyz`` on a free port of 127.0.0.1 (``bot.ops.port``).

    The fake's per-channel message limit is set to the bot's own channel budget
    (``options.channel_sends`` per ``options.channel_window``), so the two agree: a test with
    the quick budget stays fast, one with Discord's budget runs against Discord's limit. The
    global limit stays Discord's. Leaving without an error, the game must not have been
    refused a single request with 429. ``client_options`` go to discord.py's client (a fault
    test shortens ``heartbeat_timeout``).
    """
    deck = deck if deck is not None else StackedDeck()
    options = options if options is not None else quick_options(deck)
    fake.set_rate_limits(channel_rate=(options.channel_sends, options.channel_window))
    settings = settings_for(fake, data_dir)
    if database_url is not None:
        settings = replace(settings, database_url=database_url)
    if metrics:
        settings = replace(settings, metrics_port=0, metrics_host="127.0.0.1")
    bot = PokerBot(settings, runtime_options=options, guild_ready_timeout=0.01, **client_options)
    async with running_bot(fake, data_dir, bot=bot) as running:
        game = Game(fake, running, world, deck)
        if seed is not None:
            game.runtime.rng = random.Random(seed)
        yield game
    assert not fake.rate_limited, f"requests refused with 429: {fake.rate_limited}"
