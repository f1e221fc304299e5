"""``python -m engine.bots duel`` as outsiders call it, and the league ``python -m bench.bots``.

The duel's last line is an interface others parse: its keys are pinned here exactly.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bench.bots import Cell, labels_of, main, verdicts
from bench.shover_ceiling import Exploiter, ceiling
from bench.shover_ceiling import main as ceiling_main
from engine.bots.baselines import shover
from engine.bots.match import Tally, play_deals, score
from engine.bots.view import CALL, FOLD, view_of
from engine.cards import parse_cards
from engine.hand import Action, ActionKind, Hand, HandConfig, deck_from_cards

REPO = Path(__file__).resolve().parents[1]
STATION = "engine.bots.baselines:station"
ROCK = "engine.bots.baselines:rock"
RANDOM = "engine.bots.baselines:random_bot"


def _duel(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.bots", "duel", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_last_line_is_the_json_answer() -> None:
    done = _duel("--a", ROCK, "--b", RANDOM, "--players", "2", "--hands", "200", "--seed", "3")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(answer) == ["hands", "a", "b"]
    assert answer["hands"] == 200
    for side in ("a", "b"):
        assert list(answer[side]) == ["bb_per_100", "ci95"]
        low, high = answer[side]["ci95"]
        assert low <= answer[side]["bb_per_100"] <= high
    assert answer["a"]["bb_per_100"] == -answer["b"]["bb_per_100"]


def test_the_same_seed_gives_the_same_answer() -> None:
    args = ("--a", RANDOM, "--b", STATION, "--players", "6", "--hands", "40")
    first = _duel(*args, "--seed", "5")
    again = _duel(*args, "--seed", "5")
    other = _duel(*args, "--seed", "6")
    assert first.returncode == again.returncode == other.returncode == 0
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--a", "no_such_module_here:bot", "--b", STATION), "--a: cannot import module"),
        (("--a", STATION, "--b", "engine.bots.baselines:nobody"), "--b: module"),
        (("--a", "engine.bots.baselines", "--b", STATION), "MODULE:FACTORY"),
        (("--a", STATION, "--b", STATION, "--hands", "7"), "--hands 7: must be even"),
        (("--a", STATION, "--b", STATION, "--players", "3"), "invalid choice"),
        (("--b", STATION), "--a"),
    ],
)
def test_bad_arguments_say_what_is_wrong_and_exit_2(args: tuple[str, ...], words: str) -> None:
    done = _duel(*args)
    assert done.returncode == 2
    assert words in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


# --- the league -------------------------------------------------------------------------


def test_a_small_league_prints_its_tables_and_writes_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown = tmp_path / "league.md"
    field = ",".join((ROCK, RANDOM, STATION))
    main(["--field", field, "--hands", "40", "--seed", "2", "--markdown", str(markdown)])
    out = capsys.readouterr().out
    assert "heads-up  rock vs random_bot:" in out
    assert "6-max  random_bot vs station:" in out
    assert "heads-up: bb/100 of the row against the column" in out
    assert "SKIPPED" in out and "hands/s" in out
    text = markdown.read_text(encoding="utf-8")
    assert "| heads-up | rock | random_bot |" in text
    assert "## Verdicts" in text

    # Two worker processes play the same deals: the same figures, line for line.
    main(["--field", field, "--hands", "40", "--seed", "2", "--jobs", "2"])
    again = capsys.readouterr().out

    def figures(text: str) -> list[str]:
        return sorted(line.split("(")[0] for line in text.splitlines() if " vs " in line)

    assert figures(again) == figures(out)


def test_a_field_with_a_missing_bot_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--field", f"{ROCK},engine.bots.baselines:nobody", "--hands", "4"])
    assert stopped.value.code == 2
    assert "has no attribute 'nobody'" in capsys.readouterr().err


def _cell(players: int, a: int, b: int, pairs: list[int]) -> Cell:
    tally = Tally(len(pairs), sum(pairs), sum(p * p for p in pairs))
    negated = Tally(len(pairs), -tally.total, tally.squares)
    return Cell(players, a, b, len(pairs), tally, negated, 1.0)


def test_the_verdicts_need_the_whole_interval_above_zero() -> None:
    labels = labels_of(["x:beginner", "x:regular", "x:strong", "y:rock"])
    clear, unclear = [10, 12, 9, 11], [10, -12, 9, -3]  # chips a pair, for the first bot
    cells = {}
    for players in (2, 6):
        # Indices: beginner 0, regular 1, strong 2, rock 3; A is the lower index.
        cells[(players, 0, 1)] = _cell(players, 0, 1, [-p for p in clear])  # regular wins
        cells[(players, 1, 2)] = _cell(players, 1, 2, [-p for p in clear])  # strong wins
        cells[(players, 0, 2)] = _cell(players, 0, 2, [-p for p in clear])
        cells[(players, 0, 3)] = _cell(players, 0, 3, clear)
        cells[(players, 1, 3)] = _cell(players, 1, 3, clear)
        cells[(players, 2, 3)] = _cell(players, 2, 3, unclear if players == 6 else clear)
    (ladder, ladder_status, ladder_legs), (baselines, status, legs), (margin, held, margins) = (
        verdicts(cells, labels, [2, 6])
    )
    assert "each level beats the one below it" in ladder and ladder_status == "PASS"
    assert len(ladder_legs) == 4
    assert "strong beats every baseline" in baselines and status == "FAIL"
    assert [leg.holds for leg in legs] == [True, False]  # positive at 6-max, not shown
    # Regular and strong win the same against the rock heads-up; at 6-max strong wins less.
    assert "at least what regular wins" in margin and held == "FAIL"
    assert [leg.holds for leg in margins] == [True, False]

    skipped = verdicts(cells, ["beginner", "a", "b", "rock"], [2, 6])
    assert all(status.startswith("SKIPPED") for _, status, _ in skipped)


def test_the_verdicts_alone_play_only_the_pairings_they_rest_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    field = ",".join(("engine.bots:beginner", "engine.bots:regular", "engine.bots:strong",
                      ROCK, RANDOM))
    main(["--field", field, "--hands", "20", "--players", "2", "--verdicts"])
    out = capsys.readouterr().out
    played = [line for line in out.splitlines() if "hands/s)" in line and " vs " in line]
    assert "league: 5 bots, 6 matches" in out  # of the 10 pairings, the 6 the verdicts need
    assert "beginner vs rock" not in out and "rock vs random_bot" not in out
    assert "strong vs rock" in out and "regular vs random_bot" in out
    assert "strong wins at least what regular wins against every baseline:" in out
    assert len(played) == 6  # every match printed its line
    with pytest.raises(SystemExit) as stopped:
        main(["--field", f"{ROCK},{RANDOM}", "--hands", "4", "--verdicts"])
    assert stopped.value.code == 2
    assert "no pairing the verdicts rest on" in capsys.readouterr().err


def test_the_shover_ceiling_is_what_its_exploiter_plays_for() -> None:
    """The most there is to win from the wide all-in player heads-up (bench.shover_ceiling):
    counted exactly, it is under the +100 bb/100 once asked of the strong level; the exploiter
    calls his shove with what beats his range and folds what does not."""
    most = ceiling()
    assert 75.0 < most < 90.0
    exploiter = Exploiter()
    for hole, answer in (("AsAd", CALL), ("JcJd", CALL), ("AsQd", CALL), ("5c5d", CALL),
                         ("4c4d", FOLD), ("As2d", FOLD), ("KsQd", FOLD), ("7c2d", FOLD)):
        hand = Hand(HandConfig.standard((200, 200), 1, 2),
                    deck_from_cards(2, [parse_cards(hole), None], ()))
        hand.apply(Action(ActionKind.ALL_IN, 1))
        assert exploiter.decide(view_of(hand, 0), random.Random(0)) == answer, hole
    # Played, it wins about what was counted (wide, at 2,000 hands: the count sits inside).
    mine, _ = play_deals(exploiter, shover(), players=2, seed=0, start=0, stop=1000)
    low, high = score(mine, 1).ci95
    assert low < most < high and low > 0


def test_the_shover_ceiling_bench_prints_every_level(capsys: pytest.CaptureFixture[str]) -> None:
    ceiling_main(["--hands", "200"])
    out = capsys.readouterr().out
    assert "exact: +81.3 bb/100" in out
    for name in ("exploiter", "strong", "regular", "beginner"):
        assert name in out
