"""One hand of poker as a deterministic state machine: No-Limit Texas Hold'em, or another game
of :mod:`engine.games` (Pot-Limit Omaha and its 5-card and Hi-Lo forms).

Players are indexed clockwise from the first seat left of the button, the order PHH uses: with
three or more players index 0 posts the small blind and the last index is the button; heads-up
index 0 is the big blind and index 1 the button, who posts the small blind. A hand is fully
described by its :class:`HandConfig`, its deck order and its list of :class:`Action`; replaying
them gives the same state, which is what crash recovery and hand histories rely on.

The game (``HandConfig.game``, Hold'em by default) says how many hole cards each player gets,
how a hand is made, whether bets are capped at the pot and whether pots are split high-low; the
hand reads those rules from it and deals, bets and settles every game with the same code.

Dealing order: with ``n`` players and ``h`` hole cards each (2 in Hold'em, 4 or 5 in Omaha),
hole cards go one at a time round the table from index 0, ``h`` times, so hole card ``k`` of
player ``p`` is deck position ``p + k * n``; then, from position ``h * n``: a burn, the flop, a
burn, the turn, a burn, the river (:func:`board_positions`), and a second run after that
(:func:`second_run_positions`). A deck too short for the burns (23 Hold'em players, 9 with five
Omaha cards) deals the board without them.

>>> from engine.cards import parse_cards
>>> deck = parse_cards("AsAh KsKh 2c3d4h 5s 7c8d9h Td Jc Qd 6s")
>>> hand = Hand(HandConfig.standard((1000, 1000), 5, 10), deck + tuple(
...     c for c in FULL_DECK if c not in deck))
>>> hand.to_act, hand.legal().to_call
(1, 5)
>>> _ = hand.fold(1)
>>> hand.is_over, hand.stacks
(True, [1005, 995])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from operator import sub
from typing import Any, ClassVar, Final

from engine.cards import FULL_DECK, Card, format_card
from engine.errors import EngineError
from engine.evaluator import HandRank
from engine.games import GAMES, NLHE, Game, game_by_code
from engine.limits import MAX_CHIPS, MAX_SEATS
from engine.low import LowRank


class AnteKind(StrEnum):
    NONE = "none"
    PER_PLAYER = "per_player"
    BIG_BLIND = "big_blind"


class ReopenMode(StrEnum):
    TDA = "tda"
    STRICT = "strict"
    HALF = "half"


class RunItTwice(StrEnum):
    """What happens when every live hand is all-in (but one, matched) before the river.

    Run twice, the second board comes from :func:`second_run_positions` and every pot two or
    more can win is halved, the first run's half taking the odd chip unit; each half is then
    split among its own board's winners by RULES 5 (:class:`PotAwarded` says which run).
    """

    OFF = "off"  # the rest of the board is dealt once
    ASK = "ask"  # the hand waits for :meth:`Hand.choose_run_count` (the players' vote)
    ALWAYS = "always"  # dealt twice whenever the deck has room for a second run


class StraddleMode(StrEnum):
    """Who may post a straddle (twice the big blind, before the deal): a table option."""

    OFF = "off"
    UTG = "utg"  # the first seat left of the big blind
    BUTTON = "button"  # the button, when he is not also a blind


class Street(StrEnum):
    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    ALL_IN = "all_in"
    RUN_COUNT = "run_count"
    SHOW = "show"
    PRESELECT = "preselect"
    TIMEOUT = "timeout"
    VOID = "void"


class PreAction(StrEnum):
    FOLD = "fold"
    CHECK_FOLD = "check_fold"
    CHECK = "check"
    CALL = "call"
    CALL_ANY = "call_any"
    NONE = "none"


# The hand loop tests kinds and streets on every action. Under Python 3.11 reading a member off
# its Enum class (``ActionKind.FOLD``) goes through EnumType's ``__getattr__`` hook, about five
# times the cost of a module global; the hot paths read these instead (bench.engine measured
# about an eighth of a Hold'em hand's instructions in that hook).
_FOLD: Final = ActionKind.FOLD
_CHECK: Final = ActionKind.CHECK
_CALL: Final = ActionKind.CALL
_BET: Final = ActionKind.BET
_RAISE: Final = ActionKind.RAISE
_ALL_IN: Final = ActionKind.ALL_IN
_TIMEOUT: Final = ActionKind.TIMEOUT
_VOID: Final = ActionKind.VOID
_SHOW: Final = ActionKind.SHOW
_PRESELECT: Final = ActionKind.PRESELECT
_RUN_COUNT: Final = ActionKind.RUN_COUNT
_PREFLOP: Final = Street.PREFLOP
_FLOP: Final = Street.FLOP
_TURN: Final = Street.TURN
_RIVER: Final = Street.RIVER
_SHOWDOWN: Final = Street.SHOWDOWN
_COMPLETE: Final = Street.COMPLETE
_BIG_BLIND_ANTE: Final = AnteKind.BIG_BLIND

_CARD_IDS: Final = frozenset(FULL_DECK)


def _require_int(name: str, value: object, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError("bad_config", field=name, value=repr(value))
    if value < minimum or value > MAX_CHIPS:
        raise EngineError("bad_config", field=name, value=value)
    return value


@dataclass(frozen=True, slots=True)
class HandConfig:
    """Everything about a hand except the cards and the decisions.

    ``blinds`` are live bets; ``antes`` are dead money. With ``AnteKind.BIG_BLIND`` a player's
    blind is filled before his ante and the antes are pooled into the main pot (nobody has to
    match them); otherwise antes are posted first and count in each player's contribution, so a
    player short of a full ante can win only what he matched. ``dead_blinds`` (a missed small
    blind paid on return) are pooled like big-blind antes.

    ``straddle_index`` names a player whose entry in ``blinds`` is a straddle: a live blind of at
    least twice the big blind that he covers in full. Pre-flop the betting then opens at his
    left, he acts last, and a raise must add at least the straddle (it plays as the big blind).
    ``bomb_pot``: every entry of ``blinds`` is the same bomb, a live bet nobody acts on; the
    flop is dealt at once and the betting starts there (no antes, no straddle). Short stacks are
    all-in for less and side pots are built as for any bet. ``run_it_twice`` is the table's
    choice for boards run out with nobody left to bet (see :class:`RunItTwice`). ``game`` is one
    of the registered games of :mod:`engine.games` (Hold'em by default); it limits the players
    to what one deck deals (:attr:`engine.games.Game.max_players`).
    """

    stacks: tuple[int, ...]
    blinds: tuple[int, ...]
    antes: tuple[int, ...]
    big_blind: int
    big_blind_index: int
    ante_kind: AnteKind = AnteKind.NONE
    dead_blinds: tuple[int, ...] = ()
    chip_unit: int = 1
    reopen: ReopenMode = ReopenMode.TDA
    straddle_index: int | None = None
    bomb_pot: bool = False
    run_it_twice: RunItTwice = RunItTwice.OFF
    game: Game = NLHE

    def __post_init__(self) -> None:
        n = len(self.stacks)
        if not 2 <= n <= MAX_SEATS:
            raise EngineError("bad_config", field="players", value=n)
        # Only a registered game: its code is what the JSON stores, and it must read back.
        game = self.game
        if game is not NLHE and (not isinstance(game, Game) or GAMES.get(game.code) != game):
            raise EngineError("bad_config", field="game", value=repr(game))
        if n > self.game.max_players:
            raise EngineError("bad_config", field="players", value=n, maximum=self.game.max_players)
        for name in ("stacks", "blinds", "antes"):
            values = getattr(self, name)
            if not isinstance(values, tuple) or len(values) != n:
                raise EngineError("bad_config", field=name, value=repr(values))
            lowest = 1 if name == "stacks" else 0
            # One pass on the happy path; the per-value check only runs to name the culprit.
            if not (
                all(type(v) is int for v in values)
                and min(values) >= lowest
                and max(values) <= MAX_CHIPS
            ):
                for value in values:
                    _require_int(name, value, minimum=lowest)
        if self.dead_blinds:
            if not isinstance(self.dead_blinds, tuple) or len(self.dead_blinds) != n:
                raise EngineError("bad_config", field="dead_blinds", value=repr(self.dead_blinds))
            for value in self.dead_blinds:
                _require_int("dead_blinds", value)
        _require_int("big_blind", self.big_blind, minimum=1)
        _require_int("chip_unit", self.chip_unit, minimum=1)
        index = _require_int("big_blind_index", self.big_blind_index)
        if index >= n:
            raise EngineError("bad_config", field="big_blind_index", value=index)
        if not isinstance(self.ante_kind, AnteKind):
            raise EngineError("bad_config", field="ante_kind", value=repr(self.ante_kind))
        if not isinstance(self.reopen, ReopenMode):
            raise EngineError("bad_config", field="reopen", value=repr(self.reopen))
        if not isinstance(self.run_it_twice, RunItTwice):
            raise EngineError("bad_config", field="run_it_twice", value=repr(self.run_it_twice))
        if self.straddle_index is not None:
            self._check_straddle(self.straddle_index)
        if not isinstance(self.bomb_pot, bool):
            raise EngineError("bad_config", field="bomb_pot", value=repr(self.bomb_pot))
        if self.bomb_pot and (
            self.straddle_index is not None
            or any(self.antes)
            or min(self.blinds) == 0
            or len(set(self.blinds)) != 1
        ):
            # One amount from everybody and nothing else: anything more would be a new game.
            raise EngineError("bad_config", field="bomb_pot", value=repr(self.blinds))

    def _check_straddle(self, index: object) -> None:
        n = len(self.stacks)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise EngineError("bad_config", field="straddle_index", value=repr(index))
        amount = self.blinds[index]
        if (
            n < 3
            or index == self.big_blind_index
            or amount < 2 * self.big_blind
            or self.stacks[index] < amount
        ):
            raise EngineError("bad_config", field="straddle_index", value=index, amount=amount)

    @property
    def players(self) -> int:
        return len(self.stacks)

    @classmethod
    def standard(
        cls,
        stacks: Sequence[int],
        small_blind: int,
        big_blind: int,
        *,
        ante_kind: AnteKind = AnteKind.NONE,
        ante: int = 0,
        chip_unit: int = 1,
        reopen: ReopenMode = ReopenMode.TDA,
        straddle: StraddleMode = StraddleMode.OFF,
        run_it_twice: RunItTwice = RunItTwice.OFF,
        game: Game = NLHE,
    ) -> HandConfig:
        """A hand with the usual positions: SB left of the button, BB next (heads-up reversed).

        ``straddle`` puts a straddle of twice the big blind on that position.

        >>> HandConfig.standard((100,) * 4, 1, 2, straddle=StraddleMode.BUTTON).blinds
        (1, 2, 0, 4)
        """
        n = len(stacks)
        straddle_index: int | None = None
        if n == 2:
            blinds: tuple[int, ...] = (big_blind, small_blind)
            bb_index = 0
        else:
            blinds = (small_blind, big_blind) + (0,) * (n - 2)
            bb_index = 1
        if straddle is not StraddleMode.OFF:
            straddle_index = straddle_position(n, straddle)
            if straddle_index is None:
                raise EngineError("bad_config", field="straddle", value=straddle.value, players=n)
            blinds = tuple(
                2 * big_blind if i == straddle_index else b for i, b in enumerate(blinds)
            )
        if ante_kind is AnteKind.PER_PLAYER:
            antes = (ante,) * n
        elif ante_kind is AnteKind.BIG_BLIND:
            antes = tuple(ante if i == bb_index else 0 for i in range(n))
        else:
            antes = (0,) * n
        return cls(
            stacks=tuple(stacks),
            blinds=blinds,
            antes=antes,
            big_blind=big_blind,
            big_blind_index=bb_index,
            ante_kind=ante_kind,
            chip_unit=chip_unit,
            reopen=reopen,
            straddle_index=straddle_index,
            run_it_twice=run_it_twice,
            game=game,
        )

    @classmethod
    def bomb(
        cls,
        stacks: Sequence[int],
        amount: int,
        big_blind: int,
        *,
        chip_unit: int = 1,
        reopen: ReopenMode = ReopenMode.TDA,
        run_it_twice: RunItTwice = RunItTwice.OFF,
        game: Game = NLHE,
    ) -> HandConfig:
        """A bomb pot: everybody puts ``amount`` in, the flop comes at once.

        ``big_blind`` stays the minimum bet after the flop.

        >>> from engine.cards import FULL_DECK
        >>> hand = Hand(HandConfig.bomb((50, 100, 100), 20, 2), FULL_DECK)
        >>> hand.street, len(hand.board), hand.total_pot(), hand.to_act
        (<Street.FLOP: 'flop'>, 3, 60, 0)
        """
        n = len(stacks)
        return cls(
            stacks=tuple(stacks),
            blinds=(amount,) * n,
            antes=(0,) * n,
            big_blind=big_blind,
            big_blind_index=0 if n == 2 else 1,
            chip_unit=chip_unit,
            reopen=reopen,
            bomb_pot=True,
            run_it_twice=run_it_twice,
            game=game,
        )

    def to_json(self) -> dict[str, Any]:
        # The newer keys are written only when set, so a plain hand's JSON (stored, and compared
        # on recovery) stays exactly what it was before they existed.
        data = self._base_json()
        if self.straddle_index is not None:
            data["straddle_index"] = self.straddle_index
        if self.bomb_pot:
            data["bomb_pot"] = True
        if self.run_it_twice is not RunItTwice.OFF:
            data["run_it_twice"] = self.run_it_twice.value
        if self.game != NLHE:
            data["game"] = self.game.code
        return data

    def _base_json(self) -> dict[str, Any]:
        return {
            "stacks": list(self.stacks),
            "blinds": list(self.blinds),
            "antes": list(self.antes),
            "big_blind": self.big_blind,
            "big_blind_index": self.big_blind_index,
            "ante_kind": self.ante_kind.value,
            "dead_blinds": list(self.dead_blinds),
            "chip_unit": self.chip_unit,
            "reopen": self.reopen.value,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandConfig:
        try:
            return cls(
                stacks=tuple(data["stacks"]),
                blinds=tuple(data["blinds"]),
                antes=tuple(data["antes"]),
                big_blind=data["big_blind"],
                big_blind_index=data["big_blind_index"],
                ante_kind=AnteKind(data.get("ante_kind", "none")),
                dead_blinds=tuple(data.get("dead_blinds", ())),
                chip_unit=data.get("chip_unit", 1),
                reopen=ReopenMode(data.get("reopen", "tda")),
                straddle_index=data.get("straddle_index"),
                bomb_pot=data.get("bomb_pot", False),
                run_it_twice=RunItTwice(data.get("run_it_twice", "off")),
                game=game_by_code(data.get("game", NLHE.code)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_config", field="json", value=str(exc)) from None


def straddle_position(players: int, mode: StraddleMode) -> int | None:
    """The player index that may straddle under ``mode``, None when nobody may.

    In the standard layout UTG is the first index left of the big blind and the button the last
    index (a table whose button is dead has no button straddle: see
    :meth:`engine.table.Table.straddle_candidate`). Heads-up nobody straddles (the button posts
    the small blind), and with three players UTG is the button.

    >>> straddle_position(6, StraddleMode.UTG), straddle_position(6, StraddleMode.BUTTON)
    (2, 5)
    >>> straddle_position(2, StraddleMode.UTG) is None
    True
    """
    if mode is StraddleMode.OFF or players < 3:
        return None
    return 2 if mode is StraddleMode.UTG else players - 1


@dataclass(frozen=True, slots=True)
class Action:
    """One input to a hand. ``amount`` is the raise-to total of the street for BET and RAISE."""

    kind: ActionKind
    player: int | None = None
    amount: int | None = None
    pre: PreAction | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind.value}
        if self.player is not None:
            data["player"] = self.player
        if self.amount is not None:
            data["amount"] = self.amount
        if self.pre is not None:
            data["pre"] = self.pre.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        try:
            pre = data.get("pre")
            return cls(
                ActionKind(data["kind"]),
                data.get("player"),
                data.get("amount"),
                PreAction(pre) if pre is not None else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_action", value=str(exc)) from None


@dataclass(slots=True)
class Legal:
    """What the player to act may do, with exact amounts.

    ``pot_limited``: under pot limit, the pot rather than the stack sets ``max_raise_to``, so
    the largest raise is not all-in (the interface's all-in button is then a "Pot" button;
    ``max_raise_to`` is its amount, and :meth:`Hand.pot_raise_to` gives it in any game).
    """

    player: int
    to_call: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    is_bet: bool
    raise_closed: bool = False
    pot_limited: bool = False

    @property
    def can_check(self) -> bool:
        return self.to_call == 0

    @property
    def can_call(self) -> bool:
        return self.to_call > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "to_call": self.to_call,
            "can_check": self.can_check,
            "can_raise": self.can_raise,
            "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to,
            "is_bet": self.is_bet,
            "raise_closed": self.raise_closed,
            "pot_limited": self.pot_limited,
        }


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]


# --- events -------------------------------------------------------------------------------


def json_value(value: object) -> object:
    """Tuples to lists and enums to their values, so dataclass fields dump as JSON."""
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    if isinstance(value, StrEnum):
        return value.value
    return value


class Event:
    """Something that happened; ``to_json`` gives a JSON-safe dict with a ``type`` key.

    Events are plain (not frozen) dataclasses because a hand creates dozens of them and frozen
    construction costs four times as much; nothing in the project mutates one.
    """

    type: ClassVar[str] = "event"
    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            data[f.name] = json_value(getattr(self, f.name))
        return data


@dataclass(slots=True)
class ForcedBet(Event):
    type: ClassVar[str] = "forced_bet"
    player: int
    kind: str  # "ante", "small_blind", "big_blind", "blind", "dead_blind"
    amount: int
    all_in: bool


@dataclass(slots=True)
class HoleCardsDealt(Event):
    """Who got cards; the cards themselves never travel in events that others may see."""

    type: ClassVar[str] = "hole_cards_dealt"
    players: tuple[int, ...]


@dataclass(slots=True)
class ActionTaken(Event):
    type: ClassVar[str] = "action"
    player: int
    kind: ActionKind  # fold, check, call, bet or raise
    amount: int  # chips put in now (call) or the raise-to total (bet, raise); 0 otherwise
    total_bet: int
    stack: int
    all_in: bool
    auto: str | None = None  # "preselect" or "timeout" when the player did not click it


@dataclass(slots=True)
class StreetDealt(Event):
    type: ClassVar[str] = "street"
    street: Street
    cards: tuple[Card, ...]


@dataclass(slots=True)
class RunTwiceOffered(Event):
    """Nobody can bet any more before the river and the table asks whether to run it twice.

    The hand waits for :meth:`Hand.choose_run_count`; every live hand is already face up.
    """

    type: ClassVar[str] = "run_twice_offered"
    players: tuple[int, ...]  # the live players, who must all agree
    board_count: int  # board cards dealt so far, shared by both runs


@dataclass(slots=True)
class RunCountChosen(Event):
    type: ClassVar[str] = "run_count"
    runs: int  # 1 or 2


@dataclass(slots=True)
class SecondRunDealt(Event):
    """A street of the second run; the first run's streets are ordinary :class:`StreetDealt`."""

    type: ClassVar[str] = "second_run_street"
    street: Street
    cards: tuple[Card, ...]


@dataclass(slots=True)
class BetReturned(Event):
    type: ClassVar[str] = "bet_returned"
    player: int
    amount: int


@dataclass(slots=True)
class HandShown(Event):
    """A hand turned face up; its rank on the final board comes from :meth:`Hand.rank`."""

    type: ClassVar[str] = "shown"
    player: int
    cards: tuple[Card, ...]


@dataclass(slots=True)
class HandMucked(Event):
    type: ClassVar[str] = "mucked"
    player: int


@dataclass(slots=True)
class PotAwarded(Event):
    type: ClassVar[str] = "pot_awarded"
    index: int
    amount: int
    eligible: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips)
    showdown: bool
    run: int = 0  # 1 or 2: the half of pot ``index`` settled on that run's board; 0: whole pot
    # High-low games: "high" or "low", the half of the pot (or of the run's half) settled by
    # that hand; "" when one hand settles it all (no low qualified, or a high-only game).
    half: str = ""

    def to_json(self) -> dict[str, Any]:
        data = Event.to_json(self)
        if not self.half:
            del data["half"]  # a high-only award reads exactly as before halves existed
        return data


@dataclass(slots=True)
class HandEnded(Event):
    type: ClassVar[str] = "hand_ended"
    stacks: tuple[int, ...]


@dataclass(slots=True)
class HandVoided(Event):
    type: ClassVar[str] = "hand_voided"
    refunds: tuple[int, ...]
    stacks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandResult:
    stacks: tuple[int, ...]
    net: tuple[int, ...]
    pots: tuple[PotAwarded, ...]
    shown: tuple[int, ...]
    showdown: bool
    voided: bool
    boards: tuple[tuple[Card, ...], ...] = ()  # the board, or both runs' boards; () if voided

    @property
    def won(self) -> tuple[int, ...]:
        """Chips each player took from pots (his own uncalled bet coming back is not a win)."""
        won = [0] * len(self.stacks)
        for pot in self.pots:
            for player, chips in pot.shares:
                won[player] += chips
        return tuple(won)


# --- dealing convention -------------------------------------------------------------------


def board_positions(players: int, hole_count: int = 2) -> tuple[int, ...]:
    """Deck indices of the five board cards: one burn before the flop, the turn and the river.

    The board starts after every hole card, ``hole_count`` per player (see the module doc).
    Burns are a ritual against marked cards; 22 Hold'em players (or 8 with five Omaha cards) use
    52 cards with them, so at 23 (or 9) the board is dealt without burns rather than refusing
    the table size the deck allows.

    >>> board_positions(6), board_positions(6, 4)
    ((13, 14, 15, 17, 19), (25, 26, 27, 29, 31))
    """
    base = hole_count * players
    if base + 8 > len(FULL_DECK):
        return (base, base + 1, base + 2, base + 3, base + 4)
    return (base + 1, base + 2, base + 3, base + 5, base + 7)


# Cards per street still to come once ``k`` board cards are out.
_STREETS_AFTER: Final[dict[int, tuple[tuple[Street, int], ...]]] = {
    0: ((Street.FLOP, 3), (Street.TURN, 1), (Street.RIVER, 1)),
    3: ((Street.TURN, 1), (Street.RIVER, 1)),
    4: ((Street.RIVER, 1),),
}


def _second_run_layout(players: int, dealt: int, hole_count: int = 2) -> tuple[int, ...] | None:
    if dealt not in _STREETS_AFTER:
        return None
    # The second run continues where the first stopped: the first undealt position is the one
    # after the first run's river, and each street of it is burned for as the first run was.
    next_position = board_positions(players, hole_count)[-1] + 1
    positions: list[int] = []
    for _, count in _STREETS_AFTER[dealt]:
        next_position += 1  # the burn
        positions.extend(range(next_position, next_position + count))
        next_position += count
    return tuple(positions) if next_position <= len(FULL_DECK) else None


def second_run_positions(players: int, dealt: int, hole_count: int = 2) -> tuple[int, ...]:
    """Deck positions of the second run's cards when the board is run twice from ``dealt`` cards.

    The first run is dealt as any board (:func:`board_positions`). The second run shares the
    first ``dealt`` board cards and takes the next undealt positions after the first run's
    river, burning one card before each street as the first run does. With ``p`` players of
    ``h`` hole cards the first run's river is at ``hp + 7``, so the second run's cards are at
    ``hp + 9, 10, 11, 13, 15`` from no board (flop, turn, river), ``hp + 9, 11`` from the flop
    and ``hp + 9`` from the turn. A deck too short for it (Hold'em: more than 18, 20 or 21
    players; four Omaha cards: more than 9, 10 or 10) cannot run twice.

    >>> second_run_positions(6, 0), second_run_positions(6, 3), second_run_positions(6, 4)
    ((21, 22, 23, 25, 27), (21, 23), (21,))
    >>> second_run_positions(6, 3, hole_count=4)
    (33, 35)
    >>> second_run_positions(19, 0)
    Traceback (most recent call last):
    ...
    engine.errors.EngineError: bad_config: field='run_it_twice', players=19, dealt=0
    """
    layout = _second_run_layout(players, dealt, hole_count)
    if layout is None:
        raise EngineError("bad_config", field="run_it_twice", players=players, dealt=dealt)
    return layout


def deck_from_cards(
    players: int,
    holes: Sequence[Sequence[Card] | None],
    board: Sequence[Card],
    filler: Iterable[Card] = FULL_DECK,
    second_run: Sequence[Card] = (),
    *,
    hole_count: int = 2,
) -> tuple[Card, ...]:
    """A full deck order that deals the given hole cards and board (unknowns from ``filler``).

    Hole cards go one at a time round the table from index 0, ``hole_count`` times (the first
    ``hole_count`` of each hand given are used); then burn, flop, burn, turn, burn, river.
    ``second_run`` is the second run's own cards, when the board was run twice
    (:func:`second_run_positions`).
    """
    slots: list[Card | None] = [None] * 52
    for i, cards in enumerate(holes):
        if cards is not None:
            for k, card in enumerate(cards[:hole_count]):
                slots[i + k * players] = card
    for pos, card in zip(board_positions(players, hole_count), board, strict=False):
        slots[pos] = card
    if second_run:
        positions = second_run_positions(players, 5 - len(second_run), hole_count)
        for pos, card in zip(positions, second_run, strict=True):
            slots[pos] = card
    placed = [c for c in slots if c is not None]
    used = set(placed)
    if len(used) != len(placed):
        raise EngineError("bad_deck", reason="duplicate_card")
    spare = iter([c for c in filler if c not in used])
    return tuple(c if c is not None else next(spare) for c in slots)


# --- paying a pot -------------------------------------------------------------------------

PotPart = tuple[int, str, int, list[tuple[int, int]]]
"""One part of a pot as :func:`pay_pot` pays it: the run whose board settles it (0 when the
board was dealt once, else 1 or 2), the half (``"high"``, ``"low"``, or ``""`` for all of it),
its chips, and each winner's ``(player, chips)``."""


def split_chips(amount: int, winners: Sequence[int], chip_unit: int) -> list[tuple[int, int]]:
    """RULES 5: ``amount`` shared equally among ``winners`` in whole chip units, the odd units
    one each to the first winners clockwise from the button (index order), and chips below one
    unit to the first of them.

    >>> split_chips(1000, [3, 1, 2], 10)       # E7: C, D and E split 1,000 with a unit of 10
    [(1, 340), (2, 330), (3, 330)]
    """
    if len(winners) == 1:
        return [(winners[0], amount)]
    units, loose = divmod(amount, chip_unit)
    each, odd = divmod(units, len(winners))
    ordered = sorted(winners)  # index order is clockwise from the button
    shares = [[w, each * chip_unit] for w in ordered]
    for k in range(odd):
        shares[k][1] += chip_unit
    shares[0][1] += loose
    return [(w, s) for w, s in shares]


def halve(amount: int, chip_unit: int) -> tuple[int, int]:
    """A pot cut in two (two runs, or high and low): the first half takes the odd chip unit
    and any chips below one unit.

    >>> halve(35, 10), halve(40, 10)
    ((25, 10), (20, 20))
    """
    units, loose = divmod(amount, chip_unit)
    first = (units + 1) // 2 * chip_unit + loose
    return first, amount - first


def best_hands(
    eligible: Sequence[int], highs: dict[int, int], lows: dict[int, int] | None
) -> tuple[list[int], list[int]]:
    """Who of ``eligible`` holds the best high hand and who the best qualifying low on one
    board, by their values (the low list is empty when none of them has a low, or the game
    has none: ``lows`` None)."""
    best = max(highs[j] for j in eligible)
    high = [j for j in eligible if highs[j] == best]
    if lows is None:
        return high, []
    best_low = max(lows[j] for j in eligible)
    return high, [j for j in eligible if lows[j] == best_low] if best_low else []


def pay_pot(
    amount: int,
    eligible: Sequence[int],
    winners: Sequence[tuple[Sequence[int], Sequence[int]]],
    chip_unit: int,
) -> list[PotPart]:
    """How one pot is paid once the board is out, given for each run's board (one, or two when
    it was run twice) the best high hands and the best lows among ``eligible``
    (:func:`best_hands`).

    Run twice, the pot is halved, one half per run, the first run's half taking the odd unit
    (:func:`halve`), being the half dealt first. In a high-low game the pot, or each run's half,
    is halved again between the best high and the best low, the high half taking the odd unit;
    with no low among the players in it the high hand takes it all. Each part is split among
    its winners by RULES 5 (:func:`split_chips`). A pot only one player can win is not cut, and
    a part of no chips is left out.

    >>> pay_pot(30, (0, 1, 2), [([1], [0, 2]), ([2], [])], 1)
    [(1, 'high', 8, [(1, 8)]), (1, 'low', 7, [(0, 4), (2, 3)]), (2, '', 15, [(2, 15)])]
    """
    if len(eligible) == 1 or len(winners) == 1:
        runs: tuple[tuple[int, int], ...] = ((0, amount),)
    else:
        first, second = halve(amount, chip_unit)
        runs = ((1, first), (2, second))
    parts: list[PotPart] = []
    for run, run_amount in runs:
        high, low = winners[max(run, 1) - 1]
        pieces: tuple[tuple[str, int, Sequence[int]], ...] = (("", run_amount, high),)
        if low and len(eligible) > 1:
            high_half, low_half = halve(run_amount, chip_unit)
            pieces = (("high", high_half, high), ("low", low_half, low))
        for half, part, who in pieces:
            if part:
                parts.append((run, half, part, split_chips(part, who, chip_unit)))
    return parts


# --- the hand -----------------------------------------------------------------------------


class Hand:
    """A hand in progress (or finished). Every method that changes it returns the new events."""

    def __init__(self, config: HandConfig, deck: Sequence[Card]) -> None:
        n = config.players
        game = config.game
        positions = board_positions(n, game.hole_count)
        deck_t = tuple(deck)
        cards = set(deck_t)
        if len(deck_t) <= positions[-1] or len(cards) != len(deck_t):
            raise EngineError("bad_deck", reason="size_or_duplicates", size=len(deck_t))
        # Plain ints only (a bool or a float would pass as a card id in a set's comparison).
        if not cards <= _CARD_IDS or set(map(type, deck_t)) != {int}:
            raise EngineError("bad_deck", reason="bad_card")
        self.config = config
        self.game = game
        self.deck = deck_t
        self.n = n
        self._board_positions = positions
        self._holes_end = game.hole_count * n  # the hole cards are deck[:_holes_end]
        self._pot_limit = game.pot_limit  # read on every decision
        self.stacks: list[int] = list(config.stacks)
        self.bets: list[int] = [0] * n
        # Every chip a player put in, including bets of the current street and layered antes.
        self.contributions: list[int] = [0] * n
        # Dead money that belongs to the main pot without being matched (BBA antes, dead SB).
        self.pooled: list[int] = [0] * n
        self.folded: list[bool] = [False] * n
        self.all_in: list[bool] = [False] * n
        self.street = _PREFLOP
        self.board: tuple[Card, ...] = ()
        self.to_act: int | None = None
        self.actions: list[Action] = []
        self.events: list[Event] = []
        self.result: HandResult | None = None
        self.shown: set[int] = set()
        self.show_requested: set[int] = set()
        self.preselected: dict[int, tuple[PreAction, int]] = {}
        # Run it twice: the second run's full board, and the board count both runs share.
        self.second_board: tuple[Card, ...] | None = None
        self.second_run_from: int | None = None
        self.run_choice_pending = False
        # Betting-round state.
        self.high_bet = 0
        self.min_increment = config.big_blind
        if config.straddle_index is not None:
            self.min_increment = config.blinds[config.straddle_index]
        self.full_raises = 0
        self.acted: list[bool] = [False] * n
        self.acted_high: list[int] = [0] * n
        self.acted_raises: list[int] = [0] * n
        self.last_aggressor: int | None = None
        self.street_aggressor: int | None = None
        # legal() is asked by the interface and again by apply(); it changes only when
        # to_act changes hands, so remember it for the current decision.
        self._legal: Legal | None = None
        self._legal_for: int | None = None
        self._ranks: dict[tuple[int, int, int], HandRank] = {}
        self._lows: dict[tuple[int, int, int], LowRank | None] = {}
        self._post_forced_bets()
        self.events.append(HoleCardsDealt(tuple(range(n))))
        if config.bomb_pot:
            self._end_round()  # nobody acts on a bomb: straight to the flop
        else:
            opener = config.straddle_index
            if opener is None:
                opener = config.big_blind_index
            self._begin_round(first=self._next_index(opener))

    # -- public queries ------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def hole_cards(self, player: int) -> tuple[Card, ...]:
        """The hole cards of ``player``, in the order dealt (two in Hold'em, four or five in
        Omaha): deck positions ``player``, ``player + n``, ..."""
        return self.deck[player : self._holes_end : self.n]

    def _run_board(self, run: int) -> tuple[Card, ...] | None:
        board = self.board if run == 1 else self.second_board if run == 2 else None
        return board if board is not None and len(board) >= 3 else None

    def rank(self, player: int, run: int = 1) -> HandRank | None:
        """The best high hand of ``player`` on the board so far (None before the flop).

        ``run=2`` ranks it on the second run's board (None when the board was not run twice).
        Naming a hand costs far more than comparing it, so it is done only when asked.
        """
        board = self._run_board(run)
        if board is None:
            return None
        key = (player, len(board), run)
        rank = self._ranks.get(key)
        if rank is None:
            rank = self._ranks[key] = self.game.high_rank(self.hole_cards(player), board)
        return rank

    def low_rank(self, player: int, run: int = 1) -> LowRank | None:
        """The best eight-or-better low of ``player`` on the board so far, as :meth:`rank`;
        None before the flop, without a qualifying low, or in a game without lows."""
        board = self._run_board(run)
        if board is None or not self.game.has_low:
            return None
        key = (player, len(board), run)
        if key not in self._lows:
            self._lows[key] = self.game.low_rank(self.hole_cards(player), board)
        return self._lows[key]

    @property
    def boards(self) -> tuple[tuple[Card, ...], ...]:
        """The board, or the two runs' boards once the board has been run twice."""
        if self.second_board is None:
            return (self.board,)
        return (self.board, self.second_board)

    @property
    def run_choice_players(self) -> tuple[int, ...]:
        """Who must agree to run it twice while :attr:`run_choice_pending` (else ``()``)."""
        if not self.run_choice_pending:
            return ()
        return tuple(j for j in range(self.n) if not self.folded[j])

    def total_pot(self) -> int:
        return sum(self.contributions) + sum(self.pooled)

    def pots(self) -> list[Pot]:
        """Main pot then side pots of the chips gathered so far (this street's bets excluded)."""
        gathered = [c - b for c, b in zip(self.contributions, self.bets, strict=True)]
        return [Pot(amount, eligible) for amount, eligible in self._layers(gathered)]

    def legal(self) -> Legal | None:
        i = self.to_act
        if i is None:
            return None
        if self._legal_for == len(self.events):
            return self._legal
        stack, bet, high = self.stacks[i], self.bets[i], self.high_bet
        to_call = min(high - bet, stack)
        max_to = stack + bet
        min_to = min(high + self.min_increment, max_to)
        can_raise = stack > high - bet and self._someone_can_answer(i)
        closed = False
        if can_raise and not self._reopened_for(i):
            can_raise, closed = False, True
        pot_limited = False
        if can_raise and self._pot_limit:
            limit = self._pot_sized(i, min_to)
            if limit < max_to:
                max_to, pot_limited = limit, True
        if not can_raise:
            min_to = max_to = 0
        legal = Legal(i, to_call, can_raise, min_to, max_to, high == 0, closed, pot_limited)
        # Every change of the betting state emits an event, so the event count dates the cache.
        self._legal, self._legal_for = legal, len(self.events)
        return legal

    def _pot_sized(self, i: int, min_to: int) -> int:
        """The raise-to total of a pot-sized raise by ``i``: his call, then the pot after it
        (every chip in the middle, dead money and this street's bets included, plus that
        call), never below the minimum raise (a pot smaller than the minimum bet still lets
        him bet the minimum). Not capped by his stack."""
        high = self.high_bet
        return max(min_to, high + self.total_pot() + high - self.bets[i])

    def pot_raise_to(self) -> int | None:
        """The amount of a "Pot" button: the raise-to total of a pot-sized raise for the player
        to act, within the legal range (under pot limit it is ``legal().max_raise_to``); None
        when he may not raise.

        >>> from engine.cards import FULL_DECK
        >>> from engine.games import PLO
        >>> hand = Hand(HandConfig.standard((1000,) * 3, 5, 10, game=PLO), FULL_DECK)
        >>> legal = hand.legal()                  # the button: call 10, pot after it 25
        >>> hand.pot_raise_to(), legal.max_raise_to, legal.pot_limited
        (35, 35, True)
        """
        legal = self.legal()
        if legal is None or not legal.can_raise:
            return None
        return min(legal.max_raise_to, self._pot_sized(legal.player, legal.min_raise_to))

    # -- actions ---------------------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply one input; on bad input raise :class:`EngineError` and change nothing."""
        if not isinstance(action, Action):
            raise EngineError("bad_action", value=repr(action))
        kind = action.kind
        if kind is _VOID:
            return self._void(action)
        if kind is _SHOW:
            return self._show_request(action)
        if kind is _PRESELECT:
            return self._preselect(action)
        if kind is _RUN_COUNT:
            return self._run_count(action)
        if self.result is not None:
            raise EngineError("hand_over")
        player = action.player
        # The player to act is a valid index, so a plain int equal to him needs no other check.
        if type(player) is not int or player != self.to_act:
            player = self._check_player(player)
            if player != self.to_act:
                raise EngineError("not_your_turn", player=player, to_act=self.to_act)
        if kind is _TIMEOUT:
            if action.amount is not None:
                raise EngineError("amount_not_expected", kind=kind.value)
            concrete = ActionKind.CHECK if self.high_bet == self.bets[player] else ActionKind.FOLD
            mark = len(self.events)
            self.actions.append(action)
            self._act(player, concrete, None, auto="timeout")
            self._run_preselections()
            return self.events[mark:]
        kind, amount = self._validate(player, kind, action.amount)
        mark = len(self.events)
        self.actions.append(action)
        self._act(player, kind, amount, None)
        if self.preselected:
            self._run_preselections()
        return self.events[mark:]

    def fold(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.FOLD, player))

    def check(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.CHECK, player))

    def call(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.CALL, player))

    def bet(self, player: int, to: int) -> list[Event]:
        return self.apply(Action(ActionKind.BET, player, to))

    def raise_to(self, player: int, to: int) -> list[Event]:
        return self.apply(Action(ActionKind.RAISE, player, to))

    def go_all_in(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.ALL_IN, player))

    def timeout(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.TIMEOUT, player))

    def show(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.SHOW, player))

    def preselect(self, player: int, pre: PreAction) -> list[Event]:
        return self.apply(Action(ActionKind.PRESELECT, player, pre=pre))

    def clear_preselect(self, player: int) -> list[Event]:
        return self.apply(Action(ActionKind.PRESELECT, player, pre=PreAction.NONE))

    def void(self) -> list[Event]:
        return self.apply(Action(ActionKind.VOID))

    def choose_run_count(self, runs: int) -> list[Event]:
        """Answer a :class:`RunTwiceOffered`: 2 when every one of :attr:`run_choice_players`
        agreed, else 1 (a refusal, or the offer timing out). The board is then run out."""
        return self.apply(Action(ActionKind.RUN_COUNT, amount=runs))

    @classmethod
    def replay(cls, config: HandConfig, deck: Sequence[Card], actions: Iterable[Action]) -> Hand:
        hand = cls(config, deck)
        for action in actions:
            hand.apply(action)
        return hand

    # -- validation ------------------------------------------------------------------------

    def _check_player(self, player: object) -> int:
        if isinstance(player, bool) or not isinstance(player, int):
            raise EngineError("bad_player", player=repr(player))
        if not 0 <= player < self.n:
            raise EngineError("bad_player", player=player)
        return player

    def _validate(
        self, player: int, kind: ActionKind, amount: object
    ) -> tuple[ActionKind, int | None]:
        if kind in (_FOLD, _CHECK, _CALL, _ALL_IN):
            if amount is not None:
                raise EngineError("amount_not_expected", kind=kind.value)
            # What he owes decides a check or a call; the player to act has chips, so he owes
            # nothing exactly when legal().to_call is 0, and legal() is built only for a raise.
            owed = self.high_bet - self.bets[player]
            if kind is _CHECK and owed:
                raise EngineError("cannot_check", to_call=min(owed, self.stacks[player]))
            if kind is _CALL and not owed:
                raise EngineError("nothing_to_call")
            if kind is _ALL_IN:
                legal = self.legal()
                assert legal is not None
                stack = self.stacks[player]
                if stack <= legal.to_call:
                    return _CALL, None
                if not legal.can_raise:
                    self._raise_refusal(legal)
                # The largest raise allowed: all-in, or under pot limit a stack bigger than the
                # pot raises the pot (the one-click "max" of online pot-limit tables).
                return _RAISE, legal.max_raise_to
            return kind, None
        if kind not in (_BET, _RAISE):
            raise EngineError("bad_action", value=kind.value)
        legal = self.legal()
        assert legal is not None
        if isinstance(amount, bool) or not isinstance(amount, int):
            if isinstance(amount, float) and amount.is_integer():
                raise EngineError("amount_not_integer", amount=amount)
            if amount is None:
                raise EngineError("amount_missing")
            raise EngineError("amount_not_integer", amount=repr(amount))
        if amount <= 0:
            raise EngineError("amount_not_positive", amount=amount)
        if not legal.can_raise:
            self._raise_refusal(legal)
        if amount > legal.max_raise_to:
            if legal.pot_limited:
                raise EngineError("above_pot_limit", amount=amount, maximum=legal.max_raise_to)
            raise EngineError("amount_above_stack", amount=amount, maximum=legal.max_raise_to)
        if amount < legal.min_raise_to:
            raise EngineError("amount_below_minimum", amount=amount, minimum=legal.min_raise_to)
        unit = self.config.chip_unit
        if amount != legal.max_raise_to and amount % unit:
            raise EngineError("amount_not_multiple", amount=amount, chip_unit=unit)
        return ActionKind.RAISE, amount

    def _raise_refusal(self, legal: Legal) -> None:
        if legal.raise_closed:
            raise EngineError("raise_not_reopened", to_call=legal.to_call)
        if self.stacks[legal.player] <= legal.to_call:
            raise EngineError("cannot_raise_covered", to_call=legal.to_call)
        raise EngineError("cannot_raise_no_opponent", to_call=legal.to_call)

    def _reopened_for(self, i: int) -> bool:
        if not self.acted[i]:
            return True
        mode = self.config.reopen
        if mode is ReopenMode.TDA:
            return self.high_bet - self.acted_high[i] >= self.min_increment
        return self.full_raises > self.acted_raises[i]

    def _someone_can_answer(self, i: int) -> bool:
        high = self.high_bet
        for j in range(self.n):
            if j != i and not self.folded[j] and self.stacks[j] + self.bets[j] > high:
                return True
        return False

    # -- state changes ---------------------------------------------------------------------

    def _put(self, i: int, amount: int) -> None:
        self.stacks[i] -= amount
        self.bets[i] += amount
        self.contributions[i] += amount
        if self.stacks[i] == 0:
            self.all_in[i] = True

    def _post_forced_bets(self) -> None:
        cfg = self.config
        n = self.n
        bba = cfg.ante_kind is _BIG_BLIND_ANTE

        def post_antes() -> None:
            for i, ante in enumerate(cfg.antes):
                if not ante:
                    continue
                amount = min(ante, self.stacks[i])
                if amount:
                    self.stacks[i] -= amount
                    if bba:
                        self.pooled[i] += amount
                    else:
                        self.contributions[i] += amount
                    self.all_in[i] = self.stacks[i] == 0
                    self.events.append(ForcedBet(i, "ante", amount, self.all_in[i]))

        if not bba:
            post_antes()
        for i, blind in enumerate(cfg.blinds):
            if not blind:
                continue
            amount = min(blind, self.stacks[i])
            if amount:
                self._put(i, amount)
                if cfg.bomb_pot:
                    label = "bomb_pot"
                elif i == cfg.straddle_index:
                    label = "straddle"
                elif i == cfg.big_blind_index:
                    label = "big_blind"
                elif i == (cfg.big_blind_index - 1) % n:
                    label = "small_blind"
                else:
                    label = "blind"  # a player posting to come in
                self.events.append(ForcedBet(i, label, amount, self.all_in[i]))
        if bba:
            post_antes()
        for i, dead in enumerate(cfg.dead_blinds):
            amount = min(dead, self.stacks[i])
            if amount:
                self.stacks[i] -= amount
                self.pooled[i] += amount
                self.all_in[i] = self.stacks[i] == 0
                self.events.append(ForcedBet(i, "dead_blind", amount, self.all_in[i]))
        self.high_bet = max(self.bets)

    def _next_index(self, i: int) -> int:
        return (i + 1) % self.n

    def _live(self, i: int) -> bool:
        return not self.folded[i] and not self.all_in[i]

    def _find_actor(self, start: int) -> int | None:
        folded, all_in, bets, acted, high, n = (
            self.folded,
            self.all_in,
            self.bets,
            self.acted,
            self.high_bet,
            self.n,
        )
        i = start
        for _ in range(n):
            if not folded[i] and not all_in[i]:
                if bets[i] < high:
                    return i
                # A matched player acts only if he has not yet and someone could still respond.
                if not acted[i]:
                    for j in range(n):
                        if j != i and not folded[j] and not all_in[j]:
                            return i
            i += 1
            if i == n:
                i = 0
        return None

    def _begin_round(self, first: int) -> None:
        self.to_act = self._find_actor(first)
        if self.to_act is None:
            self._end_round()

    def _act(self, i: int, kind: ActionKind, amount: int | None, auto: str | None) -> None:
        if self.preselected:
            self.preselected.pop(i, None)
        if kind is _FOLD:
            self.folded[i] = True
            self.events.append(ActionTaken(i, kind, 0, self.bets[i], self.stacks[i], False, auto))
        elif kind is _CHECK:
            self.events.append(ActionTaken(i, kind, 0, self.bets[i], self.stacks[i], False, auto))
        elif kind is _CALL:
            put = min(self.high_bet - self.bets[i], self.stacks[i])
            self._put(i, put)
            self.events.append(
                ActionTaken(i, kind, put, self.bets[i], self.stacks[i], self.all_in[i], auto)
            )
        else:
            assert amount is not None
            increment = amount - self.high_bet
            is_bet = self.high_bet == 0
            self._put(i, amount - self.bets[i])
            if increment >= self.min_increment:
                self.min_increment = increment
                self.full_raises += 1
            elif self.config.reopen is ReopenMode.HALF and 2 * increment >= self.min_increment:
                self.full_raises += 1
            self.high_bet = amount
            self.street_aggressor = i
            label = _BET if is_bet else _RAISE
            self.events.append(
                ActionTaken(i, label, amount, self.bets[i], self.stacks[i], self.all_in[i], auto)
            )
        self.acted[i] = True
        self.acted_high[i] = self.high_bet
        self.acted_raises[i] = self.full_raises
        if kind is _FOLD and self.folded.count(False) == 1:
            self.to_act = None
            self._end_round()
            return
        self.to_act = self._find_actor(i + 1 if i + 1 < self.n else 0)
        if self.to_act is None:
            self._end_round()

    def _return_uncalled(self) -> None:
        # Whole contributions, not this street's bets: per-player antes count in them, and an
        # ante nobody matched (everyone else all-in for less) goes back like a bet (RULES 5).
        ordered = sorted(self.contributions)
        excess = ordered[-1] - ordered[-2]
        if excess > 0:
            top = self.contributions.index(ordered[-1])  # the one who put in more than anyone
            self.bets[top] -= min(excess, self.bets[top])
            self.contributions[top] -= excess
            self.stacks[top] += excess
            self.all_in[top] = False
            self.events.append(BetReturned(top, excess))

    def _end_round(self) -> None:
        self.to_act = None
        self._return_uncalled()
        self.bets = [0] * self.n
        # RULES 6: the last bettor *of the river* shows first; a bet on an earlier street does
        # not carry over a street that was checked through.
        self.last_aggressor = self.street_aggressor
        remaining = [j for j in range(self.n) if not self.folded[j]]
        if len(remaining) == 1:
            self._award_without_showdown(remaining[0])
            return
        if self.street is _RIVER:
            self._showdown()
            return
        if sum(1 for j in remaining if not self.all_in[j]) <= 1:
            # No more betting: every live hand is tabled before the rest of the board is dealt.
            self.last_aggressor = None
            for j in remaining:
                self._table(j)
            if self.config.run_it_twice is RunItTwice.OFF or not self._can_run_twice():
                self._run_out(1)
            elif self.config.run_it_twice is RunItTwice.ASK:
                self.run_choice_pending = True
                self.events.append(RunTwiceOffered(tuple(remaining), len(self.board)))
            else:
                self.events.append(RunCountChosen(2))
                self._run_out(2)
            return
        self._deal_next_street()
        self.high_bet = 0
        self.min_increment = self.config.big_blind
        self.full_raises = 0
        self.acted = [False] * self.n
        self.street_aggressor = None
        self.preselected.clear()
        self._begin_round(first=0)

    def _can_run_twice(self) -> bool:
        layout = _second_run_layout(self.n, len(self.board), self.game.hole_count)
        return layout is not None and layout[-1] < len(self.deck)

    def _run_out(self, runs: int) -> None:
        dealt = len(self.board)
        while len(self.board) < 5:
            self._deal_next_street()
        if runs == 2:
            positions = iter(second_run_positions(self.n, dealt, self.game.hole_count))
            board = self.board[:dealt]
            for street, count in _STREETS_AFTER[dealt]:
                cards = tuple(self.deck[next(positions)] for _ in range(count))
                board += cards
                self.events.append(SecondRunDealt(street, cards))
            self.second_board = board
            self.second_run_from = dealt
        self._showdown()

    def _deal_next_street(self) -> None:
        pos, deck = self._board_positions, self.deck
        cards: tuple[Card, ...]
        if self.street is _PREFLOP:
            self.street, cards = _FLOP, (deck[pos[0]], deck[pos[1]], deck[pos[2]])
        elif self.street is _FLOP:
            self.street, cards = _TURN, (deck[pos[3]],)
        else:
            self.street, cards = _RIVER, (deck[pos[4]],)
        self.board += cards
        self.events.append(StreetDealt(self.street, cards))

    # -- pots and showdown -----------------------------------------------------------------

    def _layers(self, amounts: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
        """The pots of ``amounts`` as (chips, eligible players), main pot first.

        From the smallest amount up, each level is a layer of (level - previous) chips from
        everyone who reached it; a layer the same players can win joins the one below it.
        """
        chips: list[int] = []
        groups: list[tuple[int, ...]] = []
        previous = 0
        for below, level in enumerate(sorted(amounts)):
            if level == previous:
                continue  # no chips, or a level already counted
            chunk = (level - previous) * (len(amounts) - below)  # ``below`` amounts fall short
            eligible = tuple(j for j in range(self.n) if not self.folded[j] and amounts[j] >= level)
            previous = level
            if groups and groups[-1] == eligible:
                chips[-1] += chunk
            else:
                chips.append(chunk)
                groups.append(eligible)
        dead = sum(self.pooled)
        if dead:
            if chips:
                chips[0] += dead
            else:
                chips.append(dead)
                groups.append(tuple(j for j in range(self.n) if not self.folded[j]))
        return list(zip(chips, groups, strict=True))

    def _table(self, i: int) -> None:
        if i in self.shown:
            return
        self.shown.add(i)
        self.events.append(HandShown(i, self.hole_cards(i)))

    def _award_without_showdown(self, winner: int) -> None:
        awards: list[PotAwarded] = []
        for index, (amount, eligible) in enumerate(self._layers(self.contributions)):
            self.stacks[winner] += amount
            award = PotAwarded(index, amount, eligible, ((winner, amount),), False)
            awards.append(award)
            self.events.append(award)
        self._finish(awards, showdown=False)

    def _showdown(self) -> None:
        """Every pot to its best hands, by RULES 5 and 6 and the game's split (:func:`pay_pot`).
        Run twice, every live hand is already face up."""
        self.street = _SHOWDOWN
        remaining = [j for j in range(self.n) if not self.folded[j]]
        game = self.game
        holes = {j: self.hole_cards(j) for j in remaining}
        high_value, low_value = game.high_value, game.low_value
        highs = [{j: high_value(holes[j], board) for j in remaining} for board in self.boards]
        lows = (
            [{j: low_value(holes[j], board) for j in remaining} for board in self.boards]
            if game.has_low
            else None
        )
        pots = self._layers(self.contributions)
        if self.second_board is None:
            self._show_or_muck(remaining, pots, highs[0], lows[0] if lows else None)
        awards: list[PotAwarded] = []
        unit = self.config.chip_unit
        for index, (amount, eligible) in enumerate(pots):
            winners = [
                best_hands(eligible, highs[k], lows[k] if lows else None)
                for k in range(len(highs))
            ]
            for run, half, part, shares in pay_pot(amount, eligible, winners, unit):
                for w, chips in shares:
                    self.stacks[w] += chips
                award = PotAwarded(index, part, eligible, tuple(shares), True, run, half)
                awards.append(award)
                self.events.append(award)
        self._finish(awards, showdown=True)

    def _show_or_muck(
        self,
        remaining: list[int],
        pots: list[tuple[int, tuple[int, ...]]],
        highs: dict[int, int],
        lows: dict[int, int] | None,
    ) -> None:
        """RULES 6: the hands are shown in order, and a hand that can win no part of any pot it
        is in (no high as good as the best shown there, no low as good as the best low shown)
        is mucked unless its player asked to show."""
        if self.shown.issuperset(remaining):
            return  # every hand already face up (tabled for an all-in run-out): nothing to decide
        # Showing order: the river's last bettor or raiser, else (the river was checked through)
        # the first live seat left of the button; then clockwise.
        start = self.last_aggressor if self.last_aggressor is not None else remaining[0]
        order = sorted(remaining, key=lambda j: (j - start) % self.n)
        best_high: dict[int, int] = {}
        best_low: dict[int, int] = {}
        for j in order:
            mine = [k for k, (_, eligible) in enumerate(pots) if j in eligible]
            high = highs[j]
            low = lows[j] if lows is not None else 0
            can_win = any(
                k not in best_high or high >= best_high[k] or (low and low >= best_low[k])
                for k in mine
            )
            if can_win or j in self.show_requested or j in self.shown:
                self._table(j)
                for k in mine:
                    best_high[k] = max(best_high.get(k, high), high)
                    best_low[k] = max(best_low.get(k, low), low)
            else:
                self.events.append(HandMucked(j))

    def _finish(self, awards: list[PotAwarded], showdown: bool) -> None:
        self.street = _COMPLETE
        self.to_act = None
        self.bets = [0] * self.n
        self.preselected.clear()
        stacks = tuple(self.stacks)
        net = tuple(map(sub, stacks, self.config.stacks))
        shown = tuple(sorted(self.shown))
        self.result = HandResult(stacks, net, tuple(awards), shown, showdown, False, self.boards)
        self.events.append(HandEnded(stacks))

    # -- inputs that are not betting decisions ---------------------------------------------

    def _void(self, action: Action) -> list[Event]:
        if self.result is not None:
            raise EngineError("hand_over")
        if action.player is not None or action.amount is not None:
            raise EngineError("bad_action", value="void takes no player or amount")
        mark = len(self.events)
        self.actions.append(action)
        refunds = tuple(c + p for c, p in zip(self.contributions, self.pooled, strict=True))
        self.stacks = list(self.config.stacks)
        self.contributions = [0] * self.n
        self.pooled = [0] * self.n
        self.bets = [0] * self.n
        self.to_act = None
        self.street = Street.COMPLETE
        self.preselected.clear()
        self.run_choice_pending = False
        self.events.append(HandVoided(refunds, tuple(self.stacks)))
        self.result = HandResult(
            stacks=tuple(self.stacks),
            net=(0,) * self.n,
            pots=(),
            shown=(),
            showdown=False,
            voided=True,
        )
        return self.events[mark:]

    def _show_request(self, action: Action) -> list[Event]:
        player = self._check_player(action.player)
        if action.amount is not None:
            raise EngineError("amount_not_expected", kind="show")
        if self.folded[player]:
            raise EngineError("cannot_show_folded", player=player)
        if player in self.shown:
            raise EngineError("already_shown", player=player)
        if self.result is None:
            if player in self.show_requested:
                raise EngineError("already_shown", player=player)
            self.actions.append(action)
            self.show_requested.add(player)
            return []
        if self.result.voided or self.result.showdown:
            raise EngineError("hand_over")
        mark = len(self.events)
        self.actions.append(action)
        self._table(player)
        self.result = HandResult(
            stacks=self.result.stacks,
            net=self.result.net,
            pots=self.result.pots,
            shown=tuple(sorted(self.shown)),
            showdown=False,
            voided=False,
            boards=self.result.boards,
        )
        return self.events[mark:]

    def _run_count(self, action: Action) -> list[Event]:
        if self.result is not None:
            raise EngineError("hand_over")
        if not self.run_choice_pending:
            raise EngineError("bad_action", value="run_count", reason="no_run_choice")
        if action.player is not None or action.pre is not None:
            raise EngineError("bad_action", value="run_count takes only an amount")
        runs = action.amount
        if type(runs) is not int or runs not in (1, 2):
            raise EngineError("bad_action", value="run_count", runs=repr(runs))
        mark = len(self.events)
        self.actions.append(action)
        self.run_choice_pending = False
        self.events.append(RunCountChosen(runs))
        self._run_out(runs)
        return self.events[mark:]

    def _preselect(self, action: Action) -> list[Event]:
        if self.result is not None:
            raise EngineError("hand_over")
        player = self._check_player(action.player)
        pre = action.pre
        if not isinstance(pre, PreAction) or action.amount is not None:
            raise EngineError("bad_action", value="preselect needs a pre-action")
        if pre is PreAction.NONE:
            self.actions.append(action)
            self.preselected.pop(player, None)
            return []
        if not self._live(player):
            raise EngineError("cannot_preselect", player=player)
        if player == self.to_act:
            raise EngineError("preselect_on_turn", player=player)
        owed = self.high_bet - self.bets[player]
        if pre is PreAction.CHECK and owed:
            raise EngineError("cannot_check", to_call=min(owed, self.stacks[player]))
        if pre is PreAction.CALL and not owed:
            raise EngineError("nothing_to_call")
        self.actions.append(action)
        self.preselected[player] = (pre, self.high_bet)
        return []

    def _run_preselections(self) -> None:
        if not self.preselected:
            return
        while self.to_act is not None and self.to_act in self.preselected:
            i = self.to_act
            pre, high_then = self.preselected.pop(i)
            owed = self.high_bet - self.bets[i]
            kind: ActionKind | None
            if pre is PreAction.FOLD:
                kind = ActionKind.FOLD
            elif pre is PreAction.CHECK_FOLD:
                kind = ActionKind.CHECK if owed == 0 else ActionKind.FOLD
            elif pre is PreAction.CALL_ANY:
                kind = ActionKind.CALL if owed else ActionKind.CHECK
            elif self.high_bet != high_then:
                kind = None  # the bet changed since he chose: he decides again (TDA 53)
            elif pre is PreAction.CHECK:
                kind = ActionKind.CHECK
            else:
                kind = ActionKind.CALL if owed else ActionKind.CHECK
            if kind is None:
                return
            self._act(i, kind, None, auto="preselect")

    # -- snapshot ------------------------------------------------------------------------------

    def snapshot(self, viewer: int | None = None) -> dict[str, Any]:
        """A JSON-safe view; hole cards appear only for ``viewer`` and for hands shown."""
        players = []
        for i in range(self.n):
            visible = i == viewer or i in self.shown
            players.append(
                {
                    "index": i,
                    "stack": self.stacks[i],
                    "bet": self.bets[i],
                    "contributed": self.contributions[i] + self.pooled[i],
                    "folded": self.folded[i],
                    "all_in": self.all_in[i],
                    "shown": i in self.shown,
                    "rank": _rank_json(self.rank(i)) if visible else None,
                    "cards": [format_card(c) for c in self.hole_cards(i)] if visible else None,
                    "preselected": (
                        self.preselected[i][0].value
                        if i == viewer and i in self.preselected
                        else None
                    ),
                }
            )
        if self.game.has_low:
            # Only high-low games carry it, so a Hold'em snapshot reads as it always did.
            for i, player in enumerate(players):
                low = self.low_rank(i) if player["cards"] is not None else None
                player["low"] = _low_json(low)
        legal = self.legal()
        return {
            "street": self.street.value,
            "board": [format_card(c) for c in self.board],
            "second_board": (
                [format_card(c) for c in self.second_board]
                if self.second_board is not None
                else None
            ),
            "run_choice_players": list(self.run_choice_players),
            "players": players,
            "to_act": self.to_act,
            "legal": legal.to_json() if legal else None,
            "pots": [{"amount": p.amount, "eligible": list(p.eligible)} for p in self.pots()],
            "total_pot": self.total_pot(),
            "high_bet": self.high_bet,
            "min_increment": self.min_increment,
            "config": self.config.to_json(),
            "over": self.is_over,
            "run_choice_pending": self.run_choice_pending,
            "result": (
                {
                    "stacks": list(self.result.stacks),
                    "net": list(self.result.net),
                    "showdown": self.result.showdown,
                    "voided": self.result.voided,
                    "pots": [a.to_json() for a in self.result.pots],
                }
                if self.result
                else None
            ),
        }

    def state_key(self) -> tuple[object, ...]:
        """Everything that defines the state; two hands with equal keys behave identically."""
        return (
            self.street,
            self.board,
            self.second_board,
            self.run_choice_pending,
            tuple(self.stacks),
            tuple(self.bets),
            tuple(self.contributions),
            tuple(self.pooled),
            tuple(self.folded),
            tuple(self.all_in),
            self.to_act,
            self.high_bet,
            self.min_increment,
            self.full_raises,
            tuple(self.acted),
            tuple(self.acted_high),
            tuple(self.acted_raises),
            tuple(sorted(self.shown)),
            tuple(sorted(self.preselected.items())),
            tuple(e.to_json().__repr__() for e in self.events),
            self.result,
        )


def _rank_json(rank: HandRank | None) -> dict[str, Any] | None:
    if rank is None:
        return None
    return {
        "code": rank.code,
        "text": rank.describe(),
        "best_five": [format_card(c) for c in rank.cards],
    }


def _low_json(low: LowRank | None) -> dict[str, Any] | None:
    if low is None:
        return None
    return {"code": low.code, "text": low.describe(), "cards": [format_card(c) for c in low.cards]}
