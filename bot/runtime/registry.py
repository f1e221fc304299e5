"""The one registry of live tables, and of the venues that own them.

A *venue* is what a server's lease carries and a restart brings back: a cash table (which owns
itself) or a tournament (which owns the tables it opens and breaks). The registry finds a live
table by its id (the id every button carries) and by its channel or thread, whatever its kind,
in one lookup; a venue by its own channel. Tables join when they open and leave when they
close or break; a venue that is over leaves with all its tables, and the runtime is told so
its last messages can go out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from bot.runtime.table import LiveTable


class Venue(Protocol):
    """A cash table or a tournament, as the runtime keeps it."""

    @property
    def venue_key(self) -> tuple[str, int]: ...

    @property
    def guild_id(self) -> int: ...

    @property
    def channel_id(self) -> int: ...

    @property
    def awaits_player(self) -> bool: ...

    async def start(self) -> None: ...

    async def shutdown(self, drain: float = 0.0) -> None: ...

    async def flush(self, timeout: float) -> None: ...

    async def set_locale(self, locale: str) -> None: ...


class Registry:
    """Live tables by id and by channel; venues by key and by channel."""

    def __init__(self, on_over: Callable[[Venue], None]) -> None:
        self._on_over = on_over
        self._tables: dict[int, LiveTable[Any]] = {}
        self._by_channel: dict[int, LiveTable[Any]] = {}
        self._venues: dict[tuple[str, int], Venue] = {}
        self._venue_channels: dict[int, Venue] = {}

    # -- tables ----------------------------------------------------------------------------

    def add_table(self, table: LiveTable[Any]) -> None:
        self._tables[table.table_id] = table
        self._by_channel[table.channel_id] = table

    def drop_table(self, table: LiveTable[Any]) -> None:
        if self._tables.get(table.table_id) is table:
            del self._tables[table.table_id]
        if self._by_channel.get(table.channel_id) is table:
            del self._by_channel[table.channel_id]

    def table(self, table_id: int) -> LiveTable[Any] | None:
        return self._tables.get(table_id)

    def in_channel(self, channel_id: int | None) -> LiveTable[Any] | None:
        return self._by_channel.get(channel_id) if channel_id is not None else None

    def tables(self) -> Iterator[LiveTable[Any]]:
        return iter(list(self._tables.values()))

    # -- venues ----------------------------------------------------------------------------

    def add_venue(self, venue: Venue) -> None:
        self._venues[venue.venue_key] = venue
        self._venue_channels[venue.channel_id] = venue

    def drop_venue(self, venue: Venue) -> None:
        """Forget a venue and every table it owns (it stopped, or another process runs it)."""
        if self._venues.get(venue.venue_key) is venue:
            del self._venues[venue.venue_key]
        if self._venue_channels.get(venue.channel_id) is venue:
            del self._venue_channels[venue.channel_id]
        for table in list(self._tables.values()):
            if table.venue is venue:
                self.drop_table(table)

    def venue_over(self, venue: Venue) -> None:
        """A venue ended itself (closed, over, cancelled)."""
        self.drop_venue(venue)
        self._on_over(venue)

    def knows(self, key: tuple[str, int]) -> bool:
        return key in self._venues

    def venue_in(self, channel_id: int | None) -> Venue | None:
        """The venue whose own channel this is, or that owns the table playing here."""
        if channel_id is None:
            return None
        found = self._venue_channels.get(channel_id)
        if found is not None:
            return found
        table = self._by_channel.get(channel_id)
        return table.venue if table is not None else None

    def venues(self, guild_id: int | None = None) -> list[Venue]:
        return [v for v in self._venues.values() if guild_id is None or v.guild_id == guild_id]
