"""Measure one computer player against another: ``python -m engine.bots duel``.

    python -m engine.bots duel --a MODULE:FACTORY --b MODULE:FACTORY \\
        [--players 2|6] [--hands N] [--seed S] [--game nlhe|plo|plo5|plo8]

Each FACTORY is imported from its MODULE and called with no arguments; it must return an object
with ``decide(view, rng)`` (see :mod:`engine.bots.view`). The match is the duplicate cash game of
:mod:`engine.bots.match`: ``N`` hands (even: every deal is played twice, seats swapped) at 100
big blinds, blinds 1/2, in the game ``--game`` (Hold'em by default). Progress goes to standard
error; the last line on standard output is one JSON object, the same in every game, and this
shape is a stable interface::

    {"hands": N, "a": {"bb_per_100": x, "ci95": [lo, hi]}, "b": {"bb_per_100": y, "ci95": [lo, hi]}}

A bad module, factory or argument prints what is wrong and exits with status 2. The same
arguments give the same JSON, on any machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from engine.bots.match import (
    BotLoadError,
    MatchResult,
    Tally,
    load_bot,
    play_deals,
    score,
)
from engine.games import GAMES, NLHE

# Deals between two progress lines; a few seconds of the slower bots.
_CHUNK = 1000


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The program's parser and the duel's own, whose errors name its usage."""
    parser = argparse.ArgumentParser(
        prog="python -m engine.bots", description="Computer players: measure one against another."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    duel = commands.add_parser(
        "duel",
        help="a duplicate match between two bots, in big blinds per 100 hands",
        description="A duplicate cash match (100 big blinds, blinds 1/2) between two bots.",
    )
    duel.add_argument("--a", required=True, metavar="MODULE:FACTORY", help="the first bot")
    duel.add_argument("--b", required=True, metavar="MODULE:FACTORY", help="the second bot")
    duel.add_argument("--players", type=int, choices=(2, 6), default=2, help="seats (default 2)")
    duel.add_argument(
        "--hands", type=int, default=20_000, help="hands, even and at least 4 (default 20000)"
    )
    duel.add_argument("--seed", type=int, default=0, help="the match's seed (default 0)")
    duel.add_argument(
        "--game", choices=sorted(GAMES), default=NLHE.code, help="the game (default nlhe)"
    )
    return parser, duel


def duel(args: argparse.Namespace, parser: argparse.ArgumentParser) -> MatchResult:
    if args.hands < 4 or args.hands % 2:
        parser.error(f"--hands {args.hands}: must be even and at least 4 (a deal is played twice)")
    bots = []
    for flag, spec in (("--a", args.a), ("--b", args.b)):
        try:
            bots.append(load_bot(spec))
        except BotLoadError as exc:
            parser.error(f"{flag}: {exc}")
    deals = args.hands // 2
    tally_a = tally_b = Tally()
    started = time.perf_counter()
    for start in range(0, deals, _CHUNK):
        stop = min(start + _CHUNK, deals)
        more_a, more_b = play_deals(
            bots[0],
            bots[1],
            players=args.players,
            seed=args.seed,
            start=start,
            stop=stop,
            game=GAMES[args.game],
        )
        tally_a, tally_b = tally_a + more_a, tally_b + more_b
        elapsed = time.perf_counter() - started
        print(
            f"duel: {2 * stop}/{args.hands} hands, {2 * stop / elapsed:.0f} hands/s",
            file=sys.stderr,
            flush=True,
        )
    seats = args.players // 2
    return MatchResult(args.players, args.hands, score(tally_a, seats), score(tally_b, seats))


def main(argv: Sequence[str] | None = None) -> None:
    parser, duel_parser = _parsers()
    args = parser.parse_args(argv)
    result = duel(args, duel_parser)
    print(json.dumps(result.to_json()), flush=True)


if __name__ == "__main__":
    main()
