"""The recap of a night in storage (``bot.storage.recaps``): the transaction that ends a session
(a reset, a close) or finishes a tournament owes its recap, with the ledger's figures as they
stood; a fault inside that transaction leaves neither the end nor the recap; a recap is claimed
once, tried again only within its nonce's window (the same nonce: Discord makes one message),
and given up as lost past it, never posted twice."""

from __future__ import annotations

from typing import Any

import pytest

from bot.storage import Database, StorageError, hands, recaps, sessions, tables, tournaments
from bot.storage.recaps import NONCE_WINDOW
from bot.storage.sessions import figures_players
from tests.storage.conftest import HOST, USERS, make_table, start_simple_hand
from tests.storage.test_sessions import finish
from tests.storage.test_tournament_hands import running

ALICE, BOB, CAROL = USERS[:3]


async def a_hand_played(db: Database, **table: Any) -> int:
    table_id = await make_table(db, **table)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    await finish(db, hand_id, [1_400, 600])
    return table_id


async def rows(db: Database) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in await db.fetchall(
        "SELECT recap_id, table_id, first_hand, last_hand, hands, state FROM recaps"
        " ORDER BY recap_id")]


async def test_ending_a_session_owes_its_recap_with_the_ledgers_figures(db: Database) -> None:
    table_id = await a_hand_played(db)
    before = await sessions.session_ledger(db, table_id)
    await sessions.reset_session(db, table_id, actor_id=HOST)
    assert await rows(db) == [(1, table_id, 1, 1, 1, "owed")]
    recap = await recaps.get_recap(db, 1)
    assert figures_players(recap.figures) == before.players
    assert sum(p.net for p in figures_players(recap.figures)) == 0
    # Closing with no hand since: an empty session, stored but never posted.
    await tables.close_table(db, table_id)
    assert (await rows(db))[1] == (2, table_id, 2, 1, 0, "empty")
    assert await recaps.claim(db, 2) is None
    # Its players' figures as the session ended: everybody cashed out.
    closed = figures_players((await recaps.get_recap(db, 2)).figures)
    assert {p.user_id: (p.cash_outs, p.net) for p in closed} == {ALICE: (1_400, 0),
                                                               BOB: (600, 0)}


async def test_a_closed_session_counts_its_hands_and_recaps_off_are_kept(db: Database) -> None:
    table_id = await a_hand_played(db)
    await tables.close_table(db, table_id, recap=False)
    assert await rows(db) == [(1, table_id, 1, 1, 1, "off")]
    recap = await recaps.load_recap(db, 1)
    assert {u: (f.hands, f.net) for u, f in recap.players.items()} == {ALICE: (1, 400),
                                                                     BOB: (1, -400)}
    assert recap.biggest_pot is not None and await recaps.claim(db, 1) is None


async def test_a_practice_table_owes_no_recap(db: Database) -> None:
    table_id = (await tables.create_table(db, 1_000_000_001, 77, HOST, config={},
                                          min_buy_in=1, max_buy_in=5_000,
                                          practice=True)).table_id
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.close_table(db, table_id)
    assert await rows(db) == []


@pytest.mark.parametrize("end", ["reset", "close"])
async def test_a_fault_inside_the_ending_transaction_leaves_neither(
    db: Database, monkeypatch: pytest.MonkeyPatch, end: str
) -> None:
    table_id = await a_hand_played(db)
    before = await sessions.session_ledger(db, table_id)
    inserted = recaps.insert_recap

    async def insert_then_fail(tx: Any, **kwargs: Any) -> int:
        await inserted(tx, **kwargs)
        raise StorageError("bad_state", detail="injected after the recap row")

    monkeypatch.setattr(recaps, "insert_recap", insert_then_fail)
    with pytest.raises(StorageError):
        if end == "reset":
            await sessions.reset_session(db, table_id, actor_id=HOST)
        else:
            await tables.close_table(db, table_id)
    assert await rows(db) == []
    after = await sessions.session_ledger(db, table_id)
    assert (after.first_hand, after.is_open, after.players) == (1, True, before.players)


async def test_a_recap_is_claimed_once_and_tried_again_only_within_its_window(
    db: Database,
) -> None:
    table_id = await a_hand_played(db)
    await sessions.reset_session(db, table_id, actor_id=HOST)
    first = await recaps.claim(db, 1, now=5_000)
    assert first is not None and first.first and first.recap.state == "posting"
    # A crash after the claim: the next start finds it cut within the window, and sends it
    # again with the same nonce (Discord answers with the message it made, if it made one).
    again = await recaps.claim(db, 1, now=5_000 + NONCE_WINDOW - 1)
    assert again is not None and not again.first
    assert again.recap.nonce == first.recap.nonce and again.recap.claimed_at == 5_000
    assert await recaps.mark_posted(db, 1, now=5_010)
    assert await recaps.claim(db, 1) is None and not await recaps.mark_posted(db, 1)
    assert (await recaps.get_recap(db, 1)).state == "posted"
    assert await recaps.to_post(db) == []


async def test_a_post_cut_too_long_ago_is_lost_not_posted_twice(db: Database) -> None:
    table_id = await a_hand_played(db)
    await tables.close_table(db, table_id)
    assert await recaps.to_post(db) == [1]
    assert await recaps.claim(db, 1, now=9_000) is not None
    late = await recaps.claim(db, 1, now=9_000 + NONCE_WINDOW)
    assert late is not None and late.recap.state == "lost"
    assert await recaps.claim(db, 1) is None and await recaps.to_post(db) == []
    assert not await recaps.mark_posted(db, 1)


async def test_a_claim_that_sent_nothing_is_given_back(db: Database) -> None:
    table_id = await a_hand_played(db)
    await tables.close_table(db, table_id)
    taken = await recaps.claim(db, 1, now=1_000)
    assert taken is not None and taken.first
    await recaps.release(db, 1)
    again = await recaps.claim(db, 1, now=2_000)
    assert again is not None and again.first and again.recap.claimed_at == 2_000


async def test_the_recaps_to_post_are_the_servers_asked_for(db: Database) -> None:
    table_id = await a_hand_played(db)
    await tables.close_table(db, table_id)
    assert await recaps.to_post(db, [1_000_000_001]) == [1]
    assert await recaps.to_post(db, [42]) == []
    with pytest.raises(StorageError) as unknown:
        await recaps.claim(db, 99)
    assert unknown.value.code == "unknown_recap"


async def test_the_hand_that_ends_a_tournament_owes_its_recap(db: Database) -> None:
    r = await running(db, seats=4)
    played = 0
    while not r.engine.is_over:
        hand_id, results, summary, placings = await r.all_in_hand(1)
        if placings is None:
            await hands.record_tournament_hand(db, hand_id, summary, results, save=r.save())
            played += 1
            assert await rows(db) == []
            continue
        await hands.record_tournament_hand(db, hand_id, summary, results,
                                           save=r.save(placings=placings))
        played += 1
    info = await tournaments.get_tournament(db, r.tid)
    recap = await recaps.load_recap(db, 1)
    assert (recap.tournament_id, recap.table_id, recap.state, recap.hands) == (
        r.tid, None, "owed", played)
    assert recap.channel_id == info.channel_id
    places = {e.user_id: (e.place, e.prize, e.paid) for e in info.entries}
    assert {row[0]: (row[1], row[3], row[4]) for row in recap.figures["players"]} == places
    assert set(recap.players) == {e.user_id for e in info.entries}
