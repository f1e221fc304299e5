"""The seam between the hand loop and the kinds of table: the hooks an owner fills, declared once.

:class:`~bot.runtime.table.LiveTable` writes the hand loop once; its owners (a cash table, a
tournament's table, a practice table, and whatever kind comes next) fill the hooks below and
never copy the loop: the sequence is written once and asks the owner only what differs.
:class:`TableContract` declares the hooks, in three tiers:

======================  ========================  =============================================
tier                    hook                      what the owner says
======================  ========================  =============================================
required                ``table``                 its engine table
required                ``names``                 display names by user id, as stored
required                ``locale``                the language its channel speaks
required                ``banks``                 the time banks as stored
required                ``venue``                 what its server's lease carries
required                ``_make_messenger``       the messenger of its channel
required                ``_is_away``              whether a player is away
required                ``_away_players``         every player away
required                ``_presence``             the draft marking a player away or back
required                ``_store_actions``        how a decision is stored (one transaction)
required                ``_put_hand``             the hand as storage holds it, put back
required                ``_may_deal``             whether it deals now
required                ``_deal_hand``            the deal itself (draft, store, adopt)
required                ``_record``               a hand's result (draft, store, adopt)
required                ``sit_in``                a player away comes back
optional                ``dealing``               whether its dealing is on (default: on)
optional                ``event_name``            the event its hand histories name
optional                ``small_blind_at``        the small blind of a past hand's stakes
optional                ``_must_fold``            a player who may only fold (left the table)
optional                ``_dress``                what heads its table message
optional                ``_result_notes``         what it adds under a result
optional                ``_settled``              what follows a result shown
optional                ``_deal_refused``         storage refused the deal
optional                ``_hold_play``            stop dealing until the host resumes
optional                ``_forgotten``            a player's marks are forgotten
optional                ``_venue_closed``         its venue closed around it
======================  ========================  =============================================

Required hooks are abstract: an owner that forgets one cannot be made. Optional hooks are
documented methods that do nothing (or say the default) until an owner fills them; the
:func:`hook` mark lets a test list them, as discord.py marks a cog's special methods. The third
tier is the other way round: what owners call of the loop, its **owner API**, public names
only (``bot.runtime.table.OWNER_API``). ``docs/architecture.md`` shows this table with what
each kind says, and a test keeps both equal to the code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from bot.presenter import TableMessage
from bot.runtime.kinds import TableKind
from bot.runtime.messenger import TableMessenger
from engine.cards import Card
from engine.commitment import DeckCommitment
from engine.hand import Hand
from engine.table import Table, TableEvent

D = TypeVar("D")
F = TypeVar("F", bound=Callable[..., Any])
HOOK_MARK = "__table_hook__"


def hook(method: F) -> F:
    """Mark an optional hook of the loop: a documented method an owner may fill."""
    setattr(method, HOOK_MARK, True)
    return method


class TableContract(ABC, Generic[D]):
    """What an owner of the hand loop says about its table; ``D`` is its draft (what a change
    is made on before storage agrees)."""

    kind: ClassVar[TableKind]
    # Whether the table's messenger is its own to stop (a tournament's tables speak through
    # their tournament's channels, which the tournament stops).
    owns_messenger: ClassVar[bool] = True

    # -- required hooks ------------------------------------------------------------------------

    @property
    @abstractmethod
    def table(self) -> Table:
        """The engine's table."""

    @property
    @abstractmethod
    def names(self) -> dict[int, str]:
        """Display names by user id, as last seen (kept in what the owner stores)."""

    @property
    @abstractmethod
    def locale(self) -> str | None:
        """The language its channel speaks."""

    @property
    @abstractmethod
    def banks(self) -> dict[int, float]:
        """The time banks as stored."""

    @property
    @abstractmethod
    def venue(self) -> Any:
        """What owns the table and is restored with its server's lease: the cash table
        itself, or its tournament."""

    @abstractmethod
    def _make_messenger(self) -> TableMessenger:
        """The messenger of its channel."""

    @abstractmethod
    def _is_away(self, player_id: int) -> bool:
        """Whether the player is away (what that means is the kind's: ``TableKind.away``)."""

    @abstractmethod
    def _away_players(self) -> frozenset[int]:
        """Every player away."""

    @abstractmethod
    def _presence(self, player_id: int, *, away: bool) -> D | None:
        """A draft in which the player is away (or back), stored with the decision that
        changes it; None when nothing needs storing."""

    @abstractmethod
    async def _store_actions(self, before: int, logged: Sequence[Any], draft: D | None) -> None:
        """Store what the hand logged from action ``before`` on (with ``draft``, in the same
        transaction, then adopt it)."""

    @abstractmethod
    def _put_hand(self, hand: Hand) -> None:
        """Put the hand as storage holds it back on the table."""

    @abstractmethod
    def _may_deal(self) -> bool:
        """Whether it deals now."""

    @abstractmethod
    async def _deal_hand(self, deck: tuple[Card, ...], commitment: DeckCommitment) -> int | None:
        """Deal the next hand on a draft, store it, adopt it: the stored hand's id, or None when
        no hand is dealt now (the owner says why). A ``StorageError`` changes nothing."""

    @abstractmethod
    async def _record(self, hand: Hand) -> Sequence[TableEvent]:
        """Store the result of ``hand`` with the table's new state, adopt it: what it did."""

    @abstractmethod
    async def sit_in(self, user_id: int) -> None:
        """A player who is away comes back ("Back", ``/poker sitin``)."""

    # -- optional hooks ------------------------------------------------------------------------

    @property
    @hook
    def dealing(self) -> bool:
        """Whether its dealing is on (the default: always)."""
        return True

    @property
    @hook
    def event_name(self) -> str | None:
        """The event its hand histories name (a tournament's; none by default)."""
        return None

    @hook
    def small_blind_at(self, level: int | None) -> int:
        """The small blind of the stakes a hand was played at (``level``: a tournament's, for
        its hands); the table's own, by default."""
        return self.table.options.small_blind

    @hook
    def _must_fold(self, player_id: int) -> bool:
        """Whether the player may only fold: he folds when his turn comes, and any other input
        of his is refused (a cash table's player who left during the hand). Nobody, by
        default."""
        return False

    @hook
    def _dress(self, message: TableMessage) -> TableMessage:
        """What heads its table message (a tournament's level); the message as it is, by
        default."""
        return message

    @hook
    def _result_notes(self, events: Sequence[TableEvent]) -> list[str]:
        """What it adds under a result (busts, eliminations); nothing by default."""
        return []

    @hook
    def _settled(self, events: Sequence[TableEvent]) -> None:
        """The result is stored and shown (a tournament moves on)."""

    @hook
    def _deal_refused(self) -> None:
        """Storage refused the deal (the table is as it was)."""

    @hook
    async def _hold_play(self) -> None:
        """Stop dealing until the host resumes (kinds that pause without their channel)."""

    @hook
    def _forgotten(self, user_id: int) -> None:
        """A player's timeouts and double clicks were forgotten: forget the owner's marks too."""

    @hook
    def _venue_closed(self) -> bool:
        """Whether its venue closed around it (a tournament over); never, by default."""
        return False


__all__ = ["HOOK_MARK", "TableContract", "hook"]
