"""A venue taken up again from storage is not mistaken for an abandoned one meanwhile.

While a venue reloads (a commit whose answer was lost, during a storage fault), it is out of
the registry. The lease keeper adopts every open venue the registry does not know, as after
another process died, and an adopted venue posts its table message anew: the players would see
the same hand's table twice. These tests drive ``Venues`` with stand-ins for storage and the
venue, no Discord.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, cast

from bot.runtime.registry import Registry
from bot.runtime.venues import Venues, _VenueKind

GUILD = 7
KEY = ("tournament", 1)


class Health:
    """Storage that answers once ``back`` is set."""

    def __init__(self) -> None:
        self.back = asyncio.Event()

    async def wait_available(self) -> None:
        await self.back.wait()


@dataclass
class StoredVenue:
    venue_key: tuple[str, int] = KEY
    guild_id: int = GUILD
    channel_id: int = 70
    awaits_player: bool = True
    starts: list[bool] = field(default_factory=list)
    stopped: bool = False

    async def start(self, *, anew: bool = True) -> None:
        self.starts.append(anew)

    async def shutdown(self, drain: float = 0.0) -> None:
        self.stopped = True

    async def flush(self, timeout: float) -> None:
        return None

    async def set_locale(self, locale: str) -> None:
        return None


class Ownership:
    async def serves(self, guild_id: int | None) -> bool:
        return guild_id == GUILD


def venues_with(restored: list[StoredVenue]) -> tuple[Venues, Registry, Health, set[Any]]:
    health = Health()
    db = type("Db", (), {"health": health})()
    registry = Registry(on_over=lambda venue: None)
    tasks: set[Any] = set()

    async def open_guilds(_: Any) -> dict[int, int]:
        return {KEY[1]: GUILD}

    async def restore(venue_id: int) -> StoredVenue:
        venue = StoredVenue()
        restored.append(venue)
        return venue

    venues = Venues(cast(Any, None), cast(Any, db), cast(Any, Ownership()), registry,
                    services=lambda: cast(Any, None), keep=tasks.add, guilds=set())
    venues._kinds = cast(Any, (_VenueKind("tournament", open_guilds, restore),))
    return venues, registry, health, tasks


async def test_the_lease_keeper_leaves_a_reloading_venue_to_its_reload() -> None:
    restored: list[StoredVenue] = []
    venues, registry, health, tasks = venues_with(restored)
    playing = StoredVenue()
    registry.add_venue(playing)

    venues.stale(playing)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert playing.stopped and not registry.knows(KEY)

    # The lease keeper's pass while storage is still away, and again once it is back.
    assert await venues.adopt() == []
    health.back.set()
    assert await venues.adopt() == []
    await asyncio.gather(*tasks)

    # Exactly one venue came back, and it kept the message its players look at.
    assert len(restored) == 1
    assert registry.knows(KEY)
    assert restored[0].starts == [False]


async def test_a_venue_nobody_reloads_is_still_adopted() -> None:
    restored: list[StoredVenue] = []
    venues, _, _, tasks = venues_with(restored)
    assert await venues.adopt() == [KEY]
    await asyncio.gather(*tasks)
    assert len(restored) == 1 and restored[0].starts == [True]
