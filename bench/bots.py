"""The computer players' league: every bot of a field against every other, heads-up and 6-max.

    python -m bench.bots                               # the three levels and the eight baselines
    python -m bench.bots --hands 20000 --jobs 2        # shorter, on two processes
    python -m bench.bots --field engine.bots.baselines:rock engine.bots.baselines:station
    python -m bench.bots --markdown league.md          # the tables as Markdown too
    python -m bench.bots --game plo                    # the league in Pot-Limit Omaha

Each pairing is a match of :mod:`engine.bots.match` (duplicate, 100 big blinds, blinds 1/2) of
``--hands`` hands in each format, in the game ``--game`` (``nlhe``, ``plo``, ``plo5`` or
``plo8``), all from the one ``--seed``: any cell can be played again alone with ``python -m
engine.bots duel --a A --b B --players P --hands N --seed S --game G``, and gives the same
figures whatever ``--jobs`` is (a worker plays a range of deals, and ranges add up exactly: they
start on sessions' first deals, :data:`engine.bots.match.SESSION_DEALS`).

It prints each pairing as it ends (bb/100 of the first bot with its 95% interval, over deal
pairs, and hands per CPU second), then a cross table per format (the row's bb/100 against the
column) and two verdicts, each PASS or FAIL:

- each level beats the one below it: strong beats regular and regular beats beginner;
- strong beats every baseline with the whole interval above zero;
- strong wins at least what regular wins against every baseline (the two figures, measured on
  the same deals).

"Beats" is read strictly in the first two: the whole 95% interval above zero, in both formats.
A verdict whose bots are not all in the field is SKIPPED. The default field needs the levels
(``engine.bots:beginner`` and so on); ``--field`` runs any other.

``--verdicts`` plays only the pairings the verdicts rest on (strong against regular, regular
against beginner, strong and regular against each baseline: 18 of the default field's 55), so
the verdicts can be had at the default count in a fraction of the time; the cross tables then
leave the other cells empty.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.bots.match import BotLoadError, Score, Tally, load_bot, play_deals, score
from engine.bots.view import Bot
from engine.games import GAMES, NLHE

LEVELS = ("beginner", "regular", "strong")
BASELINES = ("random_bot", "station", "maniac", "rock", "honest", "shover", "nutter", "bluffer")
LEVEL_SPECS = tuple(f"engine.bots:{name}" for name in LEVELS)
DEFAULT_FIELD = (
    *LEVEL_SPECS,
    *(f"engine.bots.baselines:{name}" for name in BASELINES),
)
FORMATS = {2: "heads-up", 6: "6-max"}
CHUNK = 2000  # deals a worker plays at a time: a few seconds to a minute


@dataclass
class Cell:
    """One pairing in one format: A is the bot earlier in the field."""

    players: int
    a: int
    b: int
    deals: int
    tally_a: Tally = field(default_factory=Tally)
    tally_b: Tally = field(default_factory=Tally)
    cpu: float = 0.0

    @property
    def done(self) -> bool:
        return self.tally_a.pairs == self.deals

    @property
    def hands(self) -> int:
        return 2 * self.tally_a.pairs

    @property
    def speed(self) -> float:
        """Hands per CPU second of the processes that played it."""
        return self.hands / max(self.cpu, 1e-9)

    def scores(self) -> tuple[Score, Score]:
        seats = self.players // 2
        return score(self.tally_a, seats), score(self.tally_b, seats)


Task = tuple[str, str, int, int, int, int, str]  # A, B, players, seed, first deal, stop, game
_bots: dict[str, Bot] = {}


def play_chunk(task: Task) -> tuple[Task, Tally, Tally, float]:
    """One range of deals of one pairing, in whichever process runs it."""
    spec_a, spec_b, players, seed, start, stop, game = task
    for spec in (spec_a, spec_b):
        if spec not in _bots:
            _bots[spec] = load_bot(spec)
    began = time.process_time()
    tally_a, tally_b = play_deals(
        _bots[spec_a],
        _bots[spec_b],
        players=players,
        seed=seed,
        start=start,
        stop=stop,
        game=GAMES[game],
    )
    return task, tally_a, tally_b, time.process_time() - began


def labels_of(field_specs: Sequence[str]) -> list[str]:
    """Each bot by its factory's name, by its whole spec where two names are the same."""
    names = [spec.rpartition(":")[2] for spec in field_specs]
    return [
        name if names.count(name) == 1 else spec
        for name, spec in zip(names, field_specs, strict=True)
    ]


def signed(x: float) -> str:
    return f"{x:+.1f}"


def interval(s: Score) -> str:
    return f"[{signed(s.ci95[0])}, {signed(s.ci95[1])}]"


def cross_table(
    cells: dict[tuple[int, int, int], Cell], labels: list[str], players: int
) -> list[list[str]]:
    """Rows of the table of one format: the row bot's bb/100 against the column bot."""
    rows = [["", *labels]]
    for i, row_label in enumerate(labels):
        row = [row_label]
        for j in range(len(labels)):
            if i == j:
                row.append("·")
                continue
            cell = cells.get((players, min(i, j), max(i, j)))
            if cell is None:  # not played (--verdicts)
                row.append("")
                continue
            a, b = cell.scores()
            row.append(signed((a if i < j else b).bb_per_100))
        rows.append(row)
    return rows


def aligned(rows: list[list[str]]) -> Iterator[str]:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    for row in rows:
        yield "  ".join(text.rjust(width) for text, width in zip(row, widths, strict=True))


def markdown_table(rows: list[list[str]]) -> Iterator[str]:
    yield "| " + " | ".join(rows[0]) + " |"
    yield "|" + "|".join("---" for _ in rows[0]) + "|"
    for row in rows[1:]:
        yield "| " + " | ".join(row) + " |"


@dataclass(frozen=True)
class Check:
    """One leg of a verdict: ``winner`` against ``loser`` in one format."""

    players: int
    winner: str
    loser: str
    score: Score

    @property
    def holds(self) -> bool:
        return self.score.ci95[0] > 0

    def line(self) -> str:
        result = "ok" if self.holds else "NOT SHOWN"
        return (
            f"    {FORMATS[self.players]:>8}  {self.winner} vs {self.loser}: "
            f"{signed(self.score.bb_per_100)} bb/100 {interval(self.score)}  {result}"
        )


@dataclass(frozen=True)
class Margin:
    """One leg of the third verdict: strong's figure against ``baseline`` is at least
    regular's, in one format."""

    players: int
    baseline: str
    strong: Score
    regular: Score

    @property
    def holds(self) -> bool:
        return self.strong.bb_per_100 >= self.regular.bb_per_100

    def line(self) -> str:
        result = "ok" if self.holds else "NOT SHOWN"
        strong, regular = signed(self.strong.bb_per_100), signed(self.regular.bb_per_100)
        return (
            f"    {FORMATS[self.players]:>8}  against {self.baseline}: strong {strong},"
            f" regular {regular}  {result}"
        )


Leg = Check | Margin


def verdict_pairings(labels: list[str]) -> set[tuple[int, int]]:
    """The pairings (indices, lower first) the verdicts rest on, of those in the field."""
    found: set[tuple[int, int]] = set()
    pairs = [("strong", "regular"), ("regular", "beginner")]
    pairs += [(level, name) for level in ("strong", "regular") for name in BASELINES]
    for x, y in pairs:
        if x in labels and y in labels:
            i, j = labels.index(x), labels.index(y)
            found.add((min(i, j), max(i, j)))
    return found


def verdicts(
    cells: dict[tuple[int, int, int], Cell], labels: list[str], formats: Sequence[int]
) -> list[tuple[str, str, list[Leg]]]:
    """The three claims: title, PASS, FAIL or SKIPPED (with why), and the legs they rest on."""

    def result(players: int, winner: str, loser: str) -> Score:
        i, j = labels.index(winner), labels.index(loser)
        a, b = cells[(players, min(i, j), max(i, j))].scores()
        return a if i < j else b

    def checks(pairs: list[tuple[str, str]]) -> list[Leg]:
        return [
            Check(players, winner, loser, result(players, winner, loser))
            for players in formats
            for winner, loser in pairs
        ]

    def status(legs: list[Leg]) -> str:
        return "PASS" if all(leg.holds for leg in legs) else "FAIL"

    out: list[tuple[str, str, list[Leg]]] = []
    title = "each level beats the one below it (strong > regular > beginner)"
    missing = [name for name in LEVELS if name not in labels]
    if missing:
        out.append((title, f"SKIPPED (not in the field: {', '.join(missing)})", []))
    else:
        legs = checks([("strong", "regular"), ("regular", "beginner")])
        out.append((title, status(legs), legs))
    title = "strong beats every baseline with the whole interval above zero"
    present = [name for name in BASELINES if name in labels]
    if "strong" not in labels or not present:
        out.append((title, "SKIPPED (needs strong and a baseline in the field)", []))
    else:
        legs = checks([("strong", name) for name in present])
        out.append((title, status(legs), legs))
    title = "strong wins at least what regular wins against every baseline"
    if "strong" not in labels or "regular" not in labels or not present:
        out.append((title, "SKIPPED (needs strong, regular and a baseline in the field)", []))
    else:
        margins: list[Leg] = [
            Margin(players, name, result(players, "strong", name), result(players, "regular", name))
            for players in formats
            for name in present
        ]
        out.append((title, status(margins), margins))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bots", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument(
        "--field",
        nargs="+",
        default=list(DEFAULT_FIELD),
        metavar="MODULE:FACTORY",
        help="the bots (default: the three levels and the eight baselines)",
    )
    parser.add_argument(
        "--hands", type=int, default=200_000, help="hands per pairing and format (default 200000)"
    )
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        choices=sorted(FORMATS),
        default=sorted(FORMATS),
        help="formats, by seats (default: 2 and 6)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--game", choices=sorted(GAMES), default=NLHE.code, help="the game (default nlhe)"
    )
    parser.add_argument("--markdown", type=Path, metavar="PATH", help="write the tables here too")
    parser.add_argument(
        "--verdicts",
        action="store_true",
        help="play only the pairings the verdicts rest on (18 of the default field's 55)",
    )
    args = parser.parse_args(argv)
    specs = [spec for text in args.field for spec in text.split(",") if spec]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        parser.error("--field: two different bots or more")
    if args.hands < 4 or args.hands % 2:
        parser.error(f"--hands {args.hands}: must be even and at least 4 (a deal is played twice)")
    if args.jobs < 1:
        parser.error("--jobs: at least 1")
    for spec in specs:
        try:
            load_bot(spec)
        except BotLoadError as exc:
            hint = " (the levels may not be there yet: pass --field)" if spec in LEVEL_SPECS else ""
            parser.error(f"--field: {exc}{hint}")
    labels = labels_of(specs)
    formats = sorted(set(args.players))
    deals = args.hands // 2
    cells: dict[tuple[int, int, int], Cell] = {}
    tasks: list[Task] = []
    wanted = verdict_pairings(labels) if args.verdicts else None
    if wanted is not None and not wanted:
        parser.error("--verdicts: the field holds no pairing the verdicts rest on")
    for players in formats:
        for i in range(len(specs)):
            for j in range(i + 1, len(specs)):
                if wanted is not None and (i, j) not in wanted:
                    continue
                cells[(players, i, j)] = Cell(players, i, j, deals)
                for start in range(0, deals, CHUNK):
                    stop = min(start + CHUNK, deals)
                    tasks.append((specs[i], specs[j], players, args.seed, start, stop, args.game))
    print(
        f"league: {len(specs)} bots, {len(cells)} matches of {args.hands} hands of {args.game},"
        f" seed {args.seed},"
        f" {args.jobs} job(s)",
        flush=True,
    )
    began = time.perf_counter()
    results = _run(tasks, args.jobs)
    for task, tally_a, tally_b, cpu in results:
        spec_a, spec_b, players = task[0], task[1], task[2]
        cell = cells[(players, specs.index(spec_a), specs.index(spec_b))]
        cell.tally_a += tally_a
        cell.tally_b += tally_b
        cell.cpu += cpu
        if cell.done:
            a, _ = cell.scores()
            print(
                f"{FORMATS[players]:>8}  {labels[cell.a]} vs {labels[cell.b]}: "
                f"{signed(a.bb_per_100)} bb/100 {interval(a)}  "
                f"({cell.hands} hands, {cell.speed:.0f} hands/s)",
                flush=True,
            )
    wall = time.perf_counter() - began
    total_hands = sum(cell.hands for cell in cells.values())
    cpu = sum(cell.cpu for cell in cells.values())
    report = _report(cells, labels, specs, formats, args, total_hands, wall, cpu)
    print()
    print("\n".join(report.text))
    if args.markdown is not None:
        args.markdown.write_text("\n".join(report.markdown) + "\n", encoding="utf-8")
        print(f"written to {args.markdown}")
    sys.stdout.flush()


def _run(tasks: list[Task], jobs: int) -> Iterator[tuple[Task, Tally, Tally, float]]:
    if jobs == 1:
        yield from map(play_chunk, tasks)
        return
    with multiprocessing.Pool(jobs) as pool:
        yield from pool.imap_unordered(play_chunk, tasks)


@dataclass
class Report:
    text: list[str]
    markdown: list[str]


def _report(
    cells: dict[tuple[int, int, int], Cell],
    labels: list[str],
    specs: list[str],
    formats: list[int],
    args: argparse.Namespace,
    total_hands: int,
    wall: float,
    cpu: float,
) -> Report:
    text: list[str] = []
    md = [
        "# Computer players' league",
        "",
        f"{GAMES[args.game].name}: {args.hands} hands per pairing and format, duplicate,"
        f" 100 big blinds, seed {args.seed}."
        " Figures are the first bot's bb/100 with a 95% interval over deal pairs.",
        "",
        "| format | bot | against | bb/100 | 95% interval | hands/s |",
        "|---|---|---|---:|---|---:|",
    ]
    for cell in cells.values():
        a, _ = cell.scores()
        md.append(
            f"| {FORMATS[cell.players]} | {labels[cell.a]} | {labels[cell.b]} |"
            f" {signed(a.bb_per_100)} | {interval(a)} | {cell.speed:.0f} |"
        )
    for players in formats:
        rows = cross_table(cells, labels, players)
        text.append(f"{FORMATS[players]}: bb/100 of the row against the column")
        text.extend(aligned(rows))
        text.append("")
        md += ["", f"## {FORMATS[players]}: bb/100 of the row against the column", ""]
        md.extend(markdown_table(rows))
    md += ["", "## Verdicts", ""]
    for title, status, legs in verdicts(cells, labels, formats):
        text.append(f"{title}: {status}")
        text.extend(leg.line() for leg in legs)
        md.append(f"- {title}: **{status}**")
        md.extend(f"  - {leg.line().strip()}" for leg in legs)
    speed = (
        f"{total_hands} hands in {wall:.1f} s: {total_hands / wall:.0f} hands/s"
        f" ({total_hands / max(cpu, 1e-9):.0f} per CPU second)"
    )
    text += ["", speed]
    md += ["", speed, "", "Field: " + ", ".join(f"`{spec}`" for spec in specs)]
    return Report(text, md)


if __name__ == "__main__":
    main()
