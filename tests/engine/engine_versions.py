"""Two versions of ``engine.hand`` played hand for hand: a change meant only to make the engine
faster must not change a single event.

``python -m tests.engine.engine_versions`` loads ``engine/hand.py`` as it is at a git revision
(``--rev``, default ``main``) as a module of its own, beside the working tree's, and plays
Hypothesis-drawn random hands of every game in both: the tables, decks and decisions of the
PokerKit differential test (``tests.engine.pokerkit_oracle``), plus what PokerKit cannot play and
so the differential never reaches (run-twice votes, voids, shows, bad inputs). Before every
input both must offer the same decision (``Legal``), every input must give the same events or
the same refusal, and every hand the same result. Both versions share the rest of the engine
(cards, games, evaluators), so this compares the hand loop alone.

    python -m tests.engine.engine_versions                  # 2,000 hands a game against main
    python -m tests.engine.engine_versions --rev HEAD~3 --hands 10000

It needs git and a revision to compare with, so it is a tool, not a test: run it before merging
a change of ``engine/hand.py`` that claims to change nothing but speed. The PokerKit
differential tests keep comparing the engine with an independent oracle in every run.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.games import GAMES, Game
from engine.hand import Action, ActionKind, Hand, RunItTwice
from tests.engine.pokerkit_oracle import (
    choose_action,
    choose_preselection,
    random_config,
    random_deck,
)

ROOT = Path(__file__).resolve().parents[2]


class Diverged(AssertionError):
    """The two versions disagree; the message names the seed, the game and the input."""


def load_hand(rev: str) -> ModuleType:
    """``engine/hand.py`` at ``rev`` as a module of its own (``engine_hand_at_<rev>``)."""
    source = subprocess.run(
        ["git", "show", f"{rev}:engine/hand.py"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    name = "engine_hand_at_" + "".join(c if c.isalnum() else "_" for c in rev)
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    exec(compile(source, f"{rev}:engine/hand.py", "exec"), module.__dict__)
    return module


def _outcome(hand: Any, action: Any) -> tuple[str, Any]:
    try:
        return "events", [event.to_json() for event in hand.apply(action)]
    except EngineError as refused:
        return "refused", refused.code


def _legal(hand: Any) -> Any:
    legal = hand.legal()
    return None if legal is None else legal.to_json()


def _result(hand: Any) -> Any:
    result = hand.result
    if result is None:
        return None
    return {
        "stacks": result.stacks, "net": result.net, "shown": result.shown,
        "showdown": result.showdown, "voided": result.voided, "boards": result.boards,
        "pots": [pot.to_json() for pot in result.pots],
    }  # fmt: skip


def _next_input(hand: Hand, rng: random.Random) -> Action:
    """A random input for ``hand`` (the newer version's), now and then one it must refuse."""
    r = rng.random()
    if hand.run_choice_pending:
        return Action(ActionKind.RUN_COUNT, amount=rng.choice((1, 2, 2, 3)))
    if r < 0.003:
        return Action(ActionKind.VOID)
    if r < 0.02:
        player = rng.randrange(hand.n)
        return Action(rng.choice((ActionKind.SHOW, ActionKind.CALL, ActionKind.FOLD)), player)
    if r < 0.1:
        preselection = choose_preselection(hand, rng)
        if preselection is not None:
            return preselection
    legal = hand.legal()
    assert legal is not None
    return choose_action(legal, rng, hand.config.chip_unit, odd_inputs=True)


def play(old: ModuleType, seed: int, game: Game) -> int:
    """One random hand in both versions; the inputs it took. Raises :class:`Diverged`."""
    rng = random.Random(f"versions-{game.code}-{seed}")
    config = random_config(rng, game)
    config = dataclasses.replace(config, run_it_twice=rng.choice(list(RunItTwice)))
    deck = random_deck(rng)
    new_hand = Hand(config, deck)
    old_hand = old.Hand(old.HandConfig.from_json(config.to_json()), deck)
    where = f"seed {seed}, game {game.code}"
    inputs = 0
    while new_hand.result is None:
        if _legal(new_hand) != _legal(old_hand):
            raise Diverged(f"{where}, input {inputs}: {_legal(new_hand)} != {_legal(old_hand)}")
        assert new_hand.legal() is not None or new_hand.run_choice_pending, where
        action = _next_input(new_hand, rng)
        ours, theirs = _outcome(new_hand, action), _outcome(old_hand, old.Action.from_json(
            action.to_json()))
        if ours != theirs:
            raise Diverged(f"{where}, input {inputs} {action}:\n  new {ours}\n  old {theirs}")
        inputs += 1
    if _result(new_hand) != _result(old_hand):
        raise Diverged(f"{where}: results differ\n  new {_result(new_hand)}\n"
                       f"  old {_result(old_hand)}")
    return inputs


def compare(old: ModuleType, hands: int) -> dict[str, int]:
    """``hands`` Hypothesis-drawn hands of each game; the inputs played per game."""
    played = dict.fromkeys(GAMES, 0)

    def one_game(game: Game) -> None:
        @settings(
            max_examples=hands, deadline=None, database=None, derandomize=False,
            phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
        )  # fmt: skip
        @given(seed=st.integers(0, 2**32 - 1))
        def one_hand(seed: int) -> None:
            played[game.code] += play(old, seed, game)

        one_hand()

    for game in GAMES.values():
        one_game(game)
    return played


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rev", default="main", help="the version to compare with (git)")
    parser.add_argument("--hands", type=int, default=2_000, help="hands a game")
    args = parser.parse_args(argv)
    old = load_hand(args.rev)
    played = compare(old, args.hands)
    for code, inputs in played.items():
        print(f"{code}: {args.hands} hands, {inputs} inputs, the same in both")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
