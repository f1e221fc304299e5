"""Example tables and charts, for ``python -m bot.render sample``, the benchmark and the tests.

The hands shown are named in the catalog's words of ``locale`` (English by default), in full
for the alt text and in short for the badges, as the bot names them.
"""

from __future__ import annotations

import dataclasses
import random

from PIL import Image

from bot.i18n import t
from bot.render.assets import deck
from bot.render.cardart import MASTER_SIZE, card_codes
from bot.render.charts import ChartSeries, ChartView
from bot.render.labels import hand_words
from bot.render.model import (
    Blind,
    DeckStyle,
    HoleCardsView,
    PotView,
    ReplayFrame,
    ReplayView,
    SeatEquity,
    SeatState,
    SeatView,
    Street,
    TableView,
)
from bot.render.tournament import Phase, PlaceLine, PlayerLine, TablePanel, TournamentView

__all__ = [
    "OMAHA_HOLE_BOARDS",
    "all_in_flop_equity",
    "all_in_preflop_estimate",
    "crowded_session_chart",
    "deck_sheet",
    "empty_chart",
    "heads_up_preflop",
    "hi_lo_showdown",
    "hole_cards",
    "net_chart",
    "nine_seat_river",
    "omaha_hole_cards",
    "palette_views",
    "plo5_all_in_turn",
    "plo5_nine_seat_flop",
    "plo_ten_seat_showdown",
    "replay_run_twice",
    "run_twice_second_run",
    "run_twice_showdown",
    "session_chart",
    "showdown_split",
    "six_seat_flop",
    "ten_seat_scripts",
    "tournament_finished",
    "tournament_registering",
    "tournament_running",
]

HIDDEN = (None, None)


def _hand(code: str, ranks: tuple[str, ...], locale: object) -> tuple[str, str]:
    """A hand's name in full (alt text) and in short (badge)."""
    return hand_words(code, ranks, locale), hand_words(code, ranks, locale, short=True)


def heads_up_preflop() -> TableView:
    return TableView(
        seats=(
            SeatView("Alice", 1_940, bet=20, cards=HIDDEN, is_button=True, blind=Blind.SMALL,
                     to_act=True),
            SeatView("Bob", 1_960, bet=40, cards=HIDDEN, blind=Blind.BIG),
        ),
        small_blind=20, big_blind=40, hand_number=1, street=Street.PREFLOP,
    )


def six_seat_flop(deck: DeckStyle = DeckStyle.FOUR_COLOR) -> TableView:
    return TableView(
        seats=(
            SeatView("Marta", 4_210, cards=HIDDEN, is_button=True),
            SeatView("Kenji", 2_875, bet=150, cards=HIDDEN, blind=Blind.SMALL),
            SeatView("Olu", 3_300, cards=(), state=SeatState.FOLDED, blind=Blind.BIG),
            None,
            SeatView("Priya", 6_020, bet=450, cards=HIDDEN, to_act=False),
            SeatView("Sven", 1_090, cards=HIDDEN, to_act=True),
        ),
        board=("Qh", "7d", "2c"),
        pots=(PotView(900),),
        small_blind=25, big_blind=50, ante=5, hand_number=214, street=Street.FLOP, deck=deck,
    )


def nine_seat_river() -> TableView:
    """The benchmark's table: nine players, three pots, bets out, one to act."""
    return TableView(
        seats=(
            SeatView("Alice", 12_400, bet=2_000, cards=HIDDEN),
            SeatView("Bartholomew the Magnificent", 0, cards=HIDDEN, state=SeatState.ALL_IN),
            SeatView("Chen Wei 陈伟", 8_350, cards=(), state=SeatState.FOLDED, is_button=True),
            SeatView("Dana", 0, cards=HIDDEN, state=SeatState.ALL_IN, blind=Blind.SMALL),
            SeatView("Eitan", 15_020, cards=HIDDEN, to_act=True, blind=Blind.BIG),
            SeatView("Farah", 3_300, cards=(), state=SeatState.SITTING_OUT),
            SeatView("Gustavo", 9_870, cards=(), state=SeatState.FOLDED),
            SeatView("Hana 하나", 21_450, cards=HIDDEN, state=SeatState.AWAY, bet=2_000),
            SeatView("Ivan", 5_120, cards=(), state=SeatState.FOLDED),
        ),
        board=("Ks", "Td", "7h", "7c", "2s"),
        pots=(PotView(3_600), PotView(2_400), PotView(1_250)),
        small_blind=50, big_blind=100, ante=10, hand_number=1_287, street=Street.RIVER,
    )


def showdown_split(locale: object = None) -> TableView:
    """Two players chop the main pot with the same straight; a third wins the side pot."""
    straight, straight_label = _hand("straight", ("A",), locale)
    pair, pair_label = _hand("pair", ("9", "K"), locale)
    trips, trips_label = _hand("three_of_a_kind", ("K",), locale)
    return TableView(
        seats=(
            SeatView("Alice", 3_150, cards=("Ah", "Jd"), is_winner=True,
                     best_five=("Ah", "Ks", "Qd", "Jd", "Tc"), hand_name=straight,
                     hand_label=straight_label),
            SeatView("Bob", 3_150, cards=("Ac", "Js"), is_winner=True, is_button=True,
                     best_five=("Ac", "Ks", "Qd", "Js", "Tc"), hand_name=straight,
                     hand_label=straight_label),
            SeatView("Chloé", 0, cards=("9h", "9c"), hand_name=pair, hand_label=pair_label,
                     blind=Blind.SMALL),
            SeatView("Dmitri", 4_400, cards=("Kd", "Kh"), is_winner=True,
                     best_five=("Kd", "Kh", "Ks", "Qd", "Tc"), hand_name=trips,
                     hand_label=trips_label, blind=Blind.BIG),
            SeatView("Eve", 2_000, cards=(), state=SeatState.FOLDED),
            SeatView("Faisal", 1_500, cards=("8s", "8d"), mucked=True),
        ),
        board=("Ks", "Qd", "Tc", "4h", "2s"),
        pots=(PotView(6_300, winners=(0, 1)), PotView(1_200, winners=(3,))),
        small_blind=50, big_blind=100, hand_number=88, street=Street.SHOWDOWN,
    )


def ten_seat_scripts() -> TableView:
    """Ten seats, names in many scripts (and one far too long), pre-flop."""
    return TableView(
        seats=(
            SeatView("张伟", 10_000, cards=HIDDEN),
            SeatView("さくら🌸", 9_800, bet=200, cards=HIDDEN),
            SeatView("김민준", 10_400, cards=HIDDEN, to_act=True),
            SeatView("Zoë Çelik", 9_950, cards=(), state=SeatState.FOLDED),
            SeatView("محمد", 10_000, cards=HIDDEN),
            SeatView("Ólafur Þór", 8_600, cards=HIDDEN),
            SeatView("Владимир", 12_345, cards=HIDDEN),
            SeatView("A name much too long to fit on any plate", 7_000, cards=HIDDEN,
                     is_button=True),
            SeatView("😎 Ace 🂡", 9_950, bet=50, cards=HIDDEN, blind=Blind.SMALL),
            SeatView("राहुल", 9_900, bet=100, cards=HIDDEN, blind=Blind.BIG),
        ),
        small_blind=50, big_blind=100, hand_number=3, street=Street.PREFLOP,
    )


def all_in_flop_equity() -> TableView:
    """Three hands all-in on the flop, face up, with their exact chances (the figures are
    ``engine.equity``'s for these cards; a test holds them to it): two ace-kings that can
    only chop against each other, and the jacks ahead."""
    return TableView(
        seats=(
            SeatView("Marta", 2_450, cards=(), state=SeatState.FOLDED, is_button=True),
            SeatView("Alice", 0, cards=("Ah", "Kh"), state=SeatState.ALL_IN, blind=Blind.SMALL,
                     equity=SeatEquity(329 / 903, 125 / 903)),
            SeatView("Bob", 0, cards=("Ad", "Kc"), state=SeatState.ALL_IN, blind=Blind.BIG,
                     equity=SeatEquity(0.0, 125 / 903)),
            None,
            SeatView("Chloé", 1_210, cards=("Js", "Jd"),
                     equity=SeatEquity(449 / 903, 0.0)),
            SeatView("Sven", 3_900, cards=(), state=SeatState.FOLDED),
        ),
        board=("Th", "7h", "2c"),
        pots=(PotView(5_450),),
        small_blind=25, big_blind=50, hand_number=77, street=Street.FLOP,
    )


def all_in_preflop_estimate() -> TableView:
    """Heads-up, all-in before the flop: the chances are a sampled estimate (``≈``)."""
    return TableView(
        seats=(
            SeatView("Alice", 0, cards=("As", "Qs"), state=SeatState.ALL_IN, is_button=True,
                     blind=Blind.SMALL, equity=SeatEquity(30_407 / 66_349, 242 / 66_349, False)),
            SeatView("Bob", 1_200, cards=("Jh", "Jc"), blind=Blind.BIG,
                     equity=SeatEquity(35_700 / 66_349, 242 / 66_349, False)),
        ),
        pots=(PotView(4_000),),
        small_blind=20, big_blind=40, hand_number=5, street=Street.PREFLOP,
    )


_FIRST_RUN = ("Ks", "8h", "3d", "9c", "Qd")
_SECOND_RUN = ("Ks", "8h", "3d", "7h", "2c")


def _three_all_in(locale: object, *, finished: bool) -> tuple[SeatView | None, ...]:
    """Alice, Bob and Carol all-in from the flop, run twice: Alice takes the first run, Carol
    the main pot and Bob the side pot of the second."""
    q, q_label = _hand("pair", ("Q", "A"), locale)
    a, a_label = _hand("high_card", ("A",), locale)
    j, j_label = _hand("pair", ("J", "K"), locale)
    sevens, sevens_label = _hand("pair", ("7", "K"), locale)
    trips, trips_label = _hand("three_of_a_kind", ("7",), locale)

    def shown(name: str, stack: int, cards: tuple[str, str], winner: bool,
              first: tuple[str, tuple[str, ...], str, str],
              second: tuple[str, tuple[str, ...], str, str], **more: object) -> SeatView:
        if not finished:
            return SeatView(name, stack, cards=cards, state=SeatState.ALL_IN, **more)  # type: ignore[arg-type]
        return SeatView(name, stack, cards=cards, state=SeatState.ALL_IN, is_winner=winner,
                        hand_name=first[0], best_five=first[1], hand_label=first[2],
                        second_hand_name=second[0], second_best_five=second[1],
                        second_hand_label=second[2], **more)  # type: ignore[arg-type]

    return (
        SeatView("Dmitri", 4_400, cards=(), state=SeatState.FOLDED, is_button=True),
        shown("Alice", 1_800 if finished else 0, ("As", "Qs"), True,
              (q, ("Qs", "Qd", "As", "Ks", "9c"), q_label, ""),
              (a, ("As", "Ks", "Qs", "8h", "7h"), a_label, ""), blind=Blind.SMALL),
        shown("Bob", (900 if finished else 0) + 300, ("Jh", "Jc"), True,
              (j, ("Jh", "Jc", "Ks", "Qd", "9c"), j_label, ""),
              (j, ("Jh", "Jc", "Ks", "8h", "7h"), j_label, ""), blind=Blind.BIG),
        shown("Carol", 900 if finished else 0, ("7c", "7d"), True,
              (sevens, ("7c", "7d", "Ks", "Qd", "9c"), sevens_label, ""),
              (trips, ("7h", "7d", "7c", "Ks", "8h"), trips_label, "")),
        None,
        SeatView("Eve", 2_000, cards=(), state=SeatState.FOLDED),
    )


def run_twice_second_run(locale: object = None) -> TableView:
    """The board run twice, the second run on its turn: the first run is out, and the
    chances are those of the second run's river."""
    seats = list(_three_all_in(locale, finished=False))
    # With the 7h on the turn only a jack saves Bob, and nothing saves Alice: counted over the
    # 40 rivers left once the first run's 9c and Qd are out (a test checks it with the engine).
    for index, equity in ((1, SeatEquity(0.0, 0.0)), (2, SeatEquity(2 / 40, 0.0)),
                          (3, SeatEquity(38 / 40, 0.0))):
        seat = seats[index]
        assert seat is not None
        seats[index] = _with_equity(seat, equity)
    return TableView(
        seats=tuple(seats),
        board=_FIRST_RUN, second_board=_SECOND_RUN[:4],
        pots=(PotView(1_800), PotView(1_800)),
        small_blind=50, big_blind=100, hand_number=131, street=Street.TURN,
    )


def _with_equity(seat: SeatView, equity: SeatEquity) -> SeatView:
    return dataclasses.replace(seat, equity=equity)


def run_twice_showdown(locale: object = None) -> TableView:
    """Each pot halved between the two runs: Alice wins the first run; on the second Carol's
    trips take the main pot and Bob's jacks the side pot."""
    return TableView(
        seats=_three_all_in(locale, finished=True),
        board=_FIRST_RUN, second_board=_SECOND_RUN,
        pots=(PotView(900, winners=(1,), run=1), PotView(900, winners=(3,), run=2),
              PotView(900, winners=(1,), run=1), PotView(900, winners=(2,), run=2)),
        small_blind=50, big_blind=100, hand_number=131, street=Street.SHOWDOWN,
    )


def replay_run_twice(locale: object = None) -> ReplayView:
    """The end of a replay: the last call, the second run on its turn, the result."""
    turned = run_twice_second_run(locale)
    calling = dataclasses.replace(
        turned, second_board=(), board=_FIRST_RUN[:3], street=Street.FLOP,
        seats=tuple(dataclasses.replace(s, equity=None) if s else None for s in turned.seats))
    separator = t("list.separator", locale)
    won = separator.join(t("replay.caption_won", locale, player=name, amount=amount)
                         for name, amount in (("Alice", "1,800"), ("Carol", "900"),
                                              ("Bob", "900")))
    return ReplayView(
        frames=(
            ReplayFrame(calling, t("action.call", locale, player="Carol", amount="600")
                        + t("action.all_in_suffix", locale), 1.2),
            ReplayFrame(turned, t("replay.dealt_run", locale, run=2,
                                  street=t("render.turn", locale), cards="7♥"),
                        1.6, milestone=True),
            ReplayFrame(run_twice_showdown(locale), won, 6.0, milestone=True),
        ),
        title=t("replay.alt_title", locale, hand=131, small_blind="50", big_blind="100"),
        story=(t("replay.street_quiet", locale, street=t("replay.run_twice", locale)),),
        outcome=(t("replay.wins_run", locale, player="Alice", amount="900",
                   pot=t("pot.main", locale), run=1),),
    )


def hole_cards(style: DeckStyle = DeckStyle.CLASSIC, locale: object = None) -> HoleCardsView:
    name, label = _hand("pair", ("K", "A"), locale)
    return HoleCardsView(cards=("Ad", "Kc"), hand_name=name, hand_label=label,
                         caption="#high-stakes · " + t("cards.caption", locale, hand=1287),
                         deck=style)


# --- Omaha -----------------------------------------------------------------------------------
# The hands named and the chances drawn are the engine's for these cards (tests hold them to it).


def plo_ten_seat_showdown(locale: object = None) -> TableView:
    """Pot-Limit Omaha, ten seats, six hands shown: Alice's nut flush takes the main pot and
    Hana's smaller flush the side pot; Gustavo mucks, three folded."""
    ace_flush, ace_flush_label = _hand("flush", ("A",), locale)
    king_straight, king_straight_label = _hand("straight", ("K",), locale)
    nines, nines_label = _hand("three_of_a_kind", ("9",), locale)
    jacks, jacks_label = _hand("three_of_a_kind", ("J",), locale)
    queen_flush, queen_flush_label = _hand("flush", ("Q",), locale)

    def shown(name: str, stack: int, cards: tuple[str, ...], hand: tuple[str, str],
              **more: object) -> SeatView:
        return SeatView(name, stack, cards=cards, hand_name=hand[0], hand_label=hand[1],
                        **more)  # type: ignore[arg-type]

    return TableView(
        seats=(
            shown("Alice", 8_400, ("Ah", "Kh", "7d", "7c"), (ace_flush, ace_flush_label),
                  state=SeatState.ALL_IN, is_winner=True,
                  best_five=("Ah", "Kh", "Jh", "Th", "2h")),
            SeatView("Bartholomew the Magnificent", 6_150, state=SeatState.FOLDED),
            shown("Chen Wei 陈伟", 2_210, ("Qc", "Kd", "8d", "3s"),
                  (king_straight, king_straight_label), is_button=True),
            shown("Dana", 3_975, ("9h", "9c", "5d", "6s"), (nines, nines_label),
                  blind=Blind.SMALL),
            SeatView("Eitan", 11_800, state=SeatState.FOLDED, blind=Blind.BIG),
            shown("Farah", 1_090, ("Js", "Jc", "Td", "Ac"), (jacks, jacks_label)),
            SeatView("Gustavo", 4_420, cards=("8c", "7s", "6d", "5c"), mucked=True),
            shown("Hana 하나", 9_330, ("Qh", "8h", "4d", "4s"),
                  (queen_flush, queen_flush_label), is_winner=True,
                  best_five=("Qh", "Jh", "Th", "8h", "2h")),
            shown("Ivan", 2_640, ("Kc", "Qs", "3d", "3h"), (king_straight, king_straight_label)),
            SeatView("Józef", 7_005, state=SeatState.FOLDED),
        ),
        board=("Jh", "Th", "4c", "9s", "2h"),
        pots=(PotView(8_400, winners=(0,)), PotView(3_000, winners=(7,))),
        small_blind=100, big_blind=200, hand_number=412, street=Street.SHOWDOWN,
    )


def plo5_nine_seat_flop() -> TableView:
    """Five-card Pot-Limit Omaha, nine seats on the flop: seven hands face down, bets out,
    one to act."""
    backs = (None,) * 5
    return TableView(
        seats=(
            SeatView("Alice", 6_100, bet=300, cards=backs),
            SeatView("Bartholomew the Magnificent", 9_850, cards=backs, is_button=True),
            SeatView("Chen Wei 陈伟", 4_400, cards=(), state=SeatState.FOLDED,
                     blind=Blind.SMALL),
            SeatView("Dana", 12_075, bet=900, cards=backs, blind=Blind.BIG),
            SeatView("Eitan", 3_300, cards=backs, to_act=True),
            SeatView("Farah", 0, bet=700, cards=backs, state=SeatState.ALL_IN),
            SeatView("Gustavo", 5_500, cards=(), state=SeatState.FOLDED),
            SeatView("Hana 하나", 8_800, cards=backs, state=SeatState.AWAY),
            SeatView("Ivan", 7_020, cards=backs),
        ),
        board=("Qs", "8d", "3c"),
        pots=(PotView(1_800),),
        small_blind=50, big_blind=100, hand_number=57, street=Street.FLOP,
    )


def plo5_all_in_turn() -> TableView:
    """Five-card Pot-Limit Omaha, nine seats: three hands all-in on the turn, face up, with
    their exact chances over the 33 rivers left."""
    return TableView(
        seats=(
            SeatView("Alice", 0, cards=("As", "Ad", "Ks", "Qh", "9c"), state=SeatState.ALL_IN,
                     equity=SeatEquity(8 / 33, 0.0)),
            SeatView("Bartholomew the Magnificent", 9_850, cards=(), state=SeatState.FOLDED,
                     is_button=True),
            SeatView("Chen Wei 陈伟", 4_400, cards=(), state=SeatState.FOLDED,
                     blind=Blind.SMALL),
            SeatView("Dana", 0, cards=("Jh", "Td", "9h", "8d", "7d"), state=SeatState.ALL_IN,
                     blind=Blind.BIG, equity=SeatEquity(14 / 33, 0.0)),
            SeatView("Eitan", 3_300, cards=(), state=SeatState.FOLDED),
            SeatView("Farah", 1_200, cards=("6c", "6h", "5s", "4s", "2d"),
                     state=SeatState.ALL_IN, equity=SeatEquity(11 / 33, 0.0)),
            SeatView("Gustavo", 5_500, cards=(), state=SeatState.FOLDED),
            SeatView("Hana 하나", 8_800, cards=(), state=SeatState.FOLDED),
            SeatView("Ivan", 7_020, cards=(), state=SeatState.FOLDED),
        ),
        board=("Kd", "Th", "5h", "3c"),
        pots=(PotView(10_200),),
        small_blind=50, big_blind=100, hand_number=58, street=Street.TURN,
    )


def hi_lo_showdown(locale: object = None) -> TableView:
    """Omaha Hi-Lo: Bob's queens take the high half, Alice's 8-5-3-2-A the low half; Chloé's
    low and pair lose both."""
    kings, kings_label = _hand("pair", ("K", "A"), locale)
    queens, queens_label = _hand("three_of_a_kind", ("Q",), locale)
    threes, threes_label = _hand("pair", ("3", "K"), locale)
    return TableView(
        seats=(
            SeatView("Alice", 1_600, cards=("As", "3d", "Kd", "Jh"), is_winner=True,
                     hand_name=kings, hand_label=kings_label,
                     best_five=("Kd", "Kc", "As", "Qs", "8h"),
                     low_hand="8-5-3-2-A", low_five=("8h", "5d", "3d", "2c", "As")),
            SeatView("Bob", 4_250, cards=("Ah", "4c", "Qd", "Qh"), is_winner=True,
                     is_button=True, hand_name=queens, hand_label=queens_label,
                     best_five=("Qs", "Qh", "Qd", "Kc", "8h"),
                     low_hand="8-5-4-2-A", low_five=("8h", "5d", "4c", "2c", "Ah")),
            SeatView("Chloé", 0, cards=("7s", "6s", "3h", "3c"), state=SeatState.ALL_IN,
                     blind=Blind.SMALL, hand_name=threes, hand_label=threes_label,
                     best_five=("3h", "3c", "Kc", "Qs", "8h"),
                     low_hand="8-6-5-3-2", low_five=("8h", "6s", "5d", "3h", "2c")),
            SeatView("Dmitri", 2_900, cards=(), state=SeatState.FOLDED, blind=Blind.BIG),
            None,
            SeatView("Eve", 3_100, cards=(), state=SeatState.FOLDED),
        ),
        board=("2c", "5d", "8h", "Kc", "Qs"),
        pots=(PotView(1_200, winners=(1,), half="high"), PotView(1_200, winners=(0,), half="low")),
        small_blind=50, big_blind=100, hand_number=203, street=Street.SHOWDOWN,
    )


# The flop each Omaha hole-card sample's hand is named on.
OMAHA_HOLE_BOARDS = {4: ("Kd", "8h", "3c"), 5: ("Qc", "Jd", "9s")}


def omaha_hole_cards(count: int, style: DeckStyle = DeckStyle.CLASSIC,
                     locale: object = None) -> HoleCardsView:
    """A Pot-Limit Omaha hand (``count`` 4) or a five-card one (5) on the flop."""
    if count == 4:
        cards: tuple[str, ...] = ("Ah", "Kh", "Qd", "Jd")
        name, label = _hand("pair", ("K", "A"), locale)
    else:
        cards = ("As", "Ks", "Qh", "Jh", "Tc")
        name, label = _hand("straight", ("K",), locale)
    return HoleCardsView(cards=cards, hand_name=name, hand_label=label,
                         caption="#omaha · " + t("cards.caption", locale, hand=412),
                         deck=style)


def palette_views() -> list[TableView]:
    """Tables that between them use every colour the renderer draws (see ``encode``)."""
    four = DeckStyle.FOUR_COLOR
    return [
        nine_seat_river(),
        dataclasses.replace(nine_seat_river(), deck=four),
        showdown_split(),
        dataclasses.replace(showdown_split(), deck=four),
        six_seat_flop(),
        ten_seat_scripts(),
    ]


def deck_sheet(style: DeckStyle) -> Image.Image:
    """All 52 faces (a suit per row) and the back, on felt, at the hole-card size."""
    w, h = MASTER_SIZE
    gap = 12
    cols = 14
    sheet = Image.new("RGB", (gap + cols * (w + gap), gap + 4 * (h + gap)), (24, 96, 54))
    cards = deck(style)
    codes = card_codes()
    for suit_row, suit in enumerate("shdc"):
        for col, code in enumerate(c for c in codes if c[1] == suit):
            img = cards[code]
            sheet.paste(img, (gap + col * (w + gap), gap + suit_row * (h + gap)), img)
    back = cards["back"]
    sheet.paste(back, (gap + 13 * (w + gap), gap), back)
    return sheet


_PLAYERS = (
    "Alice", "Bartholomew the Magnificent", "Chen Wei 陈伟", "Dana", "Eitan", "Farah",
    "Gustavo", "Hana 하나", "Ivan", "Józef", "Kenji", "Lena", "Marta", "Nadia", "Olu",
    "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Vlad", "Wen", "Ximena", "Yusuf",
    "Zoë", "Ahmed", "Bea", "Carlos", "Dmitri",
)


def tournament_running() -> TournamentView:
    """Level 7 of a thirty-player freeze-out at three tables, four players out."""
    stacks = (21_450, 8_350, 15_020, 3_300, 9_870, 12_400, 30_100, 5_120, 11_000, 7_775, 16_200,
              9_100, 4_450, 13_375, 10_250, 6_600, 19_800, 2_900, 8_800, 12_050, 14_500, 9_990,
              7_200, 11_900, 5_650, 20_000)
    players = [PlayerLine(name, stack, seat=k % 9 + 1)
               for k, (name, stack) in enumerate(zip(_PLAYERS, stacks, strict=False))]
    tables = (
        TablePanel(1, tuple(players[0:9]), in_hand=True),
        TablePanel(2, tuple(players[9:18]), in_hand=True),
        TablePanel(3, tuple(players[18:26])),
    )
    return TournamentView(
        name="Friday Night Deepstack", phase=Phase.RUNNING, level=7, small_blind=200,
        big_blind=400, ante=400, next_level=(250, 500, 500), seconds_to_next_level=754,
        seconds_left=None, entrants=30, players_left=26, average_stack=11_538,
        largest_stack=30_100, chip_leader="Gustavo", prize_pool=3_000,
        payouts=(1_050, 660, 450, 330, 270, 240), late_registration_level=8,
        registration_open=True, tables=tables,
    )


def tournament_registering() -> TournamentView:
    return TournamentView(
        name="Sunday Turbo", phase=Phase.REGISTERING, level=1, small_blind=50, big_blind=100,
        ante=100, next_level=(75, 150, 150), seconds_left=7_200, entrants=7, max_players=27,
        players_left=7, starting_stack=10_000, buy_in=100, average_stack=10_000,
        largest_stack=10_000, prize_pool=700, payouts=(455, 245),
        registered=_PLAYERS[:7],
    )


def tournament_finished() -> TournamentView:
    places = (1_050, 660, 450, 330, 270, 240)
    standings = tuple(
        PlaceLine(k + 1, name, places[k] if k < len(places) else 0)
        for k, name in enumerate(_PLAYERS[:12])
    )
    return TournamentView(
        name="Friday Night Deepstack", phase=Phase.FINISHED, level=19, entrants=12,
        players_left=1, prize_pool=3_000, payouts=places, standings=standings,
    )


# --- charts ----------------------------------------------------------------------------------


def _walk(rng: random.Random, start: int, steps: int, swing: int) -> list[int]:
    """A stack over hands: mostly small changes, now and then a big pot, never below zero."""
    values = [start]
    for _ in range(steps):
        change = rng.randint(-swing, swing) * (6 if rng.random() < 0.05 else 1)
        values.append(max(0, values[-1] + change))
    return values


def session_chart(locale: object = None) -> ChartView:
    """Six players over 80 hands: one sits down late, one leaves, one busts."""
    rng = random.Random(7)
    hands = 80
    names = ("Alice", "Bartholomew the Bold", "陈伟 Chen", "Dana", "Eitan 🃏", "Farah")
    lines: list[list[int | None]] = []
    for k, name in enumerate(names):
        values: list[int | None] = list(_walk(rng, 1_000 + 200 * k, hands, 60))
        if name == "Dana":
            values[:21] = [None] * 21
        if name == "Farah":
            values[51:] = [None] * (hands + 1 - 51)
        lines.append(values)
    bust = lines[4]
    for i in range(60, hands + 1):
        bust[i] = None if i > 60 else 0
    order = sorted(range(len(names)), key=lambda k: -(lines[k][-1] or 0))
    return ChartView(
        title=t("ledger.chart_title", locale, table="#poker-night"),
        subtitle=t("ledger.chart_subtitle", locale, players=len(names),
                   hands=t("ledger.chart_hands", locale, first=1, last=hands)),
        x_title=t("chart.hand", locale),
        y_title=t("chart.chips", locale),
        x_labels=(t("chart.start", locale), *(f"#{n}" for n in range(1, hands + 1))),
        series=tuple(ChartSeries(names[k], tuple(lines[k])) for k in order),
    )


def crowded_session_chart(locale: object = None) -> ChartView:
    """Twenty-six players over 3,000 hands: every colour, dash and dot, a legend that runs out
    of room, and far more points than pixels."""
    rng = random.Random(11)
    hands = 3_000
    series = tuple(
        ChartSeries(f"Player {k + 1}", tuple(_walk(rng, 2_000, hands, 40)))
        for k in range(26)
    )
    return ChartView(
        title=t("ledger.chart_title", locale, table="#high-stakes"),
        subtitle=t("ledger.chart_subtitle", locale, players=len(series),
                   hands=t("ledger.chart_hands", locale, first=1, last=f"{hands:,}")),
        x_title=t("chart.hand", locale),
        y_title=t("chart.chips", locale),
        x_labels=(t("chart.start", locale), *(f"#{n:,}" for n in range(1, hands + 1))),
        series=series,
    )


def net_chart(locale: object = None) -> ChartView:
    """A player's net over 400 hands, up and down across zero."""
    rng = random.Random(5)
    total, values = 0, [0]
    for _ in range(400):
        total += rng.randint(-80, 75) * (8 if rng.random() < 0.04 else 1)
        values.append(total)
    return ChartView(
        title=t("stats.chart_title", locale, player="Alice"),
        subtitle=t("stats.chart_subtitle", locale, period=t("choice.period.all", locale), hands=400,
                   first="2026-03-02", last="2026-05-30"),
        x_title=t("chart.hands", locale),
        y_title=t("chart.net", locale),
        x_labels=tuple(f"{n:,}" for n in range(401)),
        series=(ChartSeries("Alice", tuple(values)),),
        net=True,
    )


def empty_chart(locale: object = None) -> ChartView:
    return ChartView(
        title=t("ledger.chart_title", locale, table="#poker"),
        subtitle=t("ledger.chart_subtitle", locale, players=0,
                   hands=t("ledger.chart_no_hands", locale, first=1)),
        x_title=t("chart.hand", locale), y_title=t("chart.chips", locale), x_labels=(), series=(),
    )
