"""Replay every Pluribus hand history through our engine and through PokerKit, in one run.

``python -m bench.phh_replay [PATH] [--repeat N]`` times both, parsing included: ours reads each
file, parses it (``engine.phh``), maps it onto the engine and plays it to the end; PokerKit
loads it with ``HandHistory.load`` and iterates its states to the end. Files are read once
beforehand (untimed) so that neither side pays for a cold disk cache. With ``--repeat``, the
best time of each is kept. Target: ours at least 3x faster (aim 5x).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

from engine.phh import final_stacks, load_hands, replay

_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "phh" / "pluribus"


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".phh", ".phhs") and p.is_file())


def time_ours(files: list[Path]) -> tuple[float, int]:
    start = time.perf_counter()
    hands = 0
    for path in files:
        for phh in load_hands(path.read_text(encoding="utf-8")):
            final_stacks(replay(phh))
            hands += 1
    return time.perf_counter() - start, hands


def time_pokerkit(files: list[Path]) -> tuple[float, int]:
    from pokerkit import HandHistory

    start = time.perf_counter()
    hands = 0
    for path in files:
        with path.open("rb") as fp:
            histories = (
                list(HandHistory.load_all(fp)) if path.suffix == ".phhs" else [HandHistory.load(fp)]
            )
        for history in histories:
            for _state in history:
                pass
            hands += 1
    return time.perf_counter() - start, hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, help="folder or file (default: Pluribus)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the best is kept")
    args = parser.parse_args()
    root: Path = args.path or _DEFAULT
    files = _files(root) if root.is_dir() else [root]
    for path in files:
        path.read_bytes()
    warnings.simplefilter("ignore")  # PokerKit warns about fields it does not know
    repeat = max(args.repeat, 1)
    ours_runs = [time_ours(files) for _ in range(repeat)]
    theirs_runs = [time_pokerkit(files) for _ in range(repeat)]
    ours = min(t for t, _ in ours_runs)
    theirs = min(t for t, _ in theirs_runs)
    hands = ours_runs[0][1]
    if hands != theirs_runs[0][1]:
        print(f"warning: {hands} hands replayed by us, {theirs_runs[0][1]} by PokerKit")
    print(f"{len(files)} files, {hands} hands from {root}")
    print(f"engine.phh : {ours:7.3f} s  ({ours / max(hands, 1) * 1e6:6.1f} us/hand)")
    print(f"PokerKit   : {theirs:7.3f} s  ({theirs / max(hands, 1) * 1e6:6.1f} us/hand)")
    print(f"ratio      : {theirs / ours:6.2f}x  (target >= 3x, aim 5x)")


if __name__ == "__main__":
    main()
