"""Replay PHH files through the engine from the command line.

``python -m engine.phh replay [--json] PATH...`` prints each hand's finishing stacks (one JSON
line per hand with ``--json``: ``{"file", "index", "finishing_stacks"}`` or ``{"file", "index",
"error"}``) and exits 1 if any hand could not be replayed.

``python -m engine.phh check [--expect FILE.json] PATH...`` compares every replay with the
file's ``finishing_stacks``, prints each difference, then a last line ``N hands, M match, K
differ``, and exits 0 only if nothing differs. A hand that cannot be replayed differs. A hand
without ``finishing_stacks`` is counted (a line before the last says how many) but is neither a
match nor a difference. ``--expect`` takes a JSON object from ``"path"`` or ``"path#index"``
(matched against the end of the file's path) to the stacks expected instead of the recorded
ones, for files known to be wrong, such as the Pluribus hands that record half chips.

Folders are walked recursively for ``*.phh`` and ``*.phhs``, in sorted order; ``index`` is the
hand's position in its file, from 0. This module is the engine's only I/O: the package itself
works on text.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from engine.errors import EngineError
from engine.phh import final_stacks, hand_from_fields, loads_toml, replay, split_hands

_SUFFIXES = (".phh", ".phhs")


def _files(paths: Sequence[str]) -> list[Path]:
    """Every file to read, found before anything is printed so a bad path fails cleanly."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = [p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file()]
            files.extend(sorted(found, key=lambda p: p.as_posix()))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {name}")
    return files


def _replays(path: Path) -> Iterator[tuple[int, list[int] | str, object]]:
    """``(index, stacks or error text, recorded finishing_stacks)`` for each hand of a file."""
    try:
        document = loads_toml(path.read_text(encoding="utf-8"))
        tables = split_hands(document)
    except (EngineError, OSError, UnicodeDecodeError) as exc:
        yield 0, _error_text(exc), None
        return
    for index, fields in enumerate(tables):
        recorded = fields.get("finishing_stacks")
        try:
            stacks = final_stacks(replay(hand_from_fields(fields)))
        except EngineError as exc:
            yield index, _error_text(exc), recorded
            continue
        except Exception as exc:  # one broken hand must not hide the others
            yield index, f"internal_error: {type(exc).__name__}: {exc}", recorded
            continue
        yield index, stacks, recorded


def _error_text(exc: Exception) -> str:
    if isinstance(exc, EngineError):
        return str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return f"phh_syntax: detail='not UTF-8 text: {exc.reason}'"
    return f"phh_unreadable: detail={str(exc)!r}"


def _replay_command(paths: Sequence[str], as_json: bool) -> int:
    files = _files(paths)
    failed = False
    out = sys.stdout
    for path in files:
        name = str(path)
        for index, outcome, _ in _replays(path):
            if isinstance(outcome, str):
                failed = True
                if as_json:
                    record = {"file": name, "index": index, "error": outcome}
                    out.write(json.dumps(record) + "\n")
                else:
                    out.write(f"{name}#{index}: ERROR {outcome}\n")
            elif as_json:
                record = {"file": name, "index": index, "finishing_stacks": outcome}
                out.write(json.dumps(record) + "\n")
            else:
                out.write(f"{name}#{index}: {' '.join(map(str, outcome))}\n")
    return 1 if failed else 0


def _load_expectations(path: str | None) -> dict[str, list[int | float]]:
    if path is None:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError(f"{path}: expected a JSON object of stack lists")
    return data


def _expected(
    expectations: Mapping[str, list[int | float]], path: Path, index: int, recorded: object
) -> object:
    if expectations:
        posix = path.as_posix()
        for key, stacks in expectations.items():
            name, _, number = key.partition("#")
            if posix.endswith(name) and (int(number) if number else 0) == index:
                return stacks
    return recorded


def _check_command(paths: Sequence[str], expect: str | None) -> int:
    expectations = _load_expectations(expect)
    files = _files(paths)
    total = match = differ = unchecked = 0
    out = sys.stdout
    for path in files:
        for index, outcome, recorded in _replays(path):
            total += 1
            where = f"{path}#{index}"
            if isinstance(outcome, str):
                differ += 1
                out.write(f"{where}: ERROR {outcome}\n")
                continue
            expected = _expected(expectations, path, index, recorded)
            if expected is None:
                unchecked += 1
            elif isinstance(expected, list) and expected == outcome:
                match += 1
            else:
                differ += 1
                out.write(f"{where}: expected {_show(expected)} got {_show(outcome)}\n")
    if unchecked:
        out.write(f"{unchecked} hands have no finishing_stacks (replayed, not checked)\n")
    out.write(f"{total} hands, {match} match, {differ} differ\n")
    return 1 if differ else 0


def _show(stacks: object) -> str:
    if isinstance(stacks, list):
        # 9775.0 and 9775 are the same stack; print what a reader of the file would expect.
        return "[" + ", ".join(_number(v) for v in stacks) + "]"
    return repr(stacks)


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.phh", description="Replay PHH hand histories through the engine."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    replay_parser = commands.add_parser("replay", help="print each hand's finishing stacks")
    replay_parser.add_argument("--json", action="store_true", help="one JSON object per line")
    replay_parser.add_argument("paths", nargs="+", metavar="PATH")
    check_parser = commands.add_parser("check", help="compare with the recorded finishing stacks")
    check_parser.add_argument(
        "--expect", metavar="FILE.json", help="stacks to expect instead of the recorded ones"
    )
    check_parser.add_argument("paths", nargs="+", metavar="PATH")
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            return _replay_command(args.paths, args.json)
        return _check_command(args.paths, args.expect)
    except (FileNotFoundError, ValueError) as exc:
        print(f"python -m engine.phh: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
