"""A computer player that thinks past the hard limit checks if it may, else folds; that is
counted and logged once a table, and the table plays on."""

from __future__ import annotations

import asyncio
import logging
import random
import threading

import pytest

from bot.metrics import PrometheusMetrics
from bot.runtime.config import RuntimeOptions
from bot.runtime.turns import BOT_THREADS, DECISION_LIMIT, BotSeat, BotTurns, Marker
from engine.bots.ids import bot_id
from engine.bots.view import CALL, BotView, Decision, view_of
from engine.cards import FULL_DECK
from engine.hand import Action, ActionKind, Hand, HandConfig
from tests.timing import scaled

LIMIT = 0.05  # the test's hard limit: the stand-in blocks ten times as long


class Slow:
    """A bot that calls, blocking ``block`` seconds from its ``fast``-th decision on."""

    def __init__(self, block: float, fast: int = 0) -> None:
        self.block = block
        self.fast = fast
        self.calls = 0
        self.release = threading.Event()

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        self.calls += 1
        if self.calls > self.fast:
            self.release.wait(self.block)
        return CALL


def _hand() -> Hand:
    deck = list(FULL_DECK)
    random.Random(3).shuffle(deck)
    return Hand(HandConfig.standard((200,) * 3, 1, 2), deck)


class Table:
    """One table's bot turns, as the runtime runs them, over hands the test deals."""

    def __init__(self, bot: Slow, *, warm: set[tuple[str, object]],
                 metrics: PrometheusMetrics) -> None:
        self.bot = bot
        self.player = bot_id(1, "strong")
        self.hand = _hand()
        self.answers: list[Action] = []
        self.turns = BotTurns(
            RuntimeOptions(bot_pause=(0.0, 0.0)), random.Random(1), asyncio.Lock(), self.due,
            self.answer, name="t", guild_id=7, metrics=metrics, limit=LIMIT,
            make=lambda level: bot, warm=warm,
        )
        self.number = 0

    def due(self, marker: Marker) -> BotSeat | None:
        hand = self.hand
        if self.answers or hand.to_act is None or marker != (self.number, 0):
            return None
        who = tuple(self.player if i == hand.to_act else 1000 + i for i in range(3))
        return BotSeat(hand, hand.to_act, self.player, who, self.number)

    async def answer(self, played: Hand, action: Action) -> None:
        played.apply(action)
        self.answers.append(action)

    async def play(self, hand: Hand) -> list[Action]:
        """One decision of the bot at ``hand``'s player to act."""
        self.hand, self.answers = hand, []
        self.number += 1
        self.bot.release.clear()
        self.turns.arm((self.number, 0))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + scaled(5.0)
        while not self.answers and loop.time() < deadline:
            await asyncio.sleep(0.01)
        self.bot.release.set()  # let an abandoned thread end
        return self.answers


async def _play(
    bot: Slow, hand: Hand, *, warm: set[tuple[str, object]], metrics: PrometheusMetrics
) -> list[Action]:
    return await Table(bot, warm=warm, metrics=metrics).play(hand)


def _late(metrics: PrometheusMetrics) -> float:
    return metrics.registry.get_sample_value(
        "poker_bot_decisions_late_total", {"shard": "0"}
    ) or 0.0


def test_the_limit_is_far_past_the_levels_budget() -> None:
    assert 0.02 * 10 <= DECISION_LIMIT <= 1.0


async def test_a_bot_past_the_limit_folds_facing_a_bet_is_counted_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    metrics = PrometheusMetrics()
    warm: set[tuple[str, object]] = set()
    caplog.set_level(logging.WARNING, logger="bot.runtime.turns")
    # The first decision of a level in a game builds shared tables: it is not timed.
    bot = Slow(LIMIT * 10)
    table = Table(bot, warm=warm, metrics=metrics)
    answers = await table.play(_hand())
    assert [a.kind for a in answers] == [ActionKind.CALL]
    assert _late(metrics) == 0
    for n in (1, 2):
        hand = _hand()
        to_act = hand.to_act
        answers = await table.play(hand)
        # Facing the big blind a late bot folds (it wanted to call), and the hand goes on.
        assert [a.kind for a in answers] == [ActionKind.FOLD]
        assert answers[0].player == to_act and hand.to_act != to_act
        assert _late(metrics) == n
    late = [r for r in caplog.records if "thought past" in r.getMessage()]
    assert [r.levelno for r in late] == [logging.WARNING]  # once a table, counted every time
    assert late[0].exc_info is None


async def test_a_bot_past_the_limit_checks_when_checking_is_free() -> None:
    metrics = PrometheusMetrics()
    hand = _hand()
    while hand.to_act is not None and view_of(hand, hand.to_act).to_call > 0:
        hand.apply(Action(ActionKind.CALL, hand.to_act))
    assert hand.to_act is not None  # the big blind, free to check
    answers = await _play(Slow(LIMIT * 10), hand, warm={("strong", hand.game)},
                          metrics=metrics)
    assert [a.kind for a in answers] == [ActionKind.CHECK]
    assert _late(metrics) == 1


async def test_a_bot_within_the_limit_is_heard() -> None:
    metrics = PrometheusMetrics()
    hand = _hand()
    answers = await _play(Slow(0.0), hand, warm={("strong", hand.game)}, metrics=metrics)
    assert [a.kind for a in answers] == [ActionKind.CALL]
    assert _late(metrics) == 0


class Hung(Slow):
    """A bot whose every decision blocks until the test lets it go (``Slow.release`` is set by
    each play; this one waits on its own event)."""

    def __init__(self) -> None:
        super().__init__(0.0)
        self.stuck = threading.Event()

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        self.calls += 1
        self.stuck.wait(scaled(30.0))
        return CALL


async def test_hung_decisions_hold_none_of_the_threads_everything_else_runs_on() -> None:
    metrics = PrometheusMetrics()
    bot = Hung()
    hand = _hand()
    warm = {("strong", hand.game)}
    # More hung decisions than the loop's own executor has threads (at most 32).
    tables = [Table(bot, warm=warm, metrics=metrics) for _ in range(33)]
    try:
        played = await asyncio.gather(*(table.play(_hand()) for table in tables))
        assert all([a.kind for a in answers] == [ActionKind.FOLD] for answers in played)
        assert _late(metrics) == len(tables)
        # Every thread deciding is stuck; the threads images and files are made on are free.
        assert await asyncio.wait_for(asyncio.to_thread(lambda: 42), scaled(2.0)) == 42
        assert bot.calls <= BOT_THREADS  # the rest were given up before a thread took them
    finally:
        bot.stuck.set()
