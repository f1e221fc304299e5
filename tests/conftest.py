"""Fixtures every part of the suite may use: a throwaway PostgreSQL server (one per test
process), and a fresh database on it for a test; and the order the suite runs in."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.pgserver import HOW_TO_GET, PostgresServer, find_binaries, running_server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` (a real bot process played for tens of seconds, a long property
    run) go first: the workers share the short ones out at the end and finish together,
    instead of one of them starting a minute-long test when the other has nothing left."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    binaries = find_binaries()
    if binaries is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs the PostgreSQL tests, but no server binaries were found: "
                        + HOW_TO_GET)
        pytest.skip(HOW_TO_GET)
    with running_server(binaries) as server:
        yield server


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """A new empty PostgreSQL database for one test; dropped afterwards."""
    url = await postgres_server.create_database()
    try:
        yield url
    finally:
        await postgres_server.drop_database(url)
