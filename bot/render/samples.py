"""Example tables and charts, for ``python -m bot.render sample``, the benchmark and the tests.

The hands shown are named in the catalog's words of ``locale`` (English by default), in full
for the alt text and in short for the badges, as the bot names them.
"""

from __future__ import annotations

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
    SeatState,
    SeatView,
    Street,
    TableView,
)
from bot.render.tournament import Phase, PlaceLine, PlayerLine, TablePanel, TournamentView

__all__ = [
    "crowded_session_chart",
    "deck_sheet",
    "empty_chart",
    "heads_up_preflop",
    "hole_cards",
    "net_chart",
    "nine_seat_river",
    "palette_views",
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


def hole_cards(style: DeckStyle = DeckStyle.CLASSIC, locale: object = None) -> HoleCardsView:
    name, label = _hand("pair", ("K", "A"), locale)
    return HoleCardsView(cards=("Ad", "Kc"), hand_name=name, hand_label=label,
                         caption="#high-stakes · " + t("cards.caption", locale, hand=1287),
                         deck=style)


def palette_views() -> list[TableView]:
    """Tables that between them use every colour the renderer draws (see ``encode``)."""
    import dataclasses

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


def session_chart() -> ChartView:
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
        title="Ledger: #poker-night",
        subtitle="Stacks after each hand · hands #1–#80 · 6 players",
        x_title="Hand",
        y_title="Chips",
        x_labels=("Start", *(f"#{n}" for n in range(1, hands + 1))),
        series=tuple(ChartSeries(names[k], tuple(lines[k])) for k in order),
    )


def crowded_session_chart() -> ChartView:
    """Twenty-six players over 3,000 hands: every colour, dash and dot, a legend that runs out
    of room, and far more points than pixels."""
    rng = random.Random(11)
    hands = 3_000
    series = tuple(
        ChartSeries(f"Player {k + 1}", tuple(_walk(rng, 2_000, hands, 40)))
        for k in range(26)
    )
    return ChartView(
        title="Ledger: #high-stakes",
        subtitle="Stacks after each hand · hands #1–#3,000 · 26 players",
        x_title="Hand",
        y_title="Chips",
        x_labels=("Start", *(f"#{n:,}" for n in range(1, hands + 1))),
        series=series,
    )


def net_chart() -> ChartView:
    """A player's net over 400 hands, up and down across zero."""
    rng = random.Random(5)
    total, values = 0, [0]
    for _ in range(400):
        total += rng.randint(-80, 75) * (8 if rng.random() < 0.04 else 1)
        values.append(total)
    return ChartView(
        title="Alice: net chips",
        subtitle="All time · 400 hands · 2026-03-02 to 2026-05-30",
        x_title="Hands",
        y_title="Net",
        x_labels=tuple(f"{n:,}" for n in range(401)),
        series=(ChartSeries("Alice", tuple(values)),),
        net=True,
    )


def empty_chart() -> ChartView:
    return ChartView(title="Ledger: #poker", subtitle="Since hand #1", x_title="Hand",
                     y_title="Chips", x_labels=(), series=())
