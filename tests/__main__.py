"""The whole check, as CI runs it: lint, types, then every test.

``python -m tests`` exits non-zero if ruff, mypy or any test fails.
"""

from __future__ import annotations

import os
import subprocess
import sys


def _run(title: str, argv: list[str]) -> int:
    print(f"==> {title}: {' '.join(argv)}", flush=True)
    return subprocess.call(argv)


def main() -> int:
    py = sys.executable
    failed: list[str] = []
    if _run("ruff", [py, "-m", "ruff", "check", "."]):
        failed.append("ruff")
    if _run("mypy", [py, "-m", "mypy", "engine", "bot", "cogs", "bench"]):
        failed.append("mypy")
    # Two workers a core: most of an end-to-end test's time is spent waiting on the fake
    # Discord's rate limits and the table's pacing, not on the CPU.
    workers = os.environ.get("TEST_WORKERS", str(2 * (os.cpu_count() or 1)))
    # Tests go out a few at a time, in collection order (slow ones first: tests/conftest.py);
    # xdist's default hands each worker a quarter of the suite at once, slow ones together.
    code = _run("pytest", [py, "-m", "pytest", "-n", workers, "--maxschedchunk", "4", "-q",
                           *sys.argv[1:]])
    if code:
        failed.append("pytest")
    if failed:
        print(f"FAILED: {', '.join(failed)}", flush=True)
        return 1
    print("all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
