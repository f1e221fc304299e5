"""Builders shared by the engine tests."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import parse_cards
from engine.hand import Hand, HandConfig, deck_from_cards


def rigged(config: HandConfig, holes: Sequence[str | None], board: str) -> Hand:
    """A hand whose hole cards and board are the given ones (text like "AsKd")."""
    hole_cards = [parse_cards(h) if h else None for h in holes]
    deck = deck_from_cards(config.players, hole_cards, parse_cards(board))
    return Hand(config, deck)
