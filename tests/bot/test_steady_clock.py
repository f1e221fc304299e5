"""The tournaments' clock keeps its own pace when the host's clock jumps (``SteadyClock``): a
level lasts its minutes whether the host's time leaps an hour ahead or is set back, and the
jump is logged once."""

from __future__ import annotations

import logging

import pytest

from bot.runtime.tourney import SteadyClock
from engine.tournament import BlindLevel, Tournament, TournamentConfig


class Clocks:
    def __init__(self) -> None:
        self.wall = 1_800_000_000.0
        self.steady = 500.0

    def passes(self, seconds: float) -> None:
        self.wall += seconds
        self.steady += seconds


def test_a_jump_of_the_hosts_clock_neither_skips_nor_holds_a_level(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clocks = Clocks()
    now = SteadyClock(lambda: clocks.wall, lambda: clocks.steady)
    config = TournamentConfig(buy_in=0, starting_stack=1000, seats=6, max_players=6,
                              levels=tuple(BlindLevel(10 * n, 20 * n, minutes=10)
                                           for n in range(1, 9)))
    state = Tournament(config, rng=1)
    for player in range(3):
        state.register(player, now())
    state.start(now())
    clocks.passes(5 * 60)
    with caplog.at_level(logging.WARNING, logger="bot.runtime.tourney"):
        clocks.wall += 3600  # the host's clock leaps an hour ahead
        state.tick(now())
        assert state.level == 1  # still five minutes into level 1
        assert state.seconds_to_next_level(now()) == pytest.approx(300)
        now()  # the same jump is not told twice
        clocks.wall -= 2 * 3600  # then back, an hour behind
        state.tick(now())
        assert state.level == 1
    clocks.passes(5 * 60 + 1)
    state.tick(now())
    assert state.level == 2  # a level lasts its ten minutes of real time
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and "+3600 s" in warnings[0] and "-3600 s" in warnings[1]


def test_without_a_jump_it_reads_the_hosts_time() -> None:
    clocks = Clocks()
    now = SteadyClock(lambda: clocks.wall, lambda: clocks.steady)
    clocks.passes(42.5)
    assert now() == pytest.approx(clocks.wall)
