"""What a table says is not lost when Discord fails a request: it stays owed and is sent again,
in order, until it goes out or a newer state of the same message replaces it. A create sent
again carries the nonce of the first try, so Discord returns the message the first try made
instead of making a second; a message too old to edit is posted anew; the player's time starts
only once the message naming him went out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any, cast

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import errors
from bot.presenter import TableMessage, TurnPrompt
from bot.render import Labels, TableView
from bot.runtime.budget import RequestBudget
from bot.runtime.clock import Decision, DecisionClock
from bot.runtime.config import RuntimeOptions
from bot.runtime.messenger import TableMessenger
from tests.bot.discord_stand_ins import FAULTS, Channel, Client, schedule

# No pacing of our own in the way: these tests are about Discord's faults.
OPTIONS = RuntimeOptions(channel_sends=10_000, channel_window=0.001, calm_edit_interval=0.0,
                         prompt_grace=0.05)
LABELS = cast(Labels, None)  # no image is drawn without labels
PLAYER = 42
DEADLINE = 1_700_000_000


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(errors, "RETRY_FIRST", 0.005, raising=False)
    monkeypatch.setattr(errors, "RETRY_CAP", 0.02, raising=False)
    yield


def state(number: int, *, prompt: bool = False) -> TableMessage:
    """The table's state ``number``; with ``prompt``, naming the player to act in decision
    (1, number)."""
    turn = TurnPrompt((1, number), PLAYER, f"<@{PLAYER}> to act {{deadline}}") if prompt else None
    return TableMessage(f"S{number}", view=cast(TableView, None), prompt=turn)


class PromptSpy:
    """The table's clock as the messenger sees it: records when a player's time started, and
    how many requests had taken effect then."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.started: list[tuple[tuple[int, int], int]] = []

    def __call__(self, marker: tuple[int, int], *, sending: bool = False,
                 again: bool = False) -> int:
        if not sending:
            self.started.append((marker, len(self.channel.events)))
        return DEADLINE


def messenger(
    channel: Channel,
    *,
    message_id: int | None = None,
    on_prompt: Any = None,
    posted: list[int] | None = None,
    options: RuntimeOptions = OPTIONS,
) -> TableMessenger:
    async def on_posted(message_id: int) -> None:
        if posted is not None:
            posted.append(message_id)

    return TableMessenger(
        cast(discord.Client, Client(channel)), 1, channel.channel_id, options,
        lambda table_id, buttons: None, on_posted, message_id,
        on_prompt=on_prompt, budget=RequestBudget(1000),
    )


async def test_a_503_on_the_edit_naming_the_next_player_is_retried_and_pings_him() -> None:
    """discord.py does not retry a 503: the edit that names the next player was dropped, and
    the channel kept showing the previous player to act until the clock moved the hand."""
    channel = Channel(7, schedule(["503"]))
    table = channel.seed("S0")
    spy = PromptSpy(channel)
    voice = messenger(channel, message_id=table, on_prompt=spy)
    voice.show(state(1, prompt=True), LABELS)
    await voice.flush(5)
    assert channel.content(table) == f"S1\n<@{PLAYER}> to act <t:{DEADLINE}:R>"
    assert channel.events[-1].pings == (PLAYER,)
    # His time started once, when the edit naming him had gone out, not at the failed try.
    assert spy.started == [((1, 1), 1)]
    await voice.close()


async def test_a_create_whose_answer_was_lost_makes_one_message() -> None:
    channel = Channel(7, schedule(["lost"]))
    posted: list[int] = []
    voice = messenger(channel, posted=posted)
    voice.show(state(1), LABELS, new=True)
    await voice.flush(5)
    sends = [attempt for attempt in channel.attempts if attempt[0] == "send"]
    assert len(sends) == 2
    assert sends[0][2] is not None and sends[0][2] == sends[1][2]  # the same nonce, twice
    assert len(channel.messages) == 1
    (made,) = channel.messages
    assert posted == [made] and voice.message_id == made
    await voice.close()


async def test_a_create_replaced_while_owed_ends_showing_the_newer_state() -> None:
    """The first try made the message (its answer lost); the state changed before the retry,
    whose nonce makes Discord return that first message: it is edited to the newer state."""
    channel = Channel(7, schedule(["lost", "503"]))
    voice = messenger(channel)
    voice.show(state(1), LABELS, new=True)
    await asyncio.sleep(0)
    voice.show(state(2), LABELS)  # joins the owed create
    await voice.flush(5)
    assert len(channel.messages) == 1
    assert voice.message_id is not None and channel.content(voice.message_id) == "S2"
    await voice.close()


async def test_a_message_too_old_to_edit_is_posted_anew() -> None:
    channel = Channel(7)
    old = channel.seed("S0")
    channel.exhausted.add(old)  # "Maximum number of edits to messages older than 1 hour"
    posted: list[int] = []
    voice = messenger(channel, message_id=old, posted=posted)
    voice.show(state(1), LABELS)
    await voice.flush(5)
    assert voice.message_id is not None and voice.message_id != old
    assert channel.content(voice.message_id) == "S1" and posted == [voice.message_id]
    # The old message cannot be edited any more: it is not tried again and again.
    assert sum(1 for op, message_id, _ in channel.attempts if message_id == old) <= 2
    await voice.close()


async def test_the_clock_does_not_start_while_the_prompt_is_owed() -> None:
    failing = True
    channel = Channel(7, lambda op, message_id: "503" if failing else None)
    table = channel.seed("S0")

    async def expired(decision: Decision) -> None:
        raise AssertionError("nobody may be timed out for a turn he was never shown")

    clock = DecisionClock(OPTIONS, {}, expired, lambda decision: None)
    voice = messenger(channel, message_id=table, on_prompt=clock.shown)
    clock.queued = voice.prompt_queued
    clock.timer = 0.2
    clock.arm((1, 1), PLAYER, 0, away=False)
    voice.show(state(1, prompt=True), LABELS)
    await asyncio.sleep(0.4)  # well past the grace: the message is owed, not lost
    assert clock.deadline is None and channel.content(table) == "S0"
    failing = False
    await voice.flush(5)
    assert clock.deadline is not None
    assert channel.content(table) == f"S1\n<@{PLAYER}> to act <t:{clock.deadline}:R>"
    await clock.close()
    await voice.close()


async def test_an_owed_state_is_replaced_by_a_newer_one_not_sent_after_it() -> None:
    failing = True
    channel = Channel(7, lambda op, message_id: "503" if failing else None)
    table = channel.seed("S0")
    voice = messenger(channel, message_id=table)
    voice.show(state(1), LABELS)
    await asyncio.sleep(0.05)  # tried and failed: owed
    voice.post("P2", LABELS)
    voice.show(state(3), LABELS)
    failing = False
    await voice.flush(5)
    assert [event.content for event in channel.events] == ["P2", "S3"]
    await voice.close()


async def test_results_and_notices_are_owed_too_and_keep_their_order() -> None:
    channel = Channel(7, schedule(["refused", "reset", "timeout", "504", "lost"]))
    table = channel.seed("S0")
    voice = messenger(channel, message_id=table)
    voice.post("P1", LABELS)
    voice.show(state(2), LABELS)
    voice.post("P3", LABELS)
    voice.show(state(4), LABELS, new=True)
    await voice.flush(5)
    contents = [event.content for event in channel.events]
    assert contents == ["P1", "S2", "P3", "S4"]
    await voice.close()


async def test_shutting_down_during_an_outage_does_not_wait_for_ever() -> None:
    channel = Channel(7, lambda op, message_id: "refused")
    voice = messenger(channel)
    voice.show(state(1), LABELS, new=True)
    voice.post("P2", LABELS)
    started = time.monotonic()
    await voice.drain(0.3)
    assert time.monotonic() - started < 1.5
    assert channel.events == []


# -- any schedule of faults ------------------------------------------------------------------

Op = tuple[str, bool]
ops = st.lists(
    st.one_of(
        st.tuples(st.just("post"), st.just(False)),
        st.tuples(st.just("show"), st.booleans()),  # True: a new table message
        st.tuples(st.just("prompt"), st.booleans()),  # a state naming the player to act
        st.tuples(st.just("then"), st.just(False)),
    ),
    min_size=1,
    max_size=10,
)
fault_lists = st.lists(st.one_of(st.none(), st.sampled_from((*FAULTS, "30046"))), max_size=25)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops, fault_lists, st.lists(st.integers(0, 4), max_size=10))
def test_order_and_supersession_hold_under_any_faults(
    asked: list[Op], faults: list[str | None], gaps: list[int]
) -> None:
    asyncio.run(_play(asked, faults, gaps))


async def _play(asked: list[Op], faults: list[str | None], gaps: list[int]) -> None:
    channel = Channel(7, schedule(faults))
    table = channel.seed("S0")
    spy = PromptSpy(channel)
    posted: list[int] = []
    voice = messenger(channel, message_id=table, on_prompt=spy, posted=posted)
    seen_at_then: dict[int, list[int]] = {}
    for index, (kind, flag) in enumerate(asked):
        if kind == "post":
            voice.post(f"P{index}", LABELS)
        elif kind == "then":
            voice.then(lambda index=index: seen_at_then.setdefault(
                index, [_index(event.content) for event in channel.events]))
        else:
            voice.show(state(index, prompt=kind == "prompt"), LABELS,
                       new=flag and kind == "show")
        for _ in range(gaps[index] if index < len(gaps) else 0):
            await asyncio.sleep(0)
    await voice.flush(20)
    await voice.close()

    shown = [_index(event.content) for event in channel.events]
    # Nothing goes out after what was asked later.
    assert shown == sorted(shown), shown
    # Every result and notice exactly once, in order.
    posts = [i for i, (kind, _) in enumerate(asked) if kind == "post"]
    assert [i for i in shown if asked[i][0] == "post"] == posts
    # A state is posted as a new message at most once (a create sent again made none).
    creates = [_index(e.content) for e in channel.events
               if e.op == "send" and asked[_index(e.content)][0] != "post"]
    assert len(creates) == len(set(creates)), creates
    # The table message ends showing the last state asked, and it is the message stored.
    states = [i for i, (kind, _) in enumerate(asked) if kind in ("show", "prompt")]
    if states:
        assert voice.message_id is not None
        assert _index(channel.content(voice.message_id)) == states[-1]
        if posted:
            assert posted[-1] == voice.message_id
    # What was asked before a callback had gone out when it ran.
    for index, seen in seen_at_then.items():
        before = [i for i in posts if i < index]
        assert [i for i in seen if asked[i][0] == "post"] == before
        last_state = [i for i in states if i < index]
        if last_state:
            assert last_state[-1] in seen
    assert set(seen_at_then) == {i for i, (kind, _) in enumerate(asked) if kind == "then"}
    # A player's time started only once the message naming him had gone out.
    for marker, effective in spy.started:
        assert marker[1] in shown[:effective], (marker, shown[:effective])


def _index(content: str) -> int:
    return int(content.split("\n")[0][1:])
