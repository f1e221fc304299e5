"""Whether Discord can be reached, as the process sees it (``bot.runtime.link``): a short drop is
the sender's business, an outage holds the tables and, once over, shows every player to act his
turn again; what is owed is counted for the operator; DMs are sent again with their nonce; the
gateway's drops are one WARNING with the cause, and ``/readyz`` is not ready until it is back."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import cast

import discord
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import errors
from bot.client import PokerBot
from bot.logs import GatewayFaults, Throttle, tame_discord_faults
from bot.metrics import PrometheusMetrics
from bot.render import Labels
from bot.runtime import link as link_module
from bot.runtime.budget import RequestBudget
from bot.runtime.clock import Reach
from bot.runtime.direct import DmChannels, send_dm
from bot.runtime.link import OUTAGE_AFTER, DiscordLink
from bot.runtime.messenger import TableMessenger
from bot.settings import Settings, apply_proxies
from tests.bot.discord_stand_ins import Channel, Client, refused, schedule
from tests.bot.test_messenger_faults import DEADLINE, OPTIONS, PLAYER, state

LABELS = cast(Labels, None)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Party:
    def __init__(self) -> None:
        self.back: list[float] = []

    def owed(self) -> tuple[int, float | None]:
        return 0, None

    def discord_back(self, lasted: float) -> None:
        self.back.append(lasted)


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(errors, "RETRY_FIRST", 0.005)
    monkeypatch.setattr(errors, "RETRY_CAP", 0.02)
    yield


def test_a_short_drop_is_no_outage_and_a_long_one_is_told_when_over() -> None:
    clock = Clock()
    link = DiscordLink(monotonic=clock)
    party = Party()
    link.join(party)
    link.gateway_lost(0, "closed with code 1006")
    clock.now += 1.0
    assert link.down and not link.cut_off()
    link.gateway_back(0)  # resumed within a second: nobody is bothered
    assert not link.down and party.back == []

    link.request_failed("503 Service Unavailable on PATCH /channels/{id}/messages/{id}")
    link.gateway_lost(0, "closed with code 1006")
    clock.now += OUTAGE_AFTER
    assert link.cut_off() and link.shards_down() == {0: OUTAGE_AFTER}
    link.gateway_back(0)
    assert link.cut_off() and party.back == []  # REST still failing
    clock.now += 1.0
    link.request_answered()
    assert not link.down and party.back == [OUTAGE_AFTER + 1.0] and link.outages == 1


def test_tables_are_shown_again_when_rest_answers_even_before_the_gateway() -> None:
    """discord.py's reconnection backs off up to half a minute: what the tables owe goes as
    soon as a request is answered again."""
    clock = Clock()
    link = DiscordLink(monotonic=clock)
    party = Party()
    link.join(party)
    link.request_failed("ClientConnectorError: Cannot connect to host discord.test:443")
    link.gateway_lost(0, "closed with code 1006")
    clock.now += OUTAGE_AFTER + 15.0
    link.request_answered()
    assert party.back == [OUTAGE_AFTER + 15.0]
    assert link.cut_off()  # nobody can act yet: the clocks still hold
    clock.now += 10.0
    link.gateway_back(0)
    assert not link.down and len(party.back) == 2  # their time starts over once they can act


async def test_while_requests_fail_the_link_asks_discord_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing may be sent while Discord is away (the tables' retries back off): the link's
    own small request finds out Discord answers again, within a second or so."""
    monkeypatch.setattr(link_module, "PROBE_EVERY", 0.02)
    link = DiscordLink()
    asked: list[int] = []
    up_after = 3

    async def probe() -> None:
        asked.append(1)
        if len(asked) >= up_after:
            link.request_answered()  # as the request's own outcome tells the link
            return
        link.request_failed("ClientConnectorError: Cannot connect to host discord.test:443")
        raise refused()

    link.probe = probe
    link.request_failed("ClientConnectorError: Cannot connect to host discord.test:443")
    for _ in range(100):
        if not link.down:
            break
        await asyncio.sleep(0.02)
    assert not link.down and len(asked) == up_after
    await asyncio.sleep(0.1)
    assert len(asked) == up_after  # no more asking once it answers
    link.close()


def test_a_drop_is_one_warning_with_its_cause_whatever_the_tries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link = DiscordLink(monotonic=Clock())
    with caplog.at_level(logging.DEBUG, logger="bot.runtime.link"):
        for _ in range(5):  # discord.py says so again at each failed reconnection
            link.gateway_lost(0, "closed with code 1006")
        for _ in range(50):  # every table's message failing while Discord is away
            link.request_failed("ClientConnectorError: Cannot connect to host discord.test:443")
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert "closed with code 1006" in warnings[0] and "Cannot connect" in warnings[1]
    assert not any(r.exc_info for r in caplog.records)


async def test_the_operator_sees_what_is_owed_and_for_how_long() -> None:
    clock = Clock()
    metrics = PrometheusMetrics(monotonic=clock)
    budget = RequestBudget(1000, metrics=metrics, link=DiscordLink(monotonic=clock,
                                                                   metrics=metrics))
    channel = Channel(7, lambda op, message_id: "503")
    table = channel.seed("S0")

    async def posted(message_id: int) -> None:
        return None

    voice = TableMessenger(cast(discord.Client, Client(channel)), 1, 7, OPTIONS,
                           lambda table_id, buttons: None, posted, table, budget=budget)
    voice.show(state(1), LABELS)
    voice.post("P2", LABELS)
    await voice.flush(0.1)  # the edit fails again and again; the result waits behind it
    count, since = voice.owed()
    assert count == 1 and since is not None
    clock.now = since + 42.0
    metrics.refresh()
    samples = {(s.name, frozenset(s.labels.items())): s.value
               for family in text_string_to_metric_families(metrics.render()[0].decode())
               for s in family.samples}
    assert samples[("poker_messages_owed", frozenset())] == 1
    assert samples[("poker_message_owed_oldest_seconds", frozenset())] == 42.0
    assert samples[("poker_message_faults_total", frozenset({("kind", "table")}))] == 1
    assert samples[("poker_message_retries_total", frozenset({("kind", "table")}))] >= 1
    assert samples[("poker_discord_unreachable", frozenset())] == 0
    await voice.close()


async def test_when_discord_is_back_the_player_to_act_is_shown_his_turn_with_his_time_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    link = DiscordLink(monotonic=clock)
    channel = Channel(7)
    table = channel.seed("S0")
    calls: list[tuple[str, bool]] = []

    def on_prompt(marker: tuple[int, int], *, sending: bool = False,
                  again: bool = False) -> int:
        calls.append(("sending" if sending else "went out", again))
        return DEADLINE + (100 if again else 0)

    async def posted(message_id: int) -> None:
        return None

    voice = TableMessenger(cast(discord.Client, Client(channel)), 1, 7, OPTIONS,
                           lambda table_id, buttons: None, posted, table, on_prompt=on_prompt,
                           budget=RequestBudget(1000, link=link))
    voice.show(state(1, prompt=True), LABELS)
    await voice.flush(5)
    assert calls == [("sending", False), ("went out", False)]
    # Discord goes away: his clock holds; a result asked meanwhile is owed, its retry far off.
    monkeypatch.setattr(errors, "RETRY_FIRST", 60.0)
    link.gateway_lost(0, "closed with code 1006")
    channel.faults = lambda op, message_id: "refused"
    voice.post("P2", LABELS)
    clock.now += 30.0
    assert voice.prompt_queued((1, 1)) is Reach.CUT_OFF
    await voice.flush(0.2)
    assert voice.owed()[0] == 1
    channel.faults = lambda op, message_id: None
    link.gateway_back(0)
    await voice.flush(5)  # at once, not in a minute
    assert [e.content.split("\n")[0] for e in channel.events] == ["S1", "P2", "S1"]
    assert channel.content(table).endswith(f"<t:{DEADLINE + 100}:R>")
    assert calls[2:] == [("sending", True), ("went out", False)]
    assert channel.events[-1].pings == (PLAYER,)
    await voice.close()


async def test_a_dm_discord_failed_is_sent_again_once() -> None:
    channel = Channel(9, schedule(["503", "lost", "refused"]))
    client = Client(channel)
    await send_dm(cast(discord.Client, client), 5, DmChannels(), "Your cards: A♠ K♠")
    assert [e.content for e in channel.events] == ["Your cards: A♠ K♠"]
    nonces = {nonce for op, _, nonce in channel.attempts}
    assert len(nonces) == 1 and None not in nonces


async def test_a_dm_discord_keeps_failing_is_given_up() -> None:
    channel = Channel(9, lambda op, message_id: "503")
    with pytest.raises(discord.DiscordServerError):
        await send_dm(cast(discord.Client, Client(channel)), 5, DmChannels(), "hello")
    assert 1 < len(channel.attempts) <= 6


def test_discord_pys_reconnection_is_one_line_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tame_discord_faults()
    tame_discord_faults()  # once is enough, twice changes nothing
    filters = [f for f in logging.getLogger("discord.shard").filters
               if isinstance(f, GatewayFaults)]
    assert len(filters) == 1
    filters[0].throttle = Throttle()  # another test of this process may have had this minute's
    shard_log, client_log = logging.getLogger("discord.shard"), logging.getLogger("discord.client")
    with caplog.at_level(logging.INFO):
        try:
            raise refused()
        except Exception as exc:
            shard_log.error("Attempting a reconnect for shard ID %s in %.2fs", 0, 1.5,
                            exc_info=exc)
            client_log.exception("Attempting a reconnect in %.2fs", 2.0)
            for _ in range(3):
                shard_log.exception("Failed to connect for shard_id: %s. Retrying...", 0)
    records = caplog.records
    assert not any(r.exc_info or r.exc_text for r in records)
    assert [r.levelno for r in records] == [logging.INFO, logging.INFO, logging.WARNING,
                                            logging.INFO, logging.INFO]
    assert records[0].getMessage() == (
        "Attempting a reconnect for shard ID 0 in 1.50s (ClientConnectorError: Cannot connect"
        " to host discord.test:443 ssl:default [Connect call failed])")


async def test_not_ready_while_a_shard_is_disconnected(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = PokerBot(Settings(discord_token="x"), extensions=(), dynamic_items=())
    try:
        monkeypatch.setattr(bot, "is_ready", lambda: True)
        assert not any(r.startswith("gateway") for r in await bot.readiness())
        await bot.on_shard_disconnect(0)
        assert "gateway: shard(s) 0 disconnected" in await bot.readiness()
        await bot.on_shard_resumed(0)
        assert not any(r.startswith("gateway") for r in await bot.readiness())
    finally:
        apply_proxies(Settings())


def test_a_shard_tries_to_connect_again_within_seconds_however_long_discord_was_away() -> None:
    """discord.py's own pace doubles to seventeen minutes; the bot's stops at a few seconds,
    and starts over once the shard stayed connected."""
    from bot.client import RECONNECT_CAP, ReconnectPace

    clock = Clock()
    pace = ReconnectPace(monotonic=clock)
    waits = []
    for _ in range(30):  # a long outage: a try every few seconds
        waits.append(pace.delay())
        clock.now += waits[-1]
    assert waits[0] <= 0.5 and max(waits) <= RECONNECT_CAP
    assert sum(waits[-5:]) >= 4 * RECONNECT_CAP * 0.8  # it settles at the cap, not beyond
    clock.now += 120.0  # connected for two minutes, then dropped again
    assert pace.delay() <= 0.5
