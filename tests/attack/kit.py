"""What the attack machine needs besides the e2e kit: a bigger world (managers, long names,
an outsider), forged interactions, a log trap, a record of every hand dealt, and the scanner
that looks for hole cards in what the bot sent.

The checks raise one exception class each, so hypothesis tells the failures apart (it keeps
one failure per exception type and place) and each is shrunk on its own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.client import PAYLOAD_LOGGERS, silence_payload_loggers
from bot.render.labels import DEFAULT_LABELS
from bot.ui import TEMPLATE
from engine.cards import Card, format_card, format_cards, parse_cards, pretty_card
from engine.hand import Hand
from engine.table import Table
from tests.e2e.harness import World
from tests.fakediscord import (
    CHANNEL_DM,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionHandle,
)
from tests.fakediscord.interactions import INTERACTION_COMPONENT, INTERACTION_MODAL
from tests.fakediscord.models import READ_MESSAGE_HISTORY, VIEW_CHANNEL

MANAGE_GUILD = 1 << 5


# -- the failures, one class per check -------------------------------------------------------


class AttackFailure(AssertionError):
    """A promise of the bot was broken; the message names the check and the step history."""

    check = "?"


class LedgerInvariantBroken(AttackFailure):
    check = "1 ledger invariant"


class HoleCardsLeaked(AttackFailure):
    check = "2 hole cards stay private"


class InteractionUnanswered(AttackFailure):
    check = "3 every interaction answered in time"


class ErrorLogged(AttackFailure):
    check = "4 no error logged, no 'Something went wrong'"


class RequestRefused(AttackFailure):
    check = "4 no error logged (Discord refused a request of the bot)"


class ChipsOutsideLedger(AttackFailure):
    check = "5 chips change only through the ledger"


class EngineStorageDrift(AttackFailure):
    check = "5 chips change only through the ledger (engine and storage disagree)"


class DoubleAction(AttackFailure):
    check = "6 one press acts at most once"


class KickIgnored(AttackFailure):
    check = "7 a player removed mid-hand leaves when that hand ends"


class RefusalNotPrivate(AttackFailure):
    check = "8 bad input gets a private, specific refusal"


class RefusedInputChanged(AttackFailure):
    check = "8 bad input changes nothing"


class TableStalled(AttackFailure):
    check = "9 no table stalls"


class CreditRefused(AttackFailure):
    check = "10 chips coming back are never refused, and never pass the server's cap"


class OverTableLimits(AttackFailure):
    check = "11 tables and tournaments stay within the server's limits"


class StatsCountTournamentChips(AttackFailure):
    check = "12 statistics count cash chips only (every period agrees)"


# -- the world ---------------------------------------------------------------------------------


@dataclass
class AttackWorld(World):
    """The e2e world's alice, bob and carol (DMs closed) and seven more members (a table
    seats up to ten): alice owns the server, dave manages it through a role, several have
    long display names; an outsider who is not a member. Channels: #poker, #lobby, #readonly
    (the bot may only read it) and #tourney (a third place for a host's tables and tournaments,
    one more than the per-host limit's default of two)."""

    members: list[FakeUser]
    managers: frozenset[int]
    outsider: FakeUser
    floor_role: FakeRole

    @property
    def users(self) -> list[FakeUser]:
        return [*self.members, self.outsider]

    def is_manager(self, user: FakeUser) -> bool:
        return user.id in self.managers

    def channel(self, name: str) -> FakeChannel:
        return self.guild.channel(name)


LONG_NAMES = (
    "Bartholomew Fitzgerald-Wolfgang",
    "Maximiliana Featherstonehaughs",
    "Cornelius Montgomery Wellington",
    "Anastasia Konstantinopolskaya!",
    "Wilhelmina Rosalind Throckmorton",
    "Octavius Peregrine Bumblebottom",
)


def make_world() -> AttackWorld:
    alice = FakeUser("alice")  # owns the server: every permission
    bob = FakeUser("bob")
    carol = FakeUser("carol", dms_open=False)
    dave = FakeUser("dave")  # Manage Server through the "floor" role
    others = [
        FakeUser(f"user{n}", global_name=name) for n, name in enumerate(LONG_NAMES, start=1)
    ]
    members = [alice, bob, carol, dave, *others]
    floor = FakeRole("floor", permissions=MANAGE_GUILD)
    readonly = FakeChannel("readonly", bot_permissions=VIEW_CHANNEL | READ_MESSAGE_HISTORY)
    guild = FakeGuild.create(
        "Casino",
        channels=["poker", "lobby", readonly, "tourney"],
        members=members,
        roles=[floor],
        owner=alice,
    )
    guild.member_roles[dave.id] = [floor.id]
    outsider = FakeUser("outsider")
    return AttackWorld(
        alice=alice,
        bob=bob,
        carol=carol,
        guild=guild,
        members=members,
        managers=frozenset({alice.id, dave.id}),
        outsider=outsider,
        floor_role=floor,
    )


# -- forged interactions ----------------------------------------------------------------------


_BUTTON = re.compile(TEMPLATE)


def button_action(custom_id: str) -> str | None:
    """The action a table button's custom id names (None: not a table button)."""
    match = _BUTTON.fullmatch(custom_id)
    return None if match is None else match["action"]


def buttons_for(message: FakeMessage, action: str) -> list[str]:
    """The custom ids of ``message``'s buttons for ``action`` (several for the quick raises,
    none when the message does not offer it)."""
    return [cid for cid in message.custom_ids() if button_action(cid) == action]


async def press(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, custom_id: str
) -> InteractionHandle:
    """A button press as Discord would deliver it from ``message`` (this version of it, maybe
    an old one) with any ``custom_id``.

    discord.py drops a press whose custom id is not among the components of the message the
    interaction carries (Discord checks that too), so a forged custom id is delivered on a
    copy of the message that shows it: what a bot must survive is any id its template
    matches, e.g. one it wrote itself on an old message.
    """
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
    channel = fake.channels[message.channel_id]
    if custom_id not in message.custom_ids():
        button = {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}
        rows = list(message.components)
        if len(rows) < 5:
            rows.append({"type": 1, "components": [button]})
        else:
            rows[-1] = {"type": 1, "components": [button]}
        message = message.replace(components=tuple(rows))
    return await fake._push(INTERACTION_COMPONENT, user, channel, data, message=message)


async def submit_raw_modal(
    fake: FakeDiscord,
    user: FakeUser,
    channel: FakeChannel,
    custom_id: str,
    text: str,
    message: FakeMessage | None = None,
) -> InteractionHandle:
    """A modal submit built by hand (the bot need not have opened ``custom_id`` for ``user``)."""
    data = {
        "custom_id": custom_id,
        "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "amount", "value": text}]}
        ],
    }
    return await fake._push(INTERACTION_MODAL, user, channel, data, message=message)


# -- the log trap ----------------------------------------------------------------------------


@dataclass(frozen=True)
class LogLine:
    """A log line that names two cards or more, and which hands' cards were shown then."""

    logger: str
    text: str
    shown: tuple[frozenset[int], ...]


class LogTrap(logging.Handler):
    """Watches the bot's loggers (and discord.py's, asyncio's) at every level, the way the
    bot logs with ``LOG_LEVEL=DEBUG``: the payload loggers stay at INFO, as the bot itself
    keeps them (``bot.client.silence_payload_loggers``).

    It keeps what is worth failing on (a warning or worse from ``bot``/``cogs``, an error or
    worse from the libraries, any traceback), every refusal the error handler made (by
    interaction id: it logs each one at DEBUG), and every line naming two cards or more, with
    which hands' cards were shown when it was written (``shown``, set by the machine)."""

    LOGGERS = ("bot", "cogs", "discord", "asyncio")
    REFUSED = "refused interaction %s: %r"

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.refusals: dict[int, BaseException] = {}
        self.card_lines: list[LogLine] = []
        self.shown: Callable[[], tuple[frozenset[int], ...]] = tuple
        self._saved: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        ours = record.name.split(".")[0] in ("bot", "cogs")
        bad = record.levelno >= (logging.WARNING if ours else logging.ERROR)
        if bad or record.exc_info:
            self.records.append(record)
        if record.msg == self.REFUSED and isinstance(record.args, tuple):
            interaction_id, error = record.args
            if isinstance(interaction_id, int) and isinstance(error, BaseException):
                self.refusals[interaction_id] = error
        try:
            text = record.getMessage()
        except Exception:  # a bad format string is the record's problem, not a leak
            text = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            text += f"\n{record.exc_info[1]!r}"
        if len(cards_in_text(text)) >= 2:
            self.card_lines.append(LogLine(record.name, text, self.shown()))

    def install(self) -> None:
        for name in self.LOGGERS:
            logger = logging.getLogger(name)
            self._saved[name] = logger.level
            logger.setLevel(logging.DEBUG)
            logger.addHandler(self)
        for name in PAYLOAD_LOGGERS:
            logger = logging.getLogger(name)
            self._saved.setdefault(name, logger.level)
        silence_payload_loggers()

    def uninstall(self) -> None:
        for name in self.LOGGERS:
            logging.getLogger(name).removeHandler(self)
        for name, level in self._saved.items():
            logging.getLogger(name).setLevel(level)

    @staticmethod
    def describe(record: logging.LogRecord) -> str:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f"\n    {type(error).__name__}: {error}"
            tb = record.exc_info[2]
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None:
                frame = tb.tb_frame
                text += f" (at {frame.f_code.co_filename}:{tb.tb_lineno} in {frame.f_code.co_name})"
        return text


# -- every hand dealt --------------------------------------------------------------------------


@dataclass(eq=False)
class Dealt:
    """A hand as the engine dealt it: the Hand object lives on (``shown`` keeps changing)."""

    hand: Hand
    players: tuple[int, ...]
    number: int
    serial: int

    def holes(self, index: int) -> tuple[Card, Card]:
        return self.hand.hole_cards(index)

    def public(self) -> set[Card]:
        cards = {card for board in self.hand.boards for card in board}
        for i in self.hand.shown:
            cards.update(self.hand.hole_cards(i))
        return cards

    def known_to(self, user_id: int | None) -> set[Card]:
        """What ``user_id`` (None: everybody) may have seen of this hand."""
        cards = self.public()
        if user_id is not None and user_id in self.players:
            cards.update(self.holes(self.players.index(user_id)))
        return cards


@dataclass(eq=False)
class Removal:
    """A player removed by a host (``Table.remove``) while in a hand. RULES 8: he leaves once
    that hand ends; he may play it out, but is dealt no later hand unless he joins again."""

    dealt: Dealt
    index: int
    joins: int  # how many joins the recorder had seen when he was removed
    table_id: int | None = None  # the machine's note of the table the hand is played at

    @property
    def player(self) -> int:
        return self.dealt.players[self.index]


class HandRecorder:
    """Records every hand ``Table.start_hand`` deals, every removal of a player in a hand
    (``Table.remove``) and who joined (``Table.join``), while installed (one machine at a
    time). Drafts are copies of the table, so a join a transition then failed to store is
    recorded too: that only makes the removal check more lenient."""

    def __init__(self) -> None:
        self.dealt: list[Dealt] = []
        self.removals: list[Removal] = []
        self.joins: list[int] = []
        self._saved: tuple[Any, Any, Any] | None = None

    def rejoined(self, removal: Removal) -> bool:
        return removal.player in self.joins[removal.joins :]

    def install(self) -> None:
        original_start, original_remove, original_join = Table.start_hand, Table.remove, Table.join
        recorder = self

        def remove(table: Table, player_id: Any, by: Any = None) -> Any:
            hand = table.hand
            index = table.hand_index(player_id)
            record = next((d for d in recorder.dealt if d.hand is hand), None)
            events = original_remove(table, player_id, by)
            if hand is not None and index is not None and record is not None:
                recorder.removals.append(Removal(record, index, len(recorder.joins)))
            return events

        def join(table: Table, player_id: Any, *args: Any, **kwargs: Any) -> Any:
            events = original_join(table, player_id, *args, **kwargs)
            recorder.joins.append(int(player_id))
            return events

        def start_hand(table: Table, *args: Any, **kwargs: Any) -> Any:
            events = original_start(table, *args, **kwargs)
            hand = table.hand
            if hand is not None:
                recorder.dealt.append(
                    Dealt(
                        hand,
                        tuple(int(p) for p in table.hand_players),
                        table.hand_number,
                        len(recorder.dealt),
                    )
                )
            return events

        self._saved = (original_start, original_remove, original_join)
        # Patched on the class: the live_table works on drafts, new Table objects every time.
        Table.start_hand = start_hand  # type: ignore[method-assign,assignment]
        Table.remove = remove  # type: ignore[method-assign,assignment]
        Table.join = join  # type: ignore[method-assign,assignment]

    def uninstall(self) -> None:
        if self._saved is not None:
            start_hand, remove, join = self._saved
            Table.start_hand = start_hand  # type: ignore[method-assign]
            Table.remove = remove  # type: ignore[method-assign]
            Table.join = join  # type: ignore[method-assign]
            self._saved = None

    def shown_now(self) -> tuple[frozenset[int], ...]:
        return tuple(frozenset(d.hand.shown) for d in self.dealt)


@contextlib.contextmanager
def installed(*things: LogTrap | HandRecorder) -> Iterator[None]:
    for thing in things:
        thing.install()
    try:
        yield
    finally:
        for thing in reversed(things):
            thing.uninstall()


# -- finding cards in text -------------------------------------------------------------------

_PRETTY = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")
_RUN = re.compile(r"(?<![A-Za-z0-9])((?:[2-9TJQKA][cdhs]){2,})(?![A-Za-z0-9])")
_SUIT_OF_SYMBOL = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}
_RANKS = "23456789TJQKA"
_SUITS = "cdhs"
_WORDS = re.compile(
    r"\b(" + "|".join(DEFAULT_LABELS.rank_names) + r") of ("
    + "|".join(DEFAULT_LABELS.suit_names) + r")\b",
    re.IGNORECASE,
)


def cards_in_text(text: str) -> set[Card]:
    """Every card the text names: "A♠", "10♥", runs like "AsKd" (a hand, a deck) and words
    like "ace of spades" (alt text)."""
    found: set[Card] = set()
    for rank, suit in _PRETTY.findall(text):
        found.update(parse_cards(("T" if rank == "10" else rank) + _SUIT_OF_SYMBOL[suit]))
    for run in _RUN.findall(text):
        found.update(parse_cards(run))
    for rank, suit in _WORDS.findall(text):
        r = _RANKS[[n.lower() for n in DEFAULT_LABELS.rank_names].index(rank.lower())]
        s = _SUITS[[n.lower() for n in DEFAULT_LABELS.suit_names].index(suit.lower())]
        found.update(parse_cards(r + s))
    return found


def message_parts(message: FakeMessage) -> list[tuple[str, str]]:
    """(where, text) of everything a reader of the message gets (images are not decoded)."""
    parts = [("content", message.content)]
    for embed in message.embeds:
        parts.append(("embed", json.dumps(embed, ensure_ascii=False)))
    for attachment in message.attachments:
        parts.append(("attachment filename", attachment.filename))
        if attachment.description:
            parts.append((f"alt text of {attachment.filename}", attachment.description))
        if not attachment.filename.lower().endswith((".png", ".jpg", ".jpeg", ".gif", ".webp")):
            text = attachment.data.decode("utf-8", "replace")
            parts.append((f"file {attachment.filename}", text))
    for component in message.walk_components():
        for key in ("label", "placeholder", "value"):
            if component.get(key):
                parts.append((f"component {key}", str(component[key])))
    return parts


def audience_of(fake: FakeDiscord, message: FakeMessage) -> int | None:
    """The only user who sees the message (a DM's recipient, an ephemeral reply's user), or
    None when the whole channel does."""
    channel = fake.channels.get(message.channel_id)
    if channel is not None and channel.type == CHANNEL_DM and channel.recipient is not None:
        return channel.recipient.id
    return message.visible_to


@dataclass
class Leak:
    dealt: Dealt
    player: int
    cards: tuple[Card, Card]
    where: list[str]
    audience: int | None
    message: FakeMessage
    kind: str

    def describe(self, names: dict[int, str]) -> str:
        cards = " ".join(pretty_card(c) for c in self.cards)
        short = "".join(format_card(c) for c in self.cards)
        who = names.get(self.player, str(self.player))
        seen_by = "the whole channel" if self.audience is None else names.get(
            self.audience, str(self.audience)
        )
        excerpt = self.message.content[:300].replace("\n", " | ")
        return (
            f"hand #{self.dealt.number} (dealt #{self.dealt.serial}): {who}'s unshown hole cards "
            f"{cards} ({short}) are in a {self.kind} seen by {seen_by}, in "
            f"{', '.join(self.where)}; message {self.message.id} v{self.message.version}: "
            f"{excerpt!r}"
        )


def _unshown_pairs(
    parts: list[tuple[str, str]],
    audience: int | None,
    dealt: Sequence[Dealt],
    shown_then: tuple[frozenset[int], ...],
) -> list[tuple[Dealt, int, tuple[Card, Card], list[str]]]:
    """(hand, player index, his hole cards, where) of every unshown pair (as of
    ``shown_then``) that ``parts`` name, for a reader who is ``audience`` (None: anybody).
    A pair that another hand made public (or dealt to the reader) does not count: texts about
    an earlier or later hand may name the same two cards."""
    everything = "\n".join(text for _, text in parts)
    # A whole deck (the shuffle check) names every card: it is about its own hand only.
    decks = [record for record in dealt if format_cards(record.hand.deck) in everything]
    per_part = [(where, cards_in_text(text)) for where, text in parts]
    cards: set[Card] = set().union(*(c for _, c in per_part)) if per_part else set()
    if len(cards) < 2:
        return []
    found = []
    for k, record in enumerate(dealt[: len(shown_then)]):
        if decks and record not in decks:
            continue
        for i, player in enumerate(record.players):
            if i in shown_then[k] or player == audience:
                continue
            pair = record.holes(i)
            if not (pair[0] in cards and pair[1] in cards):
                continue
            if any(
                other is not record and set(pair) <= other.known_to(audience) for other in dealt
            ):
                continue
            where = [w for w, c in per_part if pair[0] in c or pair[1] in c]
            if record in decks:
                where.append("the whole deck of the hand")
            found.append((record, i, pair, where))
    return found


def find_leaks(
    fake: FakeDiscord,
    message: FakeMessage,
    dealt: Sequence[Dealt],
    shown_then: tuple[frozenset[int], ...],
) -> list[Leak]:
    """Unshown hole cards (as of when the message was sent) that the message shows to anybody
    but their owner."""
    audience = audience_of(fake, message)
    kind = (
        "DM" if audience is not None and message.visible_to is None
        else "ephemeral reply" if audience is not None
        else "channel message"
    )
    return [
        Leak(record, record.players[i], pair, where, audience, message, kind)
        for record, i, pair, where in _unshown_pairs(
            message_parts(message), audience, dealt, shown_then
        )
    ]


def find_log_leaks(line: LogLine, dealt: Sequence[Dealt], names: dict[int, str]) -> list[str]:
    """Unshown hole cards a log line names (whoever reads the log is nobody's audience)."""
    return [
        f"hand #{record.number}: {names.get(record.players[i], record.players[i])}'s unshown "
        f"hole cards {' '.join(pretty_card(c) for c in pair)} in a log line of {line.logger}: "
        f"{line.text[:300]!r}"
        for record, i, pair, _ in _unshown_pairs([("log", line.text)], None, dealt, line.shown)
    ]


# -- a step's outcome, for the history --------------------------------------------------------


@dataclass
class Outcome:
    description: str
    replies: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.replies:
            return self.description
        return self.description + " -> " + " / ".join(self.replies)


def reply_text(handle: InteractionHandle) -> str:
    callback = handle.callback
    if callback is None:
        return "(no answer)"
    if callback.is_modal:
        return f"(modal {callback.custom_id})"
    text = callback.content.replace("\n", " | ")
    if len(text) > 160:
        text = text[:157] + "..."
    return repr(text)
