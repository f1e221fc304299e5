"""A tournament's settings are judged whole at creation, so nothing refuses them later.

Every level of the structure must be one a table can play (the clock applies each level to every
table, and a level a table refuses would freeze the tournament), and the products of the options
(every chip in play, the prize pool) must fit under the chip limit; each refusal names the
option. Presets scale with the starting stack, so they are checked over the whole allowed range.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.hand import AnteKind
from engine.limits import MAX_CHIPS
from engine.structures import STRUCTURE_PRESETS, structure
from engine.table import Table
from engine.tournament import (
    BlindLevel,
    LevelStarted,
    Tournament,
    TournamentConfig,
    level_table_options,
)

LARGEST_BIG_BLIND = MAX_CHIPS // 100  # a table's buy-ins go up to 100 big blinds


def _play_every_level(config: TournamentConfig) -> list[LevelStarted]:
    """Start a two-player tournament and run its clock through every level: the clock applies
    each level to the table (``change_blinds``), which is where a bad level used to fail."""
    t = Tournament(config, rng=1)
    t.register("a", now=0)
    t.register("b", now=0)
    t.start(now=0)
    seen: list[LevelStarted] = []
    moment = 0.0
    for level in config.levels:
        moment += (level.minutes + level.break_minutes) * 60
        seen.extend(e for e in t.tick(moment) if isinstance(e, LevelStarted))
    return seen


def test_the_issues_structure_is_refused_naming_its_level() -> None:
    # /tournament create starting_stack:100000000000 structure:"1/2 0.1, 10000000000/20000000000 30"
    with pytest.raises(EngineError) as refused:
        structure("1/2 0.1, 10000000000/20000000000 30", starting_stack=10**11)
    assert refused.value.code == "structure_big_blind_too_large"
    assert refused.value.params == {"level": 2, "amount": 2 * 10**10,
                                    "maximum": LARGEST_BIG_BLIND}
    # Levels built by any other creator are refused the same way by the config itself.
    levels = (BlindLevel(1, 2, minutes=0.1), BlindLevel(10**10, 2 * 10**10, minutes=30))
    with pytest.raises(EngineError, match="structure_big_blind_too_large") as refused:
        TournamentConfig(buy_in=0, starting_stack=10**11, levels=levels, max_players=2)
    assert refused.value.params["level"] == 2


def test_the_largest_big_blind_a_table_takes_applies_on_the_clock() -> None:
    levels = (BlindLevel(1, 2, minutes=1),
              BlindLevel(LARGEST_BIG_BLIND // 2, LARGEST_BIG_BLIND, LARGEST_BIG_BLIND, 1))
    config = TournamentConfig(buy_in=0, starting_stack=10**11, levels=levels, max_players=2)
    started = _play_every_level(config)
    assert [e.big_blind for e in started] == [LARGEST_BIG_BLIND]
    with pytest.raises(EngineError, match="structure_big_blind_too_large"):
        TournamentConfig(buy_in=0, starting_stack=10**11, max_players=2,
                         levels=(*levels, BlindLevel(LARGEST_BIG_BLIND, LARGEST_BIG_BLIND + 2)))


def test_every_chip_in_play_is_named_as_stack_times_players() -> None:
    # /tournament create starting_stack:1000000000000 max_players:6 structure:10/20
    with pytest.raises(EngineError) as refused:
        TournamentConfig(buy_in=0, starting_stack=MAX_CHIPS, max_players=6,
                         levels=(BlindLevel(10, 20),))
    assert refused.value.code == "tournament_chips_too_large"
    assert refused.value.params == {"stack": MAX_CHIPS, "players": 6, "maximum": MAX_CHIPS}
    with pytest.raises(EngineError) as refused:
        TournamentConfig(buy_in=MAX_CHIPS // 5, starting_stack=1000, max_players=6,
                         levels=(BlindLevel(10, 20),))
    assert refused.value.code == "tournament_pool_too_large"
    assert refused.value.params == {"amount": MAX_CHIPS // 5, "players": 6,
                                    "maximum": MAX_CHIPS}
    # Exactly at the limit is fine.
    TournamentConfig(buy_in=MAX_CHIPS // 5, starting_stack=MAX_CHIPS // 5, max_players=5,
                     levels=(BlindLevel(10, 20),))


@pytest.mark.parametrize(("name", "stack"), [("regular", 10**10), ("turbo", 10**11),
                                             ("deep", 10**10)])
def test_a_preset_too_large_for_its_stack_is_refused_naming_the_stack(
    name: str, stack: int
) -> None:
    # The issue: regular froze at level 22 with a 10^10 stack, turbo after 72 minutes at 10^11.
    with pytest.raises(EngineError) as refused:
        structure(name, starting_stack=stack)
    assert refused.value.code == "preset_stack_too_large"
    largest = refused.value.params["maximum"]
    assert refused.value.params["name"] == name and refused.value.params["stack"] == stack
    # The largest stack it names works, and the preset plays through all its levels.
    levels = structure(name, starting_stack=largest)
    config = TournamentConfig(buy_in=0, starting_stack=largest, levels=levels, max_players=2)
    assert len(_play_every_level(config)) == len(levels) - 1


@pytest.mark.parametrize(("name", "kind"),
                         list(itertools.product(STRUCTURE_PRESETS, list(AnteKind))))
def test_presets_over_the_whole_allowed_stack_range(name: str, kind: AnteKind) -> None:
    """From a stack of 1 to the largest two players can bring (5 × 10^11), in steps of about
    a quarter of a power of ten: each preset is either refused at once or builds a config every
    level of which a table can play."""
    stacks = sorted({max(1, int(10 ** (k / 4))) for k in range(0, 47)} | {MAX_CHIPS // 2})
    refused_from = None
    for stack in stacks:
        try:
            levels = structure(name, starting_stack=stack, ante_kind=kind)
        except EngineError as exc:
            assert exc.code == "preset_stack_too_large", exc
            refused_from = refused_from or stack
            continue
        assert refused_from is None, f"{name} refused at {refused_from} but not at {stack}"
        config = TournamentConfig(buy_in=0, starting_stack=stack, levels=levels, max_players=2,
                                  ante_kind=kind)
        for level in range(1, len(levels) + 1):
            config.table_options(level)
    assert refused_from is not None  # the top of the range is too deep for every preset


# --- the property: a config that is accepted never meets a level it cannot apply -----------

_AMOUNTS = st.one_of(st.integers(1, 1000), st.integers(1, 10**13),
                     st.sampled_from([LARGEST_BIG_BLIND, LARGEST_BIG_BLIND + 1, MAX_CHIPS]))


@st.composite
def _levels(draw: st.DrawFn) -> tuple[BlindLevel, ...]:
    bigs = sorted(draw(st.lists(_AMOUNTS, min_size=1, max_size=5)))
    antes = sorted(draw(st.lists(st.one_of(st.just(0), _AMOUNTS), min_size=len(bigs),
                                 max_size=len(bigs))))
    out = []
    for k, (bb, ante) in enumerate(zip(bigs, antes, strict=True)):
        sb = draw(st.integers(1, bb))
        pause = draw(st.sampled_from([0.0, 1.0])) if k < len(bigs) - 1 else 0.0
        out.append(BlindLevel(sb, bb, ante, draw(st.sampled_from([0.1, 1.0, 15.0])), pause))
    return tuple(out)


@settings(max_examples=300, deadline=None)
@given(
    levels=_levels(),
    stack=_AMOUNTS,
    players=st.integers(2, 1000),
    seats=st.integers(2, 10),
    unit=st.sampled_from([1, 1, 2, 5, 25]),
    kind=st.sampled_from(list(AnteKind)),
    buy_in=st.one_of(st.just(0), _AMOUNTS),
)
def test_every_level_of_an_accepted_config_can_be_applied(
    levels: tuple[BlindLevel, ...], stack: int, players: int, seats: int, unit: int,
    kind: AnteKind, buy_in: int,
) -> None:
    try:
        config = TournamentConfig(buy_in=buy_in, starting_stack=stack, levels=levels,
                                  max_players=players, seats=seats, chip_unit=unit,
                                  ante_kind=kind)
    except EngineError as exc:
        event(exc.code)
        return
    event("accepted")
    for level in range(1, len(levels) + 1):
        options = config.table_options(level)
        assert options == level_table_options(levels[level - 1], kind, chip_unit=unit,
                                              seats=seats)
        Table(options, rng=1, tournament=True)
    # And the clock applies them all to a running table.
    assert len(_play_every_level(config)) == len(levels) - 1
    assert stack * players <= MAX_CHIPS and buy_in * players <= MAX_CHIPS
