"""The request budget (its priorities, what Discord's answers teach it) and the DM channel
cache."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.runtime.budget import (
    DISCORD_GLOBAL_LIMIT,
    Priority,
    RequestBudget,
    _paid_ahead,
    channel_bucket,
    requests_at,
)
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


async def test_waiting_requests_are_served_by_priority_then_in_order() -> None:
    budget = RequestBudget(100, burst=1)
    assert budget.take()  # the bucket is empty now: everyone below waits
    served: list[str] = []

    async def ask(name: str, priority: Priority) -> None:
        await budget.spend(priority)
        served.append(name)

    tidy = asyncio.create_task(ask("old buttons", Priority.TIDY))
    table = asyncio.create_task(ask("result", Priority.TABLE))
    await asyncio.sleep(0)
    first = asyncio.create_task(ask("first prompt", Priority.PLAYER))
    with requests_at(Priority.PLAYER):
        second = asyncio.create_task(ask("second prompt", Priority.PLAYER))
    await asyncio.sleep(0)
    connect = asyncio.create_task(budget.spend())  # discord.py's own: nobody set a priority
    await asyncio.gather(tidy, table, first, second, connect)
    assert served == ["first prompt", "second prompt", "result", "old buttons"]
    assert budget.spent == 6


async def test_a_request_asked_later_does_not_jump_the_queue() -> None:
    budget = RequestBudget(50, burst=1)
    assert budget.take()
    waiting = asyncio.create_task(budget.spend(Priority.TIDY))
    await asyncio.sleep(0.03)  # a token is free by now, but promised to the waiting request
    assert not budget.take()
    await waiting
    assert budget.delay(Priority.TIDY) > 0


async def test_a_request_cancelled_while_it_waits_spends_nothing() -> None:
    budget = RequestBudget(20, burst=1)
    assert budget.take()
    gone = asyncio.create_task(budget.spend(Priority.PLAYER))
    await asyncio.sleep(0)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    await budget.spend(Priority.TIDY)
    assert budget.spent == 2


async def test_a_request_waiting_for_a_channel_is_raised_by_a_more_urgent_one_for_it() -> None:
    """The old message's buttons, waiting among the last, hold discord.py's slot for the
    channel's route: the edit naming the player to act lends them its priority."""
    budget = RequestBudget(100, burst=1)
    assert budget.take()
    served: list[str] = []

    async def ask(name: str, priority: Priority, bucket: str) -> None:
        await budget.spend(priority, bucket=bucket)
        served.append(name)

    tasks = [
        asyncio.create_task(ask("old buttons, table 1", Priority.TIDY, channel_bucket(1))),
        asyncio.create_task(ask("result, table 2", Priority.TABLE, channel_bucket(2))),
        asyncio.create_task(ask("prompt, table 3", Priority.PLAYER, channel_bucket(3))),
    ]
    await asyncio.sleep(0)
    budget.raise_bucket(channel_bucket(1), Priority.PLAYER)
    budget.raise_bucket(channel_bucket(2), Priority.TIDY)  # never lowered
    await asyncio.gather(*tasks)
    assert served == ["prompt, table 3", "old buttons, table 1", "result, table 2"]
    assert budget.delay(Priority.TIDY) <= 1 / 100 and not any(budget._waiting)


async def test_a_token_taken_ahead_pays_for_the_next_request_or_goes_back() -> None:
    """The message naming the player to act waits for its turn before its countdown is
    written: the token it took pays for its request, or returns if none was made."""
    budget = RequestBudget(50, burst=2)
    async with budget.ahead(Priority.PLAYER):
        assert budget.spent == 1
        assert _paid_ahead() and not _paid_ahead()  # the first request only
    assert budget.spent == 1
    async with budget.ahead(Priority.PLAYER):
        pass  # the edit changed nothing: no request
    assert budget.spent == 1 and not _paid_ahead()
    assert budget.take()  # the token given back
    assert not budget.take()


def test_the_burst_is_kept_for_players_and_discord_pys_own_requests() -> None:
    clock = Clock()
    budget = RequestBudget(40, monotonic=clock)
    assert budget.burst == 4  # a deal: the table message and three hole-card DMs
    assert budget.take(Priority.TABLE)  # a full bucket: anyone may
    assert not budget.take(Priority.TIDY) and not budget.take(Priority.TABLE)
    assert budget.delay(Priority.TABLE) == pytest.approx(1 / 40)
    for _ in range(3):
        assert budget.take(Priority.PLAYER)
    assert not budget.take(Priority.PLAYER) and not budget.take(Priority.CONNECTION)
    assert budget.delay(Priority.PLAYER) == pytest.approx(1 / 40)
    assert budget.delay(Priority.TABLE) == pytest.approx(4 / 40)


def test_delay_counts_the_requests_waiting_ahead() -> None:
    clock = Clock()
    budget = RequestBudget(10, burst=1, monotonic=clock)
    assert budget.take() and budget.delay(Priority.PLAYER) == pytest.approx(0.1)
    budget._waiting[Priority.PLAYER] = 3  # as three waiting requests leave it
    assert budget.delay(Priority.CONNECTION) == pytest.approx(0.1)
    assert budget.delay(Priority.PLAYER) == pytest.approx(0.4)
    assert budget.delay(Priority.TIDY) == pytest.approx(0.4)


async def test_a_global_429_stops_every_request_for_its_retry_after() -> None:
    budget = RequestBudget(50)
    loop = asyncio.get_running_loop()
    budget.learn("/channels/{id}/messages", "/api/v10/channels/1/messages", 429,
                 {"X-RateLimit-Global": "true", "Retry-After": "1"}, 0.2)
    assert budget.rate_limited == 1 and not budget.take()
    assert budget.delay(Priority.PLAYER) == pytest.approx(0.2 + 1 / 50, abs=0.01)
    started = loop.time()
    await budget.spend(Priority.PLAYER)
    assert loop.time() - started >= 0.2 - 0.01


def test_a_route_bucket_spent_is_known_until_it_refills() -> None:
    clock = Clock()
    budget = RequestBudget(50, monotonic=clock)
    key = channel_bucket(7)
    route, path = "/channels/{id}/messages/{id}", "/api/v10/channels/7/messages/9"
    budget.learn(route, path, 200, {"X-RateLimit-Remaining": "2",
                                    "X-RateLimit-Reset-After": "4.0"}, None)
    assert budget.bucket_delay(key) == 0
    budget.learn(route, path, 200, {"X-RateLimit-Remaining": "0",
                                    "X-RateLimit-Reset-After": "3.5"}, None)
    assert budget.bucket_delay(key) == pytest.approx(3.5)
    assert budget.bucket_delay(channel_bucket(8)) == 0
    clock.now = 3.5
    assert budget.bucket_delay(key) == 0
    # A 429 of the route's own bucket (not global) says the same, from its retry_after.
    budget.learn(route, path, 429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Scope": "user",
                                    "X-RateLimit-Reset-After": "9"}, 1.25)
    assert budget.bucket_delay(key) == pytest.approx(1.25) and budget.rate_limited == 0
    # Other routes have no bucket the callers peek at.
    budget.learn("/users/@me", "/api/v10/users/@me", 200, {"X-RateLimit-Remaining": "0",
                                                            "X-RateLimit-Reset-After": "9"}, None)
    assert budget.take()


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
    client = Client()
    channels = DmChannels(size=2)
    first = await channels.channel(client, 1)  # type: ignore[arg-type]
    again = await channels.channel(client, 1)  # type: ignore[arg-type]
    assert first.id == again.id == 1001 and client.created == 1
    await channels.channel(client, 2)  # type: ignore[arg-type]
    await channels.channel(client, 1)  # type: ignore[arg-type] # 1 is the newest now
    await channels.channel(client, 3)  # type: ignore[arg-type] # 2 is forgotten
    assert client.created == 3
    await channels.channel(client, 1)  # type: ignore[arg-type]
    assert client.created == 3
    await channels.channel(client, 2)  # type: ignore[arg-type]
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
