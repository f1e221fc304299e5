"""Entry point of the ``poker-bot`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the bot (the Discord runtime lands with its own issue; until then say so)."""
    del argv
    sys.stderr.write(
        "poker-bot: the Discord runtime is not built yet; the engine is available as "
        "`python -m engine.phh`.\n"
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
