"""Tables played while Discord or the database misbehaves, and what must hold afterwards.

The players here read the channel as people do: a player acts only when the newest table
message names him, by pressing its buttons (or typing the command the buttons stand for, or
filling in the raise form), and he presses again only if the table has not moved a few seconds
later (as after "This interaction failed"). A table message left stale stalls them as it
stalls people; acting on what the runtime holds would hide it.

While they play, a watcher compares, a few times a second, the player the newest table message
names (and the decision its buttons are for) with the one storage says is to act, read from
storage alone on a connection of its own. Then ``Scene.finish`` checks what the fault suite
promises, and reports every broken promise at once:

- the hand in play when the fault came finished, and the next one was dealt;
- no table showed a stale player to act for more than ``STALE_LIMIT`` seconds after Discord
  (or the database) answered again;
- the table message ends equal to the stored state (the message storage names as the
  table's, the hand, the player to act, the buttons of the decision due);
- no action was applied twice or lost after its player was told it was taken: every press
  answered as taken is stored at its decision, every stored action a player took has a press;
- the chips are conserved;
- no player was told the internal-error sentence;
- nothing was logged at ERROR or with a traceback (the fake's own loggers aside: every fault
  here is Discord's or the database's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shlex
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg

from bot.i18n import t
from bot.presenter import decision_number
from bot.storage import Database, hands, tables
from bot.storage.db import backend_of
from bot.storage.postgres import PostgresDatabase
from engine.hand import ActionKind, ActionTaken
from tests.e2e.game_kit import (
    DEFERRED,
    STARTING_BALANCE,
    UPDATED,
    Game,
    last_action_line,
    running_game,
    total_chips,
    until,
)
from tests.e2e.harness import World
from tests.e2e.restart_kit import shows, stored_message
from tests.e2e.tournament_kit import create, register
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.fakediscord.faults import FaultRule, in_channel
from tests.pgserver import PostgresServer
from tests.timing import scaled

# The longest a table may name a player to act who is not the one storage says, once Discord
# (or the database) answers again.
STALE_LIMIT = 10.0
# Storage not moving for this long, once Discord and the database answer again, while the
# players act within seconds of their turn: the table is stuck.
STUCK = 20.0
# The least time the checks wait after Discord answered again: a client's own retry of the
# request that met the fault (discord.py's first comes a second later), and what the bot does
# with its answer, are over by then.
QUIET = 2.5
# A player who pressed waits this long for the table to move before he presses again.
PATIENCE = 3.0
# How long a press may wait for its answer before the player sees "This interaction failed"
# (Discord's 3 s, plus the retries a client may make within it; then the press counts as
# not answered).
ANSWER_WAIT = 8.0

# A table message's first line ("**Texas Hold'em** · ...", "**Friday** · table 1 · ..."), not
# a result's ("**Hand #3: result**").
TITLE = re.compile(r"^\*\*[^\n]+?\*\* · ")
TO_ACT = re.compile(r"<@(\d+)> to act")
ACTION_BUTTON = re.compile(
    r"poker:(?P<table>\d+):(?P<action>fold|check|call|allin|raise|raise_modal)"
    r"@(?P<hand>\d+)\.(?P<decision>\d+)(?::(?P<arg>\d+))?"
)
# What a player is told privately when his action was taken: the catalog's words before the
# amount ("You called ", "You checked.").
TAKEN = tuple(t(f"ack.{kind}", amount="\0").split("\0")[0]
              for kind in ("fold", "check", "call", "bet", "raise"))
# Kinds an answer or a stored action may have for each button.
KINDS: dict[str, frozenset[ActionKind]] = {
    "fold": frozenset({ActionKind.FOLD}),
    "check": frozenset({ActionKind.CHECK}),
    "call": frozenset({ActionKind.CALL}),
    "raise": frozenset({ActionKind.RAISE, ActionKind.BET}),
    "allin": frozenset({ActionKind.CALL, ActionKind.RAISE, ActionKind.BET}),
}


# -- the log ---------------------------------------------------------------------------------


class LogWatch(logging.Handler):
    """Every record of the bot's process at INFO and above (discord.py's, asyncio's, the
    drivers' and the bot's own), to find the ERROR lines and tracebacks a fault caused. The
    fake Discord's own loggers are not the bot's."""

    NOT_THE_BOTS = ("tests.", "aiohttp.server", "aiohttp.web", "aiohttp.access")

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(self.NOT_THE_BOTS):
            self.records.append(record)

    @contextlib.contextmanager
    def watching(self) -> Iterator[LogWatch]:
        root = logging.getLogger()
        previous = root.level
        root.addHandler(self)
        root.setLevel(min(previous, logging.INFO) if previous else logging.INFO)
        try:
            yield self
        finally:
            root.removeHandler(self)
            root.setLevel(previous)

    def problems(self) -> list[str]:
        """The ERROR lines and the tracebacks, one line each."""
        found = []
        for record in self.records:
            if record.levelno < logging.ERROR and not record.exc_info:
                continue
            line = f"{record.levelname} {record.name}: {record.getMessage()}"
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                line += f" [traceback: {type(error).__name__}: {error}]"
            found.append(line[:300])
        return found

    def warnings(self) -> list[str]:
        return [f"{r.name}: {r.getMessage()}"[:200] for r in self.records
                if r.levelno == logging.WARNING]


# -- what the channel shows, and what storage says -------------------------------------------


@dataclass(frozen=True)
class Place:
    """A table and the channel (or thread) it plays in."""

    table_id: int
    channel: FakeChannel

    @property
    def posts(self) -> str:
        """The route of new messages in its channel (a fault pattern)."""
        return in_channel(self.channel.id, "")

    @property
    def edits(self) -> str:
        """The route of edits of messages in its channel."""
        return in_channel(self.channel.id, r"/\d+")


@dataclass(frozen=True)
class Turn:
    """Who is to act at a table: the hand, the decision (None when not known) and the player
    (None: nobody)."""

    hand: int | None
    decision: int | None
    user_id: int | None

    def __str__(self) -> str:
        who = "nobody" if self.user_id is None else f"<@{self.user_id}>"
        at = "" if self.hand is None else f" (hand #{self.hand}, decision {self.decision})"
        return f"{who} to act{at}"


def table_messages(fake: FakeDiscord, place: Place) -> list[FakeMessage]:
    """The table's messages in its channel, oldest first (current versions)."""
    return [
        m for m in fake.messages_in(place.channel)
        if not m.ephemeral and m.author.id == fake.bot_user.id and TITLE.match(m.content)
    ]


def shown_turn(message: FakeMessage | None) -> Turn:
    """The turn a table message shows: the player it names to act, and the decision its
    action buttons are for."""
    if message is None:
        return Turn(None, None, None)
    named = TO_ACT.search(message.content)
    marker = next((m for m in map(ACTION_BUTTON.fullmatch, message.custom_ids()) if m), None)
    return Turn(
        None if marker is None else int(marker["hand"]),
        None if marker is None else int(marker["decision"]),
        None if named is None else int(named[1]),
    )


async def stored_turn(db: Database, table_id: int) -> Turn:
    """Who storage says is to act at the table: its running hand replayed (nobody without
    one)."""
    rows = await db.fetchall(
        "SELECT hand_id FROM hands WHERE table_id = ? AND status = 'running' ORDER BY hand_id",
        (table_id,),
    )
    if not rows:
        return Turn(None, None, None)
    stored = await hands.load_hand(db, int(rows[-1][0]))
    hand = hands.rebuild_hand(stored)
    player = hand.to_act
    user = None if player is None else users_of(stored)[player]
    if user is None:
        return Turn(None, None, None)
    return Turn(stored.hand_no, decision_number(hand), user)


def users_of(stored: hands.StoredHand) -> dict[int, int]:
    """Player index -> user id in a stored hand."""
    return {p.player: p.user_id for p in stored.players}


async def stored_hand_numbers(db: Database, table_id: int) -> dict[int, str]:
    """Every hand of the table: its number and status."""
    rows = await db.fetchall(
        "SELECT hand_no, status FROM hands WHERE table_id = ? ORDER BY hand_no", (table_id,)
    )
    return {int(r[0]): str(r[1]) for r in rows}


def agrees(shown: Turn, stored: Turn) -> bool:
    if shown.user_id != stored.user_id:
        return False
    # A message naming the right player for a decision already made is stale all the same.
    return shown.hand is None or stored.hand is None or (
        (shown.hand, shown.decision) == (stored.hand, stored.decision)
    )


# -- the players -----------------------------------------------------------------------------


@dataclass
class Press:
    """One press (or typed command, or form) of a player, and what he was told."""

    place: Place
    user_id: int
    hand: int
    decision: int
    action: str  # fold, check, call, raise, allin
    how: str  # "button", "slash" or "form"
    answer: str  # what he saw ("" when nothing came: the interaction failed)
    told: bool  # he was told his action was taken
    at: float

    def __str__(self) -> str:
        return (f"<@{self.user_id}> {self.action} by {self.how} at hand #{self.hand} decision"
                f" {self.decision} (answered {self.answer[:60]!r})")


@dataclass
class Crowd:
    """The players of some tables: each acts when the newest table message names him."""

    game: Game
    places: Sequence[Place]
    players: dict[int, FakeUser]
    # How each press is made, in turn: "button", "slash" (the command the button stands for)
    # or "form" (a bet of the least allowed through the raise form where nobody bet yet, else
    # the button).
    ways: Sequence[str] = ("button", "slash")
    presses: list[Press] = field(default_factory=list)
    stopped: bool = False
    held: bool = False  # the players wait (a test acts for them)
    _turns: int = 0
    _acting: int = 0
    # When each player last acted on each decision (table, user, hand, decision).
    _pressed: dict[tuple[int, int, int | None, int | None], float] = field(default_factory=dict)

    @property
    def fake(self) -> FakeDiscord:
        return self.game.fake

    async def run(self, place: Place) -> None:
        while not self.stopped:
            acted = False
            if not self.fake.down and not self.held:
                messages = table_messages(self.fake, place)
                message = messages[-1] if messages else None
                turn = shown_turn(message)
                user = self.players.get(turn.user_id or 0)
                key = (place.table_id, turn.user_id or 0, turn.hand, turn.decision)
                waited = time.monotonic() - self._pressed.get(key, -PATIENCE)
                if message is not None and user is not None and turn.hand is not None and (
                    waited >= PATIENCE
                ):
                    self._pressed[key] = time.monotonic()
                    self._acting += 1
                    try:
                        await self._act(place, message, user, turn)
                    finally:
                        self._acting -= 1
                    acted = True
            if not acted:
                await asyncio.sleep(0.05)

    @contextlib.asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """The players wait inside the block (a press of theirs under way ends first)."""
        self.held = True
        try:
            while self._acting:
                await asyncio.sleep(0.02)
            yield
        finally:
            self.held = False

    async def act_now(self, place: Place, way: str | None = None) -> Press | None:
        """The player the newest table message names acts now (``way``: as he would by
        turns), and the press is his: recorded as the others are, and he waits as long before
        pressing on that decision again. None when it names nobody of the crowd."""
        messages = table_messages(self.fake, place)
        message = messages[-1] if messages else None
        turn = shown_turn(message)
        user = self.players.get(turn.user_id or 0)
        if message is None or user is None or turn.hand is None:
            return None
        self._pressed[(place.table_id, user.id, turn.hand, turn.decision)] = time.monotonic()
        count = len(self.presses)
        await self._act(place, message, user, turn, way)
        return self.presses[-1] if len(self.presses) > count else None

    async def _act(self, place: Place, message: FakeMessage, user: FakeUser, turn: Turn,
                   way: str | None = None) -> None:
        buttons = {m["action"]: m for m in map(ACTION_BUTTON.fullmatch, message.custom_ids())
                   if m}
        if way is None:
            way = self.ways[self._turns % len(self.ways)]
            self._turns += 1
        assert turn.hand is not None and turn.decision is not None
        action = "check" if "check" in buttons else "call"
        if way == "form" and "raise_modal" in buttons and action == "check":
            action = "raise"  # a bet of the least allowed, through the form (never a re-raise)
        elif action not in buttons:
            return
        fake = self.fake
        try:
            if way == "slash":
                handle = await fake.slash(user, place.channel, action)
            elif action == "raise":
                opened = await fake.click(user, message, buttons["raise_modal"][0])
                form = await opened.response(timeout=scaled(ANSWER_WAIT))
                if not form.is_modal or form.custom_id is None:
                    self.record(place, user, turn, action, way, form.content, False)
                    return
                minimum = min(int(m["arg"]) for m in ACTION_BUTTON.finditer(
                    " ".join(message.custom_ids())) if m["arg"])
                handle = await fake.submit_modal(user, form.custom_id, {"amount": str(minimum)},
                                                 source=opened)
            else:
                handle = await fake.click(user, message, buttons[action][0])
        except (ValueError, LookupError, RuntimeError, TimeoutError) as exc:
            # The message changed under him, or the gateway is away: nothing was sent.
            self.record(place, user, turn, action, way, f"not sent: {exc}"[:80], False)
            return
        answer, told = await self._answer(handle, user)
        self.record(place, user, turn, action, way, answer, told)

    async def _answer(self, handle: Any, user: FakeUser) -> tuple[str, bool]:
        try:
            callback = await handle.response(timeout=scaled(ANSWER_WAIT))
        except TimeoutError:
            return "", False
        if callback.type == UPDATED:
            # Answered by the table's own update: it shows his action, or the hand it ended.
            line = last_action_line(callback.content)
            told = (line is not None and user.name in line) or (
                t("table.hand_over") in callback.content)
            return f"table: {line or callback.content}", told
        if callback.type == DEFERRED:  # "thinking": the reply follows
            try:
                message = await handle.wait_original(timeout=scaled(ANSWER_WAIT))
            except TimeoutError:
                return "(thinking, then nothing)", False
            return message.content, message.content.startswith(TAKEN)
        return callback.content, callback.content.startswith(TAKEN)

    def record(self, place: Place, user: FakeUser, turn: Turn, action: str, how: str,
               answer: str, told: bool) -> None:
        """Note a press (one a test made for a player, too)."""
        assert turn.hand is not None and turn.decision is not None
        self.presses.append(Press(place, user.id, turn.hand, turn.decision, action, how,
                                  answer, told, time.monotonic()))


# -- the watcher -----------------------------------------------------------------------------


@dataclass
class Stale:
    place: Place
    shown: Turn
    stored: Turn
    since: float
    until: float | None = None

    def lasted(self, back: float, now: float) -> float:
        """How long it lasted once Discord (or the database) answered again."""
        return max(0.0, (self.until if self.until is not None else now) - max(self.since, back))


@dataclass
class Watcher:
    """Compares each table's newest message with storage, a few times a second."""

    fake: FakeDiscord
    db: Database  # a connection of its own, read only
    places: Sequence[Place]
    back: float = 0.0  # when Discord and the database answered again (monotonic)
    stale: list[Stale] = field(default_factory=list)
    storage_errors: int = 0
    stopped: bool = False

    async def run(self) -> None:
        open_: dict[int, Stale] = {}
        while not self.stopped:
            for place in self.places:
                messages = table_messages(self.fake, place)
                shown = shown_turn(messages[-1] if messages else None)
                try:
                    stored = await stored_turn(self.db, place.table_id)
                except Exception:
                    self.storage_errors += 1  # the database is away: nothing to compare
                    continue
                now = time.monotonic()
                current = open_.get(place.table_id)
                if agrees(shown, stored):
                    if current is not None:
                        current.until = now
                        del open_[place.table_id]
                elif current is None or current.shown != shown:
                    # A spell lasts as long as the message shows the same turn (storage may
                    # move on meanwhile: the message is stale all along).
                    if current is not None:
                        current.until = now
                    open_[place.table_id] = Stale(place, shown, stored, now)
                    self.stale.append(open_[place.table_id])
                else:
                    current.stored = stored
            await asyncio.sleep(0.2)

    def worst(self) -> Stale | None:
        """The longest spell of a table showing a stale turn, after Discord answered again."""
        now = time.monotonic()
        best: Stale | None = None
        for spell in self.stale:
            if best is None or spell.lasted(self.back, now) > best.lasted(self.back, now):
                best = spell
        return best

    def too_stale(self) -> Stale | None:
        worst = self.worst()
        limit = scaled(STALE_LIMIT)
        if worst is not None and worst.lasted(self.back, time.monotonic()) > limit:
            return worst
        return None


# -- the scene -------------------------------------------------------------------------------


@dataclass
class Scene:
    """A running bot, its tables, their players, the watcher and the log."""

    game: Game
    crowd: Crowd
    watcher: Watcher
    log: LogWatch
    chips: int  # the chips of the server, conserved
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    # Broken promises a test found itself, reported with the others by ``finish``.
    broken: list[str] = field(default_factory=list)

    @property
    def fake(self) -> FakeDiscord:
        return self.game.fake

    @property
    def places(self) -> Sequence[Place]:
        return self.crowd.places

    def back_now(self) -> None:
        """Discord (or the database) answers again from now on."""
        self.watcher.back = time.monotonic()

    async def served(self, rule: FaultRule, timeout: float = 30.0) -> None:
        """Wait until ``rule`` was served in full (a one-off fault: Discord answers again at
        once after it)."""
        await self.until(lambda: not rule.active, timeout, f"the fault {rule.kind} "
                         f"{rule.status} on {rule.pattern.pattern} to be served")
        self.back_now()

    async def gateway_back(self, previous: object, timeout: float = 30.0) -> None:
        """Wait until the bot is connected again on a connection other than ``previous``;
        Discord answers again from then on."""
        await self.until(lambda: any(s is not previous for s in self.fake.sessions), timeout,
                         "the bot to connect to the gateway again")
        self.back_now()

    async def until(self, check: Callable[[], object], timeout: float, what: str) -> None:
        deadline = time.monotonic() + scaled(timeout)
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {scaled(timeout):.0f}s\n"
                                     + self.summary())
            await asyncio.sleep(0.05)

    async def shown_as_stored(self, place: Place | None = None) -> Turn:
        """Wait until the newest table message names the player storage says is to act; that
        turn."""
        place = place or self.places[0]
        deadline = time.monotonic() + scaled(STALE_LIMIT)
        while True:
            messages = table_messages(self.fake, place)
            shown = shown_turn(messages[-1] if messages else None)
            stored = await stored_turn(self.watcher.db, place.table_id)
            if shown.user_id is not None and agrees(shown, stored):
                return stored
            if time.monotonic() > deadline:
                raise AssertionError(f"the table shows {shown}, storage says {stored}\n"
                                     + self.summary())
            await asyncio.sleep(0.05)

    async def agreed(self, place: Place | None = None) -> None:
        """Wait until the table's newest message shows what storage says (``disagreement``)."""
        place = place or self.places[0]
        deadline = time.monotonic() + scaled(STALE_LIMIT)
        while (found := await self._disagreement(place)) is not None:
            if time.monotonic() > deadline:
                raise AssertionError(f"table {place.table_id}: {found}\n" + self.summary())
            await asyncio.sleep(0.05)

    async def fault_on_a_press(
        self,
        arm: Callable[[FakeDiscord, Place], FaultRule],
        place: Place | None = None,
        *,
        way: str | None = None,
    ) -> int:
        """In the middle of a hand, at a quiet moment (the table shows what storage says), arm
        a fault and let the player named act at once (``way``: "button", "slash", "form"):
        the fault meets the requests his action makes first (its answer; after a typed
        command, the table's edit naming the next player) if it is for them, else the next
        ones. Waits until it was served; the hand's number."""
        place = place or self.places[0]
        hand = await self.mid_hand(place)
        async with self.crowd.holding():
            await self.shown_as_stored(place)
            rule = arm(self.fake, place)
            await self.crowd.act_now(place, way)
        await self.served(rule)
        return hand

    async def mid_hand(self, place: Place | None = None) -> int:
        """Wait until a hand is running with a player to act; its number."""
        place = place or self.places[0]
        deadline = time.monotonic() + scaled(30)
        while time.monotonic() < deadline:
            turn = await stored_turn(self.watcher.db, place.table_id)
            if turn.hand is not None and turn.user_id is not None:
                return turn.hand
            await asyncio.sleep(0.05)
        raise AssertionError("no hand with a player to act within 30 s\n" + self.summary())

    async def finish(self, hand: int, *, place: Place | None = None, within: float = 40.0,
                     reposts: bool = False, deals: bool = True) -> None:
        """Check every promise of the suite (see the module's docstring) for the fault that
        came during ``hand``; one AssertionError listing every one broken. ``reposts``: a
        hand's table message may be posted anew (else once a hand); ``deals``: the table
        deals again after that hand (else it finished it and waits)."""
        place = place or self.places[0]
        problems: list[str] = list(self.broken)
        numbers = await self._next_hand(place, hand, within, deals)
        if numbers.get(hand) != "finished" or (deals and hand + 1 not in numbers):
            try:
                turn = str(await stored_turn(self.watcher.db, place.table_id))
            except Exception as exc:
                turn = f"the turn unreadable ({exc!r})"
            problems.append(
                f"hand #{hand} did not finish{' and deal the next' if deals else ''}"
                f" (storage has hands {numbers}, and {turn})"
            )
        # What a client retries by itself after a fault has played out before the players stop.
        await asyncio.sleep(max(0.0, self.watcher.back + QUIET - time.monotonic()))
        self.crowd.stopped = True
        # The players stop: every table settles waiting for someone (or between hands).
        await asyncio.sleep(0.5)
        await self._settled(problems)
        self.watcher.stopped = True
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        worst = self.watcher.too_stale()
        if worst is not None:
            problems.append(
                f"stale table for {worst.lasted(self.watcher.back, time.monotonic()):.1f}s after"
                f" Discord answered again (at most {STALE_LIMIT:.0f}): its message showed"
                f" {worst.shown} while storage said {worst.stored}"
            )
        problems.extend(await self._audit())
        internal = [p for p in self.crowd.presses if p.answer == t("error.internal")]
        if internal:
            problems.append(f"told the internal-error sentence {len(internal)} time(s) for a"
                            f" fault of Discord's or the database's, first: {internal[0]}")
        for place in self.places:
            problems.extend(await self._shown_once(place, reposts))
        wallets, seats, in_hands = await total_chips(self.watcher.db, self.game.world.guild.id)
        if wallets + seats + in_hands != self.chips:
            problems.append(f"chips not conserved: {wallets} in wallets + {seats} on seats +"
                            f" {in_hands} in hands != {self.chips}")
        logged = self.log.problems()
        if logged:
            problems.append(f"{len(logged)} ERROR line(s) or traceback(s) logged for a fault of"
                            " Discord's or the database's:\n    " + "\n    ".join(logged[:8]))
        if problems:
            raise AssertionError("\n  - ".join(["the fault broke promises:", *problems])
                                 + "\n" + self.summary())

    async def _next_hand(self, place: Place, hand: int, within: float,
                         deals: bool) -> dict[int, str]:
        """Storage's hands once ``hand`` finished (and the next was dealt), or as they are
        when waiting is pointless: ``within`` passed, a table is too stale, or nothing moved
        in storage for ``STUCK`` seconds since Discord and the database answered again (the
        players act within seconds of their turn)."""
        deadline = time.monotonic() + scaled(within)
        numbers: dict[int, str] = {}
        seen: tuple[object, ...] = ()
        moved = time.monotonic()
        while True:
            with contextlib.suppress(Exception):
                numbers = await stored_hand_numbers(self.watcher.db, place.table_id)
                now_seen = (numbers, await stored_turn(self.watcher.db, place.table_id))
                if now_seen != seen:
                    seen, moved = now_seen, time.monotonic()
            if numbers.get(hand) == "finished" and (hand + 1 in numbers or not deals):
                return numbers
            stuck = time.monotonic() - max(moved, self.watcher.back) > scaled(STUCK)
            if stuck or time.monotonic() > deadline or self.watcher.too_stale() is not None:
                return numbers
            await asyncio.sleep(0.1)

    async def _settled(self, problems: list[str]) -> None:
        """Each table's newest message ends equal to what storage says (waited for as long as
        a table may be stale, unless one was too long already)."""
        patience = 1.0 if self.watcher.too_stale() is not None else scaled(STALE_LIMIT)
        for place in self.places:
            deadline = time.monotonic() + patience
            while True:
                found = await self._disagreement(place)
                if found is None or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
            if found is not None:
                problems.append(f"table {place.table_id} ends unlike storage: {found}")

    async def _disagreement(self, place: Place) -> str | None:
        return await disagreement(self.fake, self.watcher.db, place)

    async def _shown_once(self, place: Place, reposts: bool) -> list[str]:
        """Every finished hand's result is in the channel, once; every hand's table message
        was posted once (unless reposts are allowed)."""
        problems = []
        numbers = await stored_hand_numbers(self.watcher.db, place.table_id)
        posted = [m.content for m in self.fake.messages_in(place.channel) if not m.ephemeral]
        for number, status in numbers.items():
            results = sum(1 for c in posted if c.startswith(f"**Hand #{number}: result**"))
            if status == "finished" and results != 1:
                problems.append(f"hand #{number} finished, and its result is in the channel"
                                f" {results} times (table {place.table_id})")
            # The line naming the hand (a tournament's table heads it with its own line).
            title = f" · Hand #{number} · "
            tables_posted = sum(1 for m in table_messages(self.fake, place)
                                if title in m.content)
            if tables_posted > 1 and not reposts:
                problems.append(f"hand #{number}'s table message was posted {tables_posted}"
                                f" times (table {place.table_id})")
        return problems

    async def _audit(self) -> list[str]:
        """Every press answered as taken is stored at its decision (by buttons and forms,
        which name it; a typed command at it or later), and every action a player took is
        a press of his."""
        problems: list[str] = []
        db = self.watcher.db
        by_hand: dict[tuple[int, int], list[Press]] = {}
        for press in self.crowd.presses:
            by_hand.setdefault((press.place.table_id, press.hand), []).append(press)
        stored_keys = set(by_hand)
        for place in self.places:
            for number in await stored_hand_numbers(db, place.table_id):
                stored_keys.add((place.table_id, number))
        for table_id, number in sorted(stored_keys):
            rows = await db.fetchall(
                "SELECT hand_id FROM hands WHERE table_id = ? AND hand_no = ?",
                (table_id, number),
            )
            presses = by_hand.get((table_id, number), [])
            if not rows:
                problems.extend(f"lost: {p} (hand never stored)" for p in presses if p.told)
                continue
            stored = await hands.load_hand(db, int(rows[0][0]))
            taken = [e for e in hands.rebuild_hand(stored).events
                     if isinstance(e, ActionTaken)]
            users = users_of(stored)
            actions = [(k, users[e.player], e) for k, e in enumerate(taken)]
            problems.extend(_match(presses, actions, table_id, number))
            # The players act within seconds of seeing their turn: the clock acting for one
            # means he was never shown it (or could not act on what he was shown).
            problems.extend(
                f"<@{user}> was timed out at hand #{number} decision {k} (table {table_id}):"
                " a turn he was never shown, or could not act on"
                for k, user, event in actions if event.auto == "timeout"
            )
        return problems

    def summary(self) -> str:
        lines = [f"    {p}" for p in self.crowd.presses[-12:]]
        faults = [f"    {f.kind} {f.method} {f.path} -> {f.status} {f.detail}"
                  for f in self.fake.faults[-12:]]
        return ("  presses (last 12):\n" + "\n".join(lines or ["    (none)"])
                + "\n  faults served (last 12):\n" + "\n".join(faults or ["    (none)"]))


async def disagreement(fake: FakeDiscord, db: Database, place: Place) -> str | None:
    """How the table's newest message differs from what storage says (None: it does not):
    the turn for any table; for a cash table also the message storage names as its own, and
    what it shows (``restart_kit.shows``)."""
    messages = table_messages(fake, place)
    newest = messages[-1] if messages else None
    shown, stored = shown_turn(newest), await stored_turn(db, place.table_id)
    if not agrees(shown, stored):
        return f"its newest message shows {shown}, storage says {stored}"
    if place.channel.is_thread:
        return None  # a tournament's table: its message is kept by the tournament
    info = await tables.get_table(db, place.table_id)
    if newest is None or info.message_id != newest.id:
        return (f"storage names message {info.message_id} as the table's, the newest table"
                f" message in the channel is {None if newest is None else newest.id}")
    _, expected = await stored_message(db, place.table_id)
    if not shows(newest, place.table_id, expected):
        return (f"its message does not show the stored state:\n      shown: "
                f"{newest.content[:160]!r} {sorted(newest.custom_ids())}\n      stored:"
                f" {expected.text(None)[:160]!r}")
    return None


def _match(presses: list[Press], actions: list[tuple[int, int, ActionTaken]], table_id: int,
           number: int) -> list[str]:
    """Pair presses with stored actions: a button or a form is for its decision exactly, a
    typed command for its decision or a later one of the same player."""
    problems: list[str] = []
    free = [(k, user, event) for k, user, event in actions if event.auto is None]

    def fits(press: Press, k: int, user: int, event: ActionTaken) -> bool:
        if user != press.user_id or event.kind not in KINDS[press.action]:
            return False
        return k == press.decision if press.how != "slash" else k >= press.decision

    used: set[int] = set()
    for press in sorted((p for p in presses if p.told), key=lambda p: p.decision):
        found = next((k for k, user, event in free
                      if k not in used and fits(press, k, user, event)), None)
        if found is None:
            stored_there = next((f"{e.kind.value} by <@{u}>{' (' + e.auto + ')' if e.auto else ''}"
                                 for k, u, e in actions if k == press.decision), "nothing")
            problems.append(f"lost: {press}, but storage has {stored_there} at that decision"
                            f" (table {table_id})")
        else:
            used.add(found)
    for k, user, event in free:
        if k in used:
            continue
        pressed = any(
            p for p in presses if not p.told and p.user_id == user
            and event.kind in KINDS[p.action]
            and (k == p.decision if p.how != "slash" else k >= p.decision)
        )
        if not pressed:
            problems.append(
                f"applied without a press (twice?): <@{user}> {event.kind.value} at hand"
                f" #{number} decision {k} (table {table_id})"
            )
    return problems


async def watcher_database(url: str) -> Database:
    """The database at ``url`` on connections of the watcher's own. On PostgreSQL its read
    pool keeps no floor of connections: a pool that does logs every failed reconnection with a
    traceback while the server is away, and those lines would read as the bot's."""
    if backend_of(url) != "postgresql":
        return await Database.open(url)
    writer = await asyncpg.connect(url)
    readers = await asyncpg.create_pool(url, min_size=0, max_size=2)
    return PostgresDatabase(url, writer, readers)


@contextlib.asynccontextmanager
async def scene(
    game: Game,
    places: Sequence[Place],
    players: Sequence[FakeUser],
    log: LogWatch,
    *,
    database_url: str,
    ways: Sequence[str] = ("button", "slash"),
) -> AsyncIterator[Scene]:
    """Players and a watcher at ``places`` of a running game (the server's chips counted as
    they are now)."""
    wallets, seats, in_hands = await total_chips(game.db, game.world.guild.id)
    crowd = Crowd(game, places, {u.id: u for u in players}, ways)
    db = await watcher_database(database_url)
    try:
        watcher = Watcher(game.fake, db, places)
        found = Scene(game, crowd, watcher, log, wallets + seats + in_hands)
        found.tasks = [asyncio.create_task(crowd.run(p), name=f"players-{p.table_id}")
                       for p in places]
        found.tasks.append(asyncio.create_task(watcher.run(), name="watcher"))
        try:
            yield found
        finally:
            crowd.stopped = watcher.stopped = True
            for task in found.tasks:
                task.cancel()
            await asyncio.gather(*found.tasks, return_exceptions=True)
    finally:
        await db.close()


@contextlib.asynccontextmanager
async def cash_scene(
    fake: FakeDiscord,
    world: World,
    data_dir: Path,
    *,
    database_url: str | None = None,
    ways: Sequence[str] = ("button", "slash"),
    metrics: bool = False,
    **client_options: Any,
) -> AsyncIterator[Scene]:
    """The real bot, a cash table in #poker where alice and bob play (blinds 5/10, 1,000
    each, a 30 s clock), its first hand dealt; the log watched from before the start."""
    url = database_url or f"sqlite:///{data_dir / 'poker.db'}"
    log = LogWatch()
    with log.watching():
        async with running_game(fake, world, data_dir, database_url=url, metrics=metrics,
                                **client_options) as game:
            alice, bob = world.alice, world.bob
            opened = await game.open_table(alice, bob, small_blind=5, big_blind=10)
            await game.ok(alice, "poker", "start")
            await game.wait_hand(1)
            await game.wait_idle()
            place = Place(opened.table_id, game.channel)
            async with scene(game, [place], [alice, bob], log, database_url=url,
                             ways=ways) as found:
                assert found.chips == 2 * STARTING_BALANCE
                yield found


@contextlib.asynccontextmanager
async def tournament_scene(
    fake: FakeDiscord,
    world: World,
    data_dir: Path,
    *,
    database_url: str | None = None,
    ways: Sequence[str] = ("button", "slash"),
    **client_options: Any,
) -> AsyncIterator[Scene]:
    """The real bot, a tournament in #poker of four players (``big_world(1)``) at two tables
    of two, each in a thread of its own, its first hands dealt; levels of ten minutes (the
    blinds stay 10/20 through a test); the log watched from before the start."""
    url = database_url or f"sqlite:///{data_dir / 'poker.db'}"
    log = LogWatch()
    with log.watching():
        async with running_game(fake, world, data_dir, database_url=url,
                                **client_options) as game:
            players = [u for u in world.guild.members if not u.bot]
            assert len(players) == 4, "a tournament scene needs big_world(1)"
            live = await create(game, world.alice, seats_per_table=2, max_players=4,
                                  structure="10/20 10", starting_stack=1000)
            await register(game, *players)
            await game.ok(world.alice, "tournament", "start")
            await until(lambda: len(live.tables) == 2
                        and all(t.hand is not None for t in live.tables.values()),
                        timeout=20, what="both tables dealing")
            places = [Place(t.table_id, fake.channels[t.channel_id])
                      for t in live.tables.values()]
            assert all(p.channel.is_thread for p in places)
            await live.flush(20)
            async with scene(game, places, players, log, database_url=url,
                             ways=ways) as found:
                yield found


# -- the database's faults -------------------------------------------------------------------

# Statements that write: what a failing disk refuses (reads, and the ROLLBACK that ends a
# failed transaction, still work).
WRITING = re.compile(r"^\s*(BEGIN\s+IMMEDIATE|INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


@contextlib.contextmanager
def sqlite_writes_fail(refused: list[str] | None = None) -> Iterator[list[str]]:
    """Every SQLite statement that writes fails with "disk I/O error" inside the block, on
    every connection (the bot's, and any it opens again), as a failing disk does."""
    refused = [] if refused is None else refused
    names = ("execute", "execute_fetchall", "executemany")
    originals = {name: getattr(aiosqlite.Connection, name) for name in names}

    def failing(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def statement(self: aiosqlite.Connection, sql: str, *args: Any,
                            **kwargs: Any) -> Any:
            if WRITING.match(sql):
                refused.append(sql.split(None, 1)[0])
                raise sqlite3.OperationalError("disk I/O error")
            return await original(self, sql, *args, **kwargs)

        return statement

    for name, original in originals.items():
        setattr(aiosqlite.Connection, name, failing(original))
    try:
        yield refused
    finally:
        for name, original in originals.items():
            setattr(aiosqlite.Connection, name, original)


async def _pg_ctl(server: PostgresServer, *args: str) -> None:
    command = [str(server.binaries / "pg_ctl"), "-D", str(server.data), *args]
    if server.as_postgres:
        command = ["runuser", "-u", "postgres", "--", *command]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"pg_ctl {' '.join(args)} failed: {output.decode()[-500:]}")


async def stop_postgres(server: PostgresServer) -> list[str]:
    """Stop the server (fast: its clients are disconnected); the options it ran with, for
    ``start_postgres``."""
    opts = (server.data / "postmaster.opts").read_text().strip()
    words = shlex.split(opts)[1:]
    if "-D" in words:  # pg_ctl names the data folder itself
        at = words.index("-D")
        del words[at:at + 2]
    await _pg_ctl(server, "-m", "fast", "-w", "stop")
    return words


async def start_postgres(server: PostgresServer, options: list[str]) -> None:
    await _pg_ctl(server, "-o", shlex.join(options), "-l", str(server.root / "server.log"),
                  "-w", "-t", "60", "start")


async def terminate_connections(server: PostgresServer, url: str) -> int:
    """End every connection to ``url``'s database from the server's side (as an operator's
    ``pg_terminate_backend`` or a failover does); how many there were."""
    name = url.rsplit("/", 1)[1]
    conn = await asyncpg.connect(server.url())
    try:
        rows = await conn.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
    finally:
        await conn.close()
    return len(rows)
