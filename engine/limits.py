"""The project's hard ceilings, defined once: every layer checks against these same numbers."""

from __future__ import annotations

MAX_SEATS = 23
"""Seats at a table and players in a hand (the seeds' theoretical limit); tables default to 10."""

MAX_TABLE_SEATS = 10
"""Seats a table is opened with at most, cash or tournament: what the table image draws."""

MAX_TOURNAMENT_PLAYERS = 1_000
"""Players one tournament takes (and so the lowest place it can pay)."""

MAX_LEVELS = 100
"""Blind levels in one structure (late registration stays open for at most this many)."""

MAX_DAYS_AHEAD = 366
"""A year, leap day included: the furthest ahead a time may be set, and the longest wait."""

MAX_CHIPS = 10**12
"""The largest single chip figure (a blind, a buy-in, a bet, a stack, a wallet move).

Large enough for any real economy, small enough that no sum of amounts the bot ever adds (23
stacks, a guild's wallets) can overflow a 64-bit integer column.
"""
