"""The request budget and the DM channel cache (issue 15)."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.runtime.budget import DISCORD_GLOBAL_LIMIT, RequestBudget
from bot.runtime.direct import DmChannels


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@settings(max_examples=200)
@given(
    rate=st.floats(1, 50),
    gaps=st.lists(st.floats(0, 0.3), min_size=1, max_size=400),
)
def test_no_second_ever_holds_more_than_the_rate_and_its_burst(
    rate: float, gaps: list[float]
) -> None:
    clock = Clock()
    budget = RequestBudget(rate, monotonic=clock)
    taken: list[float] = []
    for gap in gaps:
        clock.now += gap
        while budget.take():  # as greedy as any caller can be
            taken.append(clock.now)
    for start in taken:
        in_window = sum(1 for at in taken if start <= at < start + 1.0)
        assert in_window <= rate + budget.burst + 1e-9
    if rate * 1.2 <= DISCORD_GLOBAL_LIMIT:
        assert all(sum(1 for at in taken if s <= at < s + 1) <= DISCORD_GLOBAL_LIMIT for s in taken)


def test_the_default_share_stays_under_discords_limit() -> None:
    budget = RequestBudget(40)
    assert budget.rate + budget.burst <= DISCORD_GLOBAL_LIMIT


async def test_spend_waits_for_a_token_instead_of_failing() -> None:
    budget = RequestBudget(50, burst=1)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for _ in range(6):
        await budget.spend()
    assert loop.time() - started >= 5 / 50 * 0.9
    assert budget.spent == 6 and budget.waited > 0


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError):
        RequestBudget(0)


class Client:
    def __init__(self) -> None:
        self.created = 0

    async def create_dm(self, user: Any) -> Any:
        self.created += 1
        return discord.Object(id=1000 + int(user.id))

    def get_partial_messageable(self, channel_id: int, **kwargs: Any) -> Any:
        return discord.Object(id=channel_id)


async def test_each_dm_channel_is_asked_for_once_and_the_oldest_forgotten() -> None:
    client, budget = Client(), RequestBudget(50)
    channels = DmChannels(size=2)
    first = await channels.channel(client, 1, budget)  # type: ignore[arg-type]
    again = await channels.channel(client, 1, budget)  # type: ignore[arg-type]
    assert first.id == again.id == 1001 and client.created == 1
    await channels.channel(client, 2, budget)  # type: ignore[arg-type]
    await channels.channel(client, 1, budget)  # type: ignore[arg-type] # 1 is the newest now
    await channels.channel(client, 3, budget)  # type: ignore[arg-type] # 2 is forgotten
    assert client.created == 3
    await channels.channel(client, 1, budget)  # type: ignore[arg-type]
    assert client.created == 3
    await channels.channel(client, 2, budget)  # type: ignore[arg-type]
    assert client.created == 4


def test_closed_dms_are_tried_again_after_a_while() -> None:
    clock = Clock()
    channels = DmChannels(closed_for=600, monotonic=clock)
    channels.closed(7)
    assert channels.is_closed(7) and not channels.is_closed(8)
    clock.now = 599
    assert channels.is_closed(7)
    clock.now = 600
    assert not channels.is_closed(7)
