"""Mutation check: plant one small bug at a time and see which tests catch it.

``python -m tests.mutants`` copies the repository to a temporary directory once per mutant,
applies one named one-line mutation there (never to the working files), runs the tests chosen
for it, and prints a table: each mutant, caught or survived, the time it took and the tests that
failed (and, in the ``diff`` column, whether the seeded (R) and the property (P) PokerKit
comparisons caught it on their own). Every mutant must be caught; the exit status is 1 if one
survives (or if the unmutated copy fails its own tests, which would make "caught" meaningless).

    python -m tests.mutants                   # every mutant, two at a time
    python -m tests.mutants --list            # names, files and the rule each one breaks
    python -m tests.mutants reopen_unacted_option tda_reopens_on_half_a_raise
    python -m tests.mutants --jobs 1 --seed 7 --keep

It is slow (minutes), so it is not part of ``python -m tests``. The PokerKit differential test
runs in each mutant from one seed, printed, so a run can be repeated (``--seed``). Hypothesis
does not shrink inside a mutant (a failure is all that is asked for), and the PHH dataset is
reached from the copy as from the repository (``../shared``).

A mutation names the exact text it replaces, which must occur once in its file; when the code
moves on, the mutant reports ``stale`` instead of silently testing nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

HAND_RULES = ("tests/engine/test_hand_rules.py", "tests/engine/test_rules_examples.py")
DIFF = ("tests/engine/test_pokerkit_diff.py",)
EVALUATOR = ("tests/engine/test_evaluator.py",)
TABLE = ("tests/engine/test_table.py", "tests/engine/test_table_properties.py")
STORAGE = (
    "tests/storage/test_hands.py",
    "tests/storage/test_economy.py",
    "tests/storage/test_bad_input.py",
    "tests/storage/test_tables.py",
    "tests/storage/test_ledger_properties.py",
)
HOUSE_CAP = ("tests/bot/test_house_cap.py",)


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    rule: str  # what the mutation breaks, in the words of docs/rules.md or the module
    tests: tuple[str, ...]


MUTANTS = (
    # The two bugs of the audit (issue 14) that got through.
    Mutant(
        "reopen_unacted_option",
        "engine/hand.py",
        "        if not self.acted[i]:\n            return True\n",
        "",
        "a player who has not acted on this street keeps every option (RULES 4)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "tda_reopens_on_half_a_raise",
        "engine/hand.py",
        "return self.high_bet - self.acted_high[i] >= self.min_increment",
        "return 2 * (self.high_bet - self.acted_high[i]) >= self.min_increment",
        "tda re-opens only for a full raise since he acted (RULES 4)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "result_destroying_chips_accepted",
        "bot/storage/hands.py",
        "    if total != expected:",
        "    if total > expected:",
        "a hand result must hand back exactly the chips the hand holds",
        STORAGE,
    ),
    # Betting.
    Mutant(
        "exact_minimum_raise_not_full",
        "engine/hand.py",
        "            if increment >= self.min_increment:",
        "            if increment > self.min_increment:",
        "a raise of exactly the last full raise is a full raise (RULES 4, TDA 43)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "minimum_raise_one_chip_short",
        "engine/hand.py",
        "min_to = min(high + self.min_increment, max_to)",
        "min_to = min(high + self.min_increment - 1, max_to)",
        "the minimum raise is the largest full raise of the street (RULES 4, E8)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "timeout_always_folds",
        "engine/hand.py",
        "concrete = ActionKind.CHECK if self.high_bet == self.bets[player] else ActionKind.FOLD",
        "concrete = ActionKind.FOLD",
        "a timeout checks when checking is free (RULES 4, TDA 29)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "preselected_call_survives_a_raise",
        "engine/hand.py",
        "            elif self.high_bet != high_then:",
        "            elif self.high_bet < high_then:",
        "a pre-selected check or call is dropped when the bet changes (RULES 4, TDA 53)",
        HAND_RULES + DIFF,
    ),
    # Pots.
    Mutant(
        "odd_chip_to_the_last_winner",
        "engine/hand.py",
        "        shares[k][1] += chip_unit",
        "        shares[-1 - k][1] += chip_unit",
        "odd chips go one unit each from the first winner left of the button (RULES 5, E7)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "dead_money_to_the_last_pot",
        "engine/hand.py",
        "                chips[0] += dead",
        "                chips[-1] += dead",
        "a big blind ante and a dead small blind go to the main pot (RULES 5)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "all_in_player_eligible_for_every_pot",
        "engine/hand.py",
        "j for j in range(self.n) if not self.folded[j] and amounts[j] >= level",
        "j for j in range(self.n) if not self.folded[j] and (amounts[j] >= level"
        " or self.all_in[j])",
        "a player can win only the layers his chips reached (RULES 5, E5, E6)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "uncalled_bet_kept_in_the_pot",
        "engine/hand.py",
        "        if excess > 0:\n",
        "        if excess < 0:\n",
        "an uncalled bet goes back to its owner and is never part of a pot (RULES 5)",
        HAND_RULES + DIFF,
    ),
    # Showdown and the evaluator's use.
    Mutant(
        "showdown_starts_left_of_the_button",
        "engine/hand.py",
        "start = self.last_aggressor if self.last_aggressor is not None else remaining[0]",
        "start = remaining[0]",
        "the river's last bettor shows first (RULES 6, TDA 16)",
        HAND_RULES + DIFF,
    ),
    Mutant(
        "showdown_without_the_river",
        "engine/hand.py",
        "highs = [{j: high_value(holes[j], board) for j in remaining} for board in self.boards]",
        "highs = [{j: high_value(holes[j], board[:4]) for j in remaining}"
        " for board in self.boards]",
        "the best five of seven cards: both hole cards and the whole board (RULES 6)",
        HAND_RULES + DIFF + EVALUATOR,
    ),
    Mutant(
        "evaluator_value_not_flipped",
        "engine/evaluator.py",
        "    return _FLIP - native(*cards)\n",
        "    return native(*cards)\n",
        "a bigger value is a better hand (engine.evaluator; RULES 6 hand ranks)",
        EVALUATOR + HAND_RULES,
    ),
    # The table.
    Mutant(
        "missed_small_blind_posted_live",
        "engine/table.py",
        "                    dead[i] = opts.small_blind",
        "                    blinds[i] += opts.small_blind",
        "a missed small blind is posted as dead money (RULES 2)",
        TABLE,
    ),
    Mutant(
        "missed_small_blind_owed_as_a_big_blind",
        "engine/table.py",
        '                if blind == "small_blind":\n                    occupant.owes_sb = True',
        '                if blind == "small_blind":\n                    occupant.owes_bb = True',
        "a player who missed only the small blind owes only the small blind (RULES 2)",
        TABLE,
    ),
    # The ledger and stored hands.
    Mutant(
        "whole_balance_cannot_be_spent",
        "bot/storage/ledger.py",
        '" WHERE guild_id = ? AND user_id = ? AND balance >= ? RETURNING balance"',
        '" WHERE guild_id = ? AND user_id = ? AND balance > ? RETURNING balance"',
        "a wallet may spend exactly its whole balance, never more",
        STORAGE,
    ),
    Mutant(
        "balance_cap_one_chip_short",
        "bot/storage/ledger.py",
        '" WHERE guild_id = ? AND user_id = ? AND balance <= ? RETURNING balance"',
        '" WHERE guild_id = ? AND user_id = ? AND balance < ? RETURNING balance"',
        "a wallet may be credited up to exactly the maximum balance",
        STORAGE,
    ),
    Mutant(
        "stale_stack_accepted_at_the_deal",
        "bot/storage/hands.py",
        '" AND user_id = ? AND hand_id IS NULL AND stack = ?"',
        '" AND user_id = ? AND hand_id IS NULL AND stack >= ?"',
        "a hand takes each player's whole stack, as stored (table stakes)",
        STORAGE,
    ),
    Mutant(
        "every_player_counted_as_a_winner",
        "bot/storage/hands.py",
        "                    int(r.won > 0),",
        "                    int(r.won >= 0),",
        "hands won counts only hands where the player took chips from a pot",
        STORAGE,
    ),
    # The house's daily loss cap: a member farming the bots is stopped by it.
    Mutant(
        "house_cap_doubled",
        "bot/runtime/cash.py",
        "        return lost >= cap\n",
        "        return lost >= 2 * cap\n",
        "the house's bots stand up once they have lost the server's daily cap",
        HOUSE_CAP,
    ),
    Mutant(
        "house_cap_counts_the_last_second",
        "bot/runtime/cash.py",
        "        since = int(self.options.wall()) - DAY\n",
        "        since = int(self.options.wall()) - 1\n",
        "the house's daily cap counts every loss of the last 24 hours",
        HOUSE_CAP,
    ),
)


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str  # "caught", "survived", "stale" or "broken" (pytest could not run the tests)
    seconds: float
    failed: tuple[str, ...]
    detail: str = ""


# --- running one ----------------------------------------------------------------------------


def _tracked_files(root: Path) -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache"}
        return [
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(root).parts)
        ]
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def make_copy(root: Path, into: Path) -> Path:
    """The repository's files under ``into/repo``, with ``into/shared`` pointing at its data."""
    tree = into / "repo"
    for name in _tracked_files(root):
        target = tree / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
    shared = root.parent / "shared"
    if shared.exists():
        (into / "shared").symlink_to(shared.resolve(), target_is_directory=True)
    return tree


def mutate(tree: Path, mutant: Mutant) -> bool:
    path = tree / mutant.path
    text = path.read_text(encoding="utf-8")
    if text.count(mutant.old) != 1:
        return False
    # A new file rather than an edit in place: the copy never shares an inode with the repo.
    path.unlink()
    path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
    return True


FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def run_tests(tree: Path, tests: Sequence[str], seed: int, timeout: int) -> tuple[int, str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),  # the copy's packages, never the installed working tree's
        "POKERKIT_DIFF_SEED": str(seed),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("CI", None)
    argv = [
        sys.executable, "-m", "pytest", *tests, "-q", "-rfE", "-n", "0", "-p", "no:cacheprovider",
        "-p", "tests.mutants", f"--timeout={timeout}",
    ]  # fmt: skip
    done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def run_mutant(mutant: Mutant, seed: int, timeout: int, keep: bool) -> Outcome:
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix=f"mutant-{mutant.name}-"))
    try:
        tree = make_copy(ROOT, work)
        if not mutate(tree, mutant):
            return Outcome(mutant, "stale", 0.0, (), f"text not found once in {mutant.path}")
        code, output = run_tests(tree, mutant.tests, seed, timeout)
        failed = tuple(dict.fromkeys(FAILED_LINE.findall(output)))
        seconds = time.perf_counter() - start
        if code == 0:
            return Outcome(mutant, "survived", seconds, ())
        if code == 1 and failed:
            return Outcome(mutant, "caught", seconds, failed)
        return Outcome(mutant, "broken", seconds, failed, output[-2000:])
    finally:
        if keep:
            print(f"kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)


def baseline(mutants: Sequence[Mutant], seed: int, timeout: int) -> tuple[bool, str]:
    """The chosen tests pass on an unmutated copy (else a failure would prove nothing)."""
    tests = sorted({t for m in mutants for t in m.tests})
    work = Path(tempfile.mkdtemp(prefix="mutant-baseline-"))
    try:
        tree = make_copy(ROOT, work)
        probe = subprocess.run(
            [sys.executable, "-c", "import engine, bot; print(engine.__file__, bot.__file__)"],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        if any(not Path(p).is_relative_to(tree) for p in probe.split()):
            return False, f"the copy imports the working tree's packages: {probe}"
        code, output = run_tests(tree, tests, seed, timeout)
        return code == 0, output[-3000:]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- pytest plugin, loaded inside each copy with ``-p tests.mutants`` ---------------------------


def pytest_configure(config: Any) -> None:
    from hypothesis import Phase, settings

    # A failure is all a mutant needs; shrinking one can take minutes and stores nothing.
    settings.register_profile(
        "mutants", phases=(Phase.explicit, Phase.generate), database=None, print_blob=False
    )
    settings.load_profile("mutants")


# --- the command ------------------------------------------------------------------------------


RANDOM_DIFF = "test_random_hands_match_pokerkit"
PROPERTY_DIFF = "test_property_hands_match_pokerkit"


def _differential(outcome: Outcome) -> str:
    """Which of the two random PokerKit comparisons failed: R (seeded), P (property), or -."""
    if not set(DIFF) & set(outcome.mutant.tests):
        return ""
    names = {t.split("::", 1)[-1] for t in outcome.failed}
    return ("R" if RANDOM_DIFF in names else "") + ("P" if PROPERTY_DIFF in names else "") or "-"


def table(outcomes: Sequence[Outcome], everything: bool = False) -> str:
    width = max(len(o.mutant.name) for o in outcomes)
    lines = [f"{'mutant':<{width}}  {'result':<8}  {'time':>5}  diff  caught by"]
    for o in outcomes:
        names = [t.split("::", 1)[-1] for t in o.failed]
        shown = ", ".join(names if everything else names[:3])
        more = f" (+{len(names) - 3} more)" if len(names) > 3 and not everything else ""
        lines.append(
            f"{o.mutant.name:<{width}}  {o.status:<8}  {o.seconds:4.0f}s  "
            f"{_differential(o):<4}  {shown}{more}{o.detail}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--seed", type=int, default=None, help="the differential test's seed")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test")
    parser.add_argument("--keep", action="store_true", help="keep the mutated copies")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    parser.add_argument("--all-failures", action="store_true", help="name every failing test")
    args = parser.parse_args(argv)
    if args.list:
        for m in MUTANTS:
            print(f"{m.name}\n    {m.path}: {m.rule}\n    tests: {' '.join(m.tests)}")
        return 0
    known = {m.name: m for m in MUTANTS}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        parser.error(f"unknown mutants: {', '.join(unknown)}")
    chosen = [known[n] for n in args.names] if args.names else list(MUTANTS)
    seed = secrets.randbelow(10**9) if args.seed is None else args.seed
    print(f"{len(chosen)} mutants, differential seed {seed} (repeat with --seed {seed})")
    started = time.perf_counter()
    if not args.no_baseline:
        ok, output = baseline(chosen, seed, args.timeout)
        if not ok:
            print(f"the unmutated copy fails its tests:\n{output}")
            return 1
        print(f"baseline passed in {time.perf_counter() - started:.0f}s", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_mutant, m, seed, args.timeout, args.keep) for m in chosen]
        outcomes = []
        for future in futures:
            outcome = future.result()
            print(f"  {outcome.mutant.name}: {outcome.status}", flush=True)
            outcomes.append(outcome)
    print(table(outcomes, args.all_failures))
    caught = sum(o.status == "caught" for o in outcomes)
    print(f"{caught}/{len(outcomes)} caught in {time.perf_counter() - started:.0f}s")
    return 0 if caught == len(outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
