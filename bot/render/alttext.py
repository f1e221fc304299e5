"""Alt text: what a screen-reader user needs from the image, in words.

Discord accepts up to 1024 characters of description per attachment. The description names
the hand and stakes, the board, every pot (and who won it), every seat in order with its
stack, bet, state and any cards shown, and whose turn it is. Cards are spoken ("ace of
spades"); if that makes the text too long it falls back to symbols ("A♠"), then is cut.

Names are the players' own, raw in the view (the image draws them); each is isolated as it
is written into a sentence here (:func:`bot.i18n.isolate`), so a right-to-left override in a
name cannot reverse the rest of the description.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.i18n import isolate
from bot.render.labels import DEFAULT_LABELS, Labels, format_percent, format_tie
from bot.render.model import Blind, HoleCardsView, SeatEquity, SeatState, SeatView, TableView

__all__ = ["ALT_TEXT_LIMIT", "hole_cards_alt_text", "table_alt_text"]

ALT_TEXT_LIMIT = 1024
_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def _symbol(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + _SYMBOLS[card[1]]


def _names(labels: Labels, names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return labels.alt_list.join(names[:-1]) + labels.alt_and + names[-1]


def _seat_words(n: int, seat: SeatView | None, labels: Labels,
                card: Callable[[str], str], runs: int) -> str:
    if seat is None:
        return labels.alt_empty_seat.format(n=n)
    bits = [labels.alt_seat.format(n=n, name=isolate(seat.name))]
    if seat.is_button:
        bits.append(labels.alt_dealer)
    if seat.blind is Blind.SMALL:
        bits.append(labels.alt_small_blind)
    elif seat.blind is Blind.BIG:
        bits.append(labels.alt_big_blind)
    if seat.state is not SeatState.ACTIVE:
        bits.append(labels.state(seat.state).lower())
    bits.append(labels.alt_stack.format(amount=labels.chips(seat.stack)))
    if seat.bet:
        bits.append(labels.alt_bet.format(amount=labels.chips(seat.bet)))
    if seat.mucked:
        bits.append(labels.mucked.lower())
    cards = seat.visible_cards
    faces = [c for c in cards if c is not None]
    hidden = len(cards) - len(faces)
    if faces:
        bits.append(labels.alt_shows.format(cards=labels.alt_list.join(card(c) for c in faces)))
    if hidden:
        bits.append(labels.alt_face_down.format(count=hidden))
    if seat.hand_name and seat.shows_faces:
        if seat.second_hand_name:
            bits.append(labels.alt_on_run.format(run=labels.run.format(n=1), hand=seat.hand_name))
            bits.append(labels.alt_on_run.format(run=labels.run.format(n=2),
                                                 hand=seat.second_hand_name))
        else:
            bits.append(seat.hand_name)
    if seat.shown_low(runs):
        bits.append(labels.low_hand.format(hand=seat.low_hand))
    if seat.equity is not None and seat.shows_faces:
        bits.append(_equity_words(seat.equity, labels))
    if seat.is_winner:
        bits.append(labels.alt_winner)
    if seat.to_act:
        bits.append(labels.to_act.lower())
    return labels.alt_comma.join(bits)


def _equity_words(equity: SeatEquity, labels: Labels) -> str:
    win = format_percent(equity.win, equity.exact)
    tie = format_tie(equity.tie, equity.exact)
    if tie is None:
        return labels.alt_equity.format(win=win)
    return labels.alt_equity_tie.format(win=win, tie=tie)


def _compose(view: TableView, labels: Labels, card: Callable[[str], str]) -> str:
    head = [labels.alt_table]
    if view.hand_number is not None:
        head.append(labels.hand.format(n=view.hand_number))
    head.append(labels.street(view.street))
    parts = [labels.alt_comma.join(head) + labels.alt_period]
    stakes = []
    if view.big_blind:
        stakes.append(labels.blinds.format(sb=labels.chips(view.small_blind),
                                           bb=labels.chips(view.big_blind)))
    if view.ante:
        stakes.append(labels.ante.format(ante=labels.chips(view.ante)))
    if stakes:
        parts.append(labels.alt_comma.join(stakes) + labels.alt_period)
    if view.runs == 2:
        for run, board in enumerate((view.board, view.second_board), start=1):
            parts.append(labels.alt_run_board.format(
                run=labels.run.format(n=run),
                cards=labels.alt_list.join(card(c) for c in board)))
    elif view.board:
        parts.append(labels.alt_board.format(
            cards=labels.alt_list.join(card(c) for c in view.board)))
    else:
        parts.append(labels.alt_no_board)
    count = len(view.whole_pots)
    if view.pot_total and not view.has_results:
        parts.append(labels.alt_pot_total.format(amount=labels.chips(view.pot_total)))
    pending = []
    for number, pot in zip(view.pot_numbers, view.pots, strict=True):
        name = labels.pot_label(number, count, pot.label)
        if pot.half:
            half = labels.alt_low_half if pot.half == "low" else labels.alt_high_half
            name = half.format(pot=name)
        if pot.run:
            name = labels.alt_run_pot.format(run=labels.run.format(n=pot.run), pot=name)
        amount = labels.chips(pot.amount)
        if pot.winners:
            winners = [isolate(s.name) for w in pot.winners if (s := view.seats[w]) is not None]
            template = labels.alt_pot_split if len(winners) > 1 else labels.alt_pot_won
            parts.append(template.format(pot=name, amount=amount,
                                         names=_names(labels, winners)))
        else:
            pending.append(labels.pot_amount.format(pot=name, amount=amount))
    if pending and (view.has_results or len(pending) > 1):
        parts.append(labels.alt_pots.format(pots=labels.alt_comma.join(pending)))
    elif not view.pot_total:
        parts.append(labels.alt_no_pot)
    parts.append(labels.alt_semicolon.join(_seat_words(i + 1, seat, labels, card, view.runs)
                                           for i, seat in enumerate(view.seats))
                 + labels.alt_period)
    shown = [s.equity for s in view.seats if s is not None and s.equity is not None]
    if shown:
        exact = all(equity.exact for equity in shown)
        parts.append(labels.alt_equity_exact if exact else labels.alt_equity_estimate)
    for seat in view.seats:
        if seat is not None and seat.to_act:
            parts.append(labels.alt_to_act.format(name=isolate(seat.name)))
    return labels.alt_space.join(parts)


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def table_alt_text(view: TableView, labels: Labels = DEFAULT_LABELS,
                   limit: int = ALT_TEXT_LIMIT) -> str:
    """Describe the table for a screen reader, in at most ``limit`` characters."""
    text = _compose(view, labels, labels.card_words)
    if len(text) > limit:
        text = _compose(view, labels, _symbol)
    return _fit(text, limit)


def hole_cards_alt_text(view: HoleCardsView, labels: Labels = DEFAULT_LABELS,
                        limit: int = ALT_TEXT_LIMIT) -> str:
    parts = [labels.alt_hole_cards.format(cards=labels.alt_list.join(labels.card_words(c)
                                                                  for c in view.cards))]
    if view.hand_name:
        parts.append(labels.alt_current_hand.format(hand=view.hand_name))
    if view.caption:
        parts.append(view.caption)
    return _fit(labels.alt_space.join(parts), limit)
