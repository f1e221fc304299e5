"""All-in EV kept with each hand (migration 0010): what storage holds is what ``engine.allin_ev``
gives the stored hand, replayed; ``/chips stats`` figures equal a second reading of the stored
hands written only for this test; hands stored before have none and are never guessed; a
practice hand keeps none; and storage refuses figures that cannot be true."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import strategies as st

from bot.runtime.results import SettledHand, player_results, settled_hand
from bot.storage import Database, StorageError, economy, hands, stats, tables
from bot.storage.hands import AllInRecord, HandSeat, PlayerResult
from bot.storage.stats import AllInFigures
from engine.allin_ev import all_in_ev
from engine.commitment import DeckCommitment
from engine.games import NLHE, PLO8
from engine.hand import Hand, RunItTwice
from tests.engine.test_allin_ev import all_ins, random_all_in

from .conftest import GUILD, HOST
from .model_kit import on_both_backends

USERS = (701, 702, 703, 704, 705, 706)


async def store(
    db: Database, hand: Hand, channel: int, *, counted: bool = True, practice: bool = False,
    users: tuple[int, ...] = USERS,
) -> int:
    """``hand`` (played to its end) dealt at a new table and recorded as the runtime records
    it (``settled_hand``); without ``counted``, as a hand stored before migration 0010."""
    info = await tables.create_table(db, GUILD, channel, HOST, config={}, min_buy_in=1,
                                     max_buy_in=10**6, practice=practice)
    stacks = hand.config.stacks
    for i, stack in enumerate(stacks):
        if not practice:
            await economy.grant(db, GUILD, users[i], stack, actor_id=HOST)
        await tables.buy_in(db, info.table_id, users[i], stack)
    deck = hand.deck
    hand_id = await hands.start_hand(
        db, info.table_id, config=hand.config, deck=deck,
        commitment=DeckCommitment.commit(deck),
        players=[HandSeat(i, i + 1, users[i], stack) for i, stack in enumerate(stacks)],
    )
    await hands.append_actions(db, hand_id, 0, hand.actions)
    settled = await settled_hand(hand)
    if not counted:  # as every hand finished before the migration: no figure at all
        settled = SettledHand(settled.summary, player_results(hand), None)
    await hands.record_hand_result(db, hand_id, settled.summary, settled.players,
                                   all_in=settled.all_in)
    return hand_id


async def assert_kept_as_the_engine_counts_it(db: Database, hand_id: int) -> None:
    stored = await hands.load_hand(db, hand_id)
    replayed = hands.rebuild_hand(stored)
    ev = all_in_ev(replayed)
    assert stored.all_in_counted
    assert stored.all_in_ev == (None if ev is None else ev.to_json())
    chips = None if ev is None else ev.ev_net_chips()
    for p in stored.players:
        expected = None if chips is None or replayed.folded[p.player] else chips[p.player]
        assert p.all_in_ev_net == expected, (p, expected)


async def _random_hands_are_kept_exactly(data: st.DataObject, url: str) -> None:
    db = await Database.open(url)
    try:
        await economy.ensure_guild(db, GUILD)
        for k in range(data.draw(st.integers(1, 3), label="hands")):
            hand = data.draw(all_ins(players=(2, 6)), label=f"hand {k}")
            await assert_kept_as_the_engine_counts_it(db, await store(db, hand, 20_000 + k))
    finally:
        await db.close()


(
    test_the_stored_all_in_ev_is_the_engines_on_the_stored_hand,
    test_the_stored_all_in_ev_is_the_engines_on_the_stored_hand_on_postgresql,
) = on_both_backends(_random_hands_are_kept_exactly, examples=30, postgres_examples=4)


# --- the second reading of /chips stats --------------------------------------------------------


@dataclass
class Reading:
    hands: int = 0
    net: int = 0
    counted: int = 0
    counted_net: int = 0
    all_in: int = 0
    luck: int = 0


async def second_reading(db: Database, user_id: int) -> tuple[Reading, list[int | None]]:
    """His figures over his cash hands, each hand replayed from its stored deck and actions
    and its all-in EV counted again by the engine; and his all-in EV line after each hand."""
    rows = await db.fetchall(
        "SELECT h.hand_id FROM hands h JOIN hand_players hp ON hp.hand_id = h.hand_id"
        " WHERE hp.user_id = ? AND h.status = 'finished' AND h.practice = 0"
        " AND h.tournament_id IS NULL ORDER BY h.ended_at, h.hand_id",
        (user_id,),
    )
    reading = Reading()
    line: list[int | None] = []
    for (hand_id,) in rows:
        stored = await hands.load_hand(db, hand_id)
        hand = hands.rebuild_hand(stored)
        assert hand.result is not None
        me = next(p.player for p in stored.players if p.user_id == user_id)
        net = hand.result.net[me]
        reading.hands += 1
        reading.net += net
        if stored.all_in_counted:
            ev = all_in_ev(hand)
            reading.counted += 1
            reading.counted_net += net
            if ev is not None and not hand.folded[me]:
                reading.all_in += 1
                reading.luck += net - ev.ev_net_chips()[me]
            line.append(reading.net - reading.luck)
        else:
            line.append(None)
    return reading, line


async def test_stats_equal_a_second_reading_of_the_stored_hands(db: Database) -> None:
    rng = random.Random(31)
    channel = 30_000
    for k in range(24):
        game = PLO8 if k % 5 == 4 else NLHE
        hand = random_all_in(rng, game, rng.randint(2, 4), rng.choice((0, 3, 4)),
                             run_it_twice=rng.choice(list(RunItTwice)), runs=rng.choice((1, 2)))
        players = list(USERS[:3])
        rng.shuffle(players)
        # The first hands as if stored before all-in EV was kept: unknown, never guessed.
        await store(db, hand, channel + k, counted=k >= 4, users=(*players, 704))
    for user in USERS[:3]:
        found = await stats.player_stats(db, GUILD, user, series=True)
        reading, line = await second_reading(db, user)
        assert found.all_in == AllInFigures(reading.hands, reading.net, reading.counted,
                                            reading.counted_net, reading.all_in, reading.luck)
        assert found.all_in.ev_net == reading.counted_net - reading.luck
        assert found.all_in.unknown == reading.hands - reading.counted > 0
        assert list(found.ev_series) == line
        assert found.net == reading.net == found.net_series[-1][1]
        assert found.tournament_all_in == AllInFigures()
    # Every hand's luck adds up to zero over its players: so over everybody.
    total = 0
    for user in (*USERS[:3], 704):
        total += (await stats.player_stats(db, GUILD, user)).all_in.luck
    assert total == 0


async def test_hands_stored_before_all_in_ev_was_kept_are_unknown(db: Database) -> None:
    hand = random_all_in(random.Random(5), NLHE, 2, 0, folds=False)
    await store(db, hand, 40_000, counted=False)
    found = await stats.player_stats(db, GUILD, USERS[0], series=True)
    assert found.all_in.hands == 1 and found.all_in.counted == 0
    assert found.all_in.ev_net is None and found.ev_series == (None,)
    stored = await hands.load_hand(db, 1)
    assert not stored.all_in_counted and stored.all_in_ev is None


async def test_a_practice_hand_keeps_no_all_in_ev(db: Database) -> None:
    hand = random_all_in(random.Random(6), NLHE, 2, 0, folds=False)
    hand_id = await store(db, hand, 41_000, practice=True)
    stored = await hands.load_hand(db, hand_id)
    assert not stored.all_in_counted and stored.all_in_ev is None
    assert all(p.all_in_ev_net is None for p in stored.players)


async def test_figures_that_cannot_be_true_are_refused(db: Database) -> None:
    info = await tables.create_table(db, GUILD, 42_000, HOST, config={}, min_buy_in=1,
                                     max_buy_in=10_000)
    for user in USERS[:2]:
        await tables.buy_in(db, info.table_id, user, 100)
    deck = tuple(range(52))
    hand_id = await hands.start_hand(
        db, info.table_id, config={"stacks": [100, 100]}, deck=deck,  # type: ignore[arg-type]
        commitment=DeckCommitment.commit(deck),  # type: ignore[arg-type]
        players=[HandSeat(0, 1, USERS[0], 100), HandSeat(1, 2, USERS[1], 100)],
    )

    def results(ev: tuple[int | None, int | None]) -> list[PlayerResult]:
        return [PlayerResult(0, 200, 100, 200, vpip=True, pfr=True, all_in_ev_net=ev[0]),
                PlayerResult(1, 0, 100, 0, vpip=True, pfr=False, all_in_ev_net=ev[1])]

    exact = {"pots": []}
    for all_in, ev, reason in (
        (AllInRecord(exact), (30, 0), "all_in_ev_not_zero"),  # luck must add up to zero
        (AllInRecord(None), (30, -30), "all_in_without_moment"),
        (None, (30, -30), "all_in_without_moment"),
    ):
        with pytest.raises(StorageError) as refused:
            await hands.record_hand_result(db, hand_id, {}, results(ev), all_in=all_in)
        assert refused.value.params["reason"] == reason
    with pytest.raises(StorageError):
        await hands.record_hand_result(db, hand_id, {}, results((True, -1)),  # type: ignore[arg-type]
                                       all_in=AllInRecord(exact))
    await hands.record_hand_result(db, hand_id, {}, results((30, -30)), all_in=AllInRecord(exact))
    stored = await hands.load_hand(db, hand_id)
    assert stored.all_in_counted and stored.all_in_ev == exact
    assert [p.all_in_ev_net for p in stored.players] == [30, -30]
