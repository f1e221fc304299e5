"""Tournament tables and hands in storage, on both backends.

A tournament's tables are rows of ``poker_tables`` without seats, and its hands are stored like
cash hands (deck, commitment, actions, result: replayed, exported, verified) but labelled with
the tournament and the level and moving no chip through the ledger: tournament chips are not
wallet chips. Each test attacks one rule, and every refusal leaves the database as it was.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bot.runtime.results import player_results, result_summary
from bot.storage import Database, StorageError, economy, hands, stats, tables, tournaments
from bot.storage.hands import HandSeat
from bot.storage.tournaments import Placing, TableOpening, TournamentSave
from engine.cards import shuffled_deck
from engine.commitment import DeckCommitment
from engine.hand import Action, ActionKind
from engine.tournament import BlindLevel, Tournament, TournamentConfig

from .conftest import CHANNEL, GUILD, HOST, USERS, assert_invariant, make_table, snapshot

THREADS = (CHANNEL + 100, CHANNEL + 200)


async def refused(db: Database, code: str, call: Any) -> None:
    before = await snapshot(db)
    with pytest.raises(StorageError) as caught:
        await call
    assert caught.value.code == code, caught.value
    assert await snapshot(db) == before


async def ledger_rows(db: Database) -> int:
    return int((await db.fetchone("SELECT COUNT(*) FROM ledger"))[0])  # type: ignore[index]


class Running:
    """A tournament of the four users at two tables of two, registered and started in
    storage as the runtime does it (the engine decides, storage records)."""

    def __init__(self, db: Database, tid: int, engine: Tournament) -> None:
        self.db, self.tid, self.engine = db, tid, engine
        self.hand_ids: dict[int, int] = {}

    def save(self, **changes: Any) -> TournamentSave:
        return TournamentSave(self.engine.to_json(), **changes)

    async def table_id(self, number: int) -> int:
        for table in await tournaments.tournament_tables(self.db, self.tid, open_only=False):
            if table.table_no == number:
                return table.table_id
        raise LookupError(number)

    def deal(self, number: int) -> dict[str, Any]:
        deck = shuffled_deck()
        self.engine.start_hand(deck, now=10, table=number)
        table = self.engine.tables[number]
        hand = table.hand
        assert hand is not None
        players = [
            HandSeat(i, seat, int(pid), hand.config.stacks[i])
            for i, (seat, pid) in enumerate(zip(table.hand_seats, table.hand_players, strict=True))
        ]
        return {"level": self.engine.level, "config": hand.config.to_json(), "deck": deck,
                "commitment": DeckCommitment.commit(deck), "players": players}

    async def start_hand(self, number: int) -> int:
        deal = self.deal(number)
        hand_id = await hands.start_tournament_hand(
            self.db, await self.table_id(number), save=self.save(), **deal
        )
        self.hand_ids[number] = hand_id
        return hand_id

    async def play_out(self, number: int) -> None:
        """Everyone goes all in (a showdown, usually someone busts); each action stored as
        the runtime stores it."""
        hand = self.engine.tables[number].hand
        assert hand is not None
        while not hand.is_over:
            assert hand.to_act is not None
            legal = hand.legal()
            assert legal is not None
            kind = ActionKind.ALL_IN if legal.can_raise else ActionKind.CALL
            before = len(hand.actions)
            hand.apply(Action(kind, hand.to_act))
            await hands.append_actions(self.db, self.hand_ids[number], before,
                                       hand.actions[before:])

    async def all_in_hand(
        self, number: int = 1
    ) -> tuple[int, Any, Any, tuple[Placing, ...] | None]:
        """One hand dealt, played all in and settled by the engine (not yet recorded): its id,
        the results and summary storage records, and the places once it ended the tournament."""
        hand_id = await self.start_hand(number)
        await self.play_out(number)
        hand = self.engine.tables[number].hand
        assert hand is not None
        results, summary = player_results(hand), result_summary(hand)
        self.engine.finish_hand(now=20, table=number)
        placings = None
        if self.engine.is_over:
            placings = tuple(Placing(int(s.player_id), s.place, s.tied, s.prize)
                             for s in self.engine.standings)
        return hand_id, results, summary, placings


async def running(db: Database, *, buy_in: int = 100, seats: int = 2) -> Running:
    config = TournamentConfig(buy_in=buy_in, starting_stack=1_000, seats=seats, max_players=4,
                              levels=(BlindLevel(10, 20, 20, minutes=10),))
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Friday", kind="freeze_out", buy_in=buy_in,
        max_players=4, config=config.to_json(), now=1_000,
    )
    engine = Tournament(config, rng=7)
    for user in USERS:
        engine.register(user, now=0)
        await tournaments.register(db, info.tournament_id, user, state=engine.to_json())
    engine.start(now=0)
    numbers = sorted(engine.tables)
    channels = (CHANNEL,) if len(numbers) == 1 else THREADS
    await tournaments.start_tournament(
        db, info.tournament_id, state=engine.to_json(),
        tables=[TableOpening(n, c, seats, {"locale": "en"})
                for n, c in zip(numbers, channels, strict=True)],
    )
    return Running(db, info.tournament_id, engine)


async def test_a_tournament_hand_moves_no_chip_and_is_stored_like_a_cash_hand(
    db: Database,
) -> None:
    r = await running(db)
    assert [t.table_no for t in await tournaments.tournament_tables(db, r.tid)] == [1, 2]
    rows_before = await ledger_rows(db)
    hand_id = await r.start_hand(1)
    assert await ledger_rows(db) == rows_before  # no ledger row for tournament chips
    stored = await hands.load_hand(db, hand_id)
    assert (stored.tournament_id, stored.level, stored.chips, stored.hand_no) == (r.tid, 1, 0, 1)
    await assert_invariant(db)
    await r.play_out(1)
    hand = r.engine.tables[1].hand
    assert hand is not None
    results, summary = player_results(hand), result_summary(hand)
    r.engine.finish_hand(now=20, table=1)
    await hands.record_tournament_hand(db, hand_id, summary, results, save=r.save())
    assert await ledger_rows(db) == rows_before
    await assert_invariant(db)
    finished = await hands.load_hand(db, hand_id)
    assert finished.status == "finished" and finished.deck_matches()
    replayed = hands.rebuild_hand(finished)
    assert replayed.result is not None and list(replayed.result.stacks) == [
        p.final_stack for p in finished.players
    ]
    phh = await hands.export_phh(db, hand_id, event="Friday")
    assert "level = 1" in phh and f"tournament = {r.tid}" in phh and "event = 'Friday'" in phh
    names = [f"p{p.player}" for p in sorted(finished.players, key=lambda p: p.player)]
    stars = await hands.export_pokerstars(
        db, hand_id, names=names, table_name=f"{r.tid} 1", max_seats=6, small_blind=5,
        buy_in=100,
    )  # fmt: skip
    head = stars.split("\n", 2)[:2]
    assert head[0].startswith(f"PokerStars Hand #{hand_id}: Tournament #{r.tid}, 100+0 ")
    # The stakes are the blinds the hand posted (the small blind passed stands in only for a
    # hand that posts none at its place).
    assert " - Level I (10/20) " in head[0]
    assert head[1].startswith(f"Table '{r.tid} 1' 6-max Seat #")
    assert [h.hand_id for h in await stats.recent_hands(db, await r.table_id(1))] == [hand_id]
    # Tournament chips are not cash: no statistics were counted for it.
    assert await db.fetchall("SELECT * FROM player_totals") == []


async def test_finishing_stacks_that_do_not_add_up_are_refused(db: Database) -> None:
    r = await running(db)
    hand_id = await r.start_hand(1)
    await r.play_out(1)
    hand = r.engine.tables[1].hand
    assert hand is not None
    results = player_results(hand)
    forged = [dataclasses.replace(results[0], final_stack=results[0].final_stack + 1),
              *results[1:]]
    await refused(db, "hand_chips_mismatch", hands.record_tournament_hand(
        db, hand_id, result_summary(hand), forged, save=r.save()))


async def test_cash_and_tournament_paths_refuse_each_other(db: Database) -> None:
    r = await running(db)
    hand_id = await r.start_hand(1)
    table_id = await r.table_id(1)
    # The cash path never settles a tournament hand (it would move ledger chips).
    await refused(db, "not_in_tournament", hands.void_hand(db, hand_id, reason="x"))
    await refused(db, "not_in_tournament", hands.record_hand_result(db, hand_id, {}, []))
    await refused(db, "not_in_tournament", tables.buy_in(db, table_id, 999, 1_000))
    await refused(db, "not_in_tournament", hands.close_table(db, table_id))
    # Nor deals at a tournament's table, nor opens a cash table in its channels.
    deal = r.deal(2)
    await refused(db, "not_in_tournament",
                  hands.start_hand(db, await r.table_id(2), config=deal["config"],
                                   deck=deal["deck"], commitment=deal["commitment"],
                                   players=deal["players"]))
    for channel in (CHANNEL, *THREADS):
        await refused(db, "channel_has_tournament", tables.create_table(
            db, GUILD, channel, HOST, config={}, min_buy_in=100, max_buy_in=1_000))
    # The tournament path refuses a cash table and a cash hand.
    cash = await make_table(db, channel=CHANNEL + 5)
    await refused(db, "not_tournament_table", hands.start_tournament_hand(
        db, cash, save=r.save(), **deal))
    # Restarts see each kind where it belongs.
    assert [t.table_id for t in await tables.open_tables(db)] == [cash]
    assert set(await tables.open_table_guilds(db)) == {cash}
    assert await hands.unfinished_hands(db) == []
    assert [h.hand_id for h in await hands.tournament_hands_running(db, r.tid)] == [hand_id]


async def test_only_entrants_still_playing_are_dealt_once(db: Database) -> None:
    r = await running(db)
    deal = r.deal(1)
    table_id = await r.table_id(1)
    stranger = [HandSeat(p.player, p.seat_no, 4242 if p.player == 0 else p.user_id, p.stack)
                for p in deal["players"]]
    await refused(db, "not_playing", hands.start_tournament_hand(
        db, table_id, save=r.save(), **{**deal, "players": stranger}))
    wrong_stack = [HandSeat(p.player, p.seat_no, p.user_id, p.stack + 1)
                   for p in deal["players"]]
    await refused(db, "bad_players", hands.start_tournament_hand(
        db, table_id, save=r.save(), **{**deal, "players": wrong_stack}))
    await hands.start_tournament_hand(db, table_id, save=r.save(), **deal)
    # A player in a running hand of the tournament is in no other one.
    other = r.deal(2)
    double = [HandSeat(p.player, p.seat_no, deal["players"][0].user_id if p.player == 0
                       else p.user_id, p.stack) for p in other["players"]]
    await refused(db, "hand_in_progress", hands.start_tournament_hand(
        db, await r.table_id(2), save=r.save(), **{**other, "players": double}))


async def test_a_table_in_a_hand_cannot_be_broken_and_a_broken_one_closes(db: Database) -> None:
    r = await running(db)
    hand_id = await r.start_hand(1)
    await refused(db, "hand_in_progress", hands.append_tournament_actions(
        db, hand_id, 0, [], save=r.save(closed=(1,))))
    await hands.append_tournament_actions(db, hand_id, 0, [], save=r.save(closed=(2,)))
    assert [t.table_no for t in await tournaments.tournament_tables(db, r.tid)] == [1]
    await refused(db, "unknown_table", hands.append_tournament_actions(
        db, hand_id, 0, [], save=r.save(closed=(2,))))


async def test_the_hand_that_ends_it_pays_every_prize_in_its_transaction(db: Database) -> None:
    r = await running(db, seats=4)
    assert len(r.engine.tables) == 1
    wallets = {u: await economy.balance(db, GUILD, u) for u in USERS}
    while not r.engine.is_over:
        hand_id, results, summary, placings = await r.all_in_hand(1)
        if placings is not None:
            forged = (Placing(placings[0].user_id, 1, 1, placings[0].prize + 1), *placings[1:])
            await refused(db, "prizes_mismatch", hands.record_tournament_hand(
                db, hand_id, summary, results, save=r.save(placings=forged)))
        await hands.record_tournament_hand(db, hand_id, summary, results,
                                           save=r.save(placings=placings))
        await assert_invariant(db)
    info = await tournaments.get_tournament(db, r.tid)
    assert (info.status, info.pool) == ("finished", 0)
    assert len(info.entries) == 4 and all(e.place is not None for e in info.entries)
    assert await tournaments.tournament_tables(db, r.tid) == []
    paid = {u: await economy.balance(db, GUILD, u) - wallets[u] for u in USERS}
    assert sum(paid.values()) == 400 and paid == {e.user_id: e.prize for e in info.entries}


async def test_cancel_mid_hand_voids_it_closes_the_tables_and_refunds(db: Database) -> None:
    r = await running(db)
    hand_id = await r.start_hand(1)
    refunds = await tournaments.cancel_tournament(db, r.tid, actor_id=HOST)
    assert refunds == {u: 100 for u in USERS}
    assert (await hands.load_hand(db, hand_id)).status == "voided"
    assert await tournaments.tournament_tables(db, r.tid) == []
    await assert_invariant(db)
    # Nothing more can be stored for it.
    await refused(db, "hand_not_running", hands.append_tournament_actions(
        db, hand_id, 0, [], save=r.save()))


async def test_the_heartbeat_only_beats_for_a_running_tournament(db: Database) -> None:
    r = await running(db)
    assert await tournaments.heartbeat(db, r.tid, 123_456)
    assert (await tournaments.get_tournament(db, r.tid)).alive_at == 123_456
    await tournaments.cancel_tournament(db, r.tid, actor_id=HOST)
    assert not await tournaments.heartbeat(db, r.tid, 999_999)
    assert (await tournaments.get_tournament(db, r.tid)).alive_at == 123_456
