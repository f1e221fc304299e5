"""Which hands make one session, written once for everything that reads a session's hands:
the export (``bot.storage.sessions``), the recap's figures (``bot.storage.recaps``).

A session is a cash table's hands between two ends of its ledger (a reset, the table closing),
or a whole tournament. A session that ended is named by its recap's number
(:func:`bot.storage.recaps.session_of`); the one still running, by its table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SessionHands:
    """The finished hands of one session: a cash table's (numbered from ``first_hand``, up to
    ``last_hand`` once it ended), or every hand of a tournament (``tournament_id``), whatever
    table it was dealt at. ``low``/``high`` narrow it to the hands numbered between them (a
    tournament's tables number their hands each from 1, so a range there takes those numbers
    at every table)."""

    guild_id: int
    table_id: int | None  # a cash table's; None for a tournament
    tournament_id: int | None
    practice: bool
    first_hand: int
    last_hand: int | None = None  # None: the session still runs
    low: int | None = None
    high: int | None = None

    def where(self) -> tuple[str, tuple[object, ...]]:
        """The condition on ``h`` (hands) that selects them, and its parameters."""
        params: list[object]
        if self.tournament_id is not None:
            sql, params = "h.tournament_id = ?", [self.tournament_id]
        else:
            sql, params = "h.table_id = ? AND h.hand_no >= ?", [self.table_id, self.first_hand]
            if self.last_hand is not None:
                sql += " AND h.hand_no <= ?"
                params.append(self.last_hand)
        if self.low is not None:
            sql += " AND h.hand_no >= ?"
            params.append(self.low)
        if self.high is not None:
            sql += " AND h.hand_no <= ?"
            params.append(self.high)
        return sql + " AND h.status = 'finished'", tuple(params)
