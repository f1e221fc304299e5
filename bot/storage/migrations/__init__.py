"""The schema's migrations: ``<backend>/NNNN_name.sql`` files, applied in number order.

Each backend has its own folder (``sqlite/``, ``postgresql/``) with the same numbers and names:
the same schema written in each dialect (``tests/storage/test_schema.py`` compares the two).
A file is never edited once released; a change to the schema is a new file with the next number
in both folders. Each backend applies a migration in its own transaction and records it.

Numbers only have to increase: changes made side by side take their numbers ahead of time, so
one may land before a smaller number does. A database applies every migration it has not
recorded yet, in number order, whatever larger numbers it already has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
BACKENDS = ("sqlite", "postgresql")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations(backend: str = "sqlite") -> tuple[Migration, ...]:
    """Every migration shipped for ``backend``, by version; each number once, from 1 up."""
    if backend not in BACKENDS:
        raise ValueError(f"no migrations for {backend!r}")
    found: list[Migration] = []
    for entry in resources.files(__name__).joinpath(backend).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions) or (versions and versions[0] < 1):
        raise RuntimeError(f"migration numbers must be distinct and from 1 up, got {versions}")
    return tuple(found)
