"""What the renderer draws: a plain, frozen description of a table at one moment.

The renderer knows nothing of the engine or of Discord. The bot maps the engine's snapshot into
these dataclasses and passes them to :func:`bot.render.render_table` or
:func:`bot.render.render_hole_cards`.

Cards are two-character strings, rank then suit: ``"As"``, ``"Td"``, ``"7c"``, ``"2h"``
(ranks ``23456789TJQKA``, suits ``c d h s``), the same text as ``engine.cards.format_card``.
A hand is two hole cards (Hold'em), four (Omaha, Omaha Hi-Lo) or five (five-card Omaha):
:data:`HOLE_COUNTS`.

**Privacy is decided by the mapper, enforced twice here.** A card the viewer must not see is
passed as ``None`` and is drawn as the card back; the renderer never has the face to draw. On top
of that, a seat that is folded or has mucked is never drawn face up even if cards are given.

Example — a heads-up pot on the flop, the button to act::

    >>> from bot.render.model import SeatView, TableView, PotView, Blind, Street
    >>> view = TableView(
    ...     seats=(
    ...         SeatView("Alice", stack=940, bet=60, cards=(None, None), is_button=True,
    ...                  blind=Blind.SMALL, to_act=True),
    ...         SeatView("Bob", stack=880, bet=120, cards=(None, None), blind=Blind.BIG),
    ...     ),
    ...     board=("As", "Td", "7c"),
    ...     pots=(PotView(40),),
    ...     small_blind=10, big_blind=20, hand_number=17, street=Street.FLOP,
    ... )
    >>> view.seat_count
    2
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.limits import MAX_TABLE_SEATS

__all__ = [
    "HOLE_COUNTS",
    "RANKS",
    "SUITS",
    "Blind",
    "DeckStyle",
    "HoleCardsView",
    "PotView",
    "ReplayFrame",
    "ReplayView",
    "SeatEquity",
    "SeatState",
    "SeatView",
    "Street",
    "TableView",
    "is_card",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"
HOLE_COUNTS = (2, 4, 5)  # the hands the games deal: Hold'em, Omaha, five-card Omaha


def is_card(text: object) -> bool:
    """True for a card string the renderer draws: ``"As"``, ``"Td"``…"""
    return (
        isinstance(text, str) and len(text) == 2 and text[0] in RANKS and text[1] in SUITS
    )


def _check_hand(cards: tuple[str | None, ...], whose: str) -> None:
    """A dealt hand: a count some game deals, card strings or backs, no card twice."""
    if len(cards) not in HOLE_COUNTS:
        raise ValueError(f"a hand is 2, 4 or 5 cards; {whose} got {len(cards)}: {cards!r}")
    faces = [card for card in cards if card is not None]
    for card in faces:
        if not is_card(card):
            raise ValueError(f"bad card {card!r} for {whose}")
    if len(set(faces)) != len(faces):
        raise ValueError(f"{whose} holds a card twice: {cards!r}")


class DeckStyle(StrEnum):
    """Card art. FOUR_COLOR helps colour-blind players: spades black, hearts red,
    diamonds blue, clubs green."""

    CLASSIC = "classic"
    FOUR_COLOR = "four_color"


class Street(StrEnum):
    """The street the hand is on; same values as ``engine.hand.Street`` plus WAITING
    (no hand running: between hands, or before the first one)."""

    WAITING = "waiting"
    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


class SeatState(StrEnum):
    """What a seated player is doing in the current hand.

    ACTIVE: in the hand (or waiting for one to start). FOLDED: out of this hand. ALL_IN: in
    the hand with no chips behind. SITTING_OUT: seated but not dealt in. AWAY: the player
    timed out or left the keyboard; still seated, will be folded/skipped.
    """

    ACTIVE = "active"
    FOLDED = "folded"
    ALL_IN = "all_in"
    SITTING_OUT = "sitting_out"
    AWAY = "away"


class Blind(StrEnum):
    """The blind this seat posted this hand (drawn as a marker beside the seat)."""

    NONE = "none"
    SMALL = "small"
    BIG = "big"


@dataclass(frozen=True, slots=True)
class SeatEquity:
    """A live hand's chances while cards are still to come and nobody can bet any more.

    Attributes:
        win: the share of the possible boards on which this hand alone is best (0 to 1).
        tie: the share on which it shares the best hand (0 to 1).
        exact: every board was counted; otherwise the figures are a sampled estimate, and
            both the image and its alt text say so (``≈``).
    """

    win: float
    tie: float
    exact: bool = True

    def __post_init__(self) -> None:
        if not (0.0 <= self.win <= 1.0 and 0.0 <= self.tie <= 1.0):
            raise ValueError(f"chances out of range: win {self.win!r}, tie {self.tie!r}")
        if self.win + self.tie > 1.0 + 1e-9:
            raise ValueError("a hand cannot win and tie on more boards than there are")


@dataclass(frozen=True, slots=True)
class SeatView:
    """One occupied seat.

    Attributes:
        name: the player's display name, any script; shortened with an ellipsis to fit.
        stack: chips behind (not counting ``bet``).
        bet: chips put in on the current street, drawn in front of the seat (0: nothing drawn).
        state: see :class:`SeatState`.
        cards: ``()`` no cards (not dealt, folded, mucked), else the whole hand: 2, 4 or 5
            cards (:data:`HOLE_COUNTS`). ``None`` is a face-down card: ``(None, None)`` two
            backs, ``(None,) * 4`` an Omaha hand; ``("As", "Kd")`` face up (the viewer may see
            them: shown at showdown, or the public table once hands are turned over). Mixed
            ``("As", None)`` is allowed (one card shown). FOLDED seats and ``mucked`` seats
            never show faces whatever is given.
        is_button: the dealer button sits here.
        blind: the blind posted this hand.
        to_act: it is this player's turn (highlighted). At most one seat.
        mucked: the player threw the hand away at showdown without showing.
        is_winner: won (part of) a pot this hand; the seat gets a gold frame.
        best_five: the cards making this player's best five (from his hole cards and the
            board), highlighted at showdown when ``is_winner``.
        hand_name: the hand in words at showdown, e.g. ``"Full house, kings over fives"``
            (the alt text says it whole).
        hand_label: the same hand in the few words its badge holds, e.g. ``"Kings full of
            fives"`` (``""``: the badge draws ``hand_name``, shortened to fit if it must).
        second_best_five, second_hand_name, second_hand_label: the same three on the second
            run's board, when the board was run twice (``TableView.second_board``).
        low_hand: in a high-low game, the eight-or-better low shown at showdown, as its ranks
            from the top: ``"8-6-4-2-A"`` (``engine.low.LowRank.describe()``); ``""``: none.
            The badge draws it under the high hand and the alt text says it, both as
            ``Labels.low_hand`` ("Low: 8-6-4-2-A"). It is the only board's: a board run twice
            draws and says no low.
        low_five: the five cards of that low; ringed like ``best_five`` for a player who won
            a low half (``PotView.half``).
        equity: the hand's chances while the rest of the board is to come (all-in, betting
            closed); drawn in place of the seat's badge. ``None``: none shown.
    """

    name: str
    stack: int
    bet: int = 0
    state: SeatState = SeatState.ACTIVE
    cards: tuple[str | None, ...] = ()
    is_button: bool = False
    blind: Blind = Blind.NONE
    to_act: bool = False
    mucked: bool = False
    is_winner: bool = False
    best_five: tuple[str, ...] = ()
    hand_name: str = ""
    hand_label: str = ""
    second_best_five: tuple[str, ...] = ()
    second_hand_name: str = ""
    second_hand_label: str = ""
    equity: SeatEquity | None = None
    low_hand: str = ""
    low_five: tuple[str, ...] = ()

    @property
    def drawn_hand(self) -> str:
        """What the badge writes of the hand."""
        return self.hand_label or self.hand_name

    def __post_init__(self) -> None:
        if self.stack < 0 or self.bet < 0:
            raise ValueError(f"negative chips for seat {self.name!r}")
        if self.cards:
            _check_hand(self.cards, f"seat {self.name!r}")
        for five in (self.best_five, self.second_best_five, self.low_five):
            for card in five:
                if not is_card(card):
                    raise ValueError(f"bad best-five card {card!r} for seat {self.name!r}")
            if len(five) > 5:
                raise ValueError(f"a best five has more than 5 cards: {five!r}")

    @property
    def shows_faces(self) -> bool:
        """Whether this seat's given card faces may be drawn face up."""
        return self.state is not SeatState.FOLDED and not self.mucked

    def shown_low(self, runs: int = 1) -> str:
        """``low_hand`` where it is drawn and said: a hand shown, under a single board
        (``runs`` 1), else ``""``."""
        return self.low_hand if self.shows_faces and runs == 1 else ""

    @property
    def visible_cards(self) -> tuple[str | None, ...]:
        """The cards as they are drawn: faces only where allowed, ``None`` drawn as a back.

        A folded or mucked seat has thrown its cards in: nothing is drawn for it.
        """
        if not self.shows_faces:
            return ()
        return self.cards


@dataclass(frozen=True, slots=True)
class PotView:
    """One pot: the main pot first, then side pots in order of creation.

    Attributes:
        amount: chips in this pot (collected bets; bets still in front of players are in
            ``SeatView.bet``).
        winners: indexes into ``TableView.seats`` of the players who won this pot (empty
            until it is awarded; two or more for a split pot).
        label: a name to show; ``""`` gives "Pot" for a single pot, else "Main pot" /
            "Side pot N".
        run: 0 for a whole pot; 1 or 2 for the half of a pot settled on that run's board
            when the board was run twice. A run-2 half directly follows the run-1 half of the
            same pot, and the two count as one pot when pots are named and numbered.
        half: in a high-low game, ``"high"`` or ``"low"``: the half of the pot (or of a run's
            half) that the best high or the best low hand took; ``""`` when one hand took it
            all (no low qualified, or a high-only game). The same word as the engine's
            ``PotAwarded.half``. A low half directly follows its high half, and the two count
            as one pot, as run halves do.
    """

    amount: int
    winners: tuple[int, ...] = ()
    label: str = ""
    run: int = 0
    half: str = ""

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise ValueError("negative pot")
        if self.run not in (0, 1, 2):
            raise ValueError(f"a pot is settled on run 1 or 2, or whole (0), not {self.run!r}")
        if self.half not in ("", "high", "low"):
            raise ValueError(f"a pot's half is 'high', 'low' or '' (whole), not {self.half!r}")


def _winners(parts: list[PotView]) -> tuple[int, ...]:
    """Everyone who won one of ``parts``, in the order first named."""
    return tuple(dict.fromkeys(w for pot in parts for w in pot.winners))


@dataclass(frozen=True, slots=True)
class TableView:
    """The whole public table: what everyone in the channel may see.

    Attributes:
        seats: every seat of the table, in clockwise order; ``None`` is an empty seat.
            ``len(seats)`` is the table size (2 to 10) and fixes the layout.
        board: community cards dealt so far (0, 3, 4 or 5); the first run's when the board
            was run twice.
        second_board: the second run's board (up to 5 cards, the first ones shared with
            ``board``), when the rest of the board was dealt twice; ``()`` otherwise. Both
            boards are then drawn, one row each, labelled run 1 and run 2.
        pots: main pot then side pots; may be empty before any bet is collected.
        small_blind, big_blind, ante: the stakes (ante 0: none).
        hand_number: shown as "Hand #N"; ``None`` hides it.
        street: see :class:`Street`.

        deck: card art.
    """

    seats: tuple[SeatView | None, ...]
    board: tuple[str, ...] = ()
    pots: tuple[PotView, ...] = ()
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    hand_number: int | None = None
    street: Street = Street.PREFLOP
    deck: DeckStyle = DeckStyle.CLASSIC
    second_board: tuple[str, ...] = ()

    @property
    def pot_total(self) -> int:
        """Every chip in the pot now: the pots and the bets in front of the seats. The table
        message and the alt text both state this one figure."""
        bets = sum(seat.bet for seat in self.seats if seat is not None)
        return sum(pot.amount for pot in self.pots) + bets

    def __post_init__(self) -> None:
        if not 2 <= len(self.seats) <= MAX_TABLE_SEATS:
            raise ValueError(f"a table has 2 to {MAX_TABLE_SEATS} seats, got {len(self.seats)}")
        if len(self.board) > 5:
            raise ValueError("the board holds at most 5 cards")
        for card in self.board:
            if not is_card(card):
                raise ValueError(f"bad board card {card!r}")
        occupied = self.occupied
        for pot in self.pots:
            for winner in pot.winners:
                if winner not in occupied:
                    raise ValueError(f"pot winner {winner} is not an occupied seat")
        seen: set[str] = set(self.board)
        if len(seen) != len(self.board):
            raise ValueError(f"duplicate board card in {self.board!r}")
        self._check_second_board(seen)
        for seat in self.seats:
            if seat is None:
                continue
            for given in seat.cards:
                if given is None:
                    continue
                if given in seen:
                    raise ValueError(f"card {given} appears twice on the table")
                seen.add(given)
        if sum(1 for seat in self.seats if seat is not None and seat.to_act) > 1:
            raise ValueError("more than one seat to act")

    def _check_second_board(self, seen: set[str]) -> None:
        """Run twice, the two boards share their first cards and hold different others."""
        second = self.second_board
        if not second:
            return
        if len(second) > 5:
            raise ValueError("the second board holds at most 5 cards")
        for card in second:
            if not is_card(card):
                raise ValueError(f"bad board card {card!r}")
        if len(set(second)) != len(second):
            raise ValueError(f"duplicate board card in {second!r}")
        shared = 0
        while shared < min(len(second), len(self.board)) and second[shared] == self.board[shared]:
            shared += 1
        own = second[shared:]
        if shared >= 5 or any(card in seen for card in own):
            raise ValueError(f"the second board {second!r} repeats a card of the first")
        seen.update(own)

    def _pot_parts(self) -> list[list[PotView]]:
        """``pots`` gathered into whole pots: a run-2 half or a low half continues the pot
        before it."""
        wholes: list[list[PotView]] = []
        for pot in self.pots:
            if wholes and (pot.run == 2 or pot.half == "low"):
                wholes[-1].append(pot)
            else:
                wholes.append([pot])
        return wholes

    @property
    def pot_numbers(self) -> tuple[int, ...]:
        """Each pot's number among the whole pots (0 the main pot): the halves of a pot run
        twice or split high-low share one."""
        return tuple(number for number, parts in enumerate(self._pot_parts()) for _ in parts)

    @property
    def whole_pots(self) -> tuple[PotView, ...]:
        """The pots with their halves added back together: the amount of each pot and
        everyone who won a part of it."""
        return tuple(PotView(sum(p.amount for p in parts), _winners(parts), parts[0].label)
                     for parts in self._pot_parts())

    @property
    def whole_pot_halves(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """For each whole pot, who won its high side (all of it when it was not split
        high-low) and who won its low half (``()``: no low half)."""
        return tuple((_winners([p for p in parts if p.half != "low"]),
                      _winners([p for p in parts if p.half == "low"]))
                     for parts in self._pot_parts())

    @property
    def runs(self) -> int:
        """How many boards are drawn: 2 once the board was run twice, else 1."""
        return 2 if self.second_board else 1

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    @property
    def occupied(self) -> tuple[int, ...]:
        """Indexes of the seats that have a player."""
        return tuple(i for i, seat in enumerate(self.seats) if seat is not None)

    @property
    def has_results(self) -> bool:
        """True once any pot has been awarded: the results banner is drawn."""
        return any(pot.winners for pot in self.pots)


@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """One step of the hand: the table as it then stood, what just happened, and how long the
    frame stays (a street or the end longer than a single action). A ``milestone`` (the deal,
    a street, the hands turned up, the end) is never left out of a long hand's replay."""

    view: TableView
    caption: str
    seconds: float = 1.2
    milestone: bool = False

    def __post_init__(self) -> None:
        if not 0.1 <= self.seconds <= 30:
            raise ValueError(f"a frame shows for 0.1 to 30 s, not {self.seconds!r}")


@dataclass(frozen=True, slots=True)
class ReplayView:
    """A hand told again.

    Attributes:
        frames: the steps, in order (at least one).
        title: what the hand was, e.g. "Replay of hand #12, blinds 50/100."
        story: the hand in sentences, street by street (the alt text's body).
        outcome: who won what and who showed what: kept whole when the story must be cut.
    """

    frames: tuple[ReplayFrame, ...]
    title: str
    story: tuple[str, ...] = ()
    outcome: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.frames:
            raise ValueError("a replay has at least one frame")


@dataclass(frozen=True, slots=True)
class HoleCardsView:
    """The private image a player gets with his own cards.

    Attributes:
        cards: his hand, face up: 2, 4 or 5 cards (:data:`HOLE_COUNTS`).
        hand_name: his current hand in words once there is a board, e.g. ``"Pair of aces"``
            (``""`` pre-flop: nothing drawn); the alt text says it whole.
        hand_label: the same in the few words the image holds (``""``: ``hand_name``).
        caption: a short line naming the table and hand, e.g. ``"#high-stakes · Hand #17"``
            (``""``: none).
        deck: card art.
    """

    cards: tuple[str, ...]
    hand_name: str = ""
    caption: str = ""
    hand_label: str = ""
    deck: DeckStyle = DeckStyle.CLASSIC

    def __post_init__(self) -> None:
        if None in self.cards:
            raise ValueError(f"a player's own cards are all face up, got {self.cards!r}")
        _check_hand(self.cards, "the hole cards")
