"""Everything a table says in its channel, in order, within Discord's rate limits.

One queue per table. The table message of the current hand is posted once and then edited;
bursts of changes coalesce into one edit (only the latest state is drawn), and a change that
does not affect whose turn it is waits ``calm_edit_interval`` after the previous send. Every
send, edit or post counts against ``channel_sends`` per ``channel_window`` (Discord allows about
5 per 5 s per channel), so the bot slows itself down instead of collecting 429s.

Images are rendered here, in a worker thread, from views built when the change happened: the
event loop never draws, and what is drawn is exactly the state that was asked for.

Discord is edited with the bot token (interaction tokens expire after 15 minutes); a failed
send is logged and dropped: the next state replaces it anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.presenter import ButtonSpec, TableMessage
from bot.render import Labels, RenderedImage, TableView, render_table
from bot.runtime.config import RuntimeOptions
from bot.runtime.rendering import render

log = logging.getLogger(__name__)

ViewFactory = Callable[[int, Sequence[ButtonSpec]], "discord.ui.View | None"]
PostedHook = Callable[[int], Awaitable[None]]


@dataclass(slots=True)
class _Job:
    table: bool  # the table message (create or edit) rather than a separate post
    content: str
    view: TableView | None
    labels: Labels
    buttons: tuple[ButtonSpec, ...]
    new: bool = False  # post a new table message rather than edit the current one
    urgent: bool = True
    hand_number: int = 0


def image_file(image: RenderedImage) -> discord.File:
    """An attachment with the image's alt text, for screen readers."""
    return discord.File(io.BytesIO(image.png), filename=image.filename, description=image.alt_text)


class TableMessenger:
    """The table's voice in its channel: ``show`` the table, ``post`` results and notices."""

    def __init__(
        self,
        client: discord.Client,
        table_id: int,
        channel_id: int,
        options: RuntimeOptions,
        view_factory: ViewFactory,
        on_posted: PostedHook,
        message_id: int | None = None,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.channel_id = channel_id
        self.options = options
        self.view_factory = view_factory
        self.on_posted = on_posted
        self.message_id = message_id
        # The hand the current message shows (None: unknown, e.g. posted before a restart).
        self.message_hand: int | None = None
        # The current message may carry buttons from before a restart until proven otherwise.
        self._buttons_shown = message_id is not None
        self._jobs: deque[_Job] = deque()
        self._sent: deque[float] = deque(maxlen=max(1, options.channel_sends))
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    # -- requests (synchronous: callers never wait on Discord) ---------------------------------

    def show(self, message: TableMessage, labels: Labels, *, new: bool = False,
             urgent: bool = True) -> None:
        """Show this state of the table: on a new message, or by editing the current one."""
        last = self._jobs[-1] if self._jobs else None
        if not new and last is not None and last.table:
            # Coalesce: the queued send shows the newest state instead of an outdated one.
            last.content, last.view, last.labels = message.content, message.view, labels
            last.buttons, last.hand_number = message.buttons, message.hand_number
            last.urgent = last.urgent or urgent
        else:
            self._jobs.append(
                _Job(
                    True,
                    message.content,
                    message.view,
                    labels,
                    message.buttons,
                    new,
                    urgent,
                    message.hand_number,
                )
            )
        self._kick()

    def post(
        self,
        content: str,
        labels: Labels,
        *,
        view: TableView | None = None,
        buttons: Sequence[ButtonSpec] = (),
    ) -> None:
        """A separate message (a result, a notice), after everything asked before it."""
        self._jobs.append(_Job(False, content, view, labels, tuple(buttons)))
        self._kick()

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything asked so far has been sent (or given up)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._idle.wait()

    async def close(self) -> None:
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- the sending loop ------------------------------------------------------------------

    def _kick(self) -> None:
        if self._closed:
            self._jobs.clear()
            return
        self._idle.clear()
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"table-{self.table_id}-messages")

    def _delay(self, job: _Job) -> float:
        now = time.monotonic()
        wait = 0.0
        if len(self._sent) == self._sent.maxlen:
            wait = self._sent[0] + self.options.channel_window - now
        if not job.urgent and self._sent:
            wait = max(wait, self._sent[-1] + self.options.calm_edit_interval - now)
        return max(0.0, wait)

    async def _run(self) -> None:
        while not self._closed:
            if not self._jobs:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            job = self._jobs[0]
            delay = self._delay(job)
            if delay > 0:
                # An urgent change arriving meanwhile may shorten the wait: look again then.
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
                continue
            self._jobs.popleft()
            try:
                await self._send(job)
            except asyncio.CancelledError:
                raise
            except discord.HTTPException as exc:
                log.warning("table %d: message not sent (%s)", self.table_id, exc)
            except Exception:
                if self.client.is_closed():
                    return  # shutting down: storage has the state, the next start reposts it
                log.exception("table %d: message not sent", self.table_id)

    def _stamp(self) -> None:
        self._sent.append(time.monotonic())

    async def _render(self, job: _Job) -> discord.File | None:
        if job.view is None:
            return None
        image = await render(render_table, job.view, job.labels)
        return image_file(image)

    async def _send(self, job: _Job) -> None:
        channel = self.client.get_partial_messageable(self.channel_id)
        view = self.view_factory(self.table_id, job.buttons) if job.buttons else None
        file = await self._render(job)
        if not job.table:
            kwargs: dict[str, Any] = {"content": job.content}
            if file is not None:
                kwargs["file"] = file
            if view is not None:
                kwargs["view"] = view
            self._stamp()
            await channel.send(**kwargs)
            return
        if not job.new and self.message_id is not None:
            self._stamp()
            try:
                await channel.get_partial_message(self.message_id).edit(
                    content=job.content,
                    attachments=[file] if file is not None else [],
                    view=view,
                )
                self._buttons_shown = view is not None
                self.message_hand = job.hand_number
                return
            except discord.NotFound:
                log.info("table %d: its message is gone; posting it again", self.table_id)
                self.message_id = None
                file = await self._render(job)  # the first file's buffer was consumed
        await self._retire_current()
        self._stamp()
        kwargs = {"content": job.content}
        if file is not None:
            kwargs["file"] = file
        if view is not None:
            kwargs["view"] = view
        message = await channel.send(**kwargs)
        self.message_id = message.id
        self.message_hand = job.hand_number
        self._buttons_shown = view is not None
        await self.on_posted(message.id)

    async def _retire_current(self) -> None:
        """Take the buttons off the message being replaced, so nobody plays from it."""
        if self.message_id is None or not self._buttons_shown:
            return
        channel = self.client.get_partial_messageable(self.channel_id)
        self._stamp()
        try:
            await channel.get_partial_message(self.message_id).edit(view=None)
        except discord.HTTPException as exc:
            log.info("table %d: could not clear old buttons (%s)", self.table_id, exc)
        self._buttons_shown = False
