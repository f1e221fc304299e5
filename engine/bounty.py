"""Knockout bounties: who takes the bounty on a busted player's head, and how it is split.

A player's bounty is won by whoever wins his *last chips*: the highest pot he had chips in (the
side pot he shares with the fewest players; the main pot when he was the shortest stack). When
that pot was split (a tie, a board run twice, a high and a low half), the bounty is split the
same way, by the same function that split the pot (:func:`engine.hand.pay_pot`): halved by run
and by high and low exactly as the pot was, each part shared equally by its winners, the odd
units one each to the winners first clockwise from the button (RULES 5). So a bounty follows its
pot to the chip, and the rule for odd units is written once.

In a progressive knockout each winner's share is then cut in two (:func:`progressive_halves`):
the first half is paid to him at once and takes the odd unit, the second goes onto his own
head.

>>> from engine.cards import parse_cards
>>> from engine.hand import Hand, HandConfig, deck_from_cards
>>> holes = [parse_cards(h) for h in ("2c3d", "AhKd", "AsKc")]
>>> deck = deck_from_cards(3, holes, parse_cards("9h9d4c7sQd"))
>>> hand = Hand(HandConfig.standard((100, 1000, 1000), 5, 10), deck)
>>> _ = hand.raise_to(2, 100); _ = hand.call(0); _ = hand.call(1)
>>> while not hand.is_over: _ = hand.check(hand.to_act)
>>> bounty_shares(25, hand.result, 0, 1)  # A-K twice: the player first left of the button
[(1, 13), (2, 12)]
>>> progressive_halves(13, 1)
(7, 6)
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from engine.hand import HandResult, PotAwarded, halve, pay_pot

__all__ = ["BountyKind", "bounty_shares", "last_chips_pot", "progressive_halves"]


class BountyKind(StrEnum):
    KNOCKOUT = "knockout"  # the winner of his last chips takes all of his bounty
    PROGRESSIVE = "progressive"  # ... half of it, and half goes onto the winner's own head


def last_chips_pot(result: HandResult, player: int) -> int:
    """The index of the highest pot ``player`` (a hand index) had chips in and could win: his
    last chips are there. A player whose chips were all dead money (in no pot he could win)
    lost them to the main pot."""
    mine = [award.index for award in result.pots if player in award.eligible]
    return max(mine, default=0)


def bounty_shares(
    amount: int, result: HandResult, player: int, unit: int
) -> list[tuple[int, int]]:
    """``amount`` (the bounty on ``player``'s head) split as the pot holding his last chips was
    split: ``(hand index, share)`` of each of its winners, in hand order; the shares add up to
    ``amount``. ``unit`` is the smallest amount split (odd units go as in a pot)."""
    index = last_chips_pot(result, player)
    parts = [award for award in result.pots if award.index == index]
    assert parts, "a player who busted lost his chips to some pot"
    runs = sorted({award.run for award in parts})
    winners = [_winners(parts, run) for run in runs]
    paid: dict[int, int] = {}
    for _, _, _, shares in pay_pot(amount, parts[0].eligible, winners, unit):
        for who, chips in shares:
            paid[who] = paid.get(who, 0) + chips
    return sorted(paid.items())


def _winners(parts: Sequence[PotAwarded], run: int) -> tuple[list[int], list[int]]:
    """Who won the high (or whole) and the low part of one run of a pot, as pay_pot takes
    them."""
    high = sorted({p for a in parts if a.run == run and a.half != "low" for p, _ in a.shares})
    low = sorted({p for a in parts if a.run == run and a.half == "low" for p, _ in a.shares})
    return high, low


def progressive_halves(amount: int, unit: int) -> tuple[int, int]:
    """A progressive bounty share cut in two: (paid now, onto the winner's head); the half paid
    now takes the odd unit (and anything below one unit)."""
    return halve(amount, unit)
