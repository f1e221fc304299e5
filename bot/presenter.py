"""What players see, built from the engine's state: images to render, message text, buttons.

Every word comes from the message catalog (``bot/locales``) through :func:`bot.i18n.t`; this
module only decides which message to show and fills in names and amounts. Nothing here talks to
Discord: the runtime sends what this builds, ``bot.ui`` turns button specs into components.

Privacy is decided here: a hole card reaches a public view only when its hand was shown at
showdown (``hand.shown``); mucked and folded hands never do. The all-in chances follow the same
rule: they are worked out only once every live hand is face up, from those hands and the board.

All-in run-outs, for the runtime: while a hand waits with betting closed and cards to come
(the run-twice vote), :func:`live_equity` gives the chances now; for a hand whose board was run
out, ``engine.equity.run_out_equities(hand)`` gives them street by street. Either is CPU work
(up to about 0.2 s before the flop, the engine's sampled estimate), so run it off the event
loop while the table's lock keeps the hand still; then :func:`equity_view` turns each stage
into the image's view and the message's lines (cheap, and it reads the scene: call it on the
event loop, as :func:`table_message` is).
"""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from discord.utils import escape_markdown, escape_mentions

from bot.i18n import isolate, number, t
from bot.render import HoleCardsView, Labels, PotView, SeatState, SeatView, Street, TableView
from bot.render.labels import (
    catalog_labels,
    catalog_words,
    format_percent,
    format_tie,
    hand_words,
)
from bot.render.model import Blind, SeatEquity
from bot.render.tournament import (
    Phase,
    PlaceLine,
    PlayerLine,
    TablePanel,
    TournamentLabels,
    TournamentView,
)
from engine.bots.ids import bot_serial, is_bot
from engine.cards import Card, format_card, pretty_cards
from engine.equity import Equity, HandEquity, RunOutStage, equity
from engine.evaluator import HandRank
from engine.games import Game
from engine.hand import (
    ActionTaken,
    AnteKind,
    Hand,
    HandMucked,
    Legal,
    PotAwarded,
    StraddleMode,
)
from engine.limits import MAX_TABLE_SEATS
from engine.low import LowRank
from engine.seating import PlayerId
from engine.table import PlayerState, Table
from engine.tournament import (
    BreakStarted,
    FinalTable,
    LevelStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerRegistered,
    RegistrationClosed,
    Standing,
    TableBroken,
    TableOpened,
    TimeUp,
    TournamentConfig,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
    TournamentStatus,
)

__all__ = ["EquityFrame", "equity_view", "live_equity", "run_out_message"]


# --- words -------------------------------------------------------------------------------


def labels_for(locale: object) -> Labels:
    """The renderer's words from the catalog (``render.<field>``), per catalog language."""
    return catalog_labels(locale)


def chips(amount: int, locale: object = None) -> str:
    """Every amount of every message, as the reader's locale writes numbers."""
    return number(amount, locale)


# A computer player's name, by the serial in its id: people's names, so a table reads like a
# table, and the bot mark that goes with them everywhere (``mention``, ``name_of``).
BOT_NAMES = (
    "Ada", "Blaise", "Carl", "Daphne", "Emmy", "Felix", "Grace", "Hugo", "Ida", "Jules",
    "Kurt", "Lise", "Max", "Nora", "Otto", "Pia", "Quinn", "Rosa", "Sofia", "Theo",
)


def bot_name(player_id: int) -> str:
    serial = bot_serial(player_id)
    lap, place = divmod(serial, len(BOT_NAMES))
    return BOT_NAMES[place] + (f" {lap + 1}" if lap else "")


def mention(user_id: int) -> str:
    """A person as a mention; a computer player by its name, marked (it cannot be pinged)."""
    if is_bot(user_id):
        return f"\N{ROBOT FACE} {bot_name(user_id)}"
    return f"<@{user_id}>"


def safe_text(text: str) -> str:
    """User-supplied text (a display name, a tournament's name) as it may stand in a message's
    sentence: no markdown, no masked link, no mention or @everyone, and isolated from the
    words around it (:func:`bot.i18n.isolate`: a right-to-left override in a name cannot
    reverse the rest of the line). Images take the raw name (the renderer drops direction
    controls when it draws); alt text isolates it as it writes it (``bot.render.alttext``)."""
    return isolate(escape_mentions(escape_markdown(text)))


THREAD_NAME_LIMIT = 100  # Discord's longest channel or thread name


def thread_name(tournament_name: str, table: int, locale: object = None) -> str:
    """A tournament table's thread: "{name} · table {N}" (``tournament.thread_name``) within
    :data:`THREAD_NAME_LIMIT` characters, the tournament's name cut with "…" when it must be so
    that every table keeps its number (cutting the whole line made every table's thread of a
    long-named tournament the same). The name is isolated (:func:`bot.i18n.isolate`), so an
    override in it cannot turn the table's number round. Lengths are counted in UTF-16 units,
    as Discord's clients count them (never more than the characters Python counts), and a
    name is cut between characters a reader sees, never between a letter and its accents.
    """

    def fits(text: str) -> bool:
        return len(text.encode("utf-16-le")) // 2 <= THREAD_NAME_LIMIT

    whole = t("tournament.thread_name", locale, name=isolate(tournament_name), table=table)
    if fits(whole):
        return whole
    kept = _visible_prefixes(tournament_name)
    lo, hi = 0, len(kept) - 1  # the longest prefix that fits with its ellipsis
    while lo < hi:
        mid = (lo + hi + 1) // 2
        cut = kept[mid].rstrip() + "…"
        if fits(t("tournament.thread_name", locale, name=isolate(cut), table=table)):
            lo = mid
        else:
            hi = mid - 1
    name = kept[lo].rstrip() + "…"
    text = t("tournament.thread_name", locale, name=isolate(name), table=table)
    if fits(text):
        return text
    # The catalog's words alone do not fit (they never should): the number still comes first.
    return t("tournament.thread_name", locale, name="…", table=table)[:THREAD_NAME_LIMIT]


def _visible_prefixes(text: str) -> list[str]:
    """Every prefix of ``text`` that ends between two characters a reader sees: never after a
    letter whose combining marks, variation selector or joined emoji would be cut off."""
    prefixes = [""]
    for k in range(1, len(text) + 1):
        following = text[k] if k < len(text) else ""
        if following and (unicodedata.combining(following)
                          or unicodedata.category(following) in ("Mn", "Me", "Mc")
                          or following in "\u200d\ufe0e\ufe0f"
                          or 0x1F3FB <= ord(following) <= 0x1F3FF
                          or text[k - 1] == "\u200d"):
            continue
        prefixes.append(text[:k])
    return prefixes


def decision_number(hand: Hand) -> int:
    """How many decisions of this hand have been taken: names the one now due, so a button
    drawn for it cannot act on a later one (a double click acts once)."""
    return sum(1 for event in hand.events if isinstance(event, ActionTaken))


def cards_text(cards: Sequence[Card]) -> str:
    """Cards for people (``A♠ 10♥``): the symbols read the same in every language."""
    return pretty_cards(cards)


def describe_rank(rank: HandRank | LowRank, locale: object = None, *,
                  short: bool = False) -> str:
    """A hand's name in the catalog's words, e.g. "Two pair, jacks and fours, ace kicker";
    ``short``: what an image's badge holds ("Jacks and fours"). A low is written by its ranks,
    top first, as players write it in any language ("8-6-4-2-A low")."""
    code, ranks = rank.describe_parts()
    if isinstance(rank, LowRank):
        return t("hand_short.low" if short else "hand.low", locale, ranks="-".join(ranks))
    return hand_words(code, ranks, locale, short=short)


def describe_hand(hand: Hand, player: int, locale: object = None, *, run: int = 1) -> str:
    """A player's hand in words on the board so far: the high hand, and in a high-low game his
    low beside it when he has one; "" before the flop."""
    rank = hand.rank(player, run=run)
    if rank is None:
        return ""
    high = describe_rank(rank, locale)
    low = hand.low_rank(player, run=run)
    if low is None:
        return high
    return t("hand.high_low", locale, high=high, low=describe_rank(low, locale))


def game_name(game: Game, locale: object = None) -> str:
    """The game's name as the table's title and the replies give it."""
    return t(f"game.{game.code}", locale)


def pot_name(index: int, count: int, locale: object = None) -> str:
    if count == 1:
        return t("pot.single", locale)
    return t("pot.main", locale) if index == 0 else t("pot.side", locale, n=index)


def award_pot_name(pot: PotAwarded, count: int, locale: object = None) -> str:
    """What a share was won from: the pot, or its high or low half in a high-low game."""
    label = pot_name(pot.index, count, locale)
    return t(f"pot.{pot.half}_half", locale, pot=label) if pot.half else label


def award_rank(hand: Hand, pot: PotAwarded, player: int) -> HandRank | LowRank | None:
    """The hand that won ``player`` his share of ``pot``: his best on the board of the pot's
    run (a pot run twice is halved by run), his low for a low half."""
    run = max(pot.run, 1)
    return hand.low_rank(player, run=run) if pot.half == "low" else hand.rank(player, run=run)


def action_text(event: ActionTaken, player: str, locale: object = None) -> str:
    """One action as the table reads it: "alice raises to 60 and is all-in"."""
    kind = event.kind.value
    text = t(f"action.{kind}", locale, player=player, amount=chips(event.amount, locale))
    if event.all_in:
        text += t("action.all_in_suffix", locale)
    if event.auto == "timeout":
        text += t("action.timeout_suffix", locale)
    elif event.auto == "preselect":
        text += t("action.preselect_suffix", locale)
    return text


def ack_text(event: ActionTaken, locale: object = None) -> str:
    """What the player who acted is told, privately, once the action is stored."""
    text = t(f"ack.{event.kind.value}", locale, amount=chips(event.amount, locale))
    if event.all_in:
        text += " " + t("ack.all_in", locale)
    return text


# --- the scene the runtime hands over -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything needed to draw a table at one moment (read synchronously, never stored)."""

    table: Table
    names: Mapping[int, str]
    hand_number: int
    locale: object = None
    away: frozenset[int] = frozenset()
    commitment: str | None = None  # the deck's SHA-256 digest for the hand shown
    dealing: bool = False
    closed: bool = False
    run_vote: RunVote | None = None  # the players of an all-in hand deciding how many runs


@dataclass(frozen=True, slots=True)
class RunVote:
    """Who agreed to run it twice so far (player indices), and until when (Unix seconds)."""

    agreed: frozenset[int]
    deadline: int
    chances: RunOutStage | None = None  # the live hands' chances while they decide


@dataclass(frozen=True, slots=True)
class ButtonSpec:
    """A button under a message; ``bot.ui`` makes the component.

    ``ref`` is the (hand number, decision number) the button was drawn for: a press acts only
    on that decision (actions) or that hand (pre-selections, showing).
    """

    action: str
    label: str
    style: str = "secondary"  # primary, secondary, success or danger
    arg: int | None = None
    row: int = 0
    ref: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class TurnPrompt:
    """The line that names the player to act. Its countdown is filled in when the message goes
    out, because that is when his time starts (``bot.runtime.clock``)."""

    marker: tuple[int, int]  # (hand number, decision number)
    player_id: int
    line: str  # with ``{deadline}`` where the countdown goes


@dataclass(frozen=True, slots=True)
class TableMessage:
    head: str
    view: TableView
    buttons: tuple[ButtonSpec, ...] = ()
    hand_number: int = 0  # the hand it shows
    prompt: TurnPrompt | None = None
    tail: str = ""

    def text(self, deadline: int | None = None) -> str:
        """The message as sent; ``deadline`` (Unix seconds) fills the prompt's countdown."""
        lines = [self.head]
        if self.prompt is not None:
            countdown = f"<t:{deadline}:R>" if deadline is not None else "\u2014"
            lines.append(self.prompt.line.replace("{deadline}", countdown))
        if self.tail:
            lines.append(self.tail)
        return "\n".join(lines)

    @property
    def content(self) -> str:
        return self.text()


def display_name(names: Mapping[int, str], player_id: int, locale: object) -> str:
    """The raw display name (for images, alt text, files, which render no markdown), from the
    names a table kept; a computer player's says it is one, in words an image's font can draw.
    Every view names players through here."""
    if is_bot(player_id):
        return t("player.bot", locale, name=bot_name(player_id))
    return names.get(player_id) or t("player.unknown", locale, id=player_id)


def name_of(scene: Scene, player_id: int) -> str:
    return display_name(scene.names, player_id, scene.locale)


def text_name(scene: Scene, player_id: int) -> str:
    """The display name as a message may carry it (escaped)."""
    return safe_text(name_of(scene, player_id))


def _hand_index(table: Table, seat: int, player_id: int) -> int | None:
    if table.hand is None or seat not in table.hand_seats:
        return None
    i = table.hand_seats.index(seat)
    return i if table.hand_players[i] == player_id else None


def _seat_view(
    scene: Scene, seat: int, mucked: set[int], won: tuple[int, ...] | None
) -> SeatView | None:
    table = scene.table
    occupant = table.seat(seat)
    if occupant is None:
        return None
    pid = int(occupant.player_id)
    name = name_of(scene, pid)
    hand = table.hand
    i = _hand_index(table, seat, pid)
    is_button = table.button_seat == seat
    if hand is None or i is None:
        chips_there = occupant.stack + occupant.pending_chips
        out = occupant.state is PlayerState.SITTING_OUT or chips_there == 0
        state = SeatState.AWAY if pid in scene.away else (
            SeatState.SITTING_OUT if out else SeatState.ACTIVE
        )
        return SeatView(
            name, stack=chips_there, state=state, is_button=is_button
        )
    blind = Blind.NONE
    if seat == table.big_blind_seat:
        blind = Blind.BIG
    elif seat == table.small_blind_seat:
        blind = Blind.SMALL
    cards: tuple[str | None, ...] = ()
    if hand.folded[i]:
        state = SeatState.FOLDED
    else:
        state = SeatState.ALL_IN if hand.all_in[i] else SeatState.ACTIVE
        if state is SeatState.ACTIVE and pid in scene.away:
            state = SeatState.AWAY
        cards = (
            tuple(format_card(c) for c in hand.hole_cards(i))
            if i in hand.shown
            else (None,) * hand.game.hole_count
        )
    shown: dict[str, Any] = {}
    if i in hand.shown and hand.is_over and len(hand.board) == 5:
        shown = shown_hand_fields(hand, i, scene.locale)
    return SeatView(
        name,
        stack=hand.stacks[i],
        bet=hand.bets[i],
        state=state,
        cards=cards,
        is_button=is_button,
        blind=blind,
        to_act=hand.to_act == i,
        mucked=i in mucked,
        is_winner=won is not None and won[i] > 0,
        **shown,
    )


def shown_hand_fields(hand: Hand, player: int, locale: object) -> dict[str, Any]:
    """What a seat's view says of a hand shown down (the table's and the replay's last
    frame): its best five, named in full and on the badge, on each run's board; and in a
    high-low game its low and the low's five cards."""
    fields: dict[str, Any] = {}
    for run, prefix in ((1, ""), (2, "second_")):
        rank = hand.rank(player, run=run)
        if rank is not None:
            fields[prefix + "best_five"] = tuple(format_card(c) for c in rank.cards)
            fields[prefix + "hand_name"] = describe_rank(rank, locale)
            fields[prefix + "hand_label"] = describe_rank(rank, locale, short=True)
    low = hand.low_rank(player)
    if low is not None:
        fields["low_hand"] = low.describe()
        fields["low_five"] = tuple(format_card(c) for c in low.cards)
    return fields


def table_view(scene: Scene) -> TableView:
    """The public image of the table: nobody's hidden cards, whatever the scene holds."""
    table = scene.table
    options = table.options
    hand = table.hand
    mucked = {e.player for e in hand.events if isinstance(e, HandMucked)} if hand else set()
    won = hand.result.won if hand is not None and hand.result is not None else None
    count = min(options.seats, MAX_TABLE_SEATS)
    seats = tuple(_seat_view(scene, seat, mucked, won) for seat in range(1, count + 1))
    pots: tuple[PotView, ...] = ()
    street = Street.WAITING
    board: tuple[str, ...] = ()
    second_board: tuple[str, ...] = ()
    if hand is not None:
        street = Street(hand.street.value)
        if hand.result is not None and hand.result.showdown:
            street = Street.SHOWDOWN  # the engine says COMPLETE; players saw a showdown
        board = tuple(format_card(c) for c in hand.board)
        if hand.second_board is not None:
            second_board = tuple(format_card(c) for c in hand.second_board)
        if hand.result is not None:
            pots = tuple(
                PotView(
                    pot.amount,
                    winners=tuple(
                        table.hand_seats[p] - 1
                        for p, share in pot.shares
                        if share > 0 and table.hand_seats[p] <= count
                    ),
                    run=pot.run,
                    half=pot.half,
                )
                for pot in hand.result.pots
            )
        else:
            pots = tuple(PotView(p.amount) for p in hand.pots() if p.amount)
    return TableView(
        seats=seats,
        board=board,
        pots=pots,
        small_blind=options.small_blind,
        big_blind=options.big_blind,
        ante=options.ante,
        hand_number=scene.hand_number or None,
        street=street,
        second_board=second_board,
    )


# --- all-in chances ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EquityFrame:
    """One moment of an all-in run-out: the image's view, every live hand face up with its
    chances, and the same chances as lines for the message (names escaped)."""

    view: TableView
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@functools.lru_cache(maxsize=64)
def _chances(holes: tuple[tuple[Card, ...], ...], board: tuple[Card, ...], game: Game) -> Equity:
    # A table redraws the same waiting state several times (votes, the clock): count it once.
    return equity(holes, board, game=game)


def live_equity(hand: Hand) -> RunOutStage | None:
    """The live hands' chances now, while the hand waits with nobody left to bet, two or more
    hands live, every one of them face up and cards still to come (the run-twice vote); None
    otherwise. Only the tabled hands and the board are counted: a folded hand is never passed
    as a dead card, which would let the figures give it away.

    CPU work (see the module doc): exact on the flop and turn, a sampled estimate pre-flop.
    """
    if hand.is_over or hand.to_act is not None or len(hand.board) >= 5:
        return None
    players = tuple(j for j in range(hand.n) if not hand.folded[j])
    if len(players) < 2 or any(j not in hand.shown for j in players):
        return None
    holes = tuple(hand.hole_cards(j) for j in players)
    return RunOutStage(1, hand.board, players, _chances(holes, hand.board, hand.game))


def equity_view(scene: Scene, stage: RunOutStage) -> EquityFrame:
    """The table at ``stage`` of the scene's hand: its board so far (both runs' once it is
    run twice) with the chances of every live hand on the image and in words.

    ``stage`` is :func:`live_equity` of a hand waiting for the run-twice vote, or one of
    ``engine.equity.run_out_equities(hand)`` for a hand whose board was run out: the image then
    shows the hand as it stood at that street (the stacks before the pots were pushed, no
    winner yet), so the runtime may show each stage in turn before the result.
    """
    hand = scene.table.hand
    if hand is None:
        raise ValueError("the scene has no hand")
    table = scene.table
    view = table_view(scene)
    if hand.result is not None:
        view = _rewound(view, scene, hand, stage)
    exact = stage.equity.exact
    seats = list(view.seats)
    lines: list[str] = []
    loc = scene.locale
    how = t("equity.exact" if exact else "equity.estimate", loc)
    if hand.second_board is not None:
        lines.append(t("equity.title_run", loc, run=stage.run, how=how))
    else:
        lines.append(t("equity.title", loc, how=how))
    for player, figures in zip(stage.players, stage.equity.hands, strict=True):
        chance = SeatEquity(figures.win, figures.tie, exact)
        index = table.hand_seats[player] - 1
        seat = seats[index] if index < len(seats) else None
        if seat is not None:
            seats[index] = dataclasses.replace(seat, equity=chance)
        who = text_name(scene, int(table.hand_players[player]))
        kind, words = chance_words(stage.equity, figures)
        lines.append(t(f"equity.line{kind}", loc, player=who, **words))
    return EquityFrame(dataclasses.replace(view, seats=tuple(seats)), tuple(lines))


def chance_words(counted: Equity, figures: HandEquity) -> tuple[str, dict[str, str]]:
    """How one hand's chances are said: the ending of the sentence's key (``""``, ``"_tie"``
    or ``"_high_low"``) and its figures (``win``, and ``tie`` or ``low``), as percentages
    that say when they are estimated. Every sentence of chances (the all-in's, the replay's)
    is worded through here."""
    exact = counted.exact
    win = format_percent(figures.win, exact)
    if counted.high_low:
        # Half of each pot goes low: the chance of a low is the other half of the picture.
        return "_high_low", {"win": win,
                             "low": format_percent(figures.low_win + figures.low_tie, exact)}
    tie = format_tie(figures.tie, exact)
    if tie is not None:
        return "_tie", {"win": win, "tie": tie}
    return "", {"win": win}


def _rewound(view: TableView, scene: Scene, hand: Hand, stage: RunOutStage) -> TableView:
    """A finished hand's view taken back to a street of its run-out: the pots not yet
    awarded, each stack without what it won, nobody's hand named yet."""
    result = hand.result
    assert result is not None
    won = result.won
    seats = list(view.seats)
    for player, seat_no in enumerate(scene.table.hand_seats):
        seat = seats[seat_no - 1] if seat_no <= len(seats) else None
        if seat is None:
            continue
        seats[seat_no - 1] = dataclasses.replace(
            seat, stack=seat.stack - won[player], is_winner=False, best_five=(), hand_name="",
            hand_label="", second_best_five=(), second_hand_name="", second_hand_label="",
            low_hand="", low_five=())
    shown = tuple(format_card(c) for c in stage.board)
    first, second = (shown, ()) if stage.run == 1 else (view.board, shown)
    return dataclasses.replace(
        view, seats=tuple(seats), board=first, second_board=second,
        pots=tuple(PotView(pot.amount) for pot in hand.pots() if pot.amount),
        street=_STREET_OF_BOARD[len(stage.board)])


_STREET_OF_BOARD = {0: Street.PREFLOP, 3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}


# --- the table message --------------------------------------------------------------------


def _stakes(scene: Scene) -> str:
    options = scene.table.options
    text = t(
        "table.stakes",
        scene.locale,
        small_blind=chips(options.small_blind, scene.locale),
        big_blind=chips(options.big_blind, scene.locale),
    )
    if options.ante:
        text += t("table.ante", scene.locale, ante=chips(options.ante, scene.locale))
    return text


def _title(scene: Scene) -> str:
    """The first line of the table message: the game, the hand's number, the stakes."""
    key = "table.title" if scene.hand_number else "table.title_new"
    return t(key, scene.locale, game=game_name(scene.table.options.game, scene.locale),
             hand=scene.hand_number, stakes=_stakes(scene))


def _last_action(scene: Scene, hand: Hand) -> ActionTaken | None:
    for event in reversed(hand.events):
        if isinstance(event, ActionTaken):
            return event
    return None


def raise_targets(hand: Hand, legal: Legal) -> list[tuple[str, int]]:
    """Quick raise sizes as raise-to totals: minimum, half the pot, the pot (each legal)."""
    if not legal.can_raise:
        return []
    unit = hand.config.chip_unit
    pot_after_call = hand.total_pot() + legal.to_call
    high = hand.bets[legal.player] + legal.to_call
    targets = [("raise_min", legal.min_raise_to)]
    for name, size in (("raise_half_pot", pot_after_call // 2), ("raise_pot", pot_after_call)):
        to = (high + size) // unit * unit
        if legal.min_raise_to < to < legal.max_raise_to and all(to != x for _, x in targets):
            targets.append((name, to))
    return targets


def action_buttons(scene: Scene, hand: Hand) -> tuple[ButtonSpec, ...]:
    legal = hand.legal()
    if legal is None:
        return ()
    loc = scene.locale
    ref = (scene.hand_number, decision_number(hand))
    row: list[ButtonSpec] = [ButtonSpec("fold", t("button.fold", loc), "danger", ref=ref)]
    if legal.can_check:
        row.append(ButtonSpec("check", t("button.check", loc), "success", ref=ref))
    else:
        label = t("button.call", loc, amount=chips(legal.to_call, loc))
        row.append(ButtonSpec("call", label, "success", ref=ref))
    if legal.can_raise:
        # Under pot limit the largest raise is the pot, not the stack: the button says so.
        key = "button.raise_pot" if legal.pot_limited else "button.all_in"
        label = t(key, loc, amount=chips(legal.max_raise_to, loc))
        row.append(ButtonSpec("allin", label, "danger", ref=ref))
    row.append(ButtonSpec("cards", t("button.my_cards", loc), "secondary"))
    buttons = list(row)
    if legal.can_raise:
        verb = "bet" if legal.is_bet else "raise"
        for name, to in raise_targets(hand, legal):
            label = t(f"button.{name}", loc, amount=chips(to, loc))
            buttons.append(ButtonSpec("raise", label, "primary", arg=to, row=1, ref=ref))
        label = t(f"button.{verb}_custom", loc)
        buttons.append(ButtonSpec("raise_modal", label, "primary", row=1, ref=ref))
    # Pre-selections belong to the hand, not to one decision: they wait for the player's turn.
    hand_ref = (scene.hand_number, 0)
    buttons.append(ButtonSpec("pre_check_fold", t("button.pre_check_fold", loc), row=2,
                              ref=hand_ref))
    buttons.append(ButtonSpec("pre_call_any", t("button.pre_call_any", loc), row=2,
                              ref=hand_ref))
    return tuple(buttons) + straddle_buttons(scene)


def straddle_buttons(scene: Scene) -> tuple[ButtonSpec, ...]:
    """Asking to straddle the next hand (or every hand): offered while a hand is played, on
    tables that allow straddles; the engine picks whoever sits on the straddle seat."""
    if scene.table.options.straddle is StraddleMode.OFF:
        return ()
    loc = scene.locale
    return (
        ButtonSpec("straddle_next", t("button.straddle_next", loc), row=3),
        ButtonSpec("straddle_always", t("button.straddle_always", loc), row=3),
    )


def run_vote_buttons(scene: Scene, hand: Hand) -> tuple[ButtonSpec, ...]:
    loc = scene.locale
    ref = (scene.hand_number, decision_number(hand))
    return (
        ButtonSpec("run_twice", t("button.run_twice", loc), "success", ref=ref),
        ButtonSpec("run_once", t("button.run_once", loc), "secondary", ref=ref),
        ButtonSpec("cards", t("button.my_cards", loc), "secondary"),
    )


def _run_vote_line(scene: Scene, hand: Hand) -> str:
    vote = scene.run_vote
    agreed = vote.agreed if vote is not None else frozenset()
    waiting = [
        mention(int(scene.table.hand_players[i]))
        for i in hand.run_choice_players
        if i not in agreed
    ]
    deadline = f"<t:{vote.deadline}:R>" if vote is not None else "\u2014"
    return t(
        "table.run_twice_vote",
        scene.locale,
        players=t("list.separator", scene.locale).join(waiting),
        deadline=deadline,
    )


def _prompt(scene: Scene, hand: Hand, legal: Legal) -> TurnPrompt:
    pid = int(scene.table.hand_players[legal.player])
    key = "table.to_act_check" if legal.can_check else "table.to_act_call"
    line = t(key, scene.locale, player=mention(pid), amount=chips(legal.to_call, scene.locale),
             deadline="{deadline}")
    return TurnPrompt((scene.hand_number, decision_number(hand)), pid, line)


def table_message(scene: Scene) -> TableMessage:
    """Text, image and buttons of the table message at this moment."""
    loc = scene.locale
    table = scene.table
    hand = table.hand
    view = table_view(scene)
    lines = [_title(scene)]
    buttons: tuple[ButtonSpec, ...] = ()
    prompt: TurnPrompt | None = None
    if scene.closed:
        lines.append(t("table.closed", loc))
    elif hand is not None and not hand.is_over:
        if hand.board:
            lines.append(t("table.board", loc, cards=cards_text(hand.board)))
        last = _last_action(scene, hand)
        if last is not None:
            who = text_name(scene, int(table.hand_players[last.player]))
            lines.append(t("table.last_action", loc, action=action_text(last, who, loc)))
        # The same figure the image's description gives: one source for both.
        lines.append(t("table.pot", loc, amount=chips(view.pot_total, loc)))
        if hand.run_choice_pending:
            chances = scene.run_vote.chances if scene.run_vote is not None else None
            if chances is not None:
                frame = equity_view(scene, chances)
                view = frame.view
                lines.extend(frame.lines)
            lines.append(_run_vote_line(scene, hand))
            buttons = run_vote_buttons(scene, hand)
        else:
            legal = hand.legal()
            if legal is not None:
                prompt = _prompt(scene, hand, legal)
            buttons = action_buttons(scene, hand)
    elif hand is not None:
        lines.append(t("table.hand_over", loc))
    elif table.paused:
        lines.append(t("table.paused", loc))
    elif scene.dealing and table.can_start():
        lines.append(t("table.next_hand", loc))
    elif scene.dealing:
        lines.append(t("table.waiting_players", loc))
    else:
        lines.append(t("table.not_started", loc))
    tail = ""
    if scene.commitment is not None and hand is not None:
        tail = t("table.commitment", loc, digest=scene.commitment)
    return TableMessage("\n".join(lines), view, buttons, scene.hand_number, prompt, tail)


def run_out_message(scene: Scene, stage: RunOutStage) -> TableMessage:
    """The table message at one street of the scene's hand's all-in run-out, before its
    result: the board so far, every live hand face up with its chances (image and words)."""
    loc = scene.locale
    hand = scene.table.hand
    frame = equity_view(scene, stage)
    lines = [_title(scene)]
    if stage.board:
        board = cards_text(stage.board)
        if hand is not None and hand.second_board is not None:
            lines.append(t("table.board_run", loc, run=stage.run, cards=board))
        else:
            lines.append(t("table.board", loc, cards=board))
    lines.extend(frame.lines)
    tail = t("table.commitment", loc, digest=scene.commitment) if scene.commitment else ""
    return TableMessage("\n".join(lines), frame.view, (), scene.hand_number, None, tail)


# --- the result of a hand -----------------------------------------------------------------


def result_content(scene: Scene) -> str:
    """The result message of the hand that just ended (the scene's hand, over)."""
    loc = scene.locale
    table = scene.table
    hand = table.hand
    assert hand is not None and hand.result is not None
    result = hand.result
    players = table.hand_players
    lines = [t("result.title", loc, hand=scene.hand_number)]
    if result.voided:
        lines.append(t("result.voided", loc))
        return "\n".join(lines)
    if hand.second_board is not None:
        for run, board in enumerate(hand.boards, start=1):
            lines.append(t("table.board_run", loc, run=run, cards=cards_text(board)))
    elif hand.board:
        lines.append(t("table.board", loc, cards=cards_text(hand.board)))
    showdown = result.showdown and len(hand.board) == 5
    count = len({pot.index for pot in result.pots})
    for pot in result.pots:
        where = award_pot_name(pot, count, loc)
        for player, share in pot.shares:
            if share <= 0:
                continue
            who = text_name(scene, int(players[player]))
            # A hand nobody showed is not named.
            named = showdown and player in result.shown
            rank = award_rank(hand, pot, player) if named else None
            words = {"player": who, "amount": chips(share, loc), "pot": where, "run": pot.run}
            key = "result.wins_run" if pot.run else "result.wins"
            if rank is not None:
                lines.append(t(key + "_with", loc, hand=describe_rank(rank, loc), **words))
            else:
                lines.append(t(key, loc, **words))
    for i in result.shown:
        who = text_name(scene, int(players[i]))
        lines.append(t("result.shows", loc, player=who, cards=cards_text(hand.hole_cards(i))))
    for event in hand.events:
        if isinstance(event, HandMucked):
            who = text_name(scene, int(players[event.player]))
            lines.append(t("result.mucks", loc, player=who))
    lines.append(t("result.verify", loc, hand=scene.hand_number))
    return "\n".join(lines)


# --- private views --------------------------------------------------------------------------


def hole_cards_view(hand: Hand, index: int, caption: str, locale: object) -> HoleCardsView:
    """The private image of one player's cards (and his hand in words once there is a flop)."""
    cards = tuple(format_card(c) for c in hand.hole_cards(index))
    rank = hand.rank(index)
    name = describe_hand(hand, index, locale)
    label = describe_rank(rank, locale, short=True) if rank is not None else ""
    return HoleCardsView(cards=cards, hand_name=name, caption=caption, hand_label=label)


def hole_cards_text(hand: Hand, index: int, locale: object) -> str:
    cards = cards_text(hand.hole_cards(index))
    words = describe_hand(hand, index, locale)
    if not words:
        return t("cards.text", locale, cards=cards)
    return t("cards.text_with_hand", locale, cards=cards, hand=words)


def ack_for(events: Sequence[object], player: int) -> ActionTaken | None:
    """The action the player himself took among the events an input caused."""
    for event in events:
        if isinstance(event, ActionTaken) and event.player == player and event.auto is None:
            return event
    return None



# --- tournaments ----------------------------------------------------------------------------


def tournament_labels(locale: object = None) -> TournamentLabels:
    """The status board's words from the catalog (``board.<field>``), per catalog language."""
    return catalog_words(TournamentLabels, "board", locale)


_PHASES = {"registering": Phase.REGISTERING, "running": Phase.RUNNING,
           "finished": Phase.FINISHED, "cancelled": Phase.CANCELLED}


def tournament_view(
    status: TournamentStatus,
    names: Mapping[Any, str],
    *,
    name: str,
    config: TournamentConfig,
    away: Collection[PlayerId] = (),
    phase: str | None = None,
) -> TournamentView:
    """The engine's status as the status board draws it (raw names: images and alt text
    render no markdown). ``phase`` overrides the engine's (a cancelled tournament)."""

    def called(player: PlayerId) -> str:
        return names.get(player) or str(player)

    nxt = status.next_level
    return TournamentView(
        name=name,
        phase=_PHASES[phase or status.state.value],
        level=status.level,
        small_blind=status.small_blind,
        big_blind=status.big_blind,
        ante=status.ante,
        big_blind_ante=status.ante_kind is not AnteKind.PER_PLAYER,
        next_level=(nxt.small_blind, nxt.big_blind, nxt.ante) if nxt else None,
        seconds_to_next_level=status.seconds_to_next_level,
        seconds_left=status.seconds_left,
        on_break=status.on_break,
        paused=status.paused,
        time_up=status.time_up,
        entrants=status.entrants,
        max_players=config.max_players,
        players_left=status.players_left,
        starting_stack=config.starting_stack,
        buy_in=config.buy_in,
        average_stack=status.average_stack,
        largest_stack=status.largest_stack,
        chip_leader=called(status.chip_leader) if status.chip_leader is not None else None,
        prize_pool=status.prize_pool,
        payouts=status.prizes,
        late_registration_level=status.late_registration_level,
        registration_open=status.registration_open,
        tables=tuple(
            TablePanel(
                table.number,
                tuple(PlayerLine(called(p), stack, seat, p in away)
                      for seat, p, stack in table.seats),
                table.in_hand,
            )
            for table in status.tables
        ),
        registered=tuple(called(p) for p in status.players)
        if status.state.value == "registering" else (),
        standings=tuple(PlaceLine(s.place, called(s.player_id), s.prize, s.tied)
                        for s in status.standings),
    )


def stakes_text(small_blind: int, big_blind: int, ante: int, kind: AnteKind,
                locale: object = None) -> str:
    """"Blinds 50/100, big blind ante 100" in the reader's words."""
    text = t("table.stakes", locale, small_blind=chips(small_blind, locale),
             big_blind=chips(big_blind, locale))
    if ante:
        key = "tournament.bb_ante" if kind is AnteKind.BIG_BLIND else "tournament.ante"
        text += t(key, locale, ante=chips(ante, locale))
    return text


def place_text(standing: Standing, locale: object = None) -> str:
    """One line of the results: the place (shared places say so), the player, the prize."""
    key = "tournament.place_tied" if standing.tied > 1 else "tournament.place"
    line = t(key, locale, place=standing.place, player=mention(int(standing.player_id)))
    if standing.prize:
        line += t("tournament.place_prize", locale, prize=chips(standing.prize, locale))
    return line


def results_text(
    name: str,
    standings: Sequence[Standing],
    locale: object = None,
    *,
    winning_hand: tuple[str, tuple[str, ...]] | None = None,
    reason: str | None = None,
) -> str:
    """The post that ends a tournament: who won, with what hand, and every place and prize."""
    lines = [t("tournament.finished", locale, name=safe_text(name))]
    if reason == "time":
        lines.append(t("tournament.finished_time", locale))
    if standings:
        lines.append(t("tournament.winner", locale, player=mention(int(standings[0].player_id))))
    if winning_hand is not None:
        code, ranks = winning_hand
        lines.append(t("tournament.winning_hand", locale,
                       hand=hand_words(code, ranks, locale)))
    lines.extend(place_text(s, locale) for s in standings)
    return "\n".join(lines)


# --- a tournament's news ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentScene:
    """What a tournament's announcements are worded from: its name, its language, its own
    channel (the lobby) and each table's channel by number, the time now (Unix seconds) and
    the champion's hand once it is over."""

    name: str
    locale: str | None
    lobby: int
    channels: Mapping[int, int]
    moment: float
    winning_hand: tuple[str, tuple[str, ...]] | None = None

    def where(self, table: int | None) -> str:
        channel = self.channels.get(table) if table is not None else None
        return f"<#{channel if channel is not None else self.lobby}>"


@dataclass(frozen=True, slots=True)
class News:
    """One announcement and whom it is for: ``LOBBY`` (the tournament's channel),
    ``EVERYWHERE`` (the lobby and every table), or a table by its number."""

    to: int
    text: str


LOBBY = -1
EVERYWHERE = -2


def tournament_news(event: object, scene: TournamentScene) -> list[News]:
    """What a tournament's stored event is told as, and where (nothing for events the
    tables show themselves, such as a hand's eliminations)."""
    loc = scene.locale
    if isinstance(event, TournamentStarted):
        return [News(LOBBY, tournament_start_text(event, scene))]
    if isinstance(event, PlayerRegistered):
        if is_bot(int(event.player_id)):
            return []  # the host's reply counts the bots; a line each would flood the lobby
        key = "tournament.registered_late" if event.late else "tournament.registered"
        return [News(LOBBY, t(key, loc, player=mention(int(event.player_id)),
                              entrants=event.entrants, pool=chips(event.prize_pool, loc),
                              table=event.table or 0, seat=event.seat or 0,
                              channel=scene.where(event.table if event.late else None)))]
    if isinstance(event, RegistrationClosed):
        return [News(LOBBY, t("tournament.registration_closed", loc, entrants=event.entrants,
                              pool=chips(event.prize_pool, loc)))]
    if isinstance(event, LevelStarted):
        if event.level <= 1:
            return []
        stakes = stakes_text(event.small_blind, event.big_blind, event.ante, event.ante_kind,
                             loc)
        return [News(EVERYWHERE, t("tournament.level", loc, level=event.level, stakes=stakes))]
    if isinstance(event, BreakStarted):
        until = f"<t:{int(scene.moment + event.seconds)}:R>"
        return [News(EVERYWHERE, t("tournament.break", loc, until=until))]
    simple = {TimeUp: "tournament.time_up", TournamentPaused: "tournament.paused",
              TournamentResumed: "tournament.resumed"}
    for kind, key in simple.items():
        if isinstance(event, kind):
            return [News(EVERYWHERE, t(key, loc))]
    if isinstance(event, PlayerMoved):
        if event.to_table not in scene.channels:
            return []
        player = mention(int(event.player_id))
        # A player whose table broke is not moved to balance the tables: say which it is.
        out = ("tournament.moved_out_broken" if event.reason == "table_broken"
               else "tournament.moved_out")
        news = [News(event.to_table, t("tournament.moved_in", loc, player=player,
                                       table=event.from_table, seat=event.to_seat,
                                       stack=chips(event.stack, loc)))]
        if event.from_table in scene.channels:
            news.insert(0, News(event.from_table, t(out, loc, player=player,
                                                    table=event.to_table,
                                                    channel=scene.where(event.to_table))))
        return news
    if isinstance(event, TableOpened):
        if event.table not in scene.channels:
            return []
        return [News(LOBBY, t("tournament.table_opened", loc, table=event.table,
                              channel=scene.where(event.table)))]
    if isinstance(event, TableBroken):
        if event.table not in scene.channels:
            return []
        return [News(event.table, t("tournament.table_broken", loc, table=event.table))]
    if isinstance(event, FinalTable):
        players = ", ".join(mention(int(p)) for p in event.players)
        text = t("tournament.final_table", loc, players=players,
                 channel=scene.where(event.table))
        news = [News(LOBBY, text)]
        if scene.channels.get(event.table, scene.lobby) != scene.lobby:
            news.append(News(event.table, text))
        return news
    if isinstance(event, TournamentFinished):
        return [News(EVERYWHERE, results_text(scene.name, event.standings, loc,
                                              winning_hand=scene.winning_hand,
                                              reason=event.reason))]
    return []


def tournament_start_text(event: TournamentStarted, scene: TournamentScene) -> str:
    """The start: entrants, the pool, and the seat draw table by table."""
    loc = scene.locale
    lines = [t("tournament.started", loc, name=safe_text(scene.name), entrants=event.entrants,
               pool=chips(event.prize_pool, loc))]
    for table in sorted({n for n, _, _ in event.seats}):
        seated = ", ".join(f"{seat}: {mention(int(p))}" for n, seat, p in event.seats
                           if n == table)
        where = f"<#{scene.channels[table]}>" if table in scene.channels else ""
        lines.append(t("tournament.started_table", loc, table=table, channel=where,
                       players=seated))
    return "\n".join(lines)


def moved_dm_text(event: PlayerMoved, name: str, link: str, locale: object) -> str:
    """The direct message telling a moved player where he plays now."""
    return t("tournament.moved_dm", locale, name=safe_text(name), table=event.to_table,
             seat=event.to_seat, stack=chips(event.stack, locale), link=link)


def tournament_opening_text(
    name: str,
    host_id: int,
    config: TournamentConfig,
    locale: object,
    *,
    ends_at: float | None = None,
    starts_at: float | None = None,
) -> str:
    """The post that opens registration."""
    first = config.levels[0]
    lines = [t("tournament.opened", locale, name=safe_text(name), host=mention(host_id),
               buy_in=chips(config.buy_in, locale), stack=chips(config.starting_stack, locale),
               players=config.max_players),
             t("tournament.opened_levels", locale, levels=len(config.levels),
               minutes=f"{first.minutes:g}",
               stakes=stakes_text(first.small_blind, first.big_blind, first.ante,
                                  config.ante_kind, locale))]
    if ends_at is not None:
        lines.append(t("tournament.opened_ends", locale, ends=f"<t:{int(ends_at)}:f>"))
    if starts_at is not None:
        lines.append(t("tournament.opened_starts", locale, starts=f"<t:{int(starts_at)}:R>"))
    lines.append(t("tournament.opened_register", locale))
    return "\n".join(lines)


def tournament_called_off_text(
    name: str, players: int, locale: object, *, host: int | None = None, amount: int = 0,
    idle: bool = False,
) -> str:
    """A tournament cancelled by its host (``host``), one that could not start at its time, or
    (``idle``) a registration nobody started, closed by the idle sweep."""
    if idle:
        return t("tournament.closed_idle", locale, name=safe_text(name), players=players)
    if host is None:
        return t("tournament.start_failed", locale, name=safe_text(name), players=players)
    return t("tournament.cancelled", locale, name=safe_text(name), host=mention(host),
             players=players, amount=chips(amount, locale))


def eliminated_text(event: PlayerEliminated, locale: object) -> str:
    """A player out of the tournament, under the result of the hand that put him out."""
    player = mention(int(event.player_id))
    if event.place is None:
        return t("tournament.eliminated", locale, player=player)
    key = "tournament.eliminated_tied" if event.tied > 1 else "tournament.eliminated_place"
    return t(key, locale, player=player, place=event.place)


def tournament_header(name: str, table: int, level: int, locale: object, *, final: bool,
                      break_until: float | None) -> str:
    """What heads a tournament table's message: the tournament, the table and the level, and
    the end of a break in progress."""
    key = "tournament.header_final" if final else "tournament.header"
    head = [t(key, locale, name=safe_text(name), table=table, level=level)]
    if break_until is not None:
        head.append(t("tournament.on_break", locale, until=f"<t:{int(break_until)}:R>"))
    return "\n".join(head)
