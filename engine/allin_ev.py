"""All-in EV: what the players' chips were worth when the cards took over, and luck.

**The moment.** When nobody can bet any more before the river (every player still in is all-in,
or all but one, who has matched every bet), the live hands are turned face up and the rest of
the board is dealt: once, or twice when the players run it twice. From then on chance alone
decides the hand. The moment is taken once the number of runs is settled, so a hand waiting for
the players' vote on running it twice has no all-in EV yet.

**Expected chips.** At that moment every way the rest of the board can come is equally likely:
any set of the cards nobody has seen (neither in a live hand nor on the board; folded hands and
burned cards are among them, since nobody saw them). A player's expected chips from a pot (the
main pot or a side pot, with any dead money in it) is what the pot would pay him by the rule book
on each of those boards, averaged over all of them:

- only the players who reached that pot and did not fold share it; a pot only one of them
  reached is his;
- ties split a pot and its odd chips go as the rule book says (RULES 5): chip unit by chip
  unit, from the first winner clockwise from the button;
- run twice, each run's board pays half the pot, the first run's half taking the odd chip unit;
  each run's board is again any set of the unseen cards, so both halves are counted;
- Hi-Lo: on each board a pot (or each run's half) is split between the best high hand and the
  best eight-or-better low, the high half taking the odd chip unit, and goes whole to the best
  high hand when no player in it has a low.

These are the rules the hand itself is paid by, from the same function
(:func:`engine.hand.pay_pot`).

**All-in EV and luck.** A player's all-in EV is his expected chips from every pot; his
**all-in EV net** is that minus the chips he put in the pots (blinds, antes and bets; a bet
nobody called came back to him before the moment and is not counted): what he would win or lose
on average if the hand were dealt out from that moment every possible way. His **luck** is his
actual net minus his all-in EV net, positive when the cards ran better than average. A player
who folded before the moment has an all-in EV of nothing and no luck. A hand without that moment
(it ended on a fold, or its last call came on the river with no card to come) has no all-in EV
and is not one of the all-in hands; in a player's totals its all-in EV net is its actual net
(no luck), as PokerTracker counts it.

**Exact, and how it is stored.** Every board is counted, never sampled, and the figures are
exact fractions of a chip: the players' expected chips add up to the pots exactly and their
all-in EV nets to zero. For a whole number of chips, :meth:`AllInEV.ev_net_chips` rounds the
expected chips by largest remainder (each down, then one chip more to the largest fractions,
ties to the first clockwise from the button), so each figure is less than a chip from the exact
one and they still add up to the pots: the table's luck is zero in every hand, in whole chips
too. :meth:`AllInEV.to_json` keeps the exact fractions as text (``"1183/2"``).

**How it is counted.** :func:`engine.equity.count_boards` gives every board still possible in
classes of boards on which each live hand has one value (up to 1.7 million boards before the
flop, in some tens of thousands of classes). For each pot the classes are grouped by who has the
best high hand and who the best low among its players, and each group is paid once by
:func:`engine.hand.pay_pot`, the same outcome on every run's board: by linearity the expected
payment of a pot run twice is the sum over runs of each run's expected half, and each run's board
is alike at that moment.

>>> from engine.cards import parse_cards
>>> from engine.hand import Hand, HandConfig, deck_from_cards
>>> holes = [parse_cards("AsAh"), parse_cards("KsKh")]
>>> deck = deck_from_cards(2, holes, parse_cards("2c7d9h 4s 5d"))
>>> hand = Hand(HandConfig.standard((100, 100), 1, 2), deck)
>>> _ = hand.go_all_in(1), hand.call(0)
>>> ev = all_in_ev(hand)
>>> ev.board, ev.boards, f"{float(ev.won[0]):.2f}", hand.result.net
((), 1712304, '165.27', (100, -100))
>>> [f"{float(x):+.2f}" for x in ev.ev_net], ev.ev_net_chips(), ev.luck_chips()
(['+65.27', '-65.27'], (65, -65), (35, -35))
>>> f"{float(ev.pots[0].share(0)):.4f}"      # aces against kings, suits alike
'0.8264'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.cards import Card, format_card, parse_cards
from engine.equity import BoardCount, count_boards, run_out_start
from engine.errors import EngineError
from engine.hand import Hand, Pot, pay_pot

__all__ = ["AllInEV", "PotEV", "all_in_ev", "expected_chips"]


@dataclass(frozen=True, slots=True)
class PotEV:
    """One pot at the moment: its chips, the players who may win it (index order) and each
    one's expected chips from it, in the same order."""

    amount: int
    eligible: tuple[int, ...]
    chips: tuple[Fraction, ...]

    def share(self, player: int) -> Fraction:
        """The part of this pot ``player`` could expect (0 if he is not in it)."""
        if player not in self.eligible:
            return Fraction(0)
        return self.chips[self.eligible.index(player)] / self.amount


@dataclass(frozen=True, slots=True)
class AllInEV:
    """A hand's all-in EV (see the module doc). Tuples indexed by player run over every player
    of the hand, folded ones included.

    ``board``: the board cards out at the moment; ``runs``: 1, or 2 when run twice; ``boards``:
    how many boards each run could have given; ``pots``: each pot with its shares;
    ``invested``: the chips each put in the pots; ``won``: the chips each could expect from
    them; ``net``: what each actually won or lost in the hand.
    """

    board: tuple[Card, ...]
    runs: int
    boards: int
    pots: tuple[PotEV, ...]
    invested: tuple[int, ...]
    won: tuple[Fraction, ...]
    net: tuple[int, ...]

    @property
    def ev_net(self) -> tuple[Fraction, ...]:
        """Each player's all-in EV net: expected chips won minus chips put in."""
        return tuple(w - i for w, i in zip(self.won, self.invested, strict=True))

    @property
    def luck(self) -> tuple[Fraction, ...]:
        """Each player's actual net minus his all-in EV net."""
        return tuple(n - e for n, e in zip(self.net, self.ev_net, strict=True))

    def ev_net_chips(self) -> tuple[int, ...]:
        """The all-in EV nets in whole chips, adding up to zero (rounded as the module doc
        says)."""
        won = _largest_remainder(self.won)
        return tuple(w - i for w, i in zip(won, self.invested, strict=True))

    def luck_chips(self) -> tuple[int, ...]:
        """Luck in whole chips: actual net minus :meth:`ev_net_chips`, adding up to zero."""
        return tuple(n - e for n, e in zip(self.net, self.ev_net_chips(), strict=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "board": [format_card(c) for c in self.board],
            "runs": self.runs,
            "boards": self.boards,
            "pots": [
                {"amount": p.amount, "eligible": list(p.eligible), "chips": _texts(p.chips)}
                for p in self.pots
            ],
            "invested": list(self.invested),
            "won": _texts(self.won),
            "net": list(self.net),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AllInEV:
        try:
            pots = tuple(
                PotEV(int(p["amount"]), tuple(p["eligible"]), _fractions(p["chips"]))
                for p in data["pots"]
            )
            return cls(
                board=parse_cards("".join(data["board"])),
                runs=int(data["runs"]),
                boards=int(data["boards"]),
                pots=pots,
                invested=tuple(int(i) for i in data["invested"]),
                won=_fractions(data["won"]),
                net=tuple(int(n) for n in data["net"]),
            )
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            raise EngineError("bad_all_in_ev", value=str(exc)) from None


def _texts(values: Sequence[Fraction]) -> list[str]:
    return [str(v) for v in values]


def _fractions(values: Sequence[str]) -> tuple[Fraction, ...]:
    return tuple(Fraction(v) for v in values)


def _largest_remainder(values: Sequence[Fraction]) -> list[int]:
    """Whole numbers within one of ``values``, adding up to their sum when it is whole: each
    rounded down, then one more to the largest fractional parts (ties to the lower index)."""
    floors = [v.numerator // v.denominator for v in values]
    short = round(sum(values, Fraction(0))) - sum(floors)
    order = sorted(range(len(values)), key=lambda i: (-(values[i] - floors[i]), i))
    for i in order[:short]:
        floors[i] += 1
    return floors


def all_in_ev(hand: Hand) -> AllInEV | None:
    """The hand's all-in EV, or None when it has none (it never came to the moment, is still
    waiting for the vote on running it twice, or was voided). See the module doc."""
    start = run_out_start(hand)
    result = hand.result
    if start is None or result is None or result.voided:
        return None
    live = tuple(j for j in range(hand.n) if not hand.folded[j])
    board = hand.board[:start]
    count = count_boards([hand.hole_cards(j) for j in live], board, game=hand.game)
    runs = len(hand.boards)
    pots = tuple(
        PotEV(
            pot.amount, pot.eligible, expected_chips(pot, live, count, runs, hand.config.chip_unit)
        )
        for pot in hand.pots()
    )
    won = [Fraction(0)] * hand.n
    for pot in pots:
        for player, chips in zip(pot.eligible, pot.chips, strict=True):
            won[player] += chips
    invested = tuple(c + p for c, p in zip(hand.contributions, hand.pooled, strict=True))
    return AllInEV(board, runs, count.boards, pots, invested, tuple(won), result.net)


def expected_chips(
    pot: Pot, live: Sequence[int], count: BoardCount, runs: int, chip_unit: int
) -> tuple[Fraction, ...]:
    """Each eligible player's expected chips from ``pot`` (in the order of ``pot.eligible``),
    with ``count`` valuing the hands of ``live`` in that order, the board run ``runs`` times."""
    eligible = pot.eligible
    if len(eligible) == 1:
        return (Fraction(pot.amount),)
    rows = [live.index(j) for j in eligible]
    keys, weights = _outcomes(count, rows)
    chips = dict.fromkeys(eligible, 0)
    size = len(eligible)
    for key, weight in zip(keys, weights, strict=True):
        high = [eligible[i] for i in range(size) if key >> i & 1]
        low = [eligible[i] for i in range(size) if key >> size + i & 1]
        for _, _, _, shares in pay_pot(pot.amount, eligible, [(high, low)] * runs, chip_unit):
            for player, paid in shares:
                chips[player] += weight * paid
    return tuple(Fraction(chips[j], count.boards) for j in eligible)


def _outcomes(count: BoardCount, rows: Sequence[int]) -> tuple[list[int], list[int]]:
    """Who wins a pot among the hands of ``rows``, as bits (bit ``i``: ``rows[i]`` has the best
    high hand; bit ``len(rows) + i``: it has the best low), and on how many boards."""
    highs = count.highs[rows]
    bits = (np.int64(1) << np.arange(len(rows), dtype=np.int64))[:, None]
    key: npt.NDArray[np.int64] = ((highs == highs.max(axis=0)) * bits).sum(axis=0)
    if count.lows is not None:
        lows = count.lows[rows]
        best = lows.max(axis=0)
        at_low = (lows == best) & (best > 0)
        key |= (at_low * (bits << len(rows))).sum(axis=0)
    if 2 * len(rows) <= 16:
        # Exact: float64 holds whole numbers to 2 ** 53, and no count comes near C(48, 5).
        totals = np.bincount(key, weights=count.counts, minlength=1 << 2 * len(rows))
        found = np.flatnonzero(totals)
        return found.tolist(), totals[found].astype(np.int64).tolist()
    found, inverse = np.unique(key, return_inverse=True)
    totals = np.bincount(inverse, weights=count.counts)
    return found.tolist(), totals.astype(np.int64).tolist()
