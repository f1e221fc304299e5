"""Everything a table says in its channel, in order, within Discord's rate limits.

One queue per table, worked through in order: a hand's result always goes out before the next
hand's table message, and the next hand's hole cards are dealt (``then``) only once the messages
queued before them went out. The table message of the current hand is posted once and then
edited; bursts of changes coalesce into one edit (only the latest state is drawn), a change that
does not affect whose turn it is waits ``calm_edit_interval`` after the previous send, and a
repost asked while one is queued joins it. Every send, edit or post counts against
``channel_sends`` per ``channel_window`` (Discord allows about 5 per 5 s per channel), so the bot
slows itself down instead of collecting 429s; Discord's own word that the channel's bucket is
spent (``RequestBudget.bucket_delay``) holds the queue too. While the bot's request budget is
busy the head of the queue waits before it leaves, so that later changes join it; the request
takes its token as it goes out (``bot.runtime.budget``), at its priority: a table message
naming the player to act before other messages. A table message posted anew takes the
buttons off the one it replaces afterwards, beside the queue and last of all requests.

A table message that names the player to act gets its countdown when it goes out: the messenger
asks ``on_prompt`` (the table's clock, which starts the player's time then) for the deadline. Only
that player may be pinged by it; nothing else the table sends pings anybody.

Images are rendered here, in a worker thread, from views built when the change happened: the event
loop never draws, and what is drawn is exactly the state that was asked for. Text longer than a
Discord message is split on line boundaries.

A press of a button on the table message is answered by the edit that shows its effect (an
interaction response updating that message, which Discord does not count against the bot's
request budget) whenever that edit can go out in time; otherwise the presser gets a private
confirmation and the table message is edited as usual. An edit that would change nothing is not
sent.

If Discord refuses the bot access to the channel (permissions were taken away), the messenger
stops sending there and calls ``on_forbidden`` once; the table decides what to do (it pauses).

Nothing the table shows is lost when Discord fails a request (a 5xx, which discord.py does not
retry for a 503, a connection refused or reset, a timeout: ``bot.errors.is_discord_fault``):
what failed stays at the head of the queue, *owed*, and is tried again after a backoff
(``bot.errors.retry_delay``: doubling, capped, never sooner than Discord's ``retry_after``),
within the same channel pacing and request budget as any send, until it goes out. Nothing
behind it overtakes it (a result never comes after the next hand's table), and ``then``
callbacks wait for it. An owed edit of the table message that a newer state of the same
message follows (behind results or notices, not past a pause or a callback) is replaced by it
rather than sent first. Retrying is safe: a new message is sent with a nonce that Discord
enforces, kept across tries, so a create whose answer was lost returns the message it made
rather than a second one (and if the table changed meanwhile, that message is then edited to
the newer state); an edit carries the whole state, so sending it twice changes nothing. A table
message too old to edit (Discord's 30046, after an hour of edits) is posted anew. A press that
the table's update would answer, while that update is owed, is confirmed privately at once.
The player's time starts only once the message naming him went out (``on_prompt``, twice:
``sending`` for the deadline to write, then as it went out).

When Discord has been out of reach for a while (an outage, ``bot.runtime.link``), the decision
clocks hold; when it ends, the messenger sends what it owes at once, and shows the player to act
his turn again with his time started over. On shutdown nothing owed is waited for beyond the
drain's deadline: storage holds the state, and the next start posts every table again.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import io
import itertools
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from bot.errors import (
    ALREADY_ACKNOWLEDGED,
    EDITS_EXHAUSTED,
    is_discord_fault,
    retry_after_of,
    retry_delay,
)
from bot.logs import cause_of
from bot.presenter import ButtonSpec, TableMessage
from bot.render import Labels, RenderedImage, TableView, render_table
from bot.runtime.budget import Priority, RequestBudget, channel_bucket, requests_at
from bot.runtime.clock import Reach
from bot.runtime.config import RuntimeOptions
from bot.runtime.rendering import backlog, render

log = logging.getLogger(__name__)

ViewFactory = Callable[[int, Sequence[ButtonSpec]], "discord.ui.View | None"]
PostedHook = Callable[[int], Awaitable[None]]


class PromptHook(Protocol):
    """The table's clock (``DecisionClock.shown``): the deadline a message naming the player of
    a decision shows; ``sending`` as it is about to leave, then without it once it went out."""

    def __call__(self, marker: tuple[int, int], /, *, sending: bool = ...,
                 again: bool = ...) -> int | None: ...


MESSAGE_LIMIT = 2000
# A press waits for the table's update only if what the table is sending now should be out
# within this long (else it is confirmed privately at once: the answer has 3 s in all).
PRESS_PATIENCE = 0.5
# Discord's codes for "the bot may not see or post in this channel".
NO_ACCESS = frozenset({50001, 50013})
NOBODY = discord.AllowedMentions.none()
# Old buttons are taken off a replaced message at most this many times before giving up (a
# press on them acts only on the decision they were drawn for anyway).
TIDY_TRIES = 4


def split_text(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut between lines where possible.

    >>> split_text("a\\nbb\\ncc", 4)
    ['a\\nbb', 'cc']
    """
    pieces: list[str] = []
    current: str | None = None  # the piece being filled (None: nothing in it yet)
    for line in text.split("\n"):
        while len(line) > limit:  # a single line too long for a message: cut it hard
            if current is not None:
                pieces.append(current)
                current = None
            pieces.append(line[:limit])
            line = line[limit:]
        joined = line if current is None else f"{current}\n{line}"
        if len(joined) > limit:
            assert current is not None
            pieces.append(current)
            current = line
        else:
            current = joined
    if current is not None:
        pieces.append(current)
    return pieces


class Press:
    """A button press on the table message, waiting to be answered by the table's next edit.

    Exactly one side answers it: the messenger (updating the message) or, when that does not
    happen in time, the handler (a private confirmation). ``take`` decides who.
    """

    __slots__ = ("answered", "interaction", "taken")

    def __init__(self, interaction: discord.Interaction[Any]) -> None:
        self.interaction = interaction
        self.taken = False
        self.answered = asyncio.Event()

    def take(self) -> bool:
        if self.taken:
            return False
        self.taken = True
        return True


@dataclass(slots=True)
class _Job:
    kind: str  # "table" (the table message), "post" (a separate message), "pause" or "then"
    message: TableMessage | None = None
    content: str = ""
    view: TableView | None = None
    labels: Labels | None = None
    buttons: tuple[ButtonSpec, ...] = ()
    new: bool = False  # post a new table message rather than edit the current one
    urgent: bool = True
    callback: Callable[[], None] | None = None
    seconds: float = 0.0  # a pause: how long the channel stays as it is
    until: float | None = None  # a pause at the head of the queue: when it ends
    presses: list[Press] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    # Discord failed it this many times in a row; owed since (monotonic); not tried before.
    failures: int = 0
    owed_since: float | None = None
    retry_at: float = 0.0
    # A new message's nonce (a post's piece k uses nonce + k), kept across tries; the pieces
    # of a post that went out already.
    nonce: int | None = None
    pieces_sent: int = 0
    # A create that Discord may have taken although it failed: the state it carried then
    # (``version`` counts the states coalesced into the job).
    version: int = 0
    tried_version: int | None = None
    # The image drawn for it: (view, labels, image), drawn once for all tries.
    drawn: tuple[object, object, RenderedImage | None] | None = None

    @property
    def label(self) -> str:
        return "table" if self.kind == "table" else "post"

    def new_nonce(self) -> int:
        if self.nonce is None:
            self.nonce = secrets.randbits(62)
        return self.nonce


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
        *,
        on_prompt: PromptHook | None = None,
        on_forbidden: Callable[[], None] | None = None,
        budget: RequestBudget | None = None,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.channel_id = channel_id
        self.options = options
        self.view_factory = view_factory
        self.on_posted = on_posted
        self.on_prompt = on_prompt
        self.on_forbidden = on_forbidden
        self.budget = budget if budget is not None else RequestBudget(options.requests_per_second)
        self.message_id = message_id
        # The current message may carry buttons from before a restart until proven otherwise.
        self._buttons_shown = message_id is not None
        self._jobs: deque[_Job] = deque()
        self._sending: _Job | None = None  # taken off the queue, its request not done yet
        self._sent: deque[float] = deque(maxlen=max(1, options.channel_sends))
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        # Old table messages losing their buttons, beside the queue (see ``_tidy``), and the
        # priority their requests wait at (raised when the table's next message is due).
        self._tidying: set[asyncio.Task[None]] = set()
        self._tidy_level = Priority.TIDY
        self._closed = False
        self.blocked = False  # the channel refused us; nothing is sent until ``unblock``
        # What the table message shows now, so that an edit changing nothing is not sent, and
        # the state it shows (sent again, with a new countdown, after an outage).
        self._shown: tuple[object, ...] | None = None
        self._current: tuple[TableMessage, Labels | None] | None = None
        # The decision whose player the table message named last (his time runs since), and
        # the one whose time starts over with the next message naming him (after an outage).
        self._prompted: tuple[int, int] | None = None
        self._again: tuple[int, int] | None = None
        self.budget.link.join(self)

    # -- requests (synchronous: callers never wait on Discord) ---------------------------------

    @property
    def repost_pending(self) -> bool:
        """A new table message is queued and nothing after it: another repost would join it."""
        last = self._jobs[-1] if self._jobs else None
        return last is not None and last.kind == "table" and last.new

    def show(
        self, message: TableMessage, labels: Labels, *, new: bool = False, urgent: bool = True
    ) -> None:
        """Show this state of the table: on a new message, or by editing the current one."""
        last = self._jobs[-1] if self._jobs else None
        if last is not None and last.kind == "table" and last.tried_version is None:
            # Coalesce: the queued send shows the newest state instead of an outdated one (an
            # owed edit too), and reposts asked while one waits are that same repost (at most
            # one is ever queued). Not into a create Discord may have taken already: sent
            # again with its nonce, it returns the message as first sent, so the newer state
            # follows as an edit.
            last.message, last.labels = message, labels
            last.urgent = last.urgent or urgent
            last.new = last.new or new
            last.version += 1
        else:
            self._jobs.append(_Job("table", message, labels=labels, new=new, urgent=urgent))
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
        self._jobs.append(
            _Job("post", content=content, view=view, labels=labels, buttons=tuple(buttons))
        )
        self._kick()

    def answer(self, interaction: discord.Interaction[Any]) -> Press | None:
        """Let the queued edit of the table message answer a press of one of its buttons;
        None when no such edit is queued (the caller confirms privately instead)."""
        pressed = interaction.message
        if pressed is None or pressed.id != self.message_id or self.blocked or self._closed:
            return None
        # The newest edit before any pause: one after it would answer too late.
        edit: _Job | None = None
        for job in self._jobs:
            if job.kind == "pause":
                break
            if job.kind == "table":
                edit = job
        if edit is None or edit.new:
            return None  # none soon, or the pressed message is being replaced, not edited
        sending = self._sending
        if sending is not None and (
            sending.new or self.budget.delay(_priority(sending)) > PRESS_PATIENCE
        ):
            # Behind a new table message (after a restart: one waiting its turn among a
            # thousand) the edit would not be of the pressed message; behind a request
            # waiting for the budget it would come too late.
            return None
        if backlog() > PRESS_PATIENCE:
            return None  # its image would be drawn too late, behind the images queued
        press = Press(interaction)
        edit.presses.append(press)
        edit.urgent = True
        self._wake.set()
        return press

    def prompt_queued(self, marker: tuple[int, int]) -> Reach:
        """Whether the player of decision ``marker`` was told of it: a table message naming
        him is queued, being sent or owed (it will reach him, later: the bot's request budget
        is busy, or Discord failed it), or Discord cannot be reached at all."""
        if self.blocked or self._closed:
            return Reach.TOLD
        if self.budget.link.cut_off():
            return Reach.CUT_OFF
        jobs = [self._sending, *self._jobs]
        coming = any(
            job is not None and job.kind == "table" and job.message is not None
            and job.message.prompt is not None and job.message.prompt.marker == marker
            for job in jobs
        )
        return Reach.COMING if coming else Reach.TOLD

    def owed(self) -> tuple[int, float | None]:
        """Messages Discord failed and that are still to go, and since when the oldest has
        waited (for the metrics: a table shown stale that long)."""
        owed = [job for job in (self._sending, *self._jobs)
                if job is not None and job.owed_since is not None]
        return len(owed), min((job.owed_since for job in owed if job.owed_since is not None),
                              default=None)

    def discord_back(self, lasted: float) -> None:
        """Discord answers again after an outage: what is owed goes now, not at its next
        retry, and the player to act is shown his turn again, his time started over (he could
        neither see the table nor act meanwhile)."""
        if self._closed or self.blocked:
            return
        for job in self._jobs:
            job.retry_at = 0.0
        current = self._current
        prompt = current[0].prompt if current is not None else None
        if current is not None and prompt is not None and prompt.marker == self._prompted:
            self._again = prompt.marker
            if not any(job.kind == "table" for job in self._jobs):
                # (A newer state queued carries his new time anyway.)
                message, labels = current
                self._jobs.append(_Job("table", message, labels=labels))
        self._kick()

    def pause(self, seconds: float) -> None:
        """Leave what was asked before on screen for ``seconds`` before sending what follows
        (an all-in run-out, street by street)."""
        self._jobs.append(_Job("pause", seconds=max(0.0, seconds)))
        self._kick()

    def then(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once everything asked before has been sent (or given up)."""
        self._jobs.append(_Job("then", callback=callback))
        self._kick()

    def unblock(self) -> None:
        """Try the channel again (the host resumed the table after fixing permissions)."""
        self.blocked = False

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything asked so far has been sent (or given up)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._idle.wait()

    async def drain(self, timeout: float) -> None:
        """Send what is queued (for at most ``timeout`` seconds), then stop."""
        started = time.monotonic()
        await self.flush(timeout)
        if self._tidying:
            left = max(0.0, timeout - (time.monotonic() - started))
            await asyncio.wait(set(self._tidying), timeout=left)
        await self.close()

    async def close(self) -> None:
        self._closed = True
        self.budget.link.leave(self)
        task, self._task = self._task, None
        tasks = [t for t in (task, *self._tidying) if t is not None]
        for each in tasks:
            each.cancel()
        for each in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await each

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
        if job.kind == "then" or self.blocked:
            return 0.0
        if job.kind == "pause":
            now = time.monotonic()
            if job.until is None:
                job.until = now + job.seconds
            return max(0.0, job.until - now)
        if job.presses and not job.new:
            return 0.0  # answered through the press: not one of the channel's sends
        now = time.monotonic()
        wait = max(self._channel_delay(), job.retry_at - now)
        if not job.urgent and self._sent:
            wait = max(wait, self._sent[-1] + self.options.calm_edit_interval - now)
        priority = _priority(job)
        if priority <= Priority.PLAYER:
            # What a player waits for takes its place among the requests waiting for the
            # budget at once (later changes join the next edit meanwhile): waiting out an
            # estimate first, it would be overtaken by every request asked in the meantime.
            return max(0.0, wait)
        # Waiting for the bot's budget here, before the job leaves the queue, lets later
        # changes join it: an overloaded bot sends fewer, newer table edits. (The request
        # itself takes its token as it leaves, in the HTTP session.)
        return max(0.0, wait, self.budget.delay(priority))

    def _channel_delay(self) -> float:
        """Until the channel may take another send: our own count of what we sent in its
        window, or Discord's word that its bucket is spent (a previous process may have
        spent it)."""
        wait = 0.0
        if len(self._sent) == self._sent.maxlen:
            wait = self._sent[0] + self.options.channel_window - time.monotonic()
        return max(0.0, wait, self.budget.bucket_delay(channel_bucket(self.channel_id)))

    async def _run(self) -> None:
        while not self._closed:
            if not self._jobs:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            job = self._jobs[0]
            if job.failures and self._superseded(job):
                continue
            delay = self._delay(job)
            if delay > 0:
                # An urgent change arriving meanwhile may shorten the wait: look again then.
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
                continue
            self._jobs.popleft()
            self._sending = job
            if job.failures:
                self.budget.metrics.message_retried(job.label)
            owed = False
            try:
                await self._do(job)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.client.is_closed():
                    return  # shutting down: storage has the state, the next start shows it
                owed = self._failed(job, exc)
            finally:
                self._sending = None
            if owed:
                self._jobs.appendleft(job)
            else:
                self._settle(job)

    def _settle(self, job: _Job) -> None:
        """The job is over (sent, superseded, or refused for good)."""
        job.done.set()
        for press in job.presses:
            press.answered.set()

    def _failed(self, job: _Job, exc: Exception) -> bool:
        """What to do with a job that failed: True when it is owed (Discord's fault: it is
        tried again); else it is over, and the refusal logged."""
        if isinstance(exc, discord.Forbidden) and exc.code in NO_ACCESS:
            self._lose_access(exc)
            return False
        if is_discord_fault(exc):
            self._owe(job, exc)
            return True
        if isinstance(exc, discord.HTTPException):
            log.warning("table %d: message refused (%s)", self.table_id, cause_of(exc))
        else:
            log.exception("table %d: message not sent", self.table_id)
        return False

    def _owe(self, job: _Job, exc: Exception) -> None:
        now = time.monotonic()
        job.failures += 1
        wait = retry_delay(job.failures, retry_after_of(exc))
        job.retry_at = now + wait
        if job.kind == "table" and job.new and job.tried_version is None:
            job.tried_version = job.version  # Discord may have made it all the same
        # A press waiting for this edit is confirmed privately at once rather than later.
        presses, job.presses = job.presses, []
        for press in presses:
            press.answered.set()
        if job.owed_since is None:
            job.owed_since = now
            self.budget.metrics.message_owed(job.label)
            # Once per message: while Discord is away, the link writes the WARNING.
            log.info("table %d: %s message owed (%s); sent again in %.1fs", self.table_id,
                     job.label, cause_of(exc), wait)
        else:
            log.debug("table %d: %s message still owed after %d tries (%s)", self.table_id,
                      job.label, job.failures, cause_of(exc))

    def _superseded(self, job: _Job) -> bool:
        """An owed edit of the table message whose newer state is queued behind it (behind
        results or notices, not past a pause, a callback or a new table message) is dropped:
        the newer state goes in its turn, and the older is never sent after it."""
        if job.kind != "table" or job.new or job.presses:
            return False
        for later in itertools.islice(self._jobs, 1, None):
            if later.kind in ("then", "pause") or (later.kind == "table" and later.new):
                return False
            if later.kind == "table":
                self._jobs.popleft()
                self._settle(job)
                log.debug("table %d: owed state replaced by a newer one", self.table_id)
                return True
        return False

    def _lose_access(self, exc: discord.Forbidden) -> None:
        log.warning("table %d: no access to channel %d (%s)", self.table_id, self.channel_id, exc)
        if not self.blocked:
            self.blocked = True
            if self.on_forbidden is not None:
                self.on_forbidden()

    @contextlib.contextmanager
    def _requests(self, priority: Priority) -> Iterator[None]:
        """Requests to the channel made inside wait for the budget at ``priority``; the
        table's own request still waiting at a lower one (its old message's buttons) is
        raised to it, since it holds discord.py's slot for the route this one needs."""
        self.budget.raise_bucket(channel_bucket(self.channel_id), priority)
        with requests_at(priority):
            yield

    def _stamp(self) -> None:
        """A request to the channel is about to go out: count it in the channel's window."""
        self._sent.append(time.monotonic())

    async def _image(self, job: _Job, view: TableView | None) -> RenderedImage | None:
        """The job's image, drawn once for all its tries (again if its state changed)."""
        labels = job.labels
        if view is None or labels is None:
            return None
        drawn = job.drawn
        if drawn is not None and drawn[0] is view and drawn[1] is labels:
            return drawn[2]
        image = await render(render_table, view, labels)
        job.drawn = (view, labels, image)
        return image

    async def _do(self, job: _Job) -> None:
        if job.kind == "pause":
            return  # it was waited out at the head of the queue
        if job.kind == "then":
            assert job.callback is not None
            job.callback()
            return
        if self.blocked:
            # Nobody can read the channel's messages; the prompt's time still has to start.
            if job.message is not None and job.message.prompt is not None and self.on_prompt:
                self.on_prompt(job.message.prompt.marker)
            return
        if job.kind == "post":
            await self._post(job)
        else:
            await self._show(job)

    async def _post(self, job: _Job) -> None:
        channel = self.client.get_partial_messageable(self.channel_id)
        # Discord refuses an empty message; a piece of only blank lines says nothing anyway.
        pieces = [piece for piece in split_text(job.content) if piece.strip()] or ["\u200b"]
        image = await self._image(job, job.view)
        view = self.view_factory(self.table_id, job.buttons) if job.buttons else None
        nonce = job.new_nonce()
        for k in range(job.pieces_sent, len(pieces)):
            kwargs: dict[str, Any] = {"content": pieces[k], "allowed_mentions": NOBODY,
                                      "nonce": nonce + k}
            if k == 0 and image is not None:
                kwargs["file"] = image_file(image)
            if k == len(pieces) - 1 and view is not None:
                kwargs["view"] = view
            while self._delay(job) > 0:
                await asyncio.sleep(self._delay(job))
            self._stamp()
            with self._requests(Priority.TABLE):
                await channel.send(**kwargs)
            job.pieces_sent = k + 1

    async def _show(self, job: _Job) -> None:
        message = job.message
        assert message is not None
        prompt = message.prompt
        if (
            prompt is None
            or self.on_prompt is None
            or prompt.marker == self._prompted
            or (job.presses and not job.new)
        ):
            # Nobody's time starts with it, his time runs already, or the press answers it
            # (free of the budget): now.
            await self._show_now(job)
            return
        # The player's time starts as the message telling him goes out, so the message waits
        # for its turn at the budget before its countdown is written; its image is drawn
        # before, so that only sending it runs on a token already spent.
        drawn = await self._image(job, message.view)
        await self._tidy_first()
        async with self.budget.ahead(Priority.PLAYER):
            await self._show_now(job, drawn)

    async def _tidy_first(self) -> None:
        """Let the old buttons of this channel go first, at this message's priority: waiting
        for the budget, their edit holds discord.py's slot for the channel's edits, and a
        message whose token was taken ahead would leave right behind it, two at once."""
        if not self._tidying:
            return
        self._tidy_level = Priority.PLAYER
        self.budget.raise_bucket(channel_bucket(self.channel_id), Priority.PLAYER)
        await asyncio.wait(set(self._tidying))
        self._tidy_level = Priority.TIDY

    async def _show_now(self, job: _Job, drawn: RenderedImage | None = None) -> None:
        message = job.message
        assert message is not None
        channel = self.client.get_partial_messageable(self.channel_id)
        view = self.view_factory(self.table_id, message.buttons) if message.buttons else None
        prompt = message.prompt
        deadline = None
        if prompt is not None and self.on_prompt is not None:
            # The deadline to write; the clock starts only once this went out (``_went_out``).
            deadline = self.on_prompt(prompt.marker, sending=True,
                                      again=prompt.marker == self._again)
        content = message.text(deadline)
        mentions = (
            discord.AllowedMentions(
                everyone=False, roles=False, replied_user=False,
                users=[discord.Object(id=prompt.player_id)],
            )
            if prompt is not None
            else NOBODY
        )
        shown = (content, message.view, job.labels, message.buttons)
        unchanged = shown == self._shown
        if not job.new and self.message_id is not None:
            if unchanged and not job.presses:
                return  # the message shows exactly this already
            image = drawn if drawn is not None else await self._image(job, message.view)
            if await self._answer_press(job, content, image, view, mentions):
                self._went_out(job, shown)
                return
            if unchanged:
                return
            self._stamp()
            try:
                with self._requests(_priority(job)):
                    await channel.get_partial_message(self.message_id).edit(
                        content=content,
                        attachments=[image_file(image)] if image is not None else [],
                        view=view,
                        allowed_mentions=mentions,
                    )
                self._buttons_shown = view is not None
                self._went_out(job, shown)
                return
            except discord.NotFound:
                log.info("table %d: its message is gone; posting it again", self.table_id)
                self.message_id = None
            except discord.HTTPException as exc:
                if exc.code != EDITS_EXHAUSTED:
                    raise
                # Its buttons cannot be taken off either: a press on them acts only on the
                # decision they were drawn for.
                log.info("table %d: its message is too old to edit; posting it anew",
                         self.table_id)
                self.message_id, self._buttons_shown = None, False
        image = drawn if drawn is not None else await self._image(job, message.view)
        replaced = self.message_id if self._buttons_shown else None
        self._stamp()
        kwargs: dict[str, Any] = {"content": content, "allowed_mentions": mentions,
                                  "nonce": job.new_nonce()}
        if image is not None:
            kwargs["file"] = image_file(image)
        if view is not None:
            kwargs["view"] = view
        with self._requests(_priority(job)):
            sent = await channel.send(**kwargs)
        self.message_id = sent.id
        self._buttons_shown = view is not None
        if job.tried_version is not None and job.tried_version != job.version:
            # The first try made the message and its answer was lost: Discord returned that
            # message, showing the state of then. The state now due goes as an edit next.
            self._shown = None
            self._jobs.appendleft(_Job("table", message, labels=job.labels, urgent=True))
        else:
            self._went_out(job, shown)
        await self.on_posted(sent.id)
        if replaced is not None:
            self._tidy(replaced)

    def _went_out(self, job: _Job, shown: tuple[object, ...]) -> None:
        """The table message shows ``job``'s state now; a player it names is told, and his time
        starts (unless it runs already)."""
        message = job.message
        assert message is not None
        self._shown = shown
        self._current = (message, job.labels)
        prompt = message.prompt
        if prompt is not None and self.on_prompt is not None:
            self.on_prompt(prompt.marker)
            self._prompted = prompt.marker
            if self._again == prompt.marker:
                self._again = None

    async def _answer_press(
        self,
        job: _Job,
        content: str,
        image: RenderedImage | None,
        view: discord.ui.View | None,
        mentions: discord.AllowedMentions,
    ) -> bool:
        """Edit the table message through the first press still waiting for this edit;
        True if that worked (the other presses are confirmed privately by their handlers)."""
        for press in job.presses:
            interaction = press.interaction
            pressed = interaction.message
            if pressed is None or pressed.id != self.message_id or not press.take():
                continue
            try:
                await interaction.response.edit_message(
                    content=content,
                    attachments=[image_file(image)] if image is not None else [],
                    view=view,
                    allowed_mentions=mentions,
                )
            except Exception as exc:
                if isinstance(exc, discord.HTTPException) and exc.code == ALREADY_ACKNOWLEDGED:
                    # discord.py sent it again after a lost answer: the first one went through.
                    self._buttons_shown = view is not None
                    return True
                if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
                    raise
                # Too late, or Discord refused or failed: the edit goes out the usual way
                # instead, and the presser is confirmed privately now.
                log.info("table %d: press not answered by the edit (%s)", self.table_id,
                         cause_of(exc))
                press.answered.set()
                return False
            self._buttons_shown = view is not None
            return True
        return False

    def _tidy(self, message_id: int) -> None:
        """Take the buttons off the message just replaced, so nobody plays from it, beside
        the queue and last of all requests: the new message is what players need (a press on
        the old one acts only on the decision it was drawn for, as on the new one)."""
        # A context of its own: not the token the new message was sent on (``budget.ahead``).
        task = asyncio.create_task(self._retire(message_id),
                                   name=f"table-{self.table_id}-old-buttons",
                                   context=contextvars.Context())
        self._tidying.add(task)
        task.add_done_callback(self._tidying.discard)

    async def _retire(self, message_id: int) -> None:
        channel = self.client.get_partial_messageable(self.channel_id)
        for tries in itertools.count(1):
            while (wait := self._channel_delay()) > 0:
                await asyncio.sleep(wait)
            self._stamp()
            try:
                with requests_at(self._tidy_level):
                    await channel.get_partial_message(message_id).edit(view=None)
                return
            except Exception as exc:
                if self.client.is_closed():
                    return
                fault = is_discord_fault(exc)
                if not (fault or isinstance(exc, discord.HTTPException)):
                    log.exception("table %d: could not clear old buttons", self.table_id)
                    return
                if not fault or tries >= TIDY_TRIES:
                    log.info("table %d: could not clear old buttons (%s)", self.table_id,
                             cause_of(exc))
                    return
                await asyncio.sleep(retry_delay(tries, retry_after_of(exc)))


def _priority(job: _Job) -> Priority:
    """A table message naming the player to act is what he waits for; the rest can wait."""
    message = job.message
    return Priority.PLAYER if message is not None and message.prompt is not None else (
        Priority.TABLE)
