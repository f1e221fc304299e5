"""Blind structures and payouts as a host gives them: presets scaled to the starting stack,
typed structures and percentages with a specific refusal for each mistake."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.hand import AnteKind
from engine.structures import (
    PAYOUT_PRESETS,
    STRUCTURE_PRESETS,
    format_structure,
    parse_payouts,
    parse_structure,
    payouts,
    preset_structure,
    structure,
    time_limit_until,
)
from engine.tournament import BlindLevel, TournamentConfig

# --- presets ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", STRUCTURE_PRESETS)
@pytest.mark.parametrize("stack", [300, 1_000, 1_500, 5_000, 10_000, 20_000, 1_000_000])
@pytest.mark.parametrize("ante_kind", list(AnteKind))
def test_presets_scale_to_any_starting_stack(name: str, stack: int, ante_kind: AnteKind) -> None:
    levels = preset_structure(name, starting_stack=stack, ante_kind=ante_kind)
    assert len(levels) >= 15
    for a, b in itertools.pairwise(levels):
        assert b.big_blind > a.big_blind and b.ante >= a.ante
    for lv in levels:
        assert lv.small_blind * 2 == lv.big_blind
        if ante_kind is AnteKind.BIG_BLIND:
            assert lv.ante == lv.big_blind
        elif ante_kind is AnteKind.NONE:
            assert lv.ante == 0
        else:
            assert lv.ante <= lv.big_blind // 10
    # The same depth whatever the stack: the first big blind is the same share of it.
    first = levels[0].big_blind / stack
    reference = preset_structure(name)[0].big_blind / 10_000
    assert reference / 2 <= first
    assert first <= reference * 2 or levels[0].big_blind == 2  # the smallest blinds there are
    TournamentConfig(buy_in=10, starting_stack=stack, levels=levels, ante_kind=ante_kind)


def test_presets_differ_in_speed_and_have_breaks_where_they_say() -> None:
    turbo, regular, deep = (preset_structure(n) for n in ("turbo", "regular", "deep"))
    assert (turbo[0].minutes, regular[0].minutes, deep[0].minutes) == (8, 15, 20)
    assert turbo[0].big_blind > regular[0].big_blind > deep[0].big_blind
    assert not any(lv.break_minutes for lv in turbo)
    assert [k for k, lv in enumerate(regular, 1) if lv.break_minutes][:2] == [6, 12]
    assert [k for k, lv in enumerate(deep, 1) if lv.break_minutes][:2] == [4, 8]
    assert all(lv.minutes == 6 for lv in preset_structure("Regular", level_minutes=6))
    assert structure(" TURBO ", chip_unit=25)[0].big_blind % 25 == 0
    with pytest.raises(EngineError, match="unknown_structure") as caught:
        structure("hyper")
    assert caught.value.params["choices"] == "turbo, regular, deep"
    with pytest.raises(EngineError, match="bad_tournament"):
        preset_structure("turbo", level_minutes=0)


# --- typed structures ---------------------------------------------------------------------


def test_a_typed_structure() -> None:
    levels = parse_structure(
        "25/50/50 15, 50/100/100 15min; break 10\n100/200/200, 150/300/300 12.5m, 1k/2k/2k 20",
        level_minutes=18,
    )
    assert [lv.to_json() for lv in levels] == [
        [25, 50, 50, 15.0],
        [50, 100, 100, 15.0, 10.0],
        [100, 200, 200, 18.0],
        [150, 300, 300, 12.5],
        [1000, 2000, 2000, 20.0],
    ]
    assert parse_structure("10/20 10", ante_kind=AnteKind.NONE) == (BlindLevel(10, 20, 0, 10),)
    assert structure("5/10, 10/20") == parse_structure("5/10 15, 10/20 15")


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("", "structure_empty", {}),
        (" , ;", "structure_empty", {}),
        ("25/50/50 15, 50-100", "structure_syntax", {"item": 2, "text": "50-100"}),
        ("25/50/50 15 minutes please", "structure_syntax", {"item": 1}),
        ("25.5/50 10", "structure_syntax", {"item": 1}),
        ("0/50 10", "structure_syntax", {"item": 1}),
        ("60/50 10", "structure_small_blind_above_big",
         {"level": 1, "small_blind": 60, "big_blind": 50}),
        ("25/50 10, 50/100 10, 25/40 10", "structure_big_blind_lower",
         {"level": 3, "big_blind": 40, "previous": 100}),
        ("25/50/50 10, 50/100/25 10", "structure_ante_lower",
         {"level": 2, "ante": 25, "previous": 50}),
        ("break 5, 25/50 10", "structure_break_position", {}),
        ("25/50 10, break 5, break 5, 50/100 10", "structure_break_position", {}),
        ("25/50 10, break 5", "structure_break_position", {}),
        ("25/50 0", "structure_minutes", {"item": 1}),
        ("25/50 10, break 500", "structure_minutes", {"item": 2, "maximum": 240}),
        ("25/50 10, 30/60 10", "structure_not_multiple", {"level": 2, "chip_unit": 25}),
        ("25/50 10, " * 101, "structure_too_many_levels", {"maximum": 100}),
        ("25/50/10000000000000 10", "structure_amount_too_large", {"level": 1}),
    ],
)
def test_each_mistake_in_a_typed_structure_has_its_own_refusal(
    text: str, code: str, params: dict[str, object]
) -> None:
    with pytest.raises(EngineError) as caught:
        parse_structure(text, chip_unit=25 if "30/60" in text else 1)
    assert caught.value.code == code
    assert params.items() <= caught.value.params.items()


def test_antes_need_an_ante_format() -> None:
    with pytest.raises(EngineError, match="ante_without_kind"):
        parse_structure("25/50/50 10", ante_kind=AnteKind.NONE)


@st.composite
def schedules(draw: st.DrawFn) -> tuple[BlindLevel, ...]:
    count = draw(st.integers(1, 12))
    bb = draw(st.integers(2, 50))
    ante = 0
    levels = []
    for k in range(count):
        bb += draw(st.integers(0, 3 * bb))
        ante = max(ante, draw(st.integers(0, bb)))
        sb = draw(st.integers(1, bb))
        minutes = draw(st.sampled_from([1, 2.5, 10, 15, 240]))
        pause = draw(st.sampled_from([0, 0, 5, 12.5])) if k < count - 1 else 0
        levels.append(BlindLevel(sb, bb, ante, minutes, pause))
    return tuple(levels)


@settings(max_examples=200, deadline=None)
@given(schedules())
def test_a_structure_reads_back_from_its_text(levels: tuple[BlindLevel, ...]) -> None:
    assert parse_structure(format_structure(levels)) == levels


# --- payouts ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PAYOUT_PRESETS))
def test_payout_presets_pay_the_pool_and_more_places_as_the_field_grows(name: str) -> None:
    table = PAYOUT_PRESETS[name]
    places = []
    for entrants in range(2, 301):
        shares = table.shares(entrants)
        assert list(shares) == sorted(shares, reverse=True) and len(shares) <= entrants
        prizes = table.prizes(100 * entrants + 7, entrants)
        assert sum(prizes) == 100 * entrants + 7
        places.append(len(shares))
    assert places == sorted(places)
    for _, shares in table.tiers:
        assert sum(shares) == 100
    assert payouts(name.upper(), max_players=10) is table


def test_custom_percentages() -> None:
    table = parse_payouts("50% 30%, 20", max_players=9)
    assert table.prizes(901, 9) == (451, 270, 180)
    table = parse_payouts("33.34/33.33/33.33", max_players=3)
    assert table.prizes(100, 3) == (34, 33, 33)
    # Fewer entrants than paid places: the places there are share the pool in proportion.
    assert parse_payouts("50, 30, 20", max_players=10).prizes(200, 2) == (125, 75)


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("", "payouts_empty", {}),
        ("  ,, ", "payouts_empty", {}),
        ("50, thirty, 20", "payouts_syntax", {"place": 2, "text": "thirty"}),
        ("50, 30.555, 20", "payouts_syntax", {"place": 2}),
        ("-50, 150", "payouts_syntax", {"place": 1}),
        ("100, 0", "payouts_zero", {"place": 2}),
        ("30, 50, 20", "payouts_not_descending", {"place": 2}),
        ("50, 30", "payouts_sum", {"total": "80"}),
        ("50, 30, 20.5", "payouts_sum", {"total": "100.5"}),
        ("40, 30, 20, 10", "payouts_too_many_places", {"places": 4, "players": 3}),
    ],
)
def test_each_mistake_in_payouts_has_its_own_refusal(
    text: str, code: str, params: dict[str, object]
) -> None:
    with pytest.raises(EngineError) as caught:
        parse_payouts(text, max_players=3)
    assert caught.value.code == code
    assert params.items() <= caught.value.params.items()


def test_unknown_payout_preset() -> None:
    with pytest.raises(EngineError, match="unknown_payouts"):
        payouts("everyone wins", max_players=10)


def test_an_end_time_in_the_past_is_refused() -> None:
    assert time_limit_until(1_000_060, now=1_000_000) == 60
    for ends_at in (1_000_000, 999_999):
        with pytest.raises(EngineError, match="ends_at_past"):
            time_limit_until(ends_at, now=1_000_000)
