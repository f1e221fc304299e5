"""Direct messages of one table: hole cards at the deal, and notices a player must get even when
the channel cannot reach him. A DM may fail (closed DMs are common); the game never waits on
one: each goes out from its own task, and a player whose DMs are closed is told once, in the
channel, to use the "My cards" button instead."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import discord

from bot.errors import DM_CLOSED
from bot.render import HoleCardsView, Labels, render_hole_cards
from bot.runtime.messenger import NOBODY, image_file
from bot.runtime.rendering import render

log = logging.getLogger(__name__)


class Delivery(Enum):
    SENT = "sent"
    CLOSED = "closed"  # the user does not accept DMs from the bot (50007)
    FAILED = "failed"  # Discord refused for another reason; already logged


@dataclass(frozen=True, slots=True)
class HoleCardsLetter:
    """One player's private message: text, and the image of his two cards."""

    user_id: int
    text: str
    view: HoleCardsView
    labels: Labels


async def send_hole_cards(client: discord.Client, letter: HoleCardsLetter) -> Delivery:
    """DM one player his cards, as an image with alt text and as text."""
    image = await render(render_hole_cards, letter.view, letter.labels)
    try:
        channel = await client.create_dm(discord.Object(id=letter.user_id))
        await channel.send(letter.text, file=image_file(image), allowed_mentions=NOBODY)
    except discord.Forbidden as exc:
        if exc.code == DM_CLOSED:
            return Delivery.CLOSED
        log.warning("could not DM user %d: %s", letter.user_id, exc.status)
        return Delivery.FAILED
    except discord.HTTPException as exc:
        log.warning("could not DM user %d: %s", letter.user_id, exc.status)
        return Delivery.FAILED
    return Delivery.SENT


class DirectMessages:
    """Sends a table's DMs in the background and remembers who cannot get them."""

    def __init__(
        self, client: discord.Client, table_id: int, on_closed: Callable[[int], None]
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.on_closed = on_closed  # told once per player whose DMs are closed
        self.closed_dms: set[int] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    def deal(self, letters: Sequence[HoleCardsLetter]) -> None:
        for letter in letters:
            self.spawn(self._deliver(letter))

    def notify(self, user_id: int, text: str) -> None:
        """A plain DM (best effort: a closed DM loses it, and that is logged only)."""
        self.spawn(self._notify(user_id, text))

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run background work of the table that ``close`` waits for (or cancels)."""
        task = asyncio.create_task(coroutine, name=f"table-{self.table_id}-background")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, user_id: int, text: str) -> None:
        try:
            channel = await self.client.create_dm(discord.Object(id=user_id))
            await channel.send(text, allowed_mentions=NOBODY)
        except discord.HTTPException as exc:
            log.info("table %d: notice to user %d not delivered (%s)", self.table_id, user_id,
                     exc.status)

    async def _deliver(self, letter: HoleCardsLetter) -> None:
        try:
            outcome = await send_hole_cards(self.client, letter)
        except Exception:
            if not self.client.is_closed():
                log.exception("table %d: hole-card DM failed", self.table_id)
            return
        if outcome is Delivery.CLOSED and letter.user_id not in self.closed_dms:
            self.closed_dms.add(letter.user_id)
            self.on_closed(letter.user_id)

    async def close(self, timeout: float = 0.0) -> None:
        """Let DMs in flight finish for ``timeout`` seconds, then cancel the rest."""
        pending = list(self._tasks)
        if pending and timeout > 0:
            await asyncio.wait(pending, timeout=timeout)
        for task in pending:
            task.cancel()
