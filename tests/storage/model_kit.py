"""What the storage's model-based property tests share: one driver, run on both backends.

Each of those tests draws a random sequence of operations against a model of what the database
must hold (``run(data, url)``: open a database at ``url``, play the sequence, check the model
after every step). :func:`on_both_backends` makes the two tests every such model gets: on an
in-memory SQLite database, and on a new PostgreSQL database per example (fewer examples there:
each one creates a database).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.pgserver import PostgresServer

Run = Callable[[st.DataObject, str], Awaitable[None]]
Test = Callable[..., None]
_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large]


def on_both_backends(run: Run, *, examples: int, postgres_examples: int) -> tuple[Test, Test]:
    """The SQLite test and the PostgreSQL test of one model (bind both to ``test_…`` names)."""

    @settings(max_examples=examples, deadline=None, suppress_health_check=_SLOW_IS_FINE)
    @given(st.data())
    def on_sqlite(data: st.DataObject) -> None:
        asyncio.run(run(data, "sqlite:///:memory:"))

    @settings(max_examples=postgres_examples, deadline=None,
              suppress_health_check=_SLOW_IS_FINE)
    @given(st.data())
    def on_postgresql(postgres_server: PostgresServer, data: st.DataObject) -> None:
        """The same model, each example on a new PostgreSQL database."""
        postgres_server.run_on_a_new_database(lambda url: run(data, url))

    return on_sqlite, on_postgresql
