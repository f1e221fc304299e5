"""A 100-player tournament run to the end on the engine, and its status board, each against a
peer measured in the same run.

    python -m bench.tournament [--players N] [--seed S] [--repeat R] [--profile]

- Engine: a freeze-out of ``--players`` (default 100) at nine-handed tables, the regular
  structure scaled to a 10,000 stack, simulated players (``tests/engine/tournament_sim``'s casual
  regulars) deciding every action, every table dealt in turn until one player holds every chip:
  seat draw, balancing, breaking tables, levels on the clock, places and prizes. The peer is one
  nine-handed cash table playing the same number of hands with the same players and decks: the
  ratio is what running a tournament costs per hand over the table layer it is built on. Peak
  memory (tracemalloc, in a separate pass so it does not slow the timed one) likewise against
  the cash table.
- Render: the status board of that tournament at its start (twelve tables, 100 names) drawn and
  PNG-encoded, against the 9-seat table image of ``bench.render`` in the same run.
- A deal by ICM at a final table of ten (``engine.icm``: exact over the sets of players, shares
  to the chip), against PokerKit's ``calculate_icm``, which enumerates every finishing order, on
  the same stacks and prizes (budget: 5 ms).
- A 1,000-player progressive knockout (a bounty of 50 in each buy-in of 100) played to the end
  on the engine alone, as the freeze-out above is: hands a second, against the same 1,000
  players as a freeze-out (the same hands: a bounty changes no decision).

Each figure is the best of ``--repeat`` runs, which filters out noise from other processes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable

from pokerkit.analysis import calculate_icm

from bot.presenter import tournament_view as view_from_status
from bot.render import render_table, render_tournament, samples, warm_up
from bot.render.tournament import TournamentView
from engine.cards import FULL_DECK, Card
from engine.icm import icm_shares, icm_values
from engine.structures import payouts, structure
from engine.table import Table, TableOptions
from engine.tournament import (
    MAX_TOURNAMENT_PLAYERS,
    BountyKind,
    Tournament,
    TournamentConfig,
)
from tests.engine.tournament_sim import casual_action

STACK = 10_000
ICM_BUDGET_MS = 5.0
SEATS = 9


def _config(players: int, bounty: int = 0) -> TournamentConfig:
    return TournamentConfig(
        buy_in=100,
        starting_stack=STACK,
        levels=structure("regular", starting_stack=STACK),
        payouts=payouts("standard", max_players=players),
        max_players=players,
        seats=SEATS,
        bounty=bounty,
        bounty_kind=BountyKind.PROGRESSIVE if bounty else BountyKind.KNOCKOUT,
    )


def _decks(seed: int, count: int) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(FULL_DECK, 52) for _ in range(count)]


def run_tournament(
    players: int, seed: int, decks: list[list[Card]], bounty: int = 0
) -> tuple[int, Tournament]:
    """Deal every table in turn until the tournament ends; the hands dealt. ``bounty``: a
    progressive knockout with that bounty in each buy-in."""
    rng = random.Random(seed)
    t = Tournament(_config(players, bounty), rng=seed)
    for k in range(players):
        t.register(k, now=0)
    t.start(now=0)
    now = 0.0
    hands = 0
    while not t.is_over:
        for number in list(t.tables):
            if t.is_over or number not in t.tables or not t.can_start(number):
                continue
            t.start_hand(decks[hands % len(decks)], now, table=number)
            hands += 1
            hand = t.hand_at(number)
            assert hand is not None
            while not hand.is_over:
                casual_action(hand, rng)
            t.finish_hand(now, table=number)
        # One round of the tables takes about a minute and a half of play.
        now += 90
        t.tick(now)
    return hands, t


def run_cash_table(hands: int, seed: int, decks: list[list[Card]]) -> int:
    """The peer: one nine-handed table of the same players for the same number of hands
    (a player who busts buys in again, as cash players do)."""
    rng = random.Random(seed)
    sb, bb = 25, 50
    table = Table(TableOptions(small_blind=sb, big_blind=bb, seats=SEATS, max_buy_in=STACK * 10),
                  rng=seed)
    for k in range(SEATS):
        table.join(k, STACK, seat=k + 1)
    for n in range(hands):
        table.start_hand(decks[n % len(decks)])
        hand = table.hand
        assert hand is not None
        while not hand.is_over:
            casual_action(hand, rng)
        table.finish_hand()
        for view in table.seats():
            if view.stack == 0:
                table.top_up(view.player_id, STACK)
                table.sit_in(view.player_id)
    return hands


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _peak_kib(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _board(players: int, seed: int) -> TournamentView:
    t = Tournament(_config(players), rng=seed)
    names: dict[str | int, str] = {k: f"Player {k:03}" for k in range(players)}
    for k in range(players):
        t.register(k, now=0)
    t.start(now=0)
    return view_from_status(t.status(now=30), names, name="Bench Deepstack", config=t.config)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tournament")
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=100, help="renders timed for the median")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    decks = _decks(args.seed, 2_000)

    hands, t = run_tournament(args.players, args.seed, decks)
    assert t.is_over and len(t.standings) == args.players
    assert sum(s.prize for s in t.standings) == t.prize_pool
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run_tournament, args.players, args.seed, decks)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    tour_s = _best(lambda: run_tournament(args.players, args.seed, decks), args.repeat)
    cash_s = _best(lambda: run_cash_table(hands, args.seed, decks), args.repeat)
    tour_rate, cash_rate = hands / tour_s, hands / cash_s
    tour_kib = _peak_kib(lambda: run_tournament(args.players, args.seed, decks))
    cash_kib = _peak_kib(lambda: run_cash_table(hands, args.seed, decks))
    print(f"{args.players}-player freeze-out, {SEATS}-handed, to the end: {hands} hands, "
          f"{len(t.standings)} places, {tour_s:.2f} s -> {tour_rate:,.0f} hands/s")
    print(f"  peer: one {SEATS}-handed cash table, the same {hands} hands: {cash_s:.2f} s -> "
          f"{cash_rate:,.0f} hands/s; ratio {tour_rate / cash_rate:.2f}x")
    print(f"  peak memory (tracemalloc): tournament {tour_kib:,.0f} KiB, cash table "
          f"{cash_kib:,.0f} KiB; ratio {tour_kib / cash_kib:.2f}x")

    warm_up()
    board = _board(args.players, args.seed)
    image = render_tournament(board)
    table = samples.nine_seat_river()
    board_ms = _median_ms(lambda: render_tournament(board), args.runs)
    table_ms = _median_ms(lambda: render_table(table), args.runs)
    print(f"status board, {len(board.tables)} tables of {args.players} players, "
          f"{image.width}x{image.height}, draw + PNG: median {board_ms:.1f} ms, "
          f"{len(image.png) / 1024:.0f} KB")
    print(f"  peer: the 9-seat table image, draw + PNG: median {table_ms:.1f} ms; ratio "
          f"{board_ms / table_ms:.2f}x")
    icm_report(args.seed, args.runs)
    knockout_report(args.seed, decks)
    return 0


def knockout_report(seed: int, decks: list[list[Card]]) -> None:
    """A 1,000-player progressive knockout played to the end on the engine alone: every
    bounty paid (by the half paid at once and the half onto the eliminator's head, the winner
    taking his own last), the books checked at the end."""
    players, bounty = MAX_TOURNAMENT_PLAYERS, 50
    start = time.perf_counter()
    hands, t = run_tournament(players, seed, decks, bounty=bounty)
    seconds = time.perf_counter() - start
    assert t.is_over and len(t.standings) == players
    assert t.bounties_paid == players * bounty and t.bounties_on_heads == 0
    assert sum(s.prize for s in t.standings) == t.prize_pool == players * (100 - bounty)
    # The peer: the same field as a freeze-out, which deals the same hands (a bounty changes no
    # decision): the ratio is what the bounties cost.
    start = time.perf_counter()
    same, _ = run_tournament(players, seed, decks)
    plain = time.perf_counter() - start
    assert same == hands
    print(f"{players:,}-player progressive knockout, {SEATS}-handed, to the end: {hands:,} "
          f"hands, {players * bounty:,} in bounties paid, {seconds:.1f} s -> "
          f"{hands / seconds:,.0f} hands/s")
    print(f"  peer: the same {players:,} players as a freeze-out, the same hands: {plain:.1f} s "
          f"-> {hands / plain:,.0f} hands/s; ratio {plain / seconds:.2f}x")


def icm_report(seed: int, runs: int) -> None:
    """A deal's ICM for ten players (``engine.icm``, over sets of players) against PokerKit's
    ``calculate_icm`` (every finishing order), on the same stacks and prizes."""
    rng = random.Random(seed)
    stacks = [rng.randint(1_000, 200_000) for _ in range(10)]
    prizes = sorted((rng.randint(100, 10_000) for _ in range(10)), reverse=True)
    ours = icm_values(stacks, prizes)
    theirs = calculate_icm(prizes, stacks)
    assert all(abs(a - b) <= 1e-6 * max(1.0, b) for a, b in zip(ours, theirs, strict=True))
    ours_ms = _median_ms(lambda: icm_shares(stacks, prizes), runs)
    theirs_ms = _median_ms(lambda: calculate_icm(prizes, stacks), 1)  # seconds a call
    budget = "within" if ours_ms <= ICM_BUDGET_MS else "OVER"
    print(f"ICM deal, 10 players, 10 prizes, to the chip: median {ours_ms:.2f} ms "
          f"({budget} the {ICM_BUDGET_MS:.0f} ms budget)")
    print(f"  peer: PokerKit's calculate_icm, the same stacks: median {theirs_ms:.1f} ms; ratio "
          f"{theirs_ms / ours_ms:,.0f}x faster")


if __name__ == "__main__":
    raise SystemExit(main())
