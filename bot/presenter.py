"""What players see, built from the engine's state: images to render, message text, buttons.

Every word comes from the message catalog (``bot/locales``) through :func:`bot.i18n.t`; this
module only decides which message to show and fills in names and amounts. Nothing here talks to
Discord: the runtime sends what this builds, ``bot.ui`` turns button specs into components.

Privacy is decided here: a hole card reaches a public view only when its hand was shown at
showdown (``hand.shown``); mucked and folded hands never do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from discord.utils import escape_markdown, escape_mentions

from bot.i18n import number, t
from bot.render import HoleCardsView, Labels, PotView, SeatState, SeatView, Street, TableView
from bot.render.labels import catalog_labels, hand_words
from bot.render.model import MAX_SEATS as MAX_RENDER_SEATS
from bot.render.model import Blind
from engine.cards import Card, format_card, pretty_cards
from engine.evaluator import HandRank
from engine.hand import ActionTaken, Hand, HandMucked, Legal, StraddleMode
from engine.table import PlayerState, Table

__all__ = ["MAX_RENDER_SEATS"]


# --- words -------------------------------------------------------------------------------


def labels_for(locale: object) -> Labels:
    """The renderer's words from the catalog (``render.<field>``), per catalog language."""
    return catalog_labels(locale)


def chips(amount: int, locale: object = None) -> str:
    """Every amount of every message, as the reader's locale writes numbers."""
    return number(amount, locale)


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def safe_text(text: str) -> str:
    """User-supplied text (a display name) as it may appear in a message: no markdown, no
    masked link, no mention or @everyone. Images and alt text take the raw name."""
    return escape_mentions(escape_markdown(text))


def decision_number(hand: Hand) -> int:
    """How many decisions of this hand have been taken: names the one now due, so a button
    drawn for it cannot act on a later one (a double click acts once)."""
    return sum(1 for event in hand.events if isinstance(event, ActionTaken))


def cards_text(cards: Sequence[Card]) -> str:
    """Cards for people (``A♠ 10♥``): the symbols read the same in every language."""
    return pretty_cards(cards)


def describe_rank(rank: HandRank, locale: object = None, *, short: bool = False) -> str:
    """A hand's name in the catalog's words, e.g. "Two pair, jacks and fours, ace kicker";
    ``short``: what an image's badge holds ("Jacks and fours")."""
    code, ranks = rank.describe_parts()
    return hand_words(code, ranks, locale, short=short)


def pot_name(index: int, count: int, locale: object = None) -> str:
    if count == 1:
        return t("pot.single", locale)
    return t("pot.main", locale) if index == 0 else t("pot.side", locale, n=index)


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


def name_of(scene: Scene, player_id: int) -> str:
    """The raw display name (for images and alt text, which render no markdown)."""
    return scene.names.get(player_id) or t("player.unknown", scene.locale, id=player_id)


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
            else (None, None)
        )
    best_five: tuple[str, ...] = ()
    hand_name = hand_label = ""
    if i in hand.shown and hand.is_over and len(hand.board) == 5:
        rank = hand.rank(i)
        if rank is not None:
            best_five = tuple(format_card(c) for c in rank.cards)
            hand_name = describe_rank(rank, scene.locale)
            hand_label = describe_rank(rank, scene.locale, short=True)
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
        best_five=best_five,
        hand_name=hand_name,
        hand_label=hand_label,
    )


def table_view(scene: Scene) -> TableView:
    """The public image of the table: nobody's hidden cards, whatever the scene holds."""
    table = scene.table
    options = table.options
    hand = table.hand
    mucked = {e.player for e in hand.events if isinstance(e, HandMucked)} if hand else set()
    won = hand.result.won if hand is not None and hand.result is not None else None
    count = min(options.seats, MAX_RENDER_SEATS)
    seats = tuple(_seat_view(scene, seat, mucked, won) for seat in range(1, count + 1))
    pots: tuple[PotView, ...] = ()
    street = Street.WAITING
    board: tuple[str, ...] = ()
    if hand is not None:
        street = Street(hand.street.value)
        if hand.result is not None and hand.result.showdown:
            street = Street.SHOWDOWN  # the engine says COMPLETE; players saw a showdown
        board = tuple(format_card(c) for c in hand.board)
        if hand.result is not None:
            pots = tuple(
                PotView(
                    pot.amount,
                    winners=tuple(
                        table.hand_seats[p] - 1
                        for p, share in pot.shares
                        if share > 0 and table.hand_seats[p] <= count
                    ),
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
    )


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
        label = t("button.all_in", loc, amount=chips(legal.max_raise_to, loc))
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
    title = "table.title" if scene.hand_number else "table.title_new"
    lines = [t(title, loc, hand=scene.hand_number, stakes=_stakes(scene))]
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
    if hand.board:
        lines.append(t("table.board", loc, cards=cards_text(hand.board)))
    second = hand.second_board
    if second:
        lines.append(t("table.board_second", loc, cards=cards_text(second)))
    showdown = result.showdown and len(hand.board) == 5
    count = len({pot.index for pot in result.pots})
    for pot in result.pots:
        label = pot_name(pot.index, count, loc)
        if pot.run:
            label = t("result.pot_run", loc, pot=label, run=pot.run)
        for player, share in pot.shares:
            if share <= 0:
                continue
            who = text_name(scene, int(players[player]))
            rank = (
                hand.rank(player, run=pot.run or 1)
                if showdown and player in result.shown
                else None
            )
            if rank is not None:
                lines.append(
                    t(
                        "result.wins_with",
                        loc,
                        player=who,
                        amount=chips(share, loc),
                        pot=label,
                        hand=describe_rank(rank, loc),
                    )
                )
            else:
                lines.append(
                    t("result.wins", loc, player=who, amount=chips(share, loc), pot=label)
                )
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
    first, second = (format_card(c) for c in hand.hole_cards(index))
    rank = hand.rank(index)
    name = describe_rank(rank, locale) if rank is not None else ""
    label = describe_rank(rank, locale, short=True) if rank is not None else ""
    return HoleCardsView(cards=(first, second), hand_name=name, caption=caption, hand_label=label)


def hole_cards_text(hand: Hand, index: int, locale: object) -> str:
    cards = cards_text(hand.hole_cards(index))
    rank = hand.rank(index)
    if rank is None:
        return t("cards.text", locale, cards=cards)
    return t("cards.text_with_hand", locale, cards=cards, hand=describe_rank(rank, locale))


def ack_for(events: Sequence[object], player: int) -> ActionTaken | None:
    """The action the player himself took among the events an input caused."""
    for event in events:
        if isinstance(event, ActionTaken) and event.player == player and event.auto is None:
            return event
    return None

