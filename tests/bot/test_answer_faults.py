"""An interaction's answer survives Discord's faults: a 5xx or a connection error is tried again
while Discord still takes the answer, a lost answer that went through (Discord says 40060,
"already acknowledged") counts as given, and reporting an error never raises, nor logs a fault
of Discord's as the bot's error."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot import errors
from bot.errors import report_error
from bot.guards import ARRIVED
from bot.interact import confirm, reply
from bot.logs import Throttle
from bot.presenter import TableMessage
from bot.render import Labels, TableView
from bot.runtime.budget import RequestBudget
from bot.runtime.config import RuntimeOptions
from bot.runtime.messenger import TableMessenger
from tests.bot.discord_stand_ins import (
    AFTER,
    BEFORE,
    Channel,
    Client,
    already_acknowledged,
    fault_error,
    schedule,
    server_error,
    unknown_interaction,
)

Faults = Callable[[str, int | None], "str | None"]


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(errors, "RETRY_FIRST", 0.01, raising=False)
    monkeypatch.setattr(errors, "RETRY_CAP", 0.05, raising=False)
    # A WARNING a minute: another test of this process may have had this minute's.
    monkeypatch.setattr(errors, "_faults", Throttle(), raising=False)
    yield


class Response:
    """``interaction.response``: Discord takes one answer; a second gets 40060."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.acknowledged = False  # what Discord knows
        self.done = False  # what discord.py knows (not set when the answer was lost)
        self.sent: list[str] = []
        self.edits: list[str] = []

    def is_done(self) -> bool:
        return self.done

    async def _answer(self, record: list[str], content: str | None) -> None:
        fault = self.faults("answer", None)
        if fault in BEFORE:
            raise fault_error(fault)
        if fault == "expired":
            raise unknown_interaction()
        if self.acknowledged:
            raise already_acknowledged()
        self.acknowledged = True
        record.append(content or "")
        if fault in AFTER:
            raise fault_error(fault)
        self.done = True

    async def send_message(self, content: str | None = None, **kwargs: Any) -> None:
        await self._answer(self.sent, content)

    async def edit_message(self, content: str | None = None, **kwargs: Any) -> None:
        await self._answer(self.edits, content)


class Followup:
    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.sent: list[str] = []

    async def send(self, content: str | None = None, **kwargs: Any) -> None:
        fault = self.faults("followup", None)
        if fault in BEFORE:
            raise fault_error(fault)
        self.sent.append(content or "")
        if fault in AFTER:
            raise fault_error(fault)


def interaction(faults: Faults = lambda op, _: None, *, message_id: int | None = None) -> Any:
    return SimpleNamespace(
        id=1234,
        response=Response(faults),
        followup=Followup(faults),
        extras={ARRIVED: time.monotonic()},
        locale=discord.Locale.american_english,
        guild_locale=None,
        user=SimpleNamespace(id=5, display_name="five"),
        command=None,
        client=SimpleNamespace(),
        message=SimpleNamespace(id=message_id) if message_id is not None else None,
    )


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_reporting_an_error_during_an_outage_never_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A connection refused used to escape the report, and the command tree's invoker logged
    "Task exception was never retrieved" with tracebacks."""
    pressed = interaction(lambda op, _: "refused")
    with caplog.at_level(logging.INFO):
        await report_error(pressed, server_error(503))
    assert pressed.response.sent == [] and not errors_logged(caplog)
    assert any(r.levelno == logging.WARNING for r in caplog.records)


async def test_a_fault_of_discords_is_not_logged_as_the_bots_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pressed = interaction()
    cause = discord.app_commands.CommandInvokeError(
        cast(Any, SimpleNamespace(name="call", qualified_name="poker call")), server_error(503))
    with caplog.at_level(logging.INFO):
        await report_error(pressed, cause)
    assert not errors_logged(caplog)
    assert len(pressed.response.sent) == 1  # the user is told Discord failed


async def test_an_answer_that_met_a_503_is_sent_again() -> None:
    pressed = interaction(schedule(["503", "refused"]))
    await reply(pressed, "Call: 20")
    assert pressed.response.sent == ["Call: 20"]


async def test_a_lost_answer_that_went_through_counts_as_given() -> None:
    """The answer took effect and its reply was lost: sent again, Discord says 40060; the user
    has it once, and what follows goes as a follow-up."""
    pressed = interaction(schedule(["lost"]))
    await reply(pressed, "Call: 20")
    assert pressed.response.sent == ["Call: 20"]
    assert errors.answered(pressed)
    await reply(pressed, "and more")
    assert pressed.followup.sent == ["and more"]


async def test_a_follow_up_is_sent_again_while_the_token_lives() -> None:
    pressed = interaction(schedule(["refused", "504", "reset"]))
    pressed.response.done = pressed.response.acknowledged = True  # deferred
    await reply(pressed, "Here are your cards")
    # The reset came after the follow-up took effect: there is no nonce on a follow-up, so
    # it may come twice; it is never lost.
    assert pressed.followup.sent[:1] == ["Here are your cards"]


async def test_an_interaction_past_its_answer_window_is_given_up_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pressed = interaction(schedule(["503", "expired", "expired"]))
    with caplog.at_level(logging.INFO):
        await reply(pressed, "Call: 20")
    assert pressed.response.sent == [] and not errors_logged(caplog)


async def test_a_press_whose_table_answer_fails_is_confirmed_and_the_table_still_edited() -> None:
    """The press would be answered by the table's edit (an interaction answer updating the
    message); that answer meets a refused connection: the table is edited the usual way, and
    the player is confirmed privately."""
    channel = Channel(7)
    table = channel.seed("S0")
    voice = TableMessenger(
        cast(discord.Client, Client(channel)), 1, 7,
        RuntimeOptions(channel_sends=10_000, channel_window=0.001, calm_edit_interval=0.0),
        lambda table_id, buttons: None, _nothing, table, budget=RequestBudget(1000),
    )
    pressed = interaction(schedule(["refused"]), message_id=table)
    voice.show(TableMessage("S1", view=cast(TableView, None)), cast(Labels, None))
    live_table = SimpleNamespace(messenger=voice)
    await confirm(pressed, cast(Any, live_table), "Call: 20", pressed=True)
    await voice.flush(5)
    assert channel.content(table) == "S1"
    assert pressed.response.sent == ["Call: 20"]
    await voice.close()


async def test_a_press_whose_table_answer_was_lost_is_not_confirmed_twice() -> None:
    channel = Channel(7)
    table = channel.seed("S0")
    voice = TableMessenger(
        cast(discord.Client, Client(channel)), 1, 7,
        RuntimeOptions(channel_sends=10_000, channel_window=0.001, calm_edit_interval=0.0),
        lambda table_id, buttons: None, _nothing, table, budget=RequestBudget(1000),
    )
    pressed = interaction(schedule(["lost"]), message_id=table)
    voice.show(TableMessage("S1", view=cast(TableView, None)), cast(Labels, None))
    await confirm(pressed, cast(Any, SimpleNamespace(messenger=voice)), "Call: 20", pressed=True)
    await voice.flush(5)
    # The table's answer went through: that is the player's confirmation.
    assert pressed.response.edits == ["S1"] and pressed.response.sent == []
    assert channel.content(table) == "S1"
    await voice.close()


async def _nothing(message_id: int) -> None:
    return None
