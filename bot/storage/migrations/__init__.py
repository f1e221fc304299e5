"""The schema's migrations: ``NNNN_name.sql`` files in this folder, applied in number order.

A file is never edited once released; a change to the schema is a new file with the next
number. ``bot.storage.db`` applies each in its own transaction and records it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations() -> tuple[Migration, ...]:
    """Every migration shipped with the package, by version; numbers must run 1, 2, 3, ..."""
    found: list[Migration] = []
    for entry in resources.files(__name__).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migration numbers must run 1..n without gaps, got {versions}")
    return tuple(found)
