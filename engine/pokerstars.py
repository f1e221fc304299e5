"""Hand histories in the text PokerStars writes, which PokerTracker 4, Hold'em Manager 3 and GTO
Wizard import.

:func:`write_hand` turns a finished :class:`~engine.hand.Hand` into one hand of that text, from
its events alone; :class:`HandFacts` carries what the hand does not know (its number, the table,
the seats and names, the button, the time, the tournament) and who asks for it. The module does
no I/O and reads no clock: the time is passed in. Hands of one file are joined with
:data:`HAND_SEPARATOR`, as PokerStars separates them.

**What a file shows.** Only what the asker may see, the rule of ``/history hand``: the hands
shown (:attr:`~engine.hand.HandResult.shown`: at showdown, tabled all in, or shown by a winner)
and the asker's own hole cards (``Dealt to``, and his ``mucked [..]`` in the summary, as
PokerStars writes a hero's mucked hand). A folded or mucked hand of anyone else is never
written; where PokerStars would name a mucked hand's cards, the line says only ``mucked``.

**Chips.** Amounts are the project's chips, whole numbers without a currency: the form
PokerStars writes for play money (``(Play Money)`` on the table line of a cash hand) and for
tournament chips, which all three trackers import. A tournament's buy-in is written the same way
(``Tournament #7, 100+0 Hold'em No Limit - Level IV (50/100)``), ``Freeroll`` when it cost
nothing.

**Games** (``engine.games``): ``Hold'em No Limit``, ``Omaha Pot Limit``, ``Omaha Hi/Lo Pot
Limit`` and ``5 Card Omaha Pot Limit``, PokerStars' own names.

**Forced bets**, in PokerStars' order: antes (``posts the ante``; a big-blind ante is the big
blind's ``posts the ante``, as PokerStars writes it, before his blind), the small and big blinds,
then a straddle (``posts straddle``, the form the trackers and other sites' converters use:
PokerStars has none), a live blind posted to come in (``posts big blind``) and a dead small
blind (``posts small blind``, or ``posts small & big blinds`` with the live one). A player whose
forced bets took all his chips says ``and is all-in`` on his last one.

**Bomb pots.** PokerStars has none, and no form of its text says "everybody puts the same live
amount in and the flop comes at once". The nearest that trackers import is PokerStars' ante:
money every player must put in before the cards, not counted as a voluntary bet, a short stack
all in for less and winning only what he matched, exactly the engine's bomb. So a bomb pot is
written as each player's ``posts the ante <bomb>``, no blinds, no pre-flop action (a street
nobody can bet on writes none, as an all-in before the flop does), then ``*** FLOP ***``; the
header keeps the table's blinds as its stakes. A tracker counts the hand in no player's VPIP or
pre-flop raise, which is what a bomb pot is.

**Run it twice**, as PokerStars writes it: the streets dealt after the choice are ``*** FIRST
FLOP ***`` (``TURN``, ``RIVER``) and ``*** SECOND ... ***``, the showdown is ``*** FIRST SHOW DOWN
***`` then ``*** SECOND SHOW DOWN ***`` (each showing the hands with their rank on its own board,
each run's half collected there; a pot only one player can win is not cut and is collected in
the first), and the summary says ``Hand was run twice`` with a ``FIRST Board`` and a ``SECOND
Board``.

**Hi-Lo.** A shown hand is ``(HI: a flush, Ace high; LO: 8,5,4,2,A)``, without the ``LO`` part
when it has no low; each half a player wins is its own ``collected <n> from pot`` line (the high
half first); a showdown where no hand had a low says ``No low hand qualified``.

**Pots.** ``collected <n> from pot`` for a hand of one pot, else ``from main pot``, ``from side
pot`` (one side pot) or ``from side pot-1``, ``-2``...; the summary's ``Total pot 900 Main pot
300. Side pot-1 400. Side pot-2 200. | Rake 0``. An uncalled bet (the engine's
:class:`~engine.hand.BetReturned`) is ``Uncalled bet (n) returned to X``.

**Names** that break the format are made safe by :func:`safe_names` (see there); every name the
writer prints has been through it, so one parser's reading of a name is every parser's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from engine.cards import RANKS, Card, format_card
from engine.errors import EngineError
from engine.evaluator import HandRank
from engine.hand import (
    ActionKind,
    ActionTaken,
    BetReturned,
    ForcedBet,
    Hand,
    HandEnded,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    RunCountChosen,
    SecondRunDealt,
    Street,
    StreetDealt,
)

__all__ = [
    "HAND_SEPARATOR",
    "MAX_NAME_LENGTH",
    "HandFacts",
    "TournamentFacts",
    "describe_high",
    "safe_names",
    "write_hand",
]

HAND_SEPARATOR: Final = "\n\n\n"
"""What goes between two hands of a file (PokerStars leaves blank lines; trackers split there)."""

MAX_NAME_LENGTH: Final = 24
"""Longest name written, in characters. Discord names reach 32; PokerStars' own are at most 12,
and a bounded name keeps every line well inside what trackers store."""

# PokerStars' names for the games, by engine.games code.
_GAME_NAMES: Final = {
    "nlhe": "Hold'em No Limit",
    "plo": "Omaha Pot Limit",
    "plo8": "Omaha Hi/Lo Pot Limit",
    "plo5": "5 Card Omaha Pot Limit",
}

_SINGULAR: Final = (
    "Deuce", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen",
    "King", "Ace",
)  # fmt: skip
_PLURAL: Final = (
    "Deuces", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines", "Tens", "Jacks",
    "Queens", "Kings", "Aces",
)  # fmt: skip

_STREET_WORDS: Final = {Street.FLOP: "FLOP", Street.TURN: "TURN", Street.RIVER: "RIVER"}
_FOLDED_ON: Final = {
    Street.PREFLOP: "folded before Flop",
    Street.FLOP: "folded on the Flop",
    Street.TURN: "folded on the Turn",
    Street.RIVER: "folded on the River",
}

# Words a line of the format puts right after "<name>: " or "Seat <n>: ". A name beginning with
# one could make "Seat 3: calls_me folded before Flop" read as a call by someone named
# "Seat 3" to a parser that searches each line for ": calls" (PokerKit's does), so such a name
# is written with a "_" in front. Compared without case, for parsers that ignore it.
_VERBS: Final = (
    "folds", "checks", "calls", "bets", "raises", "shows", "mucks", "posts", "collected",
    "doesn't", "discards", "stands", "sits", "said", "pokerstars",
)  # fmt: skip
# Kept in a name besides letters, digits and marks: none of them means anything to the format.
_NAME_PUNCTUATION: Final = frozenset("_-.")


# --- what the writer needs beyond the hand ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentFacts:
    """A tournament hand's header: the tournament's id, the level the hand was dealt at (from 1,
    written in Roman numerals as PokerStars does) and the buy-in and fee in wallet chips."""

    tournament_id: int
    level: int
    buy_in: int = 0
    fee: int = 0


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What :func:`write_hand` needs besides the hand, by player index (the engine's order).

    ``hand_id`` is the hand's number in the file (``PokerStars Hand #``): unique across every
    table, since trackers drop a second hand with a number they already hold. ``seats`` are the
    seat numbers (1..``max_seats``), ``names`` the players' names (made safe by
    :func:`safe_names` on the way out; pass a whole session's roster through it first to keep
    each player's name the same from hand to hand). ``button_seat`` is the seat the button is
    at, None for the engine's own (the last index; heads-up the small blind). ``started_at``:
    Unix seconds. ``small_blind`` and ``big_blind``: the stakes the hand was dealt at (a
    tournament's level), for the header. ``viewer``: the asker's player index, whose hole cards
    the file shows, or None for a file anybody may read.
    """

    hand_id: int
    table_name: str
    seats: tuple[int, ...]
    names: tuple[str, ...]
    max_seats: int
    started_at: int
    small_blind: int
    big_blind: int
    button_seat: int | None = None
    tournament: TournamentFacts | None = None
    viewer: int | None = None


# --- names ----------------------------------------------------------------------------------------


def _clean_name(name: str) -> str:
    """One name in the safe alphabet: letters and digits of any script, the marks (accents) on
    them, and ``_-.``; every run of anything else (spaces, ``:``, brackets, ``#``, ``*``, quotes,
    control and format characters) is one ``_``."""
    out: list[str] = []
    for char in unicodedata.normalize("NFKC", name):
        kind = unicodedata.category(char)[0]
        if kind in "LN" or char in _NAME_PUNCTUATION:
            out.append(char)
        elif kind == "M" and out and unicodedata.category(out[-1])[0] in "LMN":
            out.append(char)  # an accent on the letter before it; alone it would join a space
        elif not out or out[-1] != "_":
            out.append("_")
    text = "".join(out).strip("_")
    if text.casefold().startswith(_VERBS):
        text = "_" + text
    return text[:MAX_NAME_LENGTH].rstrip("_")


def safe_names(names: Sequence[str], *, fallback: str = "Player") -> tuple[str, ...]:
    """``names`` as the format can carry them, one for one, in the same order.

    A parser cannot be fooled by what a name holds: every name is one word of letters, digits
    and marks (any script) and ``_-.``. Everything else, spaces included, becomes ``_``: no
    ``:`` (which ends a name on every action line), no brackets or parentheses (cards, stacks,
    amounts), no ``#``, ``*`` or ``'`` (hand, street and table headers), no line breaks, and no
    space, so no name can hold a phrase of the format (``Dealt to``, ``Seat 1:``, ``collected``)
    nor begin a line the way a header does. A name that begins with a verb of the format
    (``folds``, ``calls``...) gets a leading ``_``. Names are cut to :data:`MAX_NAME_LENGTH`
    characters; an empty one becomes ``fallback`` and its position (``Player3``); and they are
    made unique without regard to case (``bob``, ``Bob_2``), as trackers key players by name.

    The result is a fixed point: ``safe_names(safe_names(x)) == safe_names(x)``.

    >>> safe_names(["Seat 1: Bob", "Bob [As Kd]", "", "calls", "wo_olly :D", "BOB"])
    ('Seat_1_Bob', 'Bob_As_Kd', 'Player3', '_calls', 'wo_olly_D', 'BOB')
    >>> safe_names(["Ann", "ann", "ANN"])
    ('Ann', 'ann_2', 'ANN_3')
    """
    cleaned = [_clean_name(name) or f"{fallback}{i + 1}" for i, name in enumerate(names)]
    taken: set[str] = set()
    out: list[str] = []
    for name in cleaned:
        candidate, number = name, 1
        while candidate.casefold() in taken:
            number += 1
            suffix = f"_{number}"
            candidate = name[: MAX_NAME_LENGTH - len(suffix)].rstrip("_") + suffix
        taken.add(candidate.casefold())
        out.append(candidate)
    return tuple(out)


def _clean_table(name: str) -> str:
    """A table name inside ``Table '...'``, in the names' alphabet with spaces between words:
    no quote (it would end the name), no ``#`` (``Seat #3 is the button`` is found by searching
    the line), no parentheses or brackets (``(Play Money)``), no line break; and no ``N-max``,
    which the table's size is read from.

    >>> _clean_table("Friday night's #1 game (6-max)")
    'Friday night s 1 game 6 max'
    """
    out: list[str] = []
    for char in unicodedata.normalize("NFKC", name):
        kind = unicodedata.category(char)[0]
        keep = kind in "LN" or char in _NAME_PUNCTUATION or (kind == "M" and out)
        out.append(char if keep else " ")
    text = re.sub(r"(?i)-max", " max", "".join(out))
    return " ".join(text.split())[:48].strip() or "Table"


# --- descriptions -----------------------------------------------------------------------------


def describe_high(rank: HandRank) -> str:
    """A high hand as PokerStars names it.

    >>> from engine.cards import parse_cards
    >>> from engine.evaluator import evaluate
    >>> [describe_high(evaluate(parse_cards(c))) for c in (
    ...     "AsKd9c7h2d", "KsKd9c7h2d", "AsAd6c6h2d", "5s4d3c2hAd", "AsKsQsJsTs", "KcKdKh4s4c")]
    ['high card Ace', 'a pair of Kings', 'two pair, Aces and Sixes', 'a straight, Ace to Five', \
'a Royal Flush', 'a full house, Kings full of Fours']
    """
    code, ranks = rank.describe_parts()
    index = [RANKS.index(r) for r in ranks]
    if code == "royal_flush":
        return "a Royal Flush"
    if code == "high_card":
        return f"high card {_SINGULAR[index[0]]}"
    if code == "pair":
        return f"a pair of {_PLURAL[index[0]]}"
    if code == "two_pair":
        return f"two pair, {_PLURAL[index[0]]} and {_PLURAL[index[1]]}"
    if code == "three_of_a_kind":
        return f"three of a kind, {_PLURAL[index[0]]}"
    if code == "four_of_a_kind":
        return f"four of a kind, {_PLURAL[index[0]]}"
    if code == "full_house":
        return f"a full house, {_PLURAL[index[0]]} full of {_PLURAL[index[1]]}"
    if code == "flush":
        return f"a flush, {_SINGULAR[index[0]]} high"
    # A straight (flush) from its top card; the wheel's low card is the ace.
    top = index[0]
    low = _SINGULAR[12] if top == 3 else _SINGULAR[top - 4]
    kind = "a straight flush" if code == "straight_flush" else "a straight"
    return f"{kind}, {low} to {_SINGULAR[top]}"


def _describe_hole(cards: Sequence[Card]) -> str:
    """Hole cards shown before the flop: the pair among them, else the high card (a hand is
    made of two hole cards in every game the engine deals)."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    pairs = [r for r in set(ranks) if ranks.count(r) >= 2]
    if pairs:
        return f"a pair of {_PLURAL[max(pairs)]}"
    return f"high card {_SINGULAR[ranks[0]]}"


def _describe(hand: Hand, player: int, run: int) -> str:
    board = hand.boards[run - 1]
    if len(board) < 3:
        return _describe_hole(hand.hole_cards(player))
    high = hand.rank(player, run)
    assert high is not None
    text = describe_high(high)
    if not hand.game.has_low:
        return text
    low = hand.low_rank(player, run)
    if low is None:
        return f"HI: {text}"
    return f"HI: {text}; LO: {','.join(RANKS[c >> 2] for c in low.cards)}"


def _cards(cards: Iterable[Card]) -> str:
    return "[" + " ".join(format_card(c) for c in cards) + "]"


def _roman(number: int) -> str:
    """``number`` in Roman numerals (the level of a tournament hand), digits past 3999.

    >>> _roman(4), _roman(11), _roman(1994)
    ('IV', 'XI', 'MCMXCIV')
    """
    if not 0 < number < 4000:
        return str(number)
    out = []
    for value, letters in (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
        (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ):  # fmt: skip
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


# --- time -------------------------------------------------------------------------------------


def _eastern(moment: datetime) -> datetime:
    """``moment`` (UTC) on the US Eastern clock PokerStars always adds: daylight time (UTC-4)
    from the second Sunday of March at 2:00 to the first Sunday of November at 2:00 (the rule
    since 2007), standard time (UTC-5) otherwise."""
    year = moment.year
    march = datetime(year, 3, 8, tzinfo=UTC)
    march += timedelta(days=(6 - march.weekday()) % 7, hours=7)  # 2:00 EST is 7:00 UTC
    november = datetime(year, 11, 1, tzinfo=UTC)
    november += timedelta(days=(6 - november.weekday()) % 7, hours=6)  # 2:00 EDT is 6:00 UTC
    offset = 4 if march <= moment < november else 5
    return moment - timedelta(hours=offset)


def _clock(moment: datetime) -> str:
    # PokerStars writes the hour without a leading zero: "2014/10/21 1:13:12".
    return f"{moment:%Y/%m/%d} {moment.hour}:{moment:%M:%S}"


def _when(started_at: int) -> str:
    moment = datetime.fromtimestamp(started_at, UTC)
    return f"{_clock(moment)} UTC [{_clock(_eastern(moment))} ET]"


# --- the writer ---------------------------------------------------------------------------------


def _check(hand: Hand, facts: HandFacts) -> None:
    n = hand.n
    result = hand.result
    if result is None:
        raise EngineError("hand_not_finished", hand=facts.hand_id)
    if result.voided:
        raise EngineError("history_voided", hand=facts.hand_id)
    if hand.game.code not in _GAME_NAMES:
        raise EngineError("bad_config", field="game", value=hand.game.code)
    if len(facts.names) != n:
        raise EngineError("bad_config", field="names", value=len(facts.names))
    seats = facts.seats
    if len(seats) != n or len(set(seats)) != n or not all(
        type(s) is int and 1 <= s <= facts.max_seats for s in seats
    ):
        raise EngineError("bad_config", field="seats", value=repr(seats))
    button = facts.button_seat
    if button is not None and not (type(button) is int and 1 <= button <= facts.max_seats):
        raise EngineError("bad_config", field="button_seat", value=repr(button))
    if facts.viewer is not None and not (type(facts.viewer) is int and 0 <= facts.viewer < n):
        raise EngineError("bad_config", field="viewer", value=repr(facts.viewer))


def _button_seat(hand: Hand, facts: HandFacts) -> int:
    if facts.button_seat is not None:
        return facts.button_seat
    # The engine's button is the last index (heads-up index 1, the small blind).
    return facts.seats[1 if hand.n == 2 else hand.n - 1]


def _header(hand: Hand, facts: HandFacts) -> list[str]:
    game = _GAME_NAMES[hand.game.code]
    stakes = f"({facts.small_blind}/{facts.big_blind})"
    when = _when(facts.started_at)
    table = _clean_table(facts.table_name)
    button = _button_seat(hand, facts)
    tournament = facts.tournament
    if tournament is None:
        return [
            f"PokerStars Hand #{facts.hand_id}:  {game} {stakes} - {when}",
            f"Table '{table}' {facts.max_seats}-max (Play Money) Seat #{button} is the button",
        ]
    buy_in = (
        "Freeroll"
        if tournament.buy_in == tournament.fee == 0
        else f"{tournament.buy_in}+{tournament.fee}"
    )
    return [
        f"PokerStars Hand #{facts.hand_id}: Tournament #{tournament.tournament_id}, {buy_in} "
        f"{game} - Level {_roman(tournament.level)} {stakes} - {when}",
        f"Table '{table}' {facts.max_seats}-max Seat #{button} is the button",
    ]


def _forced_lines(
    forced: Sequence[ForcedBet], names: Sequence[str], seats: Sequence[int], bomb: bool
) -> list[str]:
    """The posts, in PokerStars' order: antes by seat, small blind, big blind, then straddle,
    posted and dead blinds; ``and is all-in`` on a player's last post if it took his last chip."""
    antes = sorted((f for f in forced if f.kind == "ante" or bomb), key=lambda f: seats[f.player])
    order = {"small_blind": 0, "big_blind": 1, "straddle": 2, "blind": 3, "dead_blind": 3}
    blinds = sorted(
        (f for f in forced if f.kind in order and not bomb),
        key=lambda f: (order[f.kind], seats[f.player]),
    )
    dead = {f.player: f.amount for f in blinds if f.kind == "dead_blind"}
    all_in = {f.player for f in forced if f.all_in}
    posts: list[tuple[int, str]] = []
    for f in antes:
        posts.append((f.player, f"posts the ante {f.amount}"))
    for f in blinds:
        if f.kind == "small_blind":
            posts.append((f.player, f"posts small blind {f.amount}"))
        elif f.kind == "big_blind":
            posts.append((f.player, f"posts big blind {f.amount}"))
        elif f.kind == "straddle":
            posts.append((f.player, f"posts straddle {f.amount}"))
        elif f.kind == "blind":
            if f.player in dead:
                total = f.amount + dead.pop(f.player)
                posts.append((f.player, f"posts small & big blinds {total}"))
            else:
                posts.append((f.player, f"posts big blind {f.amount}"))
        elif f.player in dead:  # a dead small blind without a live blind beside it
            posts.append((f.player, f"posts small blind {dead.pop(f.player)}"))
    last = {player: k for k, (player, _) in enumerate(posts)}
    return [
        f"{names[p]}: {text}" + (" and is all-in" if p in all_in and last[p] == k else "")
        for k, (p, text) in enumerate(posts)
    ]


def _pot_names(awards: Sequence[PotAwarded]) -> dict[int, str]:
    indices = sorted({a.index for a in awards})
    if len(indices) == 1:
        return {indices[0]: "pot"}
    names = {indices[0]: "main pot"}
    sides = indices[1:]
    for k, index in enumerate(sides, start=1):
        names[index] = "side pot" if len(sides) == 1 else f"side pot-{k}"
    return names


def _total_line(awards: Sequence[PotAwarded]) -> str:
    amounts: dict[int, int] = {}
    for award in awards:
        amounts[award.index] = amounts.get(award.index, 0) + award.amount
    total = sum(amounts.values())
    if len(amounts) < 2:
        return f"Total pot {total} | Rake 0"
    parts = []
    for index, name in _pot_names(awards).items():
        title = name[0].upper() + name[1:]
        parts.append(f"{title} {amounts[index]}.")
    return f"Total pot {total} {' '.join(parts)} | Rake 0"


@dataclass(slots=True)
class _Seat:
    """What the summary line of one player says, gathered while the events are read."""

    blind: str = ""
    put_in: bool = False  # he posted a blind or called, bet or raised
    folded_on: Street | None = None


def write_hand(hand: Hand, facts: HandFacts) -> str:
    """One hand of PokerStars text for a finished hand, ending with a line break.

    Shows what ``facts.viewer`` may see and nobody else's cards (see the module doc). Raises
    ``EngineError``: ``hand_not_finished``, ``history_voided`` (a voided hand has no history),
    or ``bad_config`` when ``facts`` does not fit the hand (``field`` names what).
    """
    _check(hand, facts)
    result = hand.result
    assert result is not None
    n = hand.n
    names = safe_names(facts.names)
    seats = facts.seats
    viewer = facts.viewer
    bomb = hand.config.bomb_pot
    lines = _header(hand, facts)
    for i in sorted(range(n), key=seats.__getitem__):
        lines.append(f"Seat {seats[i]}: {names[i]} ({hand.config.stacks[i]} in chips)")

    info = [_Seat() for _ in range(n)]
    forced: list[ForcedBet] = []
    bets = [0] * n
    street = Street.PREFLOP
    twice = False
    shows: list[HandShown | HandMucked] = []
    late_shows: list[HandShown] = []
    awards: list[PotAwarded] = []
    second_board: list[Card] = list(hand.board[: hand.second_run_from or 0])
    ended = False
    for event in hand.events:
        if isinstance(event, ActionTaken):
            lines.append(_action_line(event, names[event.player], bets))
            if event.kind is ActionKind.FOLD:
                info[event.player].folded_on = street
            elif event.kind is not ActionKind.CHECK:
                info[event.player].put_in = True
        elif isinstance(event, ForcedBet):
            forced.append(event)
            if event.kind in ("small_blind", "big_blind", "straddle", "blind", "bomb_pot"):
                bets[event.player] += event.amount
            if event.kind in ("small_blind", "big_blind"):
                info[event.player].blind = event.kind.replace("_", " ")
            if event.kind != "ante":
                info[event.player].put_in = True
        elif isinstance(event, HoleCardsDealt):
            lines.extend(_forced_lines(forced, names, seats, bomb))
            lines.append("*** HOLE CARDS ***")
            if viewer is not None:
                lines.append(f"Dealt to {names[viewer]} {_cards(hand.hole_cards(viewer))}")
        elif isinstance(event, StreetDealt):
            street = event.street
            bets = [0] * n
            word = ("FIRST " if twice else "") + _STREET_WORDS[event.street]
            if event.street is Street.FLOP:
                lines.append(f"*** {word} *** {_cards(event.cards)}")
            else:
                before = hand.board[: 3 if event.street is Street.TURN else 4]
                lines.append(f"*** {word} *** {_cards(before)} {_cards(event.cards)}")
        elif isinstance(event, SecondRunDealt):
            word = _STREET_WORDS[event.street]
            if event.street is Street.FLOP:
                lines.append(f"*** SECOND {word} *** {_cards(event.cards)}")
            else:
                lines.append(f"*** SECOND {word} *** {_cards(second_board)} {_cards(event.cards)}")
            second_board.extend(event.cards)
        elif isinstance(event, RunCountChosen):
            twice = event.runs == 2
        elif isinstance(event, BetReturned):
            lines.append(f"Uncalled bet ({event.amount}) returned to {names[event.player]}")
        elif isinstance(event, HandShown | HandMucked):
            if ended and isinstance(event, HandShown):
                late_shows.append(event)
            else:
                shows.append(event)
        elif isinstance(event, PotAwarded):
            awards.append(event)
        elif isinstance(event, HandEnded):
            ended = True

    pot_names = _pot_names(awards)
    runs = len(hand.boards)
    if result.showdown:
        for run in range(1, runs + 1):
            title = "SHOW DOWN" if runs == 1 else ("FIRST", "SECOND")[run - 1] + " SHOW DOWN"
            lines.append(f"*** {title} ***")
            for event in shows:
                who = names[event.player]
                if isinstance(event, HandMucked):
                    lines.append(f"{who}: mucks hand")
                else:
                    described = _describe(hand, event.player, run)
                    lines.append(f"{who}: shows {_cards(event.cards)} ({described})")
            mine = [a for a in awards if a.run == run or (run == 1 and a.run == 0)]
            for award in mine:
                for player, chips in award.shares:
                    if chips:
                        where = pot_names[award.index]
                        lines.append(f"{names[player]} collected {chips} from {where}")
            if hand.game.has_low and not any(a.half == "low" for a in mine):
                lines.append("No low hand qualified")
    else:
        for award in awards:
            for player, chips in award.shares:
                if chips:
                    lines.append(f"{names[player]} collected {chips} from {pot_names[award.index]}")
        winners = {p for a in awards for p, _ in a.shares}
        shown_late = {e.player for e in late_shows}
        for player in sorted(winners - shown_late):
            lines.append(f"{names[player]}: doesn't show hand")
        for event in late_shows:
            described = _describe(hand, event.player, 1)
            lines.append(f"{names[event.player]}: shows {_cards(event.cards)} ({described})")

    lines.append("*** SUMMARY ***")
    lines.append(_total_line(awards))
    if runs == 2:
        lines.append("Hand was run twice")
        lines.append(f"FIRST Board {_cards(hand.boards[0])}")
        lines.append(f"SECOND Board {_cards(hand.boards[1])}")
    elif hand.board:
        lines.append(f"Board {_cards(hand.board)}")
    lines.extend(_summary_seats(hand, facts, names, info, awards))
    return "\n".join(lines) + "\n"


def _action_line(event: ActionTaken, name: str, bets: list[int]) -> str:
    """One decision, PokerStars' way: a call says the chips it adds, a bet its size, a raise
    how much it adds to the bet it faces and the total it makes (``raises 40 to 60``)."""
    kind = event.kind
    player = event.player
    if kind is ActionKind.FOLD:
        return f"{name}: folds"
    if kind is ActionKind.CHECK:
        return f"{name}: checks"
    tail = " and is all-in" if event.all_in else ""
    if kind is ActionKind.CALL:
        bets[player] += event.amount
        return f"{name}: calls {event.amount}{tail}"
    high = max(bets)
    bets[player] = event.amount
    if kind is ActionKind.BET:
        return f"{name}: bets {event.amount}{tail}"
    return f"{name}: raises {event.amount - high} to {event.amount}{tail}"


def _summary_seats(
    hand: Hand,
    facts: HandFacts,
    names: Sequence[str],
    info: Sequence[_Seat],
    awards: Sequence[PotAwarded],
) -> list[str]:
    result = hand.result
    assert result is not None
    seats = facts.seats
    button = _button_seat(hand, facts)
    won_by_run: dict[tuple[int, int], int] = {}
    for award in awards:
        for player, chips in award.shares:
            key = (player, max(award.run, 1))
            won_by_run[key] = won_by_run.get(key, 0) + chips
    mucked = {e.player for e in hand.events if isinstance(e, HandMucked)}
    lines = []
    for i in sorted(range(hand.n), key=seats.__getitem__):
        labels = ""
        if seats[i] == button:
            labels += " (button)"
        if info[i].blind:
            labels += f" ({info[i].blind})"
        head = f"Seat {seats[i]}: {names[i]}{labels}"
        folded_on = info[i].folded_on
        if folded_on is not None:
            text = _FOLDED_ON[folded_on]
            if folded_on is Street.PREFLOP and not info[i].put_in:
                text += " (didn't bet)"
            lines.append(f"{head} {text}")
        elif result.showdown and i in mucked:
            own = f" {_cards(hand.hole_cards(i))}" if i == facts.viewer else ""
            lines.append(f"{head} mucked{own}")
        elif result.showdown:
            parts = []
            for run in range(1, len(hand.boards) + 1):
                described = _describe(hand, i, run)
                won = won_by_run.get((i, run), 0)
                parts.append(f"won ({won}) with {described}" if won else f"lost with {described}")
            cards = _cards(hand.hole_cards(i))
            lines.append(f"{head} showed {cards} and {', and '.join(parts)}")
        else:
            won = sum(chips for (player, _), chips in won_by_run.items() if player == i)
            lines.append(f"{head} collected ({won})")
    return lines
