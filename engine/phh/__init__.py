"""Hand histories in the PHH format (variants ``NT`` and ``PO``, and this project's ``PO5`` and
``PO/8``): read, replay through the engine, write.

PHH is the TOML-based hand-history standard of the public dataset the engine is checked against
(uoftcprg/phh-std). Player ``p1`` is engine index 0, ``p2`` index 1 and so on: the same order
the engine uses (first seat left of the button first; heads-up, ``p1`` is the big blind).

Reading maps a file onto a :class:`~engine.hand.HandConfig`, a deck order and the players'
decisions; replaying applies the decisions to a :class:`~engine.hand.Hand`, which posts the
blinds, deals the board and settles the pots by itself. ``d db`` lines only tell us which
cards the board holds, and the engine's board must come out the same. ``pN sm`` lines only
reveal cards: the engine decides who shows, so an unknown hand mucked at showdown is given the
weakest cards left (it lost). Anything the engine cannot play (other variants, straddles
played by PHH's own minimum raise, unknown stacks...) raises
``EngineError("phh_unsupported", feature=...)``.

The home-game extras are written as far as PHH can say them, with user-defined fields (which
PHH reserves to writers, prefixed ``_``) for the rest, which this module reads back:

- a straddle is a straddle in ``blinds_or_straddles``. PHH (as PokerKit plays it) counts the
  minimum raise from ``min_bet``, the engine from the straddle; ``_straddle = true`` says the
  file follows the engine's rule, and only such a file's straddle is read.
- a bomb pot has no PHH form: it is written as what it amounts to, chip for chip: antes of the
  bomb (``ante_trimming_status = true``: a short stack wins what he matched) and a pre-flop
  checked round by everyone who has chips behind, plus ``_bomb_pot = true``. Reading it back
  skips those checks (the engine's bomb pot has no pre-flop round).
- run it twice: PHH has no action for the number of runs (PokerKit's reader always runs once),
  so ``actions`` hold the first run and ``_second_run`` the second run's own cards in dealing
  order (``_run_it_twice`` keeps the table option). ``finishing_stacks`` are the real ones; a
  reader ignoring ``_second_run`` replays the hand as if the board was run once.

The games (:mod:`engine.games`, ``Game.phh_variant``): ``NT`` is No-Limit Texas Hold'em and
``PO`` Pot-Limit Omaha, both PHH's own. PHH has no code for five-card Omaha nor for pot-limit
Omaha Hi-Lo (its ``FO/8`` is fixed-limit), so this project defines two, with exactly ``PO``'s
fields (``antes``, ``blinds_or_straddles``, ``min_bet``, ``starting_stacks``, ``actions`` and
the optional ones) and meaning:

- ``PO5``: Pot-Limit Omaha dealt five hole cards, so each ``d dh`` and ``sm`` line carries ten
  characters of cards (``d dh p1 AsKsQdJd9c``); a hand is still exactly two of them with three
  of the board.
- ``PO/8``: Pot-Limit Omaha Hi-Lo, eight or better, four hole cards: ``PO`` with each pot split
  between the best high and the best low (as ``FO/8`` splits), the whole pot to the high hand
  when no player in it has a low, the odd chip to the high half.

A reader that does not know these codes (PokerKit) refuses such a file instead of playing it as
another game. Bomb pots, straddles and runs twice are written in every game as above.

This module does no I/O; ``python -m engine.phh`` (``__main__``) reads files.

>>> text = '''
... variant = "NT"
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ["d dh p1 AsAh", "d dh p2 ????", "d dh p3 ????", "p3 f", "p1 cbr 6", "p2 f"]
... '''
>>> hand = replay(load_hand(text))
>>> hand.is_over, final_stacks(hand)
(True, [102, 98, 100])
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from engine.cards import FULL_DECK, Card, format_card, format_cards, parse_card
from engine.errors import EngineError
from engine.evaluator import rank_values
from engine.games import GAMES, NLHE, Game, HandMaking
from engine.hand import (
    Action,
    ActionKind,
    ActionTaken,
    AnteKind,
    Event,
    ForcedBet,
    Hand,
    HandConfig,
    HandEnded,
    HandMucked,
    HandShown,
    HandVoided,
    HoleCardsDealt,
    ReopenMode,
    RunItTwice,
    SecondRunDealt,
    StreetDealt,
    deck_from_cards,
)
from engine.limits import MAX_SEATS
from engine.low import LOW_BIT
from engine.phh._toml import loads as loads_toml

__all__ = [
    "CHECK_OR_CALL",
    "FOLD",
    "RAISE",
    "PhhHand",
    "PhhMove",
    "dump_collection",
    "dump_hand",
    "dump_played_hand",
    "final_stacks",
    "hand_from_fields",
    "load_hand",
    "load_hands",
    "loads_toml",
    "replay",
]

FOLD: Final = "f"
CHECK_OR_CALL: Final = "cc"
RAISE: Final = "cbr"

# PHH writes cards exactly as format_card does, so one dict hit replaces parse_card on the hot
# path; parse_card stays the fallback for anything unusual (lower-case ranks and the like).
_CARD_OF_TEXT: Final[dict[str, Card]] = {format_card(c): c for c in FULL_DECK}
_UNKNOWN: Final = "??"
_GAME_OF_VARIANT: Final[dict[str, Game]] = {game.phh_variant: game for game in GAMES.values()}
_PLAYER_OF_WORD: Final[dict[str, int]] = {f"p{i + 1}": i for i in range(64)}

# Fields the engine has no use for but which a table may need to round-trip its own hands.
# PHH reserves underscore-prefixed names for user-defined fields, so PokerKit accepts them.
_CHIP_UNIT_FIELD: Final = "_chip_unit"
_REOPEN_FIELD: Final = "_reopen"
_STRADDLE_FIELD: Final = "_straddle"
_BOMB_POT_FIELD: Final = "_bomb_pot"
_RUN_IT_TWICE_FIELD: Final = "_run_it_twice"
_SECOND_RUN_FIELD: Final = "_second_run"

_CORE_FIELDS: Final = frozenset(
    {
        "variant",
        "ante_trimming_status",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "starting_stacks",
        "actions",
        "players",
        "finishing_stacks",
        _CHIP_UNIT_FIELD,
        _REOPEN_FIELD,
        _STRADDLE_FIELD,
        _BOMB_POT_FIELD,
        _RUN_IT_TWICE_FIELD,
        _SECOND_RUN_FIELD,
    }
)
_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")


PhhMove = tuple[int, str, int | None, int]
"""One player decision from ``actions``: ``(player, verb, amount, at)``.

``verb`` is ``"f"``, ``"cc"`` (check or call: the engine's state says which) or ``"cbr"`` (bet or
raise to ``amount``, the street total); ``at`` is its index in ``actions``. A plain tuple rather
than a dataclass because a replay builds tens of thousands of them.
"""


@dataclass(frozen=True, slots=True)
class PhhHand:
    """A PHH hand as the engine sees it.

    ``holes`` has the known hole cards per player (``None`` when unknown, from ``d dh`` or a
    later ``sm``); ``board`` is every ``d db`` card in order. ``fields`` keeps the whole TOML
    table, so metadata (``hand``, ``event``...) stays at hand. ``hidden_mucks`` are the
    players whose unknown hand was mucked at showdown: the deck gives them the weakest cards.
    ``second_run`` is the second run's own cards when the board was run twice.
    """

    config: HandConfig
    deck: tuple[Card, ...]
    holes: tuple[tuple[Card, ...] | None, ...]
    board: tuple[Card, ...]
    moves: tuple[PhhMove, ...]
    finishing_stacks: tuple[int | float, ...] | None
    players: tuple[str, ...] | None
    fields: Mapping[str, object]
    hidden_mucks: tuple[int, ...] = ()
    second_run: tuple[Card, ...] = ()


# --- reading ----------------------------------------------------------------------------------


def load_hands(text: str) -> list[PhhHand]:
    """Every hand of a ``.phh`` (one hand) or ``.phhs`` (``[1]``, ``[2]``... sections) text.

    A hand that cannot be read raises; use :func:`hand_from_fields` on each section of
    :func:`loads_toml` to read the others.
    """
    return [hand_from_fields(fields) for fields in split_hands(loads_toml(text))]


def load_hand(text: str) -> PhhHand:
    """The one hand of a ``.phh`` text."""
    hands = split_hands(loads_toml(text))
    if len(hands) != 1:
        raise EngineError("phh_not_single_hand", hands=len(hands))
    return hand_from_fields(hands[0])


def split_hands(document: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The hand tables of a parsed document: its sections for ``.phhs``, else itself."""
    sections: list[Mapping[str, object]] = [v for v in document.values() if isinstance(v, dict)]
    if sections and len(sections) == len(document):
        return sections
    return [document]


def _missing(name: str) -> EngineError:
    return EngineError("phh_missing_field", field=name)


def _chips(name: str, value: object, *, positive: bool = False) -> int:
    """A chip amount: an int, or a float with an integral value (as some writers emit)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineError("phh_bad_field", field=name, value=repr(value))
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise EngineError("phh_unsupported", feature="unknown_stack", field=name)
        if not value.is_integer():
            raise EngineError("phh_unsupported", feature="fractional_chips", field=name)
        value = int(value)
    if value < 0 or (positive and value == 0):
        raise EngineError("phh_bad_field", field=name, value=value)
    return value


def _chip_list(fields: Mapping[str, object], name: str, n: int | None) -> tuple[int, ...]:
    value = fields.get(name)
    if value is None:
        raise _missing(name)
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise EngineError("phh_bad_field", field=name, value=repr(value))
    positive = name == "starting_stacks"
    lowest = 1 if positive else 0
    # The common case (plain ints) skips the per-item conversions.
    if all(type(v) is int and v >= lowest for v in value):
        return tuple(value)
    return tuple(_chips(name, v, positive=positive) for v in value)


Hole = tuple[Card | None, ...]  # a hand as a file gives it: ``None`` for a card written ``??``


def _hole_text(text: str, count: int, at: int) -> Hole:
    if len(text) != 2 * count:
        raise EngineError("phh_bad_action", at=at, reason=f"the game deals {count} hole cards")
    return tuple(_card_or_unknown(text[k : k + 2], at) for k in range(0, len(text), 2))


def _card_or_unknown(text: str, at: int) -> Card | None:
    card = _CARD_OF_TEXT.get(text)
    if card is not None:
        return card
    if text == _UNKNOWN:
        return None
    try:
        return parse_card(text)
    except EngineError:
        raise EngineError("phh_bad_action", at=at, reason=f"bad card {text!r}") from None


def _bad_action(words: list[str], n: int, at: int) -> None:
    """Raise the error that says why an action line was not understood."""
    text = " ".join(words)
    if words[0] == "d":
        raise EngineError("phh_bad_action", at=at, reason=f"bad dealing {text!r}")
    if _PLAYER_OF_WORD.get(words[0], n) >= n:
        raise EngineError("phh_bad_action", at=at, reason=f"bad player {words[0]!r}")
    verb = words[1] if len(words) > 1 else ""
    if verb in ("pb", "sd"):
        feature = "bring_in" if verb == "pb" else "draw"
        raise EngineError("phh_unsupported", feature=feature, at=at)
    raise EngineError("phh_bad_action", at=at, reason=f"bad action {text!r}")


def _amount(word: str, at: int) -> int:
    try:
        return int(word)
    except ValueError:
        pass
    try:
        value = float(word)
    except ValueError:
        raise EngineError("phh_bad_action", at=at, reason=f"bad amount {word!r}") from None
    if not value.is_integer():
        raise EngineError("phh_unsupported", feature="fractional_chips", at=at)
    return int(value)


def _layout(
    n: int, raw_blinds: tuple[int, ...], raw_antes: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...], int, AnteKind]:
    """Engine blinds, antes, big-blind index and ante kind for PHH's per-player arrays."""
    if n == 2:
        # PHH lists heads-up forced bets as if the button were the small blind seat p1.
        blinds, antes = raw_blinds[::-1], raw_antes[::-1]
    else:
        blinds, antes = raw_blinds, raw_antes
    posting = [i for i in range(n) if blinds[i]]
    if not posting:
        raise EngineError("phh_unsupported", feature="no_blinds")
    if len(posting) > 2 or posting[-1] > 1:
        raise EngineError("phh_unsupported", feature="straddle")
    # The betting opens left of the largest blind. On a tie the seat that posts the big blind
    # by position keeps it (heads-up that is p1, where PokerKit would pick p2).
    natural = 0 if n == 2 else 1
    if blinds[natural] == max(blinds):
        bb_index = natural
    else:  # a bigger blind at p1 (3+ players): PokerKit's rule, the last largest blind
        bb_index = max(posting, key=lambda i: (blinds[i], i))
    first = antes[0]
    if not any(antes):
        kind = AnteKind.NONE
    elif all(a == first for a in antes):
        kind = AnteKind.PER_PLAYER
    elif antes[bb_index] and sum(1 for a in antes if a) == 1:
        # A lone ante at the big blind is a big-blind ante whatever ante_trimming_status says:
        # the spec wants it false there, and the WSOP 2019 file that says true only balances
        # when read as false.
        kind = AnteKind.BIG_BLIND
    else:
        raise EngineError("phh_unsupported", feature="non_uniform_antes")
    return blinds, antes, bb_index, kind


def hand_from_fields(fields: Mapping[str, object]) -> PhhHand:
    """Map one hand's TOML table onto the engine.

    Raises ``EngineError`` with code ``phh_unsupported`` (``feature`` says what),
    ``phh_missing_field``, ``phh_bad_field``, ``phh_bad_action`` or the engine's own
    ``bad_config``/``bad_deck``.
    """
    variant = fields.get("variant")
    if variant is None:
        raise _missing("variant")
    game = _GAME_OF_VARIANT.get(variant) if isinstance(variant, str) else None
    if game is None:
        raise EngineError("phh_unsupported", feature="variant", variant=variant)
    hole_count = game.hole_count
    stacks = _chip_list(fields, "starting_stacks", None)
    n = len(stacks)
    raw_blinds = _chip_list(fields, "blinds_or_straddles", n)
    raw_antes = _chip_list(fields, "antes", n)
    bomb = _flag(fields, _BOMB_POT_FIELD)
    straddle_index: int | None = None
    if bomb:
        if any(raw_blinds) or len(set(raw_antes)) != 1 or not raw_antes[0]:
            raise EngineError("phh_bad_field", field=_BOMB_POT_FIELD, value=repr(raw_antes))
        # The engine's bomb is a live bet from everybody: the antes' amounts in its blinds.
        blinds, antes, ante_kind = raw_antes, raw_blinds, AnteKind.NONE
        bb_index = 0 if n == 2 else 1
    else:
        if _flag(fields, _STRADDLE_FIELD):
            # The straddle is the largest post (at least twice the big blind); the rest must
            # be ordinary blinds.
            straddle_index = max(range(n), key=lambda i: (raw_blinds[i], i))
            straddle = raw_blinds[straddle_index]
            raw_blinds = tuple(0 if i == straddle_index else b for i, b in enumerate(raw_blinds))
        blinds, antes, bb_index, ante_kind = _layout(n, raw_blinds, raw_antes)
        if straddle_index is not None:
            blinds = tuple(straddle if i == straddle_index else b for i, b in enumerate(blinds))
    min_bet = fields.get("min_bet")
    if min_bet is not None:
        big_blind = _chips("min_bet", min_bet, positive=True)
    elif bomb:
        raise _missing("min_bet")
    else:
        big_blind = blinds[bb_index]
    run_it_twice = RunItTwice.OFF
    if _RUN_IT_TWICE_FIELD in fields:
        run_text = fields[_RUN_IT_TWICE_FIELD]
        try:
            run_it_twice = RunItTwice(str(run_text))
        except ValueError:
            raise EngineError(
                "phh_bad_field", field=_RUN_IT_TWICE_FIELD, value=repr(run_text)
            ) from None
    second_run = _second_run(fields)
    chip_unit = 1
    reopen = ReopenMode.TDA
    if _CHIP_UNIT_FIELD in fields:
        chip_unit = _chips(_CHIP_UNIT_FIELD, fields[_CHIP_UNIT_FIELD], positive=True)
    if _REOPEN_FIELD in fields:
        reopen_text = fields[_REOPEN_FIELD]
        try:
            reopen = ReopenMode(str(reopen_text))
        except ValueError:
            raise EngineError(
                "phh_bad_field", field=_REOPEN_FIELD, value=repr(reopen_text)
            ) from None
    config = HandConfig(
        stacks=stacks,
        blinds=blinds,
        antes=antes,
        big_blind=big_blind,
        big_blind_index=bb_index,
        ante_kind=ante_kind,
        chip_unit=chip_unit,
        reopen=reopen,
        straddle_index=straddle_index,
        bomb_pot=bomb,
        run_it_twice=run_it_twice,
        game=game,
    )

    actions = fields.get("actions")
    if actions is None:
        raise _missing("actions")
    if not isinstance(actions, list):
        raise EngineError("phh_bad_field", field="actions", value=repr(actions))
    holes: list[Hole | None] = [None] * n
    shown: list[Hole | None] = [None] * n
    board: list[Card] = []
    moves: list[PhhMove] = []
    mucked: list[int] = []
    add_move = moves.append
    player_of = _PLAYER_OF_WORD
    card_of = _CARD_OF_TEXT
    first_board_at = len(actions)
    # The branches follow the word count so the usual lines cost a split and two dict hits;
    # everything unusual drops to _bad_action, which says precisely what is wrong.
    for at, text in enumerate(actions):
        if type(text) is not str:
            raise EngineError("phh_bad_action", at=at, reason="not a string")
        if "#" in text:
            text = text[: text.index("#")]
        words = text.split()
        count = len(words)
        if count == 2:
            player = player_of.get(words[0], n)
            if player < n:
                verb = words[1]
                if verb in (CHECK_OR_CALL, FOLD):
                    add_move((player, verb, None, at))
                    continue
                if verb == "sm":
                    mucked.append(player)
                    continue
        elif count == 3:
            first = words[0]
            if first == "d":
                cards = words[2]
                if words[1] == "db" and len(cards) % 2 == 0:
                    first_board_at = min(first_board_at, at)
                    for k in range(0, len(cards), 2):
                        card = card_of.get(cards[k : k + 2])
                        if card is None:
                            card = _card_or_unknown(cards[k : k + 2], at)
                            if card is None:
                                raise EngineError(
                                    "phh_unsupported", feature="unknown_board_card", at=at
                                )
                        board.append(card)
                    continue
            else:
                player = player_of.get(first, n)
                if player < n:
                    verb = words[1]
                    if verb == RAISE:
                        amount = words[2]
                        value = int(amount) if amount.isdecimal() else _amount(amount, at)
                        add_move((player, RAISE, value, at))
                        continue
                    if verb == "sm":
                        if words[2] != "-":
                            shown[player] = _hole_text(words[2], hole_count, at)
                        continue
        elif count == 4:
            if words[0] == "d" and words[1] == "dh":
                player = player_of.get(words[2], n)
                if player < n:
                    if holes[player] is not None:
                        raise EngineError("phh_bad_action", at=at, reason="hole cards dealt twice")
                    text = words[3]
                    if len(text) == 4 and hole_count == 2:
                        low = card_of.get(text[:2])
                        high = card_of.get(text[2:])
                        if low is not None and high is not None:
                            holes[player] = (low, high)
                            continue
                    holes[player] = _hole_text(text, hole_count, at)
                    continue
        elif count == 0:
            continue
        _bad_action(words, n, at)
    if len(board) > 5:
        raise EngineError("phh_unsupported", feature="multiple_boards")
    if bomb:
        # The checked pre-flop round is how PHH says "no pre-flop betting"; the engine has none.
        for _, verb, _, at in moves:
            if at < first_board_at and verb != CHECK_OR_CALL:
                raise EngineError("phh_bad_action", at=at, reason="a bomb pot is not bet pre-flop")
        moves = [move for move in moves if move[3] > first_board_at]

    merged = _merge_holes(holes, shown)
    # A hand mucked unseen at showdown lost; it gets the weakest cards left so the engine,
    # which decides showdowns from the cards, cannot make it win.
    hidden_mucks = tuple(i for i in mucked if (held := merged[i]) is None or None in held)
    complete, deck = _deck(n, merged, board, hidden_mucks, second_run, game)
    finishing = fields.get("finishing_stacks")
    finishing_stacks: tuple[int | float, ...] | None = None
    if finishing is not None:
        if (
            not isinstance(finishing, list)
            or len(finishing) != n
            or not all(type(v) is int or type(v) is float for v in finishing)
        ):
            raise EngineError("phh_bad_field", field="finishing_stacks", value=repr(finishing))
        finishing_stacks = tuple(finishing)
    names = fields.get("players")
    players: tuple[str, ...] | None = None
    if isinstance(names, list) and len(names) == n and all(isinstance(s, str) for s in names):
        players = tuple(names)
    return PhhHand(
        config=config,
        deck=deck,
        holes=complete,
        board=tuple(board),
        moves=tuple(moves),
        finishing_stacks=finishing_stacks,
        players=players,
        fields=fields,
        hidden_mucks=hidden_mucks,
        second_run=second_run,
    )


def _flag(fields: Mapping[str, object], name: str) -> bool:
    value = fields.get(name, False)
    if not isinstance(value, bool):
        raise EngineError("phh_bad_field", field=name, value=repr(value))
    return value


def _second_run(fields: Mapping[str, object]) -> tuple[Card, ...]:
    text = fields.get(_SECOND_RUN_FIELD)
    if text is None:
        return ()
    # A second run deals the river, the turn and river, or the whole board again.
    if not isinstance(text, str) or len(text) not in (2, 4, 10):
        raise EngineError("phh_bad_field", field=_SECOND_RUN_FIELD, value=repr(text))
    try:
        return tuple(parse_card(text[k : k + 2]) for k in range(0, len(text), 2))
    except EngineError:
        raise EngineError("phh_bad_field", field=_SECOND_RUN_FIELD, value=repr(text)) from None


def _merge_holes(dealt: list[Hole | None], shown: list[Hole | None]) -> list[Hole | None]:
    """Hole cards as dealt, with the unknown ones filled in from a later show."""
    merged = list(dealt)
    for i, cards in enumerate(shown):
        if cards is None:
            continue
        before = merged[i]
        if before is None:
            merged[i] = cards
            continue
        if before == cards:
            continue
        hand = tuple(old if new is None else new for old, new in zip(before, cards, strict=True))
        # Showing may reveal unknown cards but must not contradict known ones (in any order).
        if {c for c in before if c is not None} - {c for c in hand if c is not None}:
            raise EngineError("phh_inconsistent", player=i, reason="shown cards differ from dealt")
        merged[i] = hand
    return merged


def _deck(
    n: int,
    holes: list[Hole | None],
    board: list[Card],
    losers: tuple[int, ...],
    second_run: tuple[Card, ...] = (),
    game: Game = NLHE,
) -> tuple[tuple[tuple[Card, ...] | None, ...], tuple[Card, ...]]:
    """The fully known hole cards, and a deck order dealing every known card where it fell.

    ``losers`` (unknown hands mucked at showdown) get the weakest cards left; other unknown
    cards are left to ``deck_from_cards``.
    """
    complete: list[tuple[Card, ...] | None] = []
    partial = False
    for cards in holes:
        if cards is not None and None not in cards:
            complete.append(tuple(c for c in cards if c is not None))
        else:
            complete.append(None)
            partial = partial or cards is not None
    known = tuple(complete)
    count = game.hole_count
    if not partial and not (losers and len(board) == 5):
        return known, deck_from_cards(n, complete, board, second_run=second_run, hole_count=count)
    used = {c for cards in holes if cards is not None for c in cards if c is not None}
    used.update(board)
    used.update(second_run)
    if len(board) == 5:
        for i in losers:
            hand = _weakest_hand(board, used, game)
            complete[i] = hand
            used.update(hand)
    # A half-known hand ("Ac??"): give the unknown half a card nobody else is known to hold.
    spare = (c for c in FULL_DECK if c not in used)
    for i, cards in enumerate(holes):
        if cards is not None and complete[i] is None:
            complete[i] = tuple(c if c is not None else next(spare) for c in cards)
    return known, deck_from_cards(n, complete, board, second_run=second_run, hole_count=count)


def _weakest_hand(board: Sequence[Card], used: set[Card], game: Game) -> tuple[Card, ...]:
    """The hole cards left that make the weakest hand on ``board``: no low where the game has
    one, then the weakest high. Hold'em tries every pair left. Omaha hands are too many to try
    them all: it tries every hand of the 8 lowest cards left whose ranks are not on the board
    (they cannot pair it) and the 8 lowest such cards above eight (they cannot make a low),
    falling back on any cards left when those are too few."""
    free = [c for c in FULL_DECK if c not in used]  # in rank order, deuces first
    count = game.hole_count
    if game.hand_making is HandMaking.ANY_FIVE:
        pairs = list(combinations(free, count))
        ranked = rank_values([(*pair, *board) for pair in pairs])
        return pairs[ranked.index(min(ranked))]
    on_board = {c >> 2 for c in board}
    unpaired = [c for c in free if c >> 2 not in on_board]
    pool = sorted({*unpaired[:8], *[c for c in unpaired if LOW_BIT[c] < 0][:8]})
    if len(pool) < count:
        pool = free[:16]
    hands = list(combinations(pool, count))
    if game.has_low:
        hands = [h for h in hands if not game.low_value(h, board)] or hands
    values = [game.high_value(h, board) for h in hands]
    return hands[values.index(min(values))]


# --- replaying --------------------------------------------------------------------------------

# Actions are immutable, so the argument-free ones are made once rather than per move.
_FOLDS: Final = tuple(Action(ActionKind.FOLD, i) for i in range(MAX_SEATS))
_CHECKS: Final = tuple(Action(ActionKind.CHECK, i) for i in range(MAX_SEATS))
_CALLS: Final = tuple(Action(ActionKind.CALL, i) for i in range(MAX_SEATS))


def replay(phh: PhhHand, *, strict: bool = False) -> Hand:
    """Play the hand's decisions through the engine and check the board it dealt.

    A file that stops early gives the hand as it stands then. When a file skips a player's turn
    (``wsop/2019/42/3/00-01-07.phh`` never writes the button's fold), the turn is filled in as
    PokerKit's reader does: a check when checking is free, else a fold; ``strict`` refuses
    instead (``phh_skipped_turn``). Engine errors keep their code and gain ``at``, the index of
    the offending entry in ``actions``.
    """
    hand = Hand(phh.config, phh.deck)
    apply = hand.apply
    for player, verb, amount, at in phh.moves:
        if hand.to_act != player and hand.to_act is not None:
            _fill_skipped_turns(hand, player, at, strict)
        if verb == CHECK_OR_CALL:
            # ``hand.bets`` is a new list each street, so it is looked up every time.
            bets = hand.bets
            action = _CALLS[player] if max(bets) > bets[player] else _CHECKS[player]
        elif verb == RAISE:
            action = Action(ActionKind.RAISE, player, amount)
        else:
            action = _FOLDS[player]
        try:
            apply(action)
        except EngineError as exc:
            raise EngineError(exc.code, **exc.params, at=at) from None
    if hand.run_choice_pending:
        # A file that ran twice says so with its second run; one that did not, ran once.
        hand.choose_run_count(2 if phh.second_run else 1)
    second = hand.second_board[hand.second_run_from or 0 :] if hand.second_board else ()
    if second != phh.second_run and (hand.is_over or phh.second_run):
        raise EngineError(
            "phh_board_mismatch", file=format_cards(phh.second_run), engine=format_cards(second)
        )
    if phh.hidden_mucks and hand.result is not None:
        _check_hidden_mucks(hand, phh.hidden_mucks)
    dealt = hand.board
    if dealt != phh.board and (hand.is_over or phh.board != dealt[: len(phh.board)]):
        raise EngineError(
            "phh_board_mismatch",
            file=format_cards(phh.board),
            engine=format_cards(dealt),
        )
    return hand


def _fill_skipped_turns(hand: Hand, player: int, at: int, strict: bool) -> None:
    """Act for everyone the file skipped before ``player``'s move."""
    if strict or hand.folded[player] or hand.all_in[player]:
        # Someone who can no longer act cannot be reached by skipping turns.
        raise EngineError("phh_skipped_turn", player=player, to_act=hand.to_act, at=at)
    street = hand.street
    while (waiting := hand.to_act) is not None and waiting != player:
        bets = hand.bets
        hand.apply(_CHECKS[waiting] if max(bets) == bets[waiting] else _FOLDS[waiting])
        if hand.street is not street:
            # Filling in a whole betting round would hide a broken file, not repair a gap.
            raise EngineError("phh_skipped_turn", player=player, at=at)


def _check_hidden_mucks(hand: Hand, losers: tuple[int, ...]) -> None:
    assert hand.result is not None
    for award in hand.result.pots:
        if award.showdown and len(award.eligible) > 1:
            for player, chips in award.shares:
                if chips and player in losers:
                    # Even the weakest cards tie (the board plays): PHH says he forfeited,
                    # but the engine has no way to make a live hand give up its share.
                    raise EngineError("phh_unsupported", feature="mucked_hand_wins", player=player)


def final_stacks(hand: Hand) -> list[int]:
    """Stacks at the end of the hand (or behind, for a history that stops early)."""
    if hand.result is not None:
        return list(hand.result.stacks)
    return list(hand.stacks)


# --- writing ----------------------------------------------------------------------------------


def _toml_string(text: str) -> str:
    # Literal strings are the cheapest for readers; basic strings take any character.
    if "'" not in text and text.isprintable():
        return f"'{text}'"
    out = []
    for char in text:
        if char == '"' or char == "\\":
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _toml_value(name: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(name, v) for v in value) + "]"
    raise EngineError("phh_bad_field", field=name, value=repr(value))


def _header(config: HandConfig) -> list[tuple[str, object]]:
    """The hand's set-up fields, refusing configurations PHH would read back differently."""
    n = config.players
    if any(config.dead_blinds):
        raise EngineError("phh_unsupported", feature="dead_blind")
    if config.bomb_pot:
        # Antes of the bomb, trimmed: a short stack wins only what he matched, as with a bet.
        antes, blinds, trimming = [config.blinds[0]] * n, [0] * n, True
    else:
        antes, blinds, trimming = _blinds_and_antes(config)
    fields: list[tuple[str, object]] = [
        ("variant", config.game.phh_variant),
        ("ante_trimming_status", trimming),
        ("antes", antes),
        ("blinds_or_straddles", blinds),
        ("min_bet", config.big_blind),
        ("starting_stacks", list(config.stacks)),
    ]
    if config.chip_unit != 1:
        fields.append((_CHIP_UNIT_FIELD, config.chip_unit))
    if config.reopen is not ReopenMode.TDA:
        fields.append((_REOPEN_FIELD, config.reopen.value))
    if config.straddle_index is not None:
        fields.append((_STRADDLE_FIELD, True))
    if config.bomb_pot:
        fields.append((_BOMB_POT_FIELD, True))
    if config.run_it_twice is not RunItTwice.OFF:
        fields.append((_RUN_IT_TWICE_FIELD, config.run_it_twice.value))
    return fields


def _blinds_and_antes(config: HandConfig) -> tuple[list[int], list[int], bool]:
    """PHH's ``antes``, ``blinds_or_straddles`` and ``ante_trimming_status`` for a hand."""
    n = config.players
    blinds = list(config.blinds)
    antes = list(config.antes)
    straddle = config.straddle_index
    if straddle is not None:
        blinds[straddle] = 0  # checked as blinds without it, put back after
    if n == 2:
        blinds.reverse()
        antes.reverse()
    if sum(1 for b in blinds if b) > 2:
        # A new player's posted big blind: PHH can only say "straddle", which plays differently.
        raise EngineError("phh_unsupported", feature="posted_blind")
    _, _, bb_index, ante_kind = _layout(n, tuple(blinds), tuple(antes))
    if bb_index != config.big_blind_index:
        raise EngineError("phh_unsupported", feature="blind_layout")
    bba = config.ante_kind is AnteKind.BIG_BLIND
    if any(antes) and bba != (ante_kind is AnteKind.BIG_BLIND):
        raise EngineError("phh_unsupported", feature="ante_layout")
    if straddle is not None:
        blinds[straddle] = config.blinds[straddle]
    # True means a short ante only wins what it matched: the engine's per-player antes.
    return antes, blinds, not bba


def _action_lines(
    events: Sequence[Event], holes: Sequence[Sequence[Card] | None], hole_count: int = 2
) -> tuple[list[str], tuple[Card, ...]]:
    """PHH action strings for a hand's events (``holes[i] is None`` writes ``??`` for each of
    its ``hole_count`` cards), and the second run's cards when the board was run twice."""
    lines: list[str] = []
    second_run: list[Card] = []
    bomb_behind: list[int] = []  # players with chips behind after a bomb
    ended = False
    for event in events:
        if isinstance(event, ActionTaken):
            kind = event.kind
            if kind is ActionKind.FOLD:
                lines.append(f"p{event.player + 1} f")
            elif kind is ActionKind.CHECK or kind is ActionKind.CALL:
                lines.append(f"p{event.player + 1} cc")
            else:
                lines.append(f"p{event.player + 1} cbr {event.amount}")
        elif isinstance(event, StreetDealt):
            lines.append(f"d db {format_cards(event.cards)}")
        elif isinstance(event, SecondRunDealt):
            second_run.extend(event.cards)
        elif isinstance(event, ForcedBet):
            if event.kind == "bomb_pot" and not event.all_in:
                bomb_behind.append(event.player)
        elif isinstance(event, HoleCardsDealt):
            for i in event.players:
                cards = holes[i]
                text = _UNKNOWN * hole_count if cards is None else format_cards(cards)
                lines.append(f"d dh p{i + 1} {text}")
            if len(bomb_behind) > 1:
                # PHH's bomb pot is an ante hand checked round pre-flop, in seat order (the
                # betting opens left of the largest blind; with none, at p1).
                lines.extend(f"p{i + 1} cc" for i in sorted(bomb_behind))
        elif isinstance(event, HandShown | HandMucked):
            # A show after a win without showdown has no PHH action; the dealt cards say it.
            if ended:
                continue
            cards = holes[event.player]
            if cards is None:
                lines.append(f"p{event.player + 1} sm")
            else:
                lines.append(f"p{event.player + 1} sm {format_cards(cards)}")
        elif isinstance(event, HandVoided):
            raise EngineError("phh_unsupported", feature="voided_hand")
        elif isinstance(event, HandEnded):
            ended = True
    return lines, tuple(second_run)


def _document(
    config: HandConfig,
    lines: tuple[list[str], tuple[Card, ...]],
    finishing_stacks: Sequence[int] | None,
    players: Sequence[str] | None,
    extra: Mapping[str, object] | None,
) -> str:
    n = config.players
    fields = _header(config)
    actions, second_run = lines
    fields.append(("actions", actions))
    if second_run:
        fields.append((_SECOND_RUN_FIELD, format_cards(second_run)))
    if players is not None:
        if len(players) != n:
            raise EngineError("phh_bad_field", field="players", value=len(players))
        fields.append(("players", list(players)))
    if finishing_stacks is not None:
        if len(finishing_stacks) != n:
            raise EngineError(
                "phh_bad_field", field="finishing_stacks", value=len(finishing_stacks)
            )
        fields.append(("finishing_stacks", list(finishing_stacks)))
    for key, value in (extra or {}).items():
        if key in _CORE_FIELDS or _BARE_KEY.fullmatch(key) is None:
            raise EngineError("phh_bad_field", field=key, reason="reserved or not a bare key")
        fields.append((key, value))
    return "".join(f"{key} = {_toml_value(key, value)}\n" for key, value in fields)


def dump_hand(
    config: HandConfig,
    actions: Sequence[Action],
    hole_cards: Sequence[Sequence[Card] | None],
    board: Sequence[Card],
    finishing_stacks: Sequence[int] | None,
    players: Sequence[str] | None = None,
    extra: Mapping[str, object] | None = None,
    second_run: Sequence[Card] = (),
) -> str:
    """PHH text for a hand given by its configuration, engine actions and the cards to reveal.

    ``hole_cards[i]`` is ``None`` for a hand that stays hidden (written ``??`` per card; at
    showdown it is written as mucked). ``board`` is the board as dealt (the first run's, when it
    was run twice) and ``second_run`` the second run's own cards. The actions are replayed to
    learn where the streets fall, so they must be legal for ``config``. ``extra`` adds fields
    such as ``hand`` or ``table``.
    """
    n = config.players
    if len(hole_cards) != n:
        raise EngineError("phh_bad_field", field="hole_cards", value=len(hole_cards))
    count = config.game.hole_count
    known = [None if cards is None else tuple(cards[:count]) for cards in hole_cards]
    deck = deck_from_cards(n, known, board, second_run=second_run, hole_count=count)
    hand = Hand.replay(config, deck, actions)
    if hand.board != tuple(board):
        raise EngineError(
            "phh_board_mismatch", file=format_cards(board), engine=format_cards(hand.board)
        )
    lines = _action_lines(hand.events, hole_cards, count)
    return _document(config, lines, finishing_stacks, players, extra)


def dump_played_hand(
    hand: Hand,
    *,
    reveal_all: bool = False,
    players: Sequence[str] | None = None,
    extra: Mapping[str, object] | None = None,
    viewer: int | None = None,
) -> str:
    """PHH text for a hand played on the engine.

    Only hands that were shown are written unless ``reveal_all`` (``????`` for the others), so
    the text is safe to give any player; ``viewer`` (a player index) adds that player's own
    hole cards, for a file only he receives. Finishing stacks are written once the hand is
    over.
    """
    n = hand.config.players
    if viewer is not None and not (type(viewer) is int and 0 <= viewer < n):
        raise EngineError("phh_bad_field", field="viewer", value=repr(viewer))
    # Hands are only ever tabled on the way to the end of the hand, so until it is over
    # nothing has been shown.
    shown = set(hand.result.shown) if hand.result is not None else set()
    holes: list[tuple[Card, ...] | None] = [
        hand.hole_cards(i) if reveal_all or i in shown or i == viewer else None
        for i in range(n)
    ]
    lines = _action_lines(hand.events, holes, hand.game.hole_count)
    finishing = list(hand.result.stacks) if hand.result is not None else None
    return _document(hand.config, lines, finishing, players, extra)


def dump_collection(texts: Sequence[str]) -> str:
    """A ``.phhs`` text holding the given ``.phh`` texts as sections ``[1]``, ``[2]``..."""
    return "\n".join(f"[{k}]\n{text}" for k, text in enumerate(texts, start=1))
