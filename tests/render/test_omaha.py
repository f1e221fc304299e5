"""Omaha hands (four or five hole cards) and high-low results: the hole-card image, the table
image and both alt texts."""

from __future__ import annotations

import dataclasses
import io
import itertools

import pytest
from PIL import Image, ImageChops

from bot.render import (
    DeckStyle,
    HoleCardsView,
    Labels,
    PotView,
    SeatState,
    SeatView,
    Street,
    TableView,
    assets,
    draw_table,
    render_hole_cards,
    render_table,
    samples,
)
from bot.render.alttext import ALT_TEXT_LIMIT, hole_cards_alt_text, table_alt_text
from bot.render.cardart import MASTER_SIZE
from bot.render.holecards import HOLE_WIDTH, draw_hole_cards, hole_card_boxes, hole_width
from bot.render.labels import DEFAULT_LABELS
from bot.render.layout import INDEX_HEIGHT, INDEX_WIDTH, table_layout
from bot.render.model import RANKS, SUITS
from engine.cards import format_card, parse_cards
from engine.equity import equity
from engine.evaluator import evaluate_omaha
from engine.games import PLO5
from engine.low import evaluate_low

HANDS = {
    2: ("Ad", "Kc"),
    4: ("Ad", "Kc", "Th", "7s"),
    5: ("Ad", "Kc", "Th", "7s", "2d"),
}


@pytest.mark.parametrize("count", sorted(HANDS))
def test_the_hole_card_image_holds_every_card_within_a_phone_width(count: int) -> None:
    view = HoleCardsView(cards=HANDS[count], hand_name="Pair of aces", caption="#t · Hand #1")
    image = render_hole_cards(view)
    with Image.open(io.BytesIO(image.png)) as png:
        assert png.size == (image.width, image.height) == draw_hole_cards(view).size
    assert image.width == hole_width(count)
    assert HOLE_WIDTH == hole_width(2) <= image.width <= 520
    assert len(image.png) <= 32 * 1024
    boxes = hole_card_boxes(view)
    assert len(boxes) == count
    for box in boxes:
        assert box[2] - box[0] == MASTER_SIZE[0]  # no card is shrunk: they overlap instead
        assert box[0] > 0 and box[1] > 0 and box[2] < image.width and box[3] < image.height


@pytest.mark.parametrize("count", sorted(HANDS))
def test_every_hole_cards_rank_and_suit_show(count: int) -> None:
    boxes = hole_card_boxes(HoleCardsView(cards=HANDS[count]))
    w, h = MASTER_SIZE
    for box, after in itertools.pairwise(boxes):
        assert after[0] >= box[0] + w * INDEX_WIDTH + 1
        assert after[1] == box[1] and box[3] - box[1] > h * INDEX_HEIGHT


@pytest.mark.parametrize("count", sorted(HANDS))
def test_each_card_is_drawn(count: int) -> None:
    """Changing any one card changes the picture."""
    cards = HANDS[count]
    base = draw_hole_cards(HoleCardsView(cards=cards))
    for i in range(count):
        other = (*cards[:i], "9c", *cards[i + 1:])
        changed = draw_hole_cards(HoleCardsView(cards=other))
        assert base.tobytes() != changed.tobytes(), f"card {i} is not drawn"


@pytest.mark.parametrize("count", sorted(HANDS))
def test_the_alt_text_names_every_own_card(count: int) -> None:
    text = hole_cards_alt_text(HoleCardsView(cards=HANDS[count]))
    words = ["ace of diamonds", "king of clubs", "ten of hearts", "seven of spades",
             "two of diamonds"][:count]
    assert text == "Your cards: " + ", ".join(words) + "."


def _raised(view: TableView, image: Image.Image, index: int) -> list[bool]:
    """Which cards of seat ``index`` are drawn raised: the card's own rank and suit show
    where they would be after rising."""
    seat = view.seats[index]
    assert seat is not None
    row = table_layout(view.seat_count).seats[index].cards(len(seat.cards))
    found = []
    for card, (x, y, _, _) in zip(seat.cards, row.boxes, strict=True):
        corner = (2, 6, 20, 30)  # inside the card's top-left corner, clear of its rounding
        face = Image.new("RGB", row.size)
        art = assets.card_image(card, view.deck, row.size)
        face.paste(art, (0, 0), art)
        lifted = image.crop((x + 2, y - row.lift + 6, x + 20, y - row.lift + 30))
        found.append(ImageChops.difference(lifted, face.crop(corner)).getbbox() is None)
    return found


# --- the table --------------------------------------------------------------------------------

DECK = [rank + suit for rank in RANKS for suit in SUITS]


def _dealt(seats: int, holes: int, board: int, shown: int) -> TableView:
    """``seats`` players dealt ``holes`` cards each from one deck, the first ``shown`` face
    up at a showdown, the rest face down, with long names and stacks."""
    cards = DECK[board:]
    views = []
    for i in range(seats):
        hand = tuple(cards[i * holes:(i + 1) * holes])
        views.append(SeatView(f"Player {i} with a long name", 1_234_567 * (i + 1),
                              cards=hand if i < shown else (None,) * holes,
                              hand_name="Two pair, jacks and fours, ace kicker" if i < shown
                              else "", low_hand="8-6-4-2-A" if i < shown else ""))
    return TableView(seats=tuple(views), board=tuple(DECK[:board]),
                     pots=tuple(PotView(10_000 * (i + 1), winners=(i,))
                                for i in range(min(seats, 4))),
                     small_blind=5_000, big_blind=10_000, ante=1_000, hand_number=987_654,
                     street=Street.SHOWDOWN)


@pytest.mark.parametrize(("seats", "holes", "board", "shown"), [
    (10, 5, 0, 10),  # 50 cards: every hand of five up, no board
    (10, 5, 5, 9),
    (9, 5, 5, 9),
    (10, 4, 5, 10),
])
def test_the_alt_text_stays_within_its_limit(seats: int, holes: int, board: int,
                                             shown: int) -> None:
    view = _dealt(seats, holes, board, shown)
    text = table_alt_text(view)
    assert len(text) <= ALT_TEXT_LIMIT
    assert len(render_table(view).alt_text) <= ALT_TEXT_LIMIT
    whole = table_alt_text(view, limit=100_000)
    for seat in view.seats:
        assert seat is not None
        for card in seat.cards:
            if card is not None:
                assert DEFAULT_LABELS.card_words(card) in whole


@pytest.mark.parametrize("holes", [4, 5])
def test_the_alt_text_names_shown_cards_and_never_hidden_ones(holes: int) -> None:
    view = _dealt(6, holes, 3, 2)
    text = table_alt_text(view, limit=100_000)
    hidden = DECK[3 + 2 * holes: 3 + 6 * holes]
    for card in DECK[3:3 + 2 * holes]:
        assert DEFAULT_LABELS.card_words(card) in text
    for card in hidden:
        assert DEFAULT_LABELS.card_words(card) not in text
    assert text.count(f"{holes} cards face down") == 4


@pytest.mark.parametrize("holes", [4, 5])
@pytest.mark.parametrize("change", [{"state": SeatState.FOLDED}, {"mucked": True}])
def test_folded_and_mucked_omaha_hands_are_never_named(holes: int,
                                                       change: dict[str, object]) -> None:
    view = _dealt(3, holes, 5, 3)
    seats = list(view.seats)
    seats[1] = dataclasses.replace(seats[1], **change)  # type: ignore[arg-type]
    text = table_alt_text(dataclasses.replace(view, seats=tuple(seats)), limit=100_000)
    for card in DECK[5 + holes:5 + 2 * holes]:
        assert DEFAULT_LABELS.card_words(card) not in text


def test_the_worst_omaha_table_stays_under_100_kb() -> None:
    for holes, board, shown in ((5, 0, 10), (4, 5, 10), (5, 5, 9)):
        image = render_table(dataclasses.replace(_dealt(10, holes, board, shown),
                                                 deck=DeckStyle.FOUR_COLOR))
        assert len(image.png) <= 100 * 1024


def test_an_omaha_winner_raises_the_two_hole_cards_of_his_best_five() -> None:
    """In Omaha exactly two hole cards play: those two rise out of the overlapping row, the
    other two are dimmed, and the board's three are ringed."""
    view = samples.plo_ten_seat_showdown()
    image = draw_table(view)
    alice = view.seats[0]
    assert alice is not None
    assert _raised(view, image, 0) == [card in alice.best_five for card in alice.cards] == [
        True, True, False, False]
    row = table_layout(view.seat_count).seats[0].cards(4)
    plain = dataclasses.replace(view, seats=tuple(
        dataclasses.replace(s, is_winner=False) if s else s for s in view.seats))
    box = row.visible[2]  # the 7d, not in the best five: dimmed only when Alice won
    darker = ImageChops.subtract(draw_table(plain).crop(box), image.crop(box))
    assert darker.getbbox() is not None


# --- high-low ---------------------------------------------------------------------------------


def test_a_pots_half_is_high_low_or_whole() -> None:
    for half in ("", "high", "low"):
        PotView(10, half=half)
    with pytest.raises(ValueError):
        PotView(10, half="middle")


def test_halves_of_a_hi_lo_pot_count_as_one_pot() -> None:
    seats = (SeatView("a", 1), SeatView("b", 1), SeatView("c", 1))
    view = TableView(seats=seats, pots=(
        PotView(300, (0,), half="high"), PotView(300, (1,), half="low"),
        PotView(100, (0,)),
        PotView(50, (2,), half="high"), PotView(50, (2,), half="low"),
    ))
    assert view.pot_numbers == (0, 0, 1, 2, 2)
    assert [(p.amount, p.winners) for p in view.whole_pots] == [
        (600, (0, 1)), (100, (0,)), (100, (2,))]
    assert view.whole_pot_halves == (((0,), (1,)), ((0,), ()), ((2,), (2,)))
    text = table_alt_text(view)
    assert "Main pot, high half 300 won by a. Main pot, low half 300 won by b." in text
    assert "Side pot 1 100 won by a. Side pot 2, high half 50 won by c." in text


def test_run_twice_and_hi_lo_halves_make_one_pot() -> None:
    seats = (SeatView("a", 1), SeatView("b", 1))
    view = TableView(seats=seats, board=("2c", "3d", "4h", "9s", "Kc"),
                     second_board=("2c", "3d", "4h", "Ts", "Qc"), pots=(
        PotView(150, (0,), run=1, half="high"), PotView(150, (1,), run=1, half="low"),
        PotView(300, (1,), run=2),
        PotView(80, (0,), run=1), PotView(80, (0,), run=2),
    ))
    assert view.pot_numbers == (0, 0, 0, 1, 1)
    assert [p.amount for p in view.whole_pots] == [600, 160]
    assert view.whole_pot_halves == (((0, 1), (1,)), ((0,), ()))
    assert "Run 1, Main pot, low half 150 won by b." in table_alt_text(view)


def test_the_hi_lo_sample_says_both_halves_and_every_low() -> None:
    view = samples.hi_lo_showdown()
    text = table_alt_text(view)
    assert "Pot, high half 1,200 won by Bob. Pot, low half 1,200 won by Alice." in text
    for low in ("Low: 8-5-3-2-A", "Low: 8-5-4-2-A", "Low: 8-6-5-3-2"):
        assert low in text
    assert len(text) <= ALT_TEXT_LIMIT


def test_the_low_hand_is_drawn_and_translated() -> None:
    view = samples.hi_lo_showdown()
    no_lows = dataclasses.replace(view, seats=tuple(
        dataclasses.replace(s, low_hand="") if s else s for s in view.seats))
    assert ImageChops.difference(draw_table(view), draw_table(no_lows)).getbbox() is not None
    assert "Low:" not in table_alt_text(no_lows)
    french = Labels(low_hand="Bas : {hand}", won_by_hi_lo="{pot} {amount} : {high} · bas {low}",
                    alt_low_half="{pot}, moitié basse")
    text = table_alt_text(view, french)
    assert "Bas : 8-5-3-2-A" in text and "Pot, moitié basse 1,200 won by Alice" in text
    assert ImageChops.difference(draw_table(view, french), draw_table(view)).getbbox() \
        is not None


def test_no_low_is_drawn_or_said_for_a_hidden_or_run_twice_hand() -> None:
    view = samples.hi_lo_showdown()
    mucked = dataclasses.replace(view, seats=(
        dataclasses.replace(view.seats[0], mucked=True, is_winner=False),  # type: ignore[arg-type]
        *view.seats[1:]), pots=(PotView(2_400, winners=(1,)),))
    assert "8-5-3-2-A" not in table_alt_text(mucked)
    twice = dataclasses.replace(view, second_board=("2c", "5d", "8h", "9c", "Js"))
    assert "Low:" not in table_alt_text(twice)


def test_a_low_winner_rings_his_low_not_his_high() -> None:
    """Alice won only the low half: her ace and three (her low's) rise, not her king."""
    view = samples.hi_lo_showdown()
    alice = view.seats[0]
    assert alice is not None
    assert _raised(view, draw_table(view), 0) == [True, True, False, False]
    assert [card in alice.low_five for card in alice.cards] == [True, True, False, False]


# --- the samples are the engine's -------------------------------------------------------------


def _cards(cards: tuple[str | None, ...]) -> list[int]:
    return parse_cards(" ".join(c for c in cards if c is not None))


@pytest.mark.parametrize("factory", [samples.plo_ten_seat_showdown, samples.hi_lo_showdown])
def test_the_omaha_samples_hands_are_the_engines(factory) -> None:  # type: ignore[no-untyped-def]
    """Every shown hand's name, best five and low are the engine's, and the pots go to the
    best of them: the best high of all the main pot (or its high half), the best low its low
    half."""
    view = factory()
    board = _cards(view.board)
    highs, lows = {}, {}
    for i, seat in enumerate(view.seats):
        if seat is None or not seat.hand_name:
            continue
        rank = evaluate_omaha(_cards(seat.cards), board)
        assert seat.hand_name == rank.describe()
        highs[i] = rank.value
        if seat.is_winner and seat.best_five:
            assert set(seat.best_five) == {format_card(c) for c in rank.cards}
        low = evaluate_low(_cards(seat.cards), board)
        assert seat.low_hand == (low.describe() if low else "")
        if low is not None:
            lows[i] = low.value
            assert set(seat.low_five) == {format_card(c) for c in low.cards}
    main = view.pots[0]
    assert main.winners == (max(highs, key=lambda i: highs[i]),)
    if lows:
        assert view.pots[1].half == "low"
        assert view.pots[1].winners == (max(lows, key=lambda i: lows[i]),)


def test_the_plo5_chances_are_the_engines() -> None:
    view = samples.plo5_all_in_turn()
    shown = [s for s in view.seats if s is not None and s.equity is not None]
    found = equity([_cards(s.cards) for s in shown], _cards(view.board), game=PLO5)
    assert found.exact
    assert [(s.equity.win, s.equity.tie) for s in shown if s.equity] == [
        (h.win, h.tie) for h in found.hands]


@pytest.mark.parametrize("count", [4, 5])
def test_the_omaha_hole_card_samples_name_the_engines_hand(count: int) -> None:
    view = samples.omaha_hole_cards(count)
    assert len(view.cards) == count
    rank = evaluate_omaha(_cards(view.cards), _cards(samples.OMAHA_HOLE_BOARDS[count]))
    assert view.hand_name == rank.describe()
