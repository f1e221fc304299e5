"""The project's hard ceilings, defined once: every layer checks against these same numbers."""

from __future__ import annotations

MAX_SEATS = 23
"""Seats at a table and players in a hand (the seeds' theoretical limit); tables default to 10."""

MAX_CHIPS = 10**12
"""The largest single chip figure (a blind, a buy-in, a bet, a stack, a wallet move).

Large enough for any real economy, small enough that no sum of amounts the bot ever adds (23
stacks, a guild's wallets) can overflow a 64-bit integer column.
"""
