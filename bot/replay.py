"""A finished hand told again, step by step: the frames of ``/history replay`` and its words.

The hand is dealt again from its configuration and deck, one stored action at a time, and
each thing players saw happen becomes a frame: the blinds in, every action, every street, the
hands turned up for an all-in, and the result.

**Chances street by street.** For a hand that went to showdown, every street (from the deal to
the river, each run of a board run twice) shows the shown hands' chances on the image and in
the words (:func:`street_equities`). Only the hands shown count, and only against each other:
a hand folded before the showdown is never counted, not even as a dead card (nobody knows it),
so the figures reveal nothing the end of the hand did not.

Privacy is the table's and ``/history hand``'s: a hole card appears only if its hand was
shown (``hand.result.shown``: at the showdown, when tabled all-in, or by a winner who chose
to) and was never folded; mucked and folded hands stay face down or gone, and the board holds
only the cards that were dealt (no card of the deck beyond them is read). The cards that were
shown are face up from the first frame: a replay is watched to follow the decisions, and
nothing appears that the table did not show by the end of the hand.

Building the frames counts those chances (up to about 0.2 s before the flop,
``engine.equity``) and drawing them is CPU work too: :func:`replay_image` does both, on the
render thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.i18n import isolate, t
from bot.presenter import (
    action_text,
    award_pot_name,
    award_rank,
    cards_text,
    chance_words,
    chips,
    describe_rank,
    labels_for,
    safe_text,
    shown_hand_fields,
)
from bot.render.labels import Labels
from bot.render.model import Blind, PotView, SeatEquity, SeatState, SeatView, Street, TableView
from bot.render.replay import RenderedAnimation, ReplayFrame, ReplayView, render_replay
from engine.cards import format_card
from engine.equity import RunOutStage, equity
from engine.errors import EngineError
from engine.hand import (
    ActionKind,
    ActionTaken,
    BetReturned,
    Event,
    ForcedBet,
    Hand,
    HandMucked,
    HandShown,
    PotAwarded,
    RunCountChosen,
    SecondRunDealt,
    StreetDealt,
)

__all__ = ["PlayedHand", "Replay", "build_replay", "replay_image", "street_equities"]

# How long each kind of step stays on screen, in seconds.
START, ACTION, STREET, TABLED, END = 1.6, 1.2, 1.6, 2.2, 6.0
# A message holds 2,000 characters; a street of a raising war can say more than that, and is
# then broken between two actions rather than in the middle of one.
LINE_LIMIT = 1_500

Words = Callable[[Callable[[int], str]], str]  # a sentence, given how to write a player's name


@dataclass(frozen=True, slots=True)
class _Say:
    """A catalog sentence that names players, written once for the alt text (raw names) and
    once for the message (escaped names)."""

    key: str
    locale: object
    who: tuple[tuple[str, int], ...] = ()
    words: tuple[tuple[str, object], ...] = ()

    def __call__(self, name: Callable[[int], str]) -> str:
        named = {field: name(player) for field, player in self.who}
        return t(self.key, self.locale, **named, **dict(self.words))


@dataclass(frozen=True, slots=True)
class _Act:
    """An action, as the table message words it."""

    event: ActionTaken
    locale: object

    def __call__(self, name: Callable[[int], str]) -> str:
        return action_text(self.event, name(self.event.player), self.locale)


@dataclass(frozen=True, slots=True)
class _Fixed:
    """Words that name nobody."""

    text: str

    def __call__(self, name: Callable[[int], str]) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class _Quiet:
    """A street on which nobody could act: its opening alone."""

    head: Words
    locale: object

    def __call__(self, name: Callable[[int], str]) -> str:
        return t("replay.street_quiet", self.locale, street=self.head(name))


@dataclass(frozen=True, slots=True)
class _Odds:
    """A street's opening with the shown hands' chances on it."""

    head: Words
    stage: RunOutStage
    locale: object

    def __call__(self, name: Callable[[int], str]) -> str:
        loc = self.locale
        each = []
        for player, figures in zip(self.stage.players, self.stage.equity.hands, strict=True):
            kind, words = chance_words(self.stage.equity, figures)
            each.append(t(f"replay.odds_line{kind}", loc, player=name(player), **words))
        return t("replay.odds", loc, street=self.head(name),
                 odds=t("list.separator", loc).join(each))


@dataclass(frozen=True, slots=True)
class _Players:
    """Who was dealt in, with the stack each started with."""

    stacks: tuple[int, ...]
    locale: object

    def __call__(self, name: Callable[[int], str]) -> str:
        loc = self.locale
        each = (t("replay.player", loc, player=name(i), stack=chips(stack, loc))
                for i, stack in enumerate(self.stacks))
        return t("replay.players", loc, players=t("list.separator", loc).join(each))


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A finished hand and what the table knew of its players.

    Attributes:
        hand: the hand, replayed to its end from storage.
        number: the table's number for it.
        seats: each player's seat number (1-based), by player index.
        names: each player's display name, raw, by player index.
        seat_count: the table's size (the image's layout); widened to fit every seat given.
        button_seat: the dealer button's seat, if the hand had one.
        small_blind: the small blind of the stakes, when the hand's own configuration has
            none at the small blind's place (a dead small blind).
    """

    hand: Hand
    number: int
    seats: tuple[int, ...]
    names: tuple[str, ...]
    seat_count: int
    button_seat: int | None = None
    small_blind: int = 0

    def __post_init__(self) -> None:
        result = self.hand.result
        if result is None:
            raise EngineError("hand_not_over")
        if result.voided:
            raise EngineError("bad_action", value="replay", reason="voided")
        n = self.hand.n
        if len(self.seats) != n or len(self.names) != n or len(set(self.seats)) != n:
            raise ValueError("one seat and one name per player")
        if min(self.seats) < 1:
            raise ValueError("seats are numbered from 1")


@dataclass(frozen=True, slots=True)
class Replay:
    """The replay's frames and words (``view``) and the message that goes with it: the same
    story with names as a message may carry them (escaped)."""

    view: ReplayView
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(slots=True)
class _Teller:
    """The table as it stands during the retelling, and the story so far."""

    played: PlayedHand
    locale: object
    stages: dict[tuple[int, int], RunOutStage]
    revealed: frozenset[int]
    stage: RunOutStage | None = None  # the chances on the street being played
    stacks: list[int] = field(default_factory=list)
    bets: list[int] = field(default_factory=list)
    folded: set[int] = field(default_factory=set)
    all_in: set[int] = field(default_factory=set)
    blinds: dict[int, Blind] = field(default_factory=dict)
    board: tuple[str, ...] = ()
    second: tuple[str, ...] = ()
    pots: tuple[int, ...] = ()
    frames: list[ReplayFrame] = field(default_factory=list)
    story: list[Words] = field(default_factory=list)
    street_words: list[Words] = field(default_factory=list)
    street_head: Words | None = None

    # -- the table at this moment ------------------------------------------------------------

    def seat_views(self, to_act: int | None, equity: RunOutStage | None) -> list[SeatView | None]:
        played = self.played
        count = max(played.seat_count, *played.seats)
        seats: list[SeatView | None] = [None] * count
        chances: dict[int, SeatEquity] = {}
        if equity is not None:
            for player, figures in zip(equity.players, equity.equity.hands, strict=True):
                chances[player] = SeatEquity(figures.win, figures.tie, equity.equity.exact)
        for i, seat_no in enumerate(played.seats):
            cards: tuple[str | None, ...] = (None,) * played.hand.game.hole_count
            if i in self.folded:
                cards = ()
            elif i in self.revealed:
                cards = tuple(format_card(c) for c in played.hand.hole_cards(i))
            state = SeatState.ACTIVE
            if i in self.folded:
                state = SeatState.FOLDED
            elif i in self.all_in:
                state = SeatState.ALL_IN
            seats[seat_no - 1] = SeatView(
                played.names[i], stack=self.stacks[i], bet=self.bets[i], state=state,
                cards=cards, is_button=seat_no == played.button_seat,
                blind=self.blinds.get(i, Blind.NONE), to_act=to_act == i,
                equity=chances.get(i))
        return seats

    def view(self, street: Street, seats: list[SeatView | None],
             pots: tuple[PotView, ...] | None = None) -> TableView:
        played = self.played
        config = played.hand.config
        return TableView(
            seats=tuple(seats), board=self.board, second_board=self.second,
            pots=pots if pots is not None else tuple(PotView(p) for p in self.pots if p),
            small_blind=_small_blind(played), big_blind=config.big_blind,
            ante=max(config.antes, default=0), hand_number=played.number, street=street)

    def frame(self, street: Street, caption: str, seconds: float,
              to_act: int | None = None) -> None:
        view = self.view(street, self.seat_views(to_act, self.stage))
        self.frames.append(ReplayFrame(view, caption, seconds, milestone=seconds != ACTION))

    def chances(self, run: int, board: int, head: Words) -> Words:
        """Enter a street (``board`` cards out on run ``run``): its chances, if counted, go on
        every frame of it and into its opening ``head``."""
        self.stage = self.stages.get((run, board))
        return head if self.stage is None else _Odds(head, self.stage, self.locale)

    # -- the story ---------------------------------------------------------------------------

    def close_street(self) -> None:
        """Write down the street that just ended: its cards and pot, then what was done."""
        if self.street_head is None and not self.street_words:
            return
        head, words, loc = self.street_head, list(self.street_words), self.locale
        self.street_head, self.street_words = None, []

        def sentence(name: Callable[[int], str]) -> str:
            opening = head(name) if head is not None else t("render.preflop", loc)
            if not words:
                return t("replay.street_quiet", loc, street=opening)
            done = t("list.separator", loc).join(w(name) for w in words)
            return t("replay.street", loc, street=opening, actions=done)

        self.story.append(sentence)


def _small_blind(played: PlayedHand) -> int:
    """The stakes' small blind: the hand's own, else (a bomb pot, a dead small blind) the
    table's."""
    config = played.hand.config
    if config.bomb_pot:
        return played.small_blind
    return config.blinds[(config.big_blind_index - 1) % config.players] or played.small_blind


def _flattened(played: PlayedHand) -> list[tuple[Event, tuple[int, ...], tuple[int, ...]]]:
    """Every event of the hand, dealt again action by action, each with the pots gathered
    before and after the input that caused it (the engine's own layering)."""
    hand = played.hand
    fresh = Hand(hand.config, hand.deck)
    after = tuple(p.amount for p in fresh.pots())
    # Before the deal the blinds are bets and the antes the pot; a bomb is a bet until the flop
    # the deal itself brings gathers it.
    before = () if hand.config.bomb_pot else after
    found = [(event, before, after) for event in fresh.events]
    for action in hand.actions:
        before = tuple(p.amount for p in fresh.pots())
        events = fresh.apply(action)
        after = tuple(p.amount for p in fresh.pots())
        found.extend((event, before, after) for event in events)
    if fresh.state_key() != hand.state_key():
        raise EngineError("bad_hand", reason="replay_differs")
    return found


def _next_actor(events: Sequence[tuple[Event, tuple[int, ...], tuple[int, ...]]],
                start: int) -> int | None:
    """Who acts next, as the table then showed it: the player of the next action, unless a
    street is dealt or the hand ends first."""
    for event, _, _ in events[start:]:
        if isinstance(event, ActionTaken):
            return event.player
        if isinstance(event, StreetDealt | SecondRunDealt | HandShown | PotAwarded):
            return None
    return None


def street_equities(hand: Hand) -> tuple[RunOutStage, ...]:
    """The shown hands' chances with each street's board out, for a finished hand that went
    to showdown with two hands or more shown: with no board, the flop, the turn and the
    river, then the second run's own streets when the board was run twice; ``()`` otherwise.

    Only the hands shown are counted, against each other; a hand folded or mucked is not a
    dead card either (nobody saw it). A second run's figures leave out the first run's own
    cards, which everybody saw dealt before it (``engine.equity.run_out_equities`` counts a
    run-out the same way). Figures from ``engine.equity.equity``: exact from the flop on, a
    sampled estimate before it.
    """
    result = hand.result
    if result is None or not result.showdown:
        return ()
    players = tuple(i for i in sorted(result.shown) if not hand.folded[i])
    if len(players) < 2:
        return ()
    holes = [hand.hole_cards(i) for i in players]
    split = hand.second_run_from if len(hand.boards) == 2 else None
    stages = []
    for run, board in enumerate(hand.boards, start=1):
        for count in (0, 3, 4, 5):
            if run == 2 and (split is None or count <= split):
                continue  # the board both runs share: counted once, as the first run's
            seen = tuple(board[:count])
            dead = hand.board[split:] if run == 2 else ()
            stages.append(RunOutStage(run, seen, players,
                                      equity(holes, seen, dead, game=hand.game)))
    return tuple(stages)


def build_replay(played: PlayedHand, locale: object = None) -> Replay:
    """The replay of ``played``: its frames, its story in the catalog's words of ``locale``,
    and the message that carries the same story."""
    hand = played.hand
    result = hand.result
    assert result is not None
    loc = locale
    revealed = frozenset(i for i in result.shown if not hand.folded[i])
    stages = {(s.run, len(s.board)): s for s in street_equities(hand)}
    teller = _Teller(played, loc, stages, revealed, stacks=list(hand.config.stacks),
                     bets=[0] * hand.n)
    events = _flattened(played)
    # Captions are drawn (the raw name: the renderer drops direction controls); the story is
    # written twice, in the alt text (names isolated) and the message (escaped and isolated).
    name_raw = played.names.__getitem__

    def name_alt(i: int) -> str:
        return isolate(played.names[i])

    def name_safe(i: int) -> str:
        return safe_text(played.names[i])

    started = over = tabled = False
    mucked: set[int] = set()
    teller.story.append(_Players(hand.config.stacks, loc))
    for k, (event, before, after) in enumerate(events):
        if not started and not isinstance(event, ForcedBet):
            started = True
            teller.pots = before
            preflop = teller.chances(1, 0, _Say("render.preflop", loc))
            if teller.stage is not None:  # the street's opening says its chances
                teller.street_head = preflop
            teller.frame(Street.PREFLOP, t("replay.caption_start", loc), START,
                         to_act=_next_actor(events, k))
        if isinstance(event, ForcedBet):
            _forced(teller, event, loc)
        elif isinstance(event, ActionTaken):
            teller.pots = before
            teller.stacks[event.player] = event.stack
            teller.bets[event.player] = event.total_bet
            if event.kind is ActionKind.FOLD:
                teller.folded.add(event.player)
            if event.all_in:
                teller.all_in.add(event.player)
            teller.street_words.append(_Act(event, loc))
            teller.frame(_street_of(teller.board), action_text(event, name_raw(event.player),
                                                               loc),
                         ACTION, to_act=_next_actor(events, k + 1))
        elif isinstance(event, BetReturned):
            teller.stacks[event.player] += event.amount
            teller.bets[event.player] -= min(event.amount, teller.bets[event.player])
            teller.all_in.discard(event.player)  # what nobody called is his again
            teller.street_words.append(_Say("replay.returned", loc, (("player", event.player),),
                                            (("amount", chips(event.amount, loc)),)))
        elif isinstance(event, StreetDealt):
            teller.close_street()
            teller.bets = [0] * hand.n
            teller.pots = after
            teller.board += tuple(format_card(c) for c in event.cards)
            dealt = t(f"render.{event.street.value}", loc)
            head = t("replay.dealt", loc, street=dealt, cards=cards_text(event.cards))
            pot = chips(sum(after), loc)
            teller.street_head = teller.chances(1, len(teller.board), _Say(
                "replay.street_pot", loc, (), (("street", head), ("pot", pot))))
            teller.frame(_street_of(teller.board), head, STREET,
                         to_act=_next_actor(events, k + 1))
        elif isinstance(event, SecondRunDealt):
            teller.close_street()
            if not teller.second:
                teller.second = teller.board[: hand.second_run_from or 0]
            teller.second += tuple(format_card(c) for c in event.cards)
            dealt = t(f"render.{event.street.value}", loc)
            head = t("replay.dealt_run", loc, run=2, street=dealt,
                     cards=cards_text(event.cards))
            opening = teller.chances(2, len(teller.second), _Fixed(head))
            teller.story.append(_Quiet(opening, loc))
            teller.frame(_street_of(teller.second), head, STREET)
        elif isinstance(event, RunCountChosen):
            key = "replay.run_twice" if event.runs == 2 else "replay.run_once"
            teller.street_words.append(_Say(key, loc))
        elif isinstance(event, HandShown) and not (over or tabled) and len(teller.board) < 5:
            # Nobody can bet any more: every live hand is turned up before the rest is dealt.
            tabled = True
            teller.bets = [0] * hand.n
            teller.pots = after
            teller.frame(_street_of(teller.board), t("replay.caption_tabled", loc), TABLED)
        elif isinstance(event, HandMucked):
            mucked.add(event.player)
        elif isinstance(event, PotAwarded):
            over = True  # a hand shown after this was shown by a winner who chose to
    teller.close_street()
    _finish(teller, mucked)
    outcome = _outcome(played, mucked, loc)
    title_words = {"hand": played.number, "small_blind": chips(_small_blind(played), loc),
                   "big_blind": chips(hand.config.big_blind, loc)}
    view = ReplayView(
        frames=tuple(teller.frames),
        title=t("replay.alt_title", loc, **title_words),
        story=tuple(w(name_alt) for w in teller.story),
        outcome=tuple(w(name_alt) for w in outcome),
    )
    lines = (t("replay.title", loc, **title_words),
             *(w(name_safe) for w in teller.story), *(w(name_safe) for w in outcome))
    separator = t("list.separator", loc)
    return Replay(view, tuple(part for line in lines for part in _broken(line, separator)))


def _broken(line: str, separator: str) -> list[str]:
    """``line`` in lines of at most :data:`LINE_LIMIT` characters, broken after a separator
    (a line with none to break at is left whole: the sender cuts it)."""
    parts: list[str] = []
    while len(line) > LINE_LIMIT:
        cut = line.rfind(separator, 0, LINE_LIMIT - len(separator))
        if cut <= 0:
            break
        parts.append(line[: cut + len(separator)].rstrip())
        line = line[cut + len(separator):]
    parts.append(line)
    return parts


def _forced(teller: _Teller, event: ForcedBet, loc: object) -> None:
    """Blinds, antes, straddles and bombs: in front of the player, or dead in the pot."""
    teller.stacks[event.player] -= event.amount
    if event.kind not in ("ante", "dead_blind"):  # those are dead money, counted in the pot
        teller.bets[event.player] += event.amount
    if event.all_in:
        teller.all_in.add(event.player)
    if event.kind == "small_blind":
        teller.blinds[event.player] = Blind.SMALL
    elif event.kind == "big_blind":
        teller.blinds[event.player] = Blind.BIG
    if event.kind in ("straddle", "blind", "dead_blind", "bomb_pot"):
        key = f"replay.{event.kind}"
        teller.street_words.append(_Say(key, loc, (("player", event.player),),
                                        (("amount", chips(event.amount, loc)),)))


def _street_of(board: tuple[str, ...]) -> Street:
    return {0: Street.PREFLOP, 3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}[len(board)]


def _finish(teller: _Teller, mucked: set[int]) -> None:
    """The last frame: the result as the table showed it, hands named, pots and winners."""
    played = teller.played
    hand = played.hand
    result = hand.result
    assert result is not None
    loc = teller.locale
    teller.stacks = list(result.stacks)
    teller.bets = [0] * hand.n
    seats = teller.seat_views(None, None)
    won = result.won
    for i, seat_no in enumerate(played.seats):
        seat = seats[seat_no - 1]
        assert seat is not None
        changes: dict[str, object] = {"is_winner": won[i] > 0, "mucked": i in mucked}
        if i in teller.revealed and result.showdown and len(hand.board) == 5:
            changes.update(shown_hand_fields(hand, i, loc))
        seats[seat_no - 1] = _replace(seat, changes)
    pots = tuple(
        PotView(pot.amount, winners=tuple(played.seats[p] - 1 for p, share in pot.shares
                                          if share > 0), run=pot.run, half=pot.half)
        for pot in result.pots
    )
    street = Street.SHOWDOWN if result.showdown else Street.COMPLETE
    view = teller.view(street, seats, pots)
    caption = t("list.separator", loc).join(
        t("replay.caption_won", loc, player=played.names[i], amount=chips(amount, loc))
        for i, amount in enumerate(won) if amount > 0)
    teller.frames.append(ReplayFrame(view, caption, END, milestone=True))


def _replace(seat: SeatView, changes: dict[str, object]) -> SeatView:
    return dataclasses.replace(seat, **changes)  # type: ignore[arg-type]


def _outcome(played: PlayedHand, mucked: set[int], loc: object) -> list[Words]:
    """Who showed what, who mucked, and who won each pot (each run's half on its own)."""
    hand = played.hand
    result = hand.result
    assert result is not None
    words: list[Words] = []
    for i in sorted(i for i in result.shown if not hand.folded[i]):
        cards = cards_text(hand.hole_cards(i))
        words.append(_Say("replay.shows", loc, (("player", i),), (("cards", cards),)))
    for i in sorted(mucked):
        words.append(_Say("replay.mucks", loc, (("player", i),)))
    count = len({pot.index for pot in result.pots})
    showdown = result.showdown and len(hand.board) == 5
    for pot in result.pots:
        label = award_pot_name(pot, count, loc)
        for player, share in pot.shares:
            if share <= 0:
                continue
            rank = award_rank(hand, pot, player) if showdown else None
            given: tuple[tuple[str, object], ...] = (
                ("amount", chips(share, loc)), ("pot", label), ("run", pot.run))
            key = "replay.wins_run" if pot.run else "replay.wins"
            if rank is not None:
                key += "_with"
                given += (("hand", describe_rank(rank, loc)),)
            words.append(_Say(key, loc, (("player", player),), given))
    return words


def replay_image(played: PlayedHand, locale: object = None,
                 labels: Labels | None = None) -> tuple[Replay, RenderedAnimation]:
    """The replay built and drawn: what ``/history replay`` runs on the render thread."""
    replay = build_replay(played, locale)
    return replay, render_replay(replay.view, labels or labels_for(locale))
