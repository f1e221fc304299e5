"""Direct messages of one table: hole cards at the deal, and notices a player must get even when
the channel cannot reach him. A DM may fail (closed DMs are common); the game never waits on
one: each goes out from its own task, and a player whose DMs are closed is told once, in the
channel, to use the "My cards" button instead. A DM that Discord failed (a 5xx, a connection
refused or reset) is sent again a few times, with the nonce of its first try so that one whose
answer was lost is not sent twice; after that his cards are still behind "My cards"."""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import discord

from bot.errors import DM_CLOSED, is_discord_fault, retry_after_of, retry_delay
from bot.logs import cause_of
from bot.render import HoleCardsView, Labels, render_hole_cards
from bot.runtime.budget import Priority, requests_at
from bot.runtime.messenger import NOBODY, image_file
from bot.runtime.rendering import render
from engine.bots.ids import is_bot

log = logging.getLogger(__name__)

# A DM Discord failed is tried this many times in all (about half a minute with the backoff).
DM_TRIES = 6


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


class DmChannels:
    """Every player's DM channel, asked of Discord once per process (discord.py keeps only
    the last 128), and who has DMs closed, so the bot does not spend a request a hand on
    a DM it knows will be refused (it tries again after ``closed_for`` seconds, in case
    he opened them)."""

    def __init__(
        self,
        size: int = 50_000,
        closed_for: float = 600.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.size = size
        self.closed_for = closed_for
        self._monotonic = monotonic
        self._ids: OrderedDict[int, int] = OrderedDict()
        self._closed: dict[int, float] = {}

    def is_closed(self, user_id: int) -> bool:
        until = self._closed.get(user_id)
        if until is None:
            return False
        if until <= self._monotonic():
            del self._closed[user_id]
            return False
        return True

    def closed(self, user_id: int) -> None:
        self._closed[user_id] = self._monotonic() + self.closed_for

    async def channel(self, client: discord.Client, user_id: int) -> discord.abc.Messageable:
        known = self._ids.get(user_id)
        if known is not None:
            self._ids.move_to_end(user_id)
            return client.get_partial_messageable(known, type=discord.ChannelType.private)
        channel = await client.create_dm(discord.Object(id=user_id))
        self._ids[user_id] = channel.id
        if len(self._ids) > self.size:
            self._ids.popitem(last=False)
        return channel


async def send_hole_cards(
    client: discord.Client, letter: HoleCardsLetter, *, channels: DmChannels
) -> Delivery:
    """DM one player his cards, as an image with alt text and as text: what he needs to act,
    so it goes out among the first of the bot's requests."""
    if channels.is_closed(letter.user_id):
        return Delivery.CLOSED
    image = await render(render_hole_cards, letter.view, letter.labels)
    try:
        with requests_at(Priority.PLAYER):
            await send_dm(client, letter.user_id, channels, letter.text,
                          lambda: {"file": image_file(image)})
    except discord.Forbidden as exc:
        if exc.code == DM_CLOSED:
            channels.closed(letter.user_id)
            return Delivery.CLOSED
        log.warning("could not DM user %d: %s", letter.user_id, exc.status)
        return Delivery.FAILED
    except Exception as exc:
        if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
            raise
        # A fault of Discord's repeated: the link wrote the WARNING.
        level = logging.INFO if is_discord_fault(exc) else logging.WARNING
        log.log(level, "could not DM user %d: %s", letter.user_id, cause_of(exc))
        return Delivery.FAILED
    return Delivery.SENT


async def send_dm(
    client: discord.Client,
    user_id: int,
    channels: DmChannels,
    text: str,
    extra: Callable[[], dict[str, Any]] = dict,
) -> None:
    """Send ``text`` (and what ``extra`` makes anew for each try: a file is read once) to the
    user's DM channel; a fault of Discord's is tried again up to ``DM_TRIES`` times in all,
    with the nonce of the first try, then raised like a refusal."""
    nonce = secrets.randbits(62)
    for tries in itertools.count(1):
        try:
            channel = await channels.channel(client, user_id)
            await channel.send(text, allowed_mentions=NOBODY, nonce=nonce, **extra())
            return
        except Exception as exc:
            if not is_discord_fault(exc) or tries >= DM_TRIES or client.is_closed():
                raise
            await asyncio.sleep(retry_delay(tries, retry_after_of(exc)))


class DirectMessages:
    """Sends a table's DMs in the background and remembers who cannot get them."""

    def __init__(
        self,
        client: discord.Client,
        table_id: int,
        on_closed: Callable[[int], None],
        *,
        channels: DmChannels,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.channels = channels
        self.on_closed = on_closed  # told once per player whose DMs are closed
        self.closed_dms: set[int] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    def deal(self, letters: Sequence[HoleCardsLetter]) -> None:
        for letter in letters:
            if not is_bot(letter.user_id):  # a computer player reads no DMs
                self.spawn(self._deliver(letter))

    def notify(self, user_id: int, text: str) -> None:
        """A plain DM (best effort: a closed DM loses it, and that is logged only)."""
        if not is_bot(user_id):
            self.spawn(self._notify(user_id, text))

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run background work of the table that ``close`` waits for (or cancels)."""
        task = asyncio.create_task(coroutine, name=f"table-{self.table_id}-background")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, user_id: int, text: str) -> None:
        if self.channels.is_closed(user_id):
            return
        try:
            with requests_at(Priority.TABLE):
                await send_dm(self.client, user_id, self.channels, text)
        except Exception as exc:
            if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
                raise
            log.info("table %d: notice to user %d not delivered (%s)", self.table_id, user_id,
                     cause_of(exc))

    async def _deliver(self, letter: HoleCardsLetter) -> None:
        try:
            outcome = await send_hole_cards(self.client, letter, channels=self.channels)
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
