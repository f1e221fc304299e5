"""The kinds of table, and what differs between them, declared once.

The hand loop (:class:`~bot.runtime.table.LiveTable`) is the same at every table; what differs
between a cash table, a practice table and a tournament's table is declared here, as PokerKit
declares its ``Mode``, where the code, the buttons, the commands and ``docs/architecture.md``
read it (a test keeps the docs equal to it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bot.errors import BotError


class Extra(StrEnum):
    """The home game's extras: what a kind of table may allow beyond the hand itself."""

    RUN_TWICE = "run_twice"
    RABBIT = "rabbit"
    STRADDLE = "straddle"
    BOMB = "bomb"
    SIT_OUT = "sit_out"
    LEDGER = "ledger"
    BOTS = "bots"  # a host seats computer players (a tournament seats them at its creation)


@dataclass(frozen=True, slots=True)
class TableKind:
    """What differs between two kinds of table, declared where code and docs can read it.

    - ``extras``: the home-game extras played there (the rest are refused, each with its own
      reason from ``refusals``, or ``refused`` by default);
    - ``away``: what a player who timed out twice becomes: ``sat out`` (no longer dealt in
      until he comes back) or ``blinded off`` (dealt in, the clock acting for him at once);
    - ``pauses_without_channel``: whether losing the channel pauses the table (a cash table
      waits for its host), or play goes on and the players are told by DM (a tournament's
      clock waits for nobody);
    - ``away_notice``: the catalog key that tells the channel a player is away;
    - ``channel_lost_notice``: the catalog key that tells each player by DM the bot lost the
      table's channel (and what happens now);
    - ``words``: the catalog keys this kind says its own way (``word``): a practice table's
      chips are play chips and never reach a wallet, so its replies never speak of one.

    Everything else — the hand, the clock, the run-out, the buttons, the DMs — is the same.
    """

    name: str
    extras: frozenset[Extra]
    away: str
    pauses_without_channel: bool
    away_notice: str
    channel_lost_notice: str
    refused: str = "tournament_rules"
    refusals: Mapping[Extra, str] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)

    def allows(self, extra: Extra) -> bool:
        return extra in self.extras

    def word(self, key: str) -> str:
        """The catalog key this kind says ``key`` with (its own, or the common one)."""
        return self.words.get(key, key)

    def require(self, extra: Extra) -> None:
        """Refuse ``extra`` here with its reason, unless this kind plays it."""
        if extra not in self.extras:
            raise BotError(self.refusals.get(extra, self.refused))


CASH = TableKind(
    name="cash",
    extras=frozenset(Extra),
    away="sat out",
    pauses_without_channel=True,
    away_notice="notice.timed_out",
    channel_lost_notice="notice.channel_lost",
)
TOURNAMENT = TableKind(
    name="tournament",
    extras=frozenset(),
    away="blinded off",
    pauses_without_channel=False,
    away_notice="tournament.away",
    channel_lost_notice="notice.channel_lost_playing",
    refusals={
        Extra.SIT_OUT: "tournament_no_sitout",
        Extra.LEDGER: "tournament_no_ledger",
        Extra.BOTS: "tournament_no_bots",
    },
)
PRACTICE = TableKind(
    name="practice",
    extras=frozenset(Extra) - {Extra.LEDGER},
    away="sat out",
    pauses_without_channel=True,
    away_notice="notice.timed_out",
    channel_lost_notice="notice.channel_lost",
    refusals={Extra.LEDGER: "practice_no_ledger"},
    words={key: f"{key}_practice" for key in (
        "reply.joined", "reply.left", "reply.leaving_after_hand", "reply.rebought",
        "reply.kicked", "reply.closed", "notice.closed_returned",
    )},
)
TABLE_KINDS = (CASH, PRACTICE, TOURNAMENT)


__all__ = ["CASH", "PRACTICE", "TABLE_KINDS", "TOURNAMENT", "Extra", "TableKind"]
