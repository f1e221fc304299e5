"""Hands per second of engine.hand against PokerKit 0.7.7 on the same 6-max hands.

``python -m bench.engine [--hands N] [--seed S] [--repeat R] [--profile]``

The hands are seeded random 6-max hands (unequal stacks of 10 to 250 big blinds, half of them
with a big blind ante). The decisions are made once, beforehand, by playing each hand through
both engines with the differential test's oracle (tests/engine/pokerkit_oracle.py): that proves
the two engines accept the same decisions and records each engine's own sequence (PokerKit's
has an extra check when it asks a lone player who cannot bet). Hands where PokerKit differs by
design (see the oracle's named cases) are left out, so both engines replay exactly the same
hands. Only then is each engine timed on its own, with no oracle in the loop:

- ours: ``Hand(config, deck)`` then ``apply`` of every action (posting, dealing, pots, showdown);
- PokerKit: ``NoLimitTexasHoldem.create_state`` with every automation (it posts, burns, deals
  its own random cards, shows, pushes and pulls chips), then the betting operations. PokerKit's
  deck is its own, so its showdowns differ from ours in cards, not in amount of work.

A second pass also asks each engine what the player to act may do before every decision
(``legal()``, PokerKit's call amount and raise bounds), as the bot does to draw its buttons.
Each figure is the best of ``--repeat`` runs, which filters out noise from other processes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from pokerkit import (
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    NoLimitTexasHoldem,
    PotLimitOmahaHoldem,
    State,
)

from engine.cards import Card
from engine.games import NLHE, PLO, Game
from engine.hand import Action, AnteKind, Hand, HandConfig
from tests.engine.pokerkit_oracle import (
    FULLY_AUTOMATED,
    Duel,
    choose_action,
    deal_board,
    deal_holes,
    pokerkit_state,
    random_deck,
)

PLAYERS = 6
SMALL_BLIND, BIG_BLIND = 50, 100

# PokerKit's decision in a replay: None folds, 0 checks or calls, an amount raises to it.
PokerKitMove = int | None


@dataclass(frozen=True)
class BenchHand:
    config: HandConfig
    deck: tuple[Card, ...]
    actions: tuple[Action, ...]
    pokerkit_moves: tuple[PokerKitMove, ...]
    new_pokerkit_state: Callable[[], State]


# PokerKit's class for each game these benchmarks deal (bench.omaha plays PLO through them).
POKERKIT_GAMES: dict[str, Any] = {NLHE.code: NoLimitTexasHoldem, PLO.code: PotLimitOmahaHoldem}


def _config(rng: random.Random, game: Game) -> HandConfig:
    stacks = [rng.randint(10 * BIG_BLIND, 250 * BIG_BLIND) for _ in range(PLAYERS)]
    kind = rng.choice((AnteKind.NONE, AnteKind.BIG_BLIND))
    return HandConfig.standard(stacks, SMALL_BLIND, BIG_BLIND, ante_kind=kind, ante=BIG_BLIND,
                               game=game)


def _pokerkit_factory(config: HandConfig) -> Callable[[], State]:
    # The oracle's own mapping (index order, heads-up tuples reversed, BBA as an untrimmed ante
    # at the big blind), with PokerKit's stock hand evaluator and every automation.
    heads_up = config.players == 2
    return partial(
        POKERKIT_GAMES[config.game.code].create_state,
        FULLY_AUTOMATED,
        config.ante_kind is not AnteKind.BIG_BLIND,
        config.antes[::-1] if heads_up else config.antes,
        config.blinds[::-1] if heads_up else config.blinds,
        config.big_blind,
        config.stacks,
        config.players,
    )


def pokerkit_moves(state: State) -> tuple[PokerKitMove, ...]:
    moves: list[PokerKitMove] = []
    for op in state.operations:
        if isinstance(op, Folding):
            moves.append(None)
        elif isinstance(op, CheckingOrCalling):
            moves.append(0)
        elif isinstance(op, CompletionBettingOrRaisingTo):
            moves.append(op.amount)
    return tuple(moves)


def make_hands(count: int, seed: int, game: Game = NLHE) -> tuple[list[BenchHand], int]:
    """``count`` hands of ``game`` both engines play alike, and how many by-design hands were
    skipped."""
    hands: list[BenchHand] = []
    skipped = 0
    k = 0
    while len(hands) < count:
        rng = random.Random(seed * 1_000_003 + k)
        k += 1
        config = _config(rng, game)
        duel = Duel(config, random_deck(rng), label=k)
        while (legal := duel.decision()) is not None:
            duel.apply(choose_action(legal, rng))
        if not duel.finish():
            skipped += 1
            continue
        assert duel.state is not None
        hands.append(
            BenchHand(
                config,
                duel.deck,
                tuple(duel.hand.actions),
                pokerkit_moves(duel.state),
                _pokerkit_factory(config),
            )
        )
    return hands, skipped


def run_ours(hands: Sequence[BenchHand]) -> None:
    for h in hands:
        hand = Hand(h.config, h.deck)
        for action in h.actions:
            hand.apply(action)


def run_ours_asking(hands: Sequence[BenchHand]) -> None:
    for h in hands:
        hand = Hand(h.config, h.deck)
        for action in h.actions:
            hand.legal()
            hand.apply(action)


def run_pokerkit(hands: Sequence[BenchHand]) -> None:
    for h in hands:
        state = h.new_pokerkit_state()
        for move in h.pokerkit_moves:
            if move is None:
                state.fold()
            elif move == 0:
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(move)


def run_pokerkit_asking(hands: Sequence[BenchHand]) -> None:
    for h in hands:
        state = h.new_pokerkit_state()
        for move in h.pokerkit_moves:
            _ = state.actor_index, state.checking_or_calling_amount
            if state.can_complete_bet_or_raise_to():
                _ = (
                    state.min_completion_betting_or_raising_to_amount,
                    state.max_completion_betting_or_raising_to_amount,
                )
            if move is None:
                state.fold()
            elif move == 0:
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(move)


def run_pokerkit_memo(hands: Sequence[BenchHand]) -> None:
    # The oracle's setup: our cards dealt explicitly and PokerKit's evaluations memoised, so
    # from the second pass on this times PokerKit's betting and pot machinery without its
    # (slow, pure Python) hand evaluator.
    for h in hands:
        state = pokerkit_state(h.config)
        deal_holes(state, h.deck, h.config.players)
        for move in h.pokerkit_moves:
            deal_board(state, h.deck, h.config.players)
            if move is None:
                state.fold()
            elif move == 0:
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(move)
        deal_board(state, h.deck, h.config.players)


def best_rate(
    run: Callable[[Sequence[BenchHand]], None], hands: Sequence[BenchHand], repeat: int
) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run(hands)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="engine.hand vs PokerKit, hands per second")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile our engine's replay")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    hands, skipped = make_hands(args.hands, args.seed)
    actions = sum(len(h.actions) for h in hands)
    print(
        f"{len(hands)} hands of {PLAYERS} players, {actions} decisions "
        f"({actions / len(hands):.1f} per hand), {skipped} by-design hands skipped, "
        f"prepared in {time.perf_counter() - start:.1f}s"
    )
    for title, ours_run, pk_run in (
        ("apply only", run_ours, run_pokerkit),
        ("legal() before every decision", run_ours_asking, run_pokerkit_asking),
    ):
        ours = best_rate(ours_run, hands, args.repeat)
        pk = best_rate(pk_run, hands, args.repeat)
        print(f"{title}:")
        print(f"  ours      {ours:10.0f} hands/s")
        print(f"  PokerKit  {pk:10.0f} hands/s")
        print(f"  ratio     {ours / pk:10.1f}x")
        if ours_run is run_ours:
            memo = best_rate(run_pokerkit_memo, hands, max(2, args.repeat))
            print(
                f"  PokerKit without its evaluator (memoised) {memo:7.0f} hands/s, ratio "
                f"{ours / memo:.1f}x"
            )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run_ours, hands)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
