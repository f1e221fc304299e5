"""What a player can do at any table where a hand is played, cash or tournament.

The slash commands that play (``/fold`` ... ``/allin``, ``/poker cards``, ``/poker table``,
``/poker history``, ``/poker verify``, ``/poker replay``) and the table's buttons work on this
surface, so a cash table (:class:`~bot.runtime.runner.TableRunner`) and a tournament's table
(:class:`~bot.runtime.tourney.TournamentTable`) answer them with the same code.
"""

from __future__ import annotations

from typing import Protocol

from bot.runtime.messenger import TableMessenger
from bot.runtime.runner import CardsView
from bot.storage import Database
from engine.hand import ActionKind, ActionTaken, Hand, PreAction
from engine.table import Table


class Named(Protocol):
    names: dict[int, str]  # display names by user id, as last seen


class LiveTable(Protocol):
    table_id: int
    guild_id: int
    channel_id: int
    db: Database
    messenger: TableMessenger

    @property
    def config(self) -> Named: ...

    @property
    def table(self) -> Table: ...

    @property
    def hand(self) -> Hand | None: ...

    def player_of(self, index: int) -> int: ...

    def remember(self, user_id: int, name: str) -> None: ...

    def my_cards(self, user_id: int, locale: object) -> CardsView: ...

    async def act(
        self,
        user_id: int,
        kind: ActionKind,
        amount: int | None = None,
        *,
        ref: tuple[int, int] | None = None,
    ) -> ActionTaken: ...

    async def preselect(
        self, user_id: int, pre: PreAction, *, hand_number: int | None = None
    ) -> PreAction: ...

    async def show_cards(self, user_id: int, *, hand_number: int | None = None) -> None: ...

    async def sit_in(self, user_id: int) -> None: ...

    async def repost(self, user_id: int) -> bool: ...
