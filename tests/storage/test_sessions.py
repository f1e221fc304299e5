"""A table's session ledger (``bot.storage.sessions``): worked sessions on both backends, and
random sessions (hypothesis) checked against a model that keeps its own log of every chip that
reached, left or changed hands at the table. In every session the players' nets add up to
zero: chips come to a table only from its players' wallets, go back only to them, and a hand
only moves them between the players dealt in."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.runtime.results import player_results, result_summary
from bot.storage import Database, StorageError, economy, hands, sessions, tables
from bot.storage.hands import HandSeat, PlayerResult
from engine.cards import FULL_DECK
from engine.hand import Hand, HandConfig
from tests.engine.test_hand_properties import random_action
from tests.pgserver import PostgresServer
from tests.storage.conftest import (
    CHANNEL,
    GUILD,
    HOST,
    assert_invariant,
    deck_and_commitment,
    make_table,
    start_simple_hand,
)

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104


def figures(session: sessions.Session) -> dict[int, tuple[int, int, int, int, int, int]]:
    """user -> (carried, buy-ins, top-ups, cash-outs, stack, net)."""
    return {
        p.user_id: (p.carried, p.buy_ins, p.top_ups, p.cash_outs, p.stack, p.net)
        for p in session.players
    }


async def finish(db: Database, hand_id: int, finals: list[int]) -> None:
    """Finish a hand whose players end with ``finals`` (the first player with more won it)."""
    results = [PlayerResult(i, stack, 0, 0, vpip=False, pfr=False) for i, stack in
               enumerate(finals)]
    await hands.record_hand_result(db, hand_id, {}, results, pot=0)


async def test_a_session_counts_buy_ins_top_ups_cash_outs_and_stacks(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 800)
    await tables.buy_in(db, table_id, CAROL, 500)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOB, 800),
                                                     (3, CAROL, 500)])
    await finish(db, hand_id, [1_300, 600, 400])
    await tables.top_up(db, table_id, BOB, 400)
    await tables.leave_table(db, table_id, CAROL)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_300), (2, BOB, 1_000)])
    session = await sessions.session_ledger(db, table_id)
    # Mid-hand, the stacks are those the running hand was dealt with.
    assert figures(session) == {
        ALICE: (0, 1_000, 0, 0, 1_300, 300),
        BOB: (0, 800, 400, 0, 1_000, -200),
        CAROL: (0, 500, 0, 400, 0, -100),
    }
    assert [p.user_id for p in session.players] == [ALICE, CAROL, BOB]  # biggest winner first
    assert session.total_net == 0 and session.hands == 1 and session.first_hand == 1
    assert session.reset_by is None and session.is_open
    await finish(db, hand_id, [1_000, 1_300])
    session = await sessions.session_ledger(db, table_id)
    assert figures(session)[BOB][4:] == (1_300, 100)
    assert session.total_net == 0 and session.hands == 2
    # The chart: the start, then after each hand; Carol's line stops when she leaves, and
    # Bob's top-up shows after the hand that followed it.
    assert session.series.hands == (0, 1, 2)
    assert session.series.stacks == {
        ALICE: (1_000, 1_300, 1_000),
        BOB: (800, 600, 1_300),
        CAROL: (500, 400, None),
    }
    await assert_invariant(db)


async def test_a_reset_between_hands_carries_the_stacks_over(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    await finish(db, hand_id, [1_500, 500])
    start = await sessions.reset_session(db, table_id, actor_id=HOST, now=7_000)
    assert (start.first_hand, start.started_at, start.hand_running) == (2, 7_000, False)
    session = await sessions.session_ledger(db, table_id)
    assert figures(session) == {ALICE: (1_500, 0, 0, 0, 1_500, 0), BOB: (500, 0, 0, 0, 500, 0)}
    assert (session.first_hand, session.hands, session.started_at, session.reset_by) == (
        2, 0, 7_000, HOST)
    assert session.series.hands == (1,)
    assert session.series.stacks == {ALICE: (1_500,), BOB: (500,)}
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_500), (2, BOB, 500)])
    await finish(db, hand_id, [1_000, 1_000])
    await tables.buy_in(db, table_id, CAROL, 300)
    session = await sessions.session_ledger(db, table_id)
    assert figures(session) == {
        ALICE: (1_500, 0, 0, 0, 1_000, -500),
        BOB: (500, 0, 0, 0, 1_000, 500),
        CAROL: (0, 300, 0, 0, 300, 0),
    }
    assert session.series.hands == (1, 2) and session.total_net == 0


async def test_a_reset_mid_hand_begins_the_session_with_that_hand(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    await finish(db, hand_id, [1_200, 800])
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_200), (2, BOB, 800)])
    await tables.buy_in(db, table_id, CAROL, 400)  # sat down while the hand runs
    start = await sessions.reset_session(db, table_id, actor_id=HOST)
    assert (start.first_hand, start.hand_running) == (2, True)
    await finish(db, hand_id, [2_000, 0])
    session = await sessions.session_ledger(db, table_id)
    assert figures(session) == {
        ALICE: (1_200, 0, 0, 0, 2_000, 800),
        BOB: (800, 0, 0, 0, 0, -800),
        CAROL: (0, 400, 0, 0, 400, 0),
    }
    assert session.series.hands == (1, 2) and session.hands == 1
    assert session.series.stacks == {
        ALICE: (1_200, 2_000), BOB: (800, 0), CAROL: (400, 400)
    }


async def test_a_closed_table_keeps_its_last_session_and_refuses_a_reset(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    await hands.void_hand(db, hand_id, reason="test")
    await tables.close_table(db, table_id)
    session = await sessions.session_ledger(db, table_id)
    assert not session.is_open and session.voided == 1 and session.hands == 0
    assert figures(session) == {ALICE: (0, 1_000, 0, 1_000, 0, 0),
                                BOB: (0, 1_000, 0, 1_000, 0, 0)}
    assert session.series.hands == (0, 1)
    with pytest.raises(StorageError) as refused:
        await sessions.reset_session(db, table_id, actor_id=HOST)
    assert refused.value.code == "table_closed"
    with pytest.raises(StorageError) as unknown:
        await sessions.session_ledger(db, 987_654)
    assert unknown.value.code == "unknown_table"


async def test_the_channel_shows_its_open_table_else_the_last_one_closed(db: Database) -> None:
    assert await sessions.latest_table_in_channel(db, GUILD, CHANNEL) is None
    first = await make_table(db)
    await tables.close_table(db, first)
    assert await sessions.latest_table_in_channel(db, GUILD, CHANNEL) == first
    second = await make_table(db)
    assert await sessions.latest_table_in_channel(db, GUILD, CHANNEL) == second
    await tables.close_table(db, second)
    assert await sessions.latest_table_in_channel(db, GUILD, CHANNEL) == second
    # Another server's channel with the same id (never in Discord, but never trusted either).
    await economy.ensure_guild(db, GUILD + 1)
    assert await sessions.latest_table_in_channel(db, GUILD + 1, CHANNEL) is None


# -- random sessions -------------------------------------------------------------------------

USERS = (ALICE, BOB, CAROL, DAVE)


@dataclass
class Model:
    """The model's own account of the table: a log of (user, kind, amount), kind one of
    "buy_ins", "top_ups", "cash_outs", "hand" (a hand's result for him) or "end" (a hand
    ended; the amount is its number), and the seats."""

    log: list[tuple[int, str, int]] = field(default_factory=list)
    seats: dict[int, int] = field(default_factory=dict)  # user -> chips at the seat
    mark: int = 0  # where the session begins in the log
    hand_mark: int | None = None  # where the running hand began in the log
    running: tuple[int, Hand, list[int]] | None = None  # hand id, engine hand, users by index
    hand_no: int = 0
    session_hand: int = 0

    def chips(self, upto: int) -> dict[int, int]:
        total: dict[int, int] = defaultdict(int)
        for user, kind, amount in self.log[:upto]:
            if kind != "end":
                total[user] += -amount if kind == "cash_outs" else amount
        return total

    def series(self) -> tuple[tuple[int, ...], dict[int, tuple[int | None, ...]]]:
        """The chart as the model sees it: a player is at the table from his first chips in
        the session (a carried stack, a buy-in or a top-up) until he cashes out or a hand
        leaves him nothing; a picture of everyone's chips as the first hand's result arrives
        (before it counts), or at the end when no hand has ended, and at each hand's end."""
        chips = {u: c for u, c in self.chips(self.mark).items() if c}
        present = set(chips)
        numbers = [self.session_hand]
        pictures: list[dict[int, int]] = []
        first_hand = next((k for k, (_, kind, _) in enumerate(self.log[self.mark:])
                           if kind in ("hand", "end")), None)
        for k, (user, kind, amount) in enumerate(self.log[self.mark:]):
            if k == first_hand:
                pictures.append({u: chips[u] for u in present})
            if kind == "end":
                numbers.append(amount)
                pictures.append({u: chips[u] for u in present})
                present = {u for u in present if chips[u] > 0}
                continue
            chips[user] = chips.get(user, 0) + (-amount if kind == "cash_outs" else amount)
            if kind == "cash_outs":
                present.discard(user)
            elif kind != "hand":
                present.add(user)
        if not pictures:
            pictures.append({u: chips[u] for u in present})
        everyone = sorted({u for picture in pictures for u in picture})
        return tuple(numbers), {u: tuple(p.get(u) for p in pictures) for u in everyone}


async def play(db: Database, data: st.DataObject, *, closing: bool) -> None:
    table_id = await make_table(db, min_buy_in=100, max_buy_in=2_000)
    for user in USERS:
        await economy.grant(db, GUILD, user, 1_000_000, actor_id=HOST)
    model = Model()
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        step = data.draw(st.sampled_from(
            ["buy_in", "top_up", "leave", "hand", "hand", "hand", "reset"]), label="step")
        in_hand = set(model.running[2]) if model.running else set()
        if step == "buy_in":
            free = [u for u in USERS if u not in model.seats]
            if free:
                user = data.draw(st.sampled_from(free), label="who")
                amount = data.draw(st.integers(1, 20), label="buy-in") * 100
                await tables.buy_in(db, table_id, user, amount)
                model.seats[user] = amount
                model.log.append((user, "buy_ins", amount))
        elif step == "top_up":
            able = [u for u, s in model.seats.items() if u not in in_hand and s < 1_900]
            if able:
                user = data.draw(st.sampled_from(able), label="who")
                amount = max(100 - model.seats[user], 1)
                amount = data.draw(st.integers(amount, 2_000 - model.seats[user]), label="top")
                await tables.top_up(db, table_id, user, amount)
                model.seats[user] += amount
                model.log.append((user, "top_ups", amount))
        elif step == "leave":
            able = [u for u in model.seats if u not in in_hand]
            if able:
                user = data.draw(st.sampled_from(able), label="who")
                returned = await tables.leave_table(db, table_id, user)
                assert returned == model.seats.pop(user)
                if returned:  # the ledger has no rows for nothing moved
                    model.log.append((user, "cash_outs", returned))
        elif step == "reset":
            start = await sessions.reset_session(db, table_id, actor_id=HOST)
            model.mark = model.hand_mark if model.hand_mark is not None else len(model.log)
            model.session_hand = model.hand_no - 1 if model.running else model.hand_no
            assert start.first_hand == model.session_hand + 1
        elif model.running is None:
            await start_hand(db, table_id, model, rng)
        else:
            await end_hand(db, model, rng, data)
        await check(db, table_id, model)
    if closing:
        await hands.close_table(
            db, table_id, hand_id=model.running[0] if model.running else None)
        if model.running is not None:
            _, hand, users = model.running
            for i, user in enumerate(users):
                model.seats[user] = hand.config.stacks[i]
            model.log.append((0, "end", model.hand_no))
            model.running = None
        for user, chips in sorted(model.seats.items()):
            if chips:
                model.log.append((user, "cash_outs", chips))
        model.seats = {}
        await check(db, table_id, model)
    await assert_invariant(db)


async def start_hand(db: Database, table_id: int, model: Model, rng: random.Random) -> None:
    users = [u for u, chips in sorted(model.seats.items()) if chips > 0]
    if len(users) < 2:
        return
    stacks = [model.seats[u] for u in users]
    config = HandConfig.standard(stacks, 5, 10)
    deck = tuple(rng.sample(FULL_DECK, 52))
    seated = await tables.get_table(db, table_id)
    seat_of = {s.user_id: s.seat_no for s in seated.seats}
    players = [HandSeat(i, seat_of[u], u, model.seats[u]) for i, u in enumerate(users)]
    hand_id = await hands.start_hand(db, table_id, config=config, players=players,
                                     **deck_and_commitment(deck))  # type: ignore[arg-type]
    model.hand_no += 1
    model.hand_mark = len(model.log)
    model.running = (hand_id, Hand(config, deck), users)
    for u in users:
        model.seats[u] = 0


async def end_hand(db: Database, model: Model, rng: random.Random, data: st.DataObject) -> None:
    assert model.running is not None
    hand_id, hand, users = model.running
    if data.draw(st.integers(0, 5), label="void?") == 0:
        refunds = await hands.void_hand(db, hand_id, reason="test")
        for i, u in enumerate(users):
            model.seats[u] = hand.config.stacks[i]
            assert refunds[u] == hand.config.stacks[i]
    else:
        while not hand.is_over:
            hand.apply(random_action(hand, rng))
        await hands.record_hand_result(db, hand_id, result_summary(hand), player_results(hand))
        assert hand.result is not None
        for i, u in enumerate(users):
            model.seats[u] = hand.result.stacks[i]
            model.log.append((u, "hand", hand.result.stacks[i] - hand.config.stacks[i]))
    model.log.append((0, "end", model.hand_no))
    model.running = None
    model.hand_mark = None


async def check(db: Database, table_id: int, model: Model) -> None:
    session = await sessions.session_ledger(db, table_id)
    assert session.total_net == 0
    carried = model.chips(model.mark)
    moved: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for user, kind, amount in model.log[model.mark:]:
        if kind != "end":
            moved[user][kind] += amount
    now = model.chips(len(model.log))
    expected = {}
    movers = {u for u, kinds in moved.items() if set(kinds) - {"hand"}}
    for user in {u for u, c in carried.items() if c} | movers | set(model.seats):
        in_hand = model.running is not None and user in model.running[2]
        stack = now[user] if user in model.seats else 0
        if in_hand:
            assert model.running is not None
            stack = model.running[1].config.stacks[model.running[2].index(user)]
        got = (carried.get(user, 0), moved[user]["buy_ins"], moved[user]["top_ups"],
               moved[user]["cash_outs"], stack)
        expected[user] = (*got, got[3] + got[4] - got[0] - got[1] - got[2])
    assert figures(session) == expected
    assert session.first_hand == model.session_hand + 1
    assert (session.series.hands, session.series.stacks) == model.series()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.booleans())
def test_random_sessions_match_the_model_and_their_nets_add_up_to_zero(
    data: st.DataObject, closing: bool
) -> None:
    async def on_a_new_database() -> None:
        db = await Database.open("sqlite:///:memory:")
        try:
            await economy.ensure_guild(db, GUILD, now=1_000)
            await play(db, data, closing=closing)
        finally:
            await db.close()

    asyncio.run(on_a_new_database())


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.booleans())
def test_random_sessions_on_postgresql(
    postgres_server: PostgresServer, data: st.DataObject, closing: bool
) -> None:
    async def on_a_new_database() -> None:
        url = await postgres_server.create_database()
        db = await Database.open(url)
        try:
            await economy.ensure_guild(db, GUILD, now=1_000)
            await play(db, data, closing=closing)
        finally:
            await db.close()
            await postgres_server.drop_database(url)

    asyncio.run(on_a_new_database())
