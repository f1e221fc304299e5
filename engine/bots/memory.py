"""What the strong level remembers of the others at its table: public habits, one session long.

A :class:`Memory` learns from what it is given and nothing else: the views of its own turns
(:class:`~engine.bots.view.BotView`, which tell it who it is) and, at the end of each hand, the
hand as everybody at the table saw it (:class:`~engine.bots.view.HandSeen`: who acted, how, for
how much, and the hands shown at the showdown). Per opponent (by ``who``) it counts, each count
fading by :data:`FADE` a hand so that a player who changes style is read anew within a hundred
hands or so:

- how often he plays a hand before the flop, raises, and re-raises a single raise;
- how often he moves all in when he could first raise (at most one raise before him, 25 big
  blinds or more behind), and at what depth;
- after the flop, how often he bets or raises, and how often he folds to a bet (against a
  player who folds to most bets the strong level bets whatever it holds, and before the flop
  calls a raise that commits little of its stack to do it: :data:`~engine.bots.levels.EASY_FOLDS`);
- the last :data:`SHOWN_KEPT` hands he showed, each with the board and his actions in it.

It is stored nowhere but in the object, which a table makes for each bot and a match forgets at
every session (``new_session``); a restart forgets it.

The readings it gives are bounded, so that a player who plays one way for a while and then
another costs little: each needs a minimum of observations, starts from a prior that is the
level's normal reading, and moves the play within limits (:meth:`Memory.shove_width` widens a
calling range to at most :data:`WIDEST_SHOVES`; :meth:`Memory.bluffs_believed` only ever lowers
the bluffs believed in a bet of a player who seldom bets, to no less than :data:`FEWEST_BLUFFS`
of them, and raises them for one who bets most of the time, to :data:`MOST_BLUFFS` times them
and never beyond the bet's price;
:meth:`Memory.bluff_share` only ever lowers the level's own bluffs, to no less than
:data:`FEWEST_OWN_BLUFFS` of them).

>>> memory = Memory()
>>> memory.shove_width(7) is None    # nothing seen of player 7 yet
True
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, fields
from typing import Final

from engine.bots.view import BotView, HandSeen
from engine.cards import Card
from engine.hand import ActionKind, Street

__all__ = [
    "ALWAYS_BETS",
    "FADE",
    "FEWEST_BLUFFS",
    "FEWEST_OWN_BLUFFS",
    "MOST_BLUFFS",
    "ONLY_ALL_IN",
    "SHOWN_KEPT",
    "TIGHT_OPENS",
    "WIDEST_SHOVES",
    "WIDE_OPENS",
    "Habits",
    "Memory",
    "Shown",
]

FADE: Final = 0.99
"""Each count of a player is multiplied by this at every hand he is dealt into."""
WIDEST_SHOVES: Final = 0.6
"""A calling range against all-ins is never read wider than this share of hands."""
FEWEST_BLUFFS: Final = 0.4
"""The bluffs believed in a bet are never fewer than this share of the usual reading."""
MOST_BLUFFS: Final = 2.5
"""Nor more than this many times it (and never more than a bet's price makes a caller
indifferent to: :meth:`Memory.bluffs_believed`'s caller caps the share at the whole of it)."""
FEWEST_OWN_BLUFFS: Final = 0.25
"""The level's own bluffs are never fewer than this share of the usual frequency."""
SHOWN_KEPT: Final = 20
"""Hands shown at showdowns kept per opponent, the latest."""
_SHOVE_DEPTH: Final = 25.0  # big blinds behind for an all-in to count as a deep one
_SHOVE_SEEN: Final = 8.0  # chances to shove seen before the width is read
_SHOVE_PRIOR: Final = (0.03, 5.0)  # share, weight: a sound player shoves deep almost never
_AGGRESSION_PRIOR: Final = (0.3, 10.0)  # share of his post-flop actions that bet or raise
_FOLD_PRIOR: Final = (0.4, 10.0)  # share of the bets he faces that he folds to
_FOLDS_SEEN: Final = 8.0  # bets faced after the flop before his folding is read
_PLAYS_SEEN: Final = 8.0  # deep voluntary plays before "he only moves all in" is read
_OPENS_SEEN: Final = 8.0  # chances to open before his opening width is read
_OPEN_PRIOR: Final = (0.25, 10.0)  # share, weight: a sound player opens about a quarter
_CHECKED_TO_SEEN: Final = 8.0  # turns checked to after the flop before his betting is read
_RAISED_SEEN: Final = 8.0  # raises faced after his own bets before his answer is read
_RE_RAISE_PRIOR: Final = (0.08, 10.0)  # share, weight: a sound player re-raises seldom
_RAISED_PRIOR: Final = (0.2, 10.0)  # share, weight: a bet is mostly worth going on with
WIDE_OPENS: Final = 0.6
"""An opener is read as wider than his position says only once seen opening this share of
hands or more: a sound player's average over the seats stays under it, so his early-seat raises
are not read as his button's (:meth:`Memory.open_width`)."""
TIGHT_OPENS: Final = 0.08
"""An opener seen opening this share of hands or less has his raise read as that narrow
(:meth:`Memory.tight_opens`)."""
ALWAYS_BETS: Final = 0.85
"""A player who bets this share or more of the times he is checked to after the flop is read as
betting whatever he holds there: his bets say nothing of his hand (:meth:`Memory.always_bets`)."""
ONLY_ALL_IN: Final = 0.9
"""A player whose deep voluntary plays before the flop are all-ins this often or more is read
as one who answers anything by moving all in or letting it go (:meth:`Memory.only_all_in`)."""
_AGGRESSIVE: Final = (ActionKind.BET, ActionKind.RAISE)


@dataclass(frozen=True, slots=True)
class Shown:
    """A hand an opponent showed: his cards, the board, and what he did in the hand."""

    cards: tuple[Card, ...]
    board: tuple[Card, ...]
    actions: tuple[tuple[Street, ActionKind, bool], ...]  # street, kind, all-in


@dataclass(slots=True)
class Habits:
    """One opponent's counts, each fading by :data:`FADE` a hand, and his hands shown."""

    hands: float = 0.0  # hands in which he made a pre-flop decision
    plays: float = 0.0  # of those, hands he put chips in voluntarily
    raises: float = 0.0  # hands he raised before the flop
    re_raise_chances: float = 0.0
    re_raises: float = 0.0
    shove_chances: float = 0.0  # first decisions facing at most one raise, deep
    shoves: float = 0.0
    shove_depth: float = 0.0  # big blinds behind, summed over his shoves
    open_chances: float = 0.0  # first decisions with no raise before him
    opens: float = 0.0  # of those, raises
    checked_to: float = 0.0  # post-flop actions with no bet before him on the street
    bets_checked_to: float = 0.0  # of those, bets
    raises_to_bets: float = 0.0  # bets faced after the flop that he raised
    raised_after_betting: float = 0.0  # raises faced after his own bet on the street
    folds_after_betting: float = 0.0  # of those, folds
    deep_plays: float = 0.0  # first pre-flop decisions, deep, that put chips in voluntarily
    deep_all_ins: float = 0.0  # of those, all-ins
    postflop: float = 0.0  # post-flop actions
    aggressive: float = 0.0  # of those, bets and raises
    bets_faced: float = 0.0
    folds_to_bets: float = 0.0
    shown: deque[Shown] = field(default_factory=lambda: deque(maxlen=SHOWN_KEPT))

    def fade(self) -> None:
        for counted in fields(self):
            value = getattr(self, counted.name)
            if isinstance(value, float):
                setattr(self, counted.name, value * FADE)


def _share(count: float, chances: float, prior: tuple[float, float]) -> float:
    share, weight = prior
    return (count + share * weight) / (chances + weight)


def _folding(habits: Habits) -> float:
    """The share of the bets he faced after the flop that he folded to, from the prior."""
    return _share(habits.folds_to_bets, habits.bets_faced, _FOLD_PRIOR)


class Memory:
    """The habits of the players met in one session (see the module doc)."""

    __slots__ = ("_habits", "_mine")

    def __init__(self) -> None:
        self._habits: dict[int, Habits] = {}
        self._mine: set[int] = set()  # who this player is at the tables he has seen

    def forget(self) -> None:
        self._habits.clear()
        self._mine.clear()

    def see(self, view: BotView) -> None:
        """Take in a view of one's own turn: it says who one is."""
        me = view.who[view.me]
        if me not in self._mine:
            self._mine.add(me)
            self._habits.pop(me, None)

    def habits(self, who: int) -> Habits | None:
        return self._habits.get(who)

    def shove_width(self, who: int) -> float | None:
        """The share of hands ``who`` moves all in with when he can first raise deep, once
        seen often enough; None before."""
        habits = self._habits.get(who)
        if habits is None or habits.shove_chances < _SHOVE_SEEN:
            return None
        return min(WIDEST_SHOVES, _share(habits.shoves, habits.shove_chances, _SHOVE_PRIOR))

    def open_width(self, who: int) -> float | None:
        """The share of hands ``who`` raises with when nobody raised before him, once seen
        :data:`_OPENS_SEEN` times and when it is :data:`WIDE_OPENS` or more; None else."""
        habits = self._habits.get(who)
        if habits is None or habits.open_chances < _OPENS_SEEN:
            return None
        width = _share(habits.opens, habits.open_chances, _OPEN_PRIOR)
        return width if width >= WIDE_OPENS else None

    def tight_opens(self, who: int) -> float | None:
        """The share of hands ``who`` opens with, once seen :data:`_OPENS_SEEN` times, when it
        is :data:`TIGHT_OPENS` or less (a player who raises only the best hands); None else."""
        habits = self._habits.get(who)
        if habits is None or habits.open_chances < _OPENS_SEEN:
            return None
        width = _share(habits.opens, habits.open_chances, _OPEN_PRIOR)
        return width if width <= TIGHT_OPENS else None

    def folds_when_raised(self, who: int) -> float | None:
        """The share of the raises ``who`` faced after betting a street that he folded to,
        once seen :data:`_RAISED_SEEN` times; None before."""
        habits = self._habits.get(who)
        if habits is None or habits.raised_after_betting < _RAISED_SEEN:
            return None
        return _share(habits.folds_after_betting, habits.raised_after_betting, _RAISED_PRIOR)

    def always_bets(self, who: int) -> bool:
        """Whether ``who`` bets nearly every time he is checked to after the flop
        (:data:`ALWAYS_BETS`), once seen :data:`_CHECKED_TO_SEEN` times."""
        habits = self._habits.get(who)
        if habits is None or habits.checked_to < _CHECKED_TO_SEEN:
            return False
        return _share(habits.bets_checked_to, habits.checked_to, _AGGRESSION_PRIOR) >= ALWAYS_BETS

    def re_raises(self, who: int) -> float | None:
        """The share of single raises ``who`` re-raised before the flop, once seen facing
        :data:`_SHOVE_SEEN` of them; None before."""
        habits = self._habits.get(who)
        if habits is None or habits.re_raise_chances < _SHOVE_SEEN:
            return None
        return _share(habits.re_raises, habits.re_raise_chances, _RE_RAISE_PRIOR)

    def always_raises(self, who: int) -> bool:
        """Whether ``who`` raises nearly every bet he faces after the flop
        (:data:`ALWAYS_BETS` of them), once seen facing :data:`_FOLDS_SEEN`: his raises say
        nothing of his hand either."""
        habits = self._habits.get(who)
        if habits is None or habits.bets_faced < _FOLDS_SEEN:
            return False
        return _share(habits.raises_to_bets, habits.bets_faced, _RAISED_PRIOR) >= ALWAYS_BETS

    def only_all_in(self, who: int) -> float | None:
        """The share of hands ``who`` moves all in with, deep, when he is read as a player who
        puts chips in before the flop only by moving all in (at least :data:`ONLY_ALL_IN` of
        his deep voluntary plays, once :data:`_PLAYS_SEEN` of them were seen); None for anyone
        else. Against him a bigger raise wins nothing more than a smaller one: he shoves or
        lets it go whatever it costs."""
        habits = self._habits.get(who)
        if habits is None or habits.deep_plays < _PLAYS_SEEN:
            return None
        if habits.deep_all_ins < ONLY_ALL_IN * habits.deep_plays:
            return None
        return min(WIDEST_SHOVES, _share(habits.deep_all_ins, habits.hands, _SHOVE_PRIOR))

    def bluffs_believed(self, who: int) -> float:
        """How much of the usual bluffing to believe in a bet of ``who``: less from a player
        who seldom bets (his bets are what they say), more from one who bets most of the
        time, within :data:`FEWEST_BLUFFS` and :data:`MOST_BLUFFS` of the usual."""
        habits = self._habits.get(who)
        if habits is None:
            return 1.0
        aggression = _share(habits.aggressive, habits.postflop, _AGGRESSION_PRIOR)
        return max(FEWEST_BLUFFS, min(MOST_BLUFFS, aggression / _AGGRESSION_PRIOR[0]))

    def bluff_share(self, opponents: list[int]) -> float:
        """How much of the usual bluffing to do against ``opponents``: less against players who
        seldom fold to a bet (the least folding of them counts), never more than usual."""
        share = 1.0
        for who in opponents:
            habits = self._habits.get(who)
            if habits is None:
                continue
            folds = _folding(habits)
            share = min(share, max(FEWEST_OWN_BLUFFS, min(1.0, folds / _FOLD_PRIOR[0])))
        return share

    def folds_to_bets(self, opponents: list[int]) -> float | None:
        """The share of the bets he faces after the flop that the least folding of
        ``opponents`` folds to, once each was seen facing :data:`_FOLDS_SEEN` bets; None
        before (or with nobody)."""
        shares = []
        for who in opponents:
            habits = self._habits.get(who)
            if habits is None or habits.bets_faced < _FOLDS_SEEN:
                return None
            shares.append(_folding(habits))
        return min(shares, default=None)

    def learn(self, hand: HandSeen) -> None:
        """Count one finished hand's public actions and keep the hands shown in it."""
        seen: dict[int, Habits] = {}
        for who in hand.who:
            if who not in self._mine and who not in seen:
                seen[who] = self._habits.setdefault(who, Habits())
                seen[who].fade()
        self._count(hand, seen)
        for index, cards in hand.shown:
            habits = seen.get(hand.who[index])
            if habits is not None:
                played = hand.actions
                line = tuple((a.street, a.kind, a.all_in) for a in played if a.player == index)
                habits.shown.append(Shown(cards, hand.board, line))

    def _count(self, view: HandSeen, seen: dict[int, Habits]) -> None:
        decided: set[int] = set()
        played: set[int] = set()
        raised: set[int] = set()
        bettors: set[int] = set()  # who bet or raised on this street after the flop
        raises = 0
        street = Street.PREFLOP
        level = 0
        for action in view.actions:
            habits = seen.get(view.who[action.player])
            aggressive = action.kind in _AGGRESSIVE
            player = action.player
            if action.street is Street.PREFLOP:
                if habits is not None:
                    first = player not in decided
                    self._preflop(view, habits, player, raises, aggressive, action.all_in, first)
                    voluntary = action.kind not in (ActionKind.CHECK, ActionKind.FOLD)
                    if first and voluntary and view.stacks[player] >= _SHOVE_DEPTH * view.big_blind:
                        habits.deep_plays += 1
                        habits.deep_all_ins += action.all_in
                    if action.kind is not ActionKind.CHECK and player not in played:
                        habits.plays += action.kind is not ActionKind.FOLD
                        played.add(player)
                    if aggressive and player not in raised:
                        habits.raises += 1
                        raised.add(player)
                decided.add(player)
                raises += aggressive
                continue
            if action.street is not street:
                street, level = action.street, 0
                bettors.clear()
            if habits is not None:
                if player in bettors and level > 0:
                    habits.raised_after_betting += 1
                    habits.folds_after_betting += action.kind is ActionKind.FOLD
                habits.postflop += 1
                habits.aggressive += aggressive
                if level == 0:
                    habits.checked_to += 1
                    habits.bets_checked_to += aggressive
                if level > 0:
                    habits.raises_to_bets += aggressive
                    habits.bets_faced += 1
                    habits.folds_to_bets += action.kind is ActionKind.FOLD
            level += aggressive
            if aggressive:
                bettors.add(player)

    @staticmethod
    def _preflop(
        view: HandSeen,
        habits: Habits,
        seat: int,
        raises: int,
        aggressive: bool,
        all_in: bool,
        first: bool,
    ) -> None:
        if not first:
            return
        habits.hands += 1
        if raises == 0:
            habits.open_chances += 1
            habits.opens += aggressive
        if raises == 1:
            habits.re_raise_chances += 1
            habits.re_raises += aggressive
        depth = view.stacks[seat] / view.big_blind
        if raises <= 1 and depth >= _SHOVE_DEPTH:
            habits.shove_chances += 1
            if aggressive and all_in:
                habits.shoves += 1
                habits.shove_depth += depth
