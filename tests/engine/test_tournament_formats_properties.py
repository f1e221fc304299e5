"""Nothing creates or destroys a chip (hypothesis): whole tournaments over several tables with
random rebuys, declines, expiries, add-ons, re-entries and knockout or progressive bounties,
their books checked at every step.

Money: everything paid in (buy-ins, re-entries, rebuys, add-ons) is always the prize pool plus
the bounties paid plus the bounties still on heads. Chips: the stacks at the tables always add
up to the chips handed out (starting stacks, rebuys, add-ons). At the end the prizes are the
final pool, every bounty has been paid to somebody, and every entry has one place.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.bounty import BountyKind
from engine.hand import AnteKind, Hand
from engine.table import TableEvent
from engine.tournament import (
    BlindLevel,
    BountyWon,
    PayoutTable,
    PlayerRebought,
    Tournament,
    TournamentConfig,
)
from tests.engine.tournament_sim import format_moves, play_tables


@st.composite
def formats(draw: st.DrawFn) -> tuple[TournamentConfig, int, int]:
    """(config, players at the start, seed)."""
    unit = draw(st.sampled_from([1, 1, 5, 25]))
    stack = unit * draw(st.sampled_from([60, 100, 200]))
    levels = [
        BlindLevel(unit * 2**k, unit * 2 ** (k + 1), unit * 2 ** (k + 1) if k else 0,
                   minutes=draw(st.sampled_from([1, 2, 5])),
                   break_minutes=draw(st.sampled_from([0, 0, 1])) if k < 5 else 0)
        for k in range(7)
    ]
    # A last level whose blinds swallow any stack ends the tournament in a bounded time.
    levels.append(BlindLevel(4 * stack, 8 * stack, 8 * stack, minutes=1))
    buy_in = draw(st.one_of(st.just(0), st.integers(1, 300)))
    bounty = draw(st.integers(0, buy_in)) if buy_in and draw(st.booleans()) else 0
    rebuys = draw(st.sampled_from([0, 0, 1, 2, 5]))
    add_on = unit * draw(st.sampled_from([0, 50, 150]))
    period = draw(st.integers(1, 3)) if rebuys or add_on else 0
    rebuy_price = (draw(st.one_of(st.none(), st.integers(bounty, bounty + 200)))
                   if rebuys else None)
    late = draw(st.sampled_from([0, 1, 3, 3]))
    config = TournamentConfig(
        buy_in=buy_in,
        starting_stack=stack,
        levels=tuple(levels),
        ante_kind=AnteKind.BIG_BLIND,
        time_limit=draw(st.one_of(st.none(), st.none(), st.integers(300, 3000))),
        payouts=PayoutTable(((4, (100,)), (None, (50, 30, 20)))),
        late_registration_level=late,
        max_players=40,
        seats=draw(st.sampled_from([3, 6, 9])),
        chip_unit=unit,
        prize_unit=draw(st.sampled_from([1, 1, 2, 5])),
        rebuys=rebuys,
        rebuy_levels=period,
        rebuy_chips=unit * draw(st.sampled_from([20, 100])) if rebuys and draw(st.booleans())
        else None,
        rebuy_price=rebuy_price,
        add_on=add_on,
        add_on_price=draw(st.one_of(st.none(), st.integers(0, 300))) if add_on else None,
        reentries=draw(st.sampled_from([0, 1, 3, 3])) if late else 0,
        bounty=bounty,
        bounty_kind=draw(st.sampled_from(list(BountyKind))) if bounty else BountyKind.KNOCKOUT,
    )
    return config, draw(st.integers(2, 20)), draw(st.integers(0, 2**32 - 1))


def check_books(t: Tournament) -> None:
    assert t.paid_in == t.prize_pool + t.bounties_paid + t.bounties_on_heads
    assert t.bounties_paid >= 0 and t.bounties_on_heads >= 0
    if t.is_over:
        return
    seated = {v.player_id: v.stack for table in t.tables.values() for v in table.seats()}
    assert sum(seated.values()) == t.chips_issued
    assert not set(t.pending()) & set(seated)
    assert set(t.pending()) | set(seated) == set(t.players_left())
    # Only heads of players still in carry a bounty.
    assert sum(head for _, head in t.status(0).bounties) == t.bounties_on_heads


def round_trip(t: Tournament) -> None:
    data = json.loads(json.dumps(t.to_json()))
    hands = {n: Hand.replay(h.config, h.deck, h.actions)
             for n, table in t.tables.items() if (h := table.hand) is not None}
    assert Tournament.from_json(data, rng=1, hands=hands).to_json() == data


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(formats())
def test_no_chip_is_created_or_destroyed(drawn: tuple[TournamentConfig, int, int]) -> None:
    config, players, seed = drawn
    t = Tournament(config, rng=seed)
    for k in range(players):
        t.register(f"p{k:02}", now=0)
    events: list[TableEvent] = t.start(now=0)
    check_books(t)

    def between(t: Tournament, now: float, rng: random.Random) -> list[TableEvent]:
        moved = format_moves(t, now, rng, add_on=0.5)
        check_books(t)
        if rng.random() < 0.01:
            round_trip(t)
        return moved

    def settled(t: Tournament, table: int, settled_events: list[TableEvent]) -> None:
        check_books(t)

    played, _, _ = play_tables(t, random.Random(seed), between=between, settled=settled)
    events += played
    assert t.is_over
    check_books(t)
    if of_type_count(events, PlayerRebought):
        event("rebuys")
    if t.status(0).add_ons:
        event("add-ons")
    if t.entrants > players:
        event("re-entries")

    # Every bounty was paid to somebody: nothing is left on a head.
    assert t.bounties_on_heads == 0
    assert sum(e.amount for e in events if isinstance(e, BountyWon)) == t.bounties_paid
    assert t.bounties_paid == t.paid_in - t.prize_pool
    standings = t.standings
    assert sum(s.bounties for s in standings) == t.bounties_paid
    # The prizes are the final pool; every entry has one place; places cover 1..entries.
    assert sum(s.prize for s in standings) == t.prize_pool
    assert len(standings) == t.entrants
    entries: dict[object, list[int]] = defaultdict(list)
    for s in standings:
        entries[s.player_id].append(s.entry)
    assert all(sorted(n) == list(range(1, len(n) + 1)) for n in entries.values())
    groups: dict[int, int] = defaultdict(int)
    for s in standings:
        groups[s.place] += 1
    assert all(s.tied == groups[s.place] for s in standings)
    covered = sorted(p for place, n in groups.items() for p in range(place, place + n))
    assert covered == list(range(1, t.entrants + 1))
    assert sum(s.chips for s in standings) == t.chips_issued


def of_type_count(events: list[TableEvent], kind: type) -> int:
    return sum(isinstance(e, kind) for e in events)
