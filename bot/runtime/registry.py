"""The one registry of live tables, and of the venues that own them.

A *venue* is what a server's lease carries and a restart brings back: a cash table (which owns
itself) or a tournament (which owns the tables it opens and breaks). The registry finds a live
table by its id (the id every button carries) and by its channel or thread, whatever its kind,
in one lookup; a venue by its own channel. Tables join when they open and leave when they
close or break; a venue that is over leaves with all its tables, and the runtime is told so
its last messages can go out.

Its lookups are what commands and buttons ask: :meth:`Registry.table` by id and
:meth:`Registry.table_in` by channel find any kind of table; :meth:`Registry.cash_table` and
:meth:`Registry.cash_table_in` find a cash or practice table, refusing where a tournament plays
with the tournament's reason for the extra the command needs. A table not found is refused
with the reason a member can act on (``table_closed``, ``no_table``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from bot.errors import BotError
from bot.runtime.cash import CashTable
from bot.runtime.kinds import TOURNAMENT, Extra
from bot.runtime.table import LiveTable
from bot.runtime.tourney import LiveTournament


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

    async def start(self, *, anew: bool = True) -> None: ...

    async def shutdown(self, drain: float = 0.0) -> None: ...

    async def flush(self, timeout: float) -> None: ...

    async def set_locale(self, locale: str) -> None: ...


class Registry:
    """Live tables by id and by channel; venues by key and by channel."""

    def __init__(
        self,
        on_over: Callable[[Venue], None],
        on_stale: Callable[[Venue], None] = lambda venue: None,
    ) -> None:
        self._on_over = on_over
        self._on_stale = on_stale
        self._tables: dict[int, LiveTable[Any]] = {}
        self._by_channel: dict[int, LiveTable[Any]] = {}
        self._venues: dict[tuple[str, int], Venue] = {}
        self._venue_channels: dict[int, Venue] = {}

    # -- lookups: what commands and buttons ask ----------------------------------------------

    def table(self, table_id: int) -> LiveTable[Any]:
        """A table by id, any kind (the id its buttons carry)."""
        found = self._tables.get(table_id)
        if found is None:
            raise BotError("table_closed")
        return found

    def table_in(self, channel_id: int | None) -> LiveTable[Any]:
        """The table played in a channel or thread, any kind: where players act."""
        found = self.find_in(channel_id)
        if found is None:
            raise BotError("no_table")
        return found

    def cash_table(self, table_id: int, *, needs: Extra | None = None) -> CashTable:
        """A cash (or practice) table by id; ``needs``: the home-game extra the command uses,
        refused with the kind's own reason where it is not played."""
        return self._cash(self.table(table_id), needs)

    def cash_table_in(self, channel_id: int | None, *, needs: Extra | None = None) -> CashTable:
        """The cash (or practice) table of a channel: players act where the table is, nowhere
        else. Where a tournament plays, the refusal is its kind's for the extra the command
        ``needs`` (else: a tournament has none of a cash table's buy-ins and floor)."""
        found = self.find_in(channel_id)
        if found is None:
            if self.tournament_in(channel_id) is None:
                raise BotError("no_table")
            if needs is not None:
                TOURNAMENT.require(needs)  # registering: its tables are a tournament's
            raise BotError("not_in_tournament")
        return self._cash(found, needs)

    def tournament_in(self, channel_id: int | None) -> LiveTournament | None:
        """The open tournament whose channel this is, or one of whose tables plays here."""
        found = self.venue_in(channel_id)
        return found if isinstance(found, LiveTournament) else None

    def tournaments(self, guild_id: int | None = None) -> list[LiveTournament]:
        """The open tournaments (of one server)."""
        return [v for v in self.venues(guild_id) if isinstance(v, LiveTournament)]

    def cash_tables(self) -> list[CashTable]:
        """The open cash and practice tables."""
        return [t for t in self._tables.values() if isinstance(t, CashTable)]

    @staticmethod
    def _cash(found: LiveTable[Any], needs: Extra | None) -> CashTable:
        if needs is not None:
            found.kind.require(needs)  # a practice table has no session ledger
        if not isinstance(found, CashTable):
            raise BotError("not_in_tournament")
        return found

    # -- tables ----------------------------------------------------------------------------

    def add_table(self, table: LiveTable[Any]) -> None:
        self._tables[table.table_id] = table
        self._by_channel[table.channel_id] = table

    def drop_table(self, table: LiveTable[Any]) -> None:
        if self._tables.get(table.table_id) is table:
            del self._tables[table.table_id]
        if self._by_channel.get(table.channel_id) is table:
            del self._by_channel[table.channel_id]

    def find(self, table_id: int) -> LiveTable[Any] | None:
        return self._tables.get(table_id)

    def find_in(self, channel_id: int | None) -> LiveTable[Any] | None:
        return self._by_channel.get(channel_id) if channel_id is not None else None

    def tables(self) -> Iterator[LiveTable[Any]]:
        return iter(list(self._tables.values()))

    # -- venues ----------------------------------------------------------------------------

    def add_venue(self, venue: Venue) -> None:
        self._venues[venue.venue_key] = venue
        self._venue_channels[venue.channel_id] = venue

    def venue_moved(self, venue: Venue, old_channel: int) -> None:
        """A venue's own channel is now ``venue.channel_id`` (it left ``old_channel``)."""
        if self._venue_channels.get(old_channel) is venue:
            del self._venue_channels[old_channel]
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

    def venue_stale(self, venue: Venue) -> None:
        """What a venue holds may differ from storage (a commit whose answer was lost): it is
        to be taken up again from storage, as after a restart."""
        if self._venues.get(venue.venue_key) is venue:
            self._on_stale(venue)

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
