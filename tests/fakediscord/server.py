"""A fake Discord (REST + gateway) on 127.0.0.1 that the real discord.py client talks to.

Tests drive it from the same event loop as the bot::

    async with FakeDiscord(guilds=[guild], users=[alice]) as fake:
        ...  # start the bot with fake.api_base / fake.gateway_url / fake.token
        handle = await fake.slash(alice, guild.channel("poker"), "ping")
        reply = await handle.response()
        assert reply.ephemeral and reply.content == "pong"

Everything the bot sends is recorded (``fake.events``, ``fake.messages_in(channel)``) and can be
awaited with a timeout (``fake.wait_for_message(...)``); nothing here sleeps.

``FakeDiscord`` is a facade over three parts with one job each: ``state`` (``FakeState``: the
world, what was stored, and what may be), ``gateway`` (``Gateway``: the websocket sessions) and
``rest`` (``RestApi``: the HTTP routes, authentication and rate limits). The facade serves them
on one port and drives the bot the way users would (``slash``, ``click``, ``submit_modal``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from aiohttp import web

from tests.timing import scaled

from .door import DoorCount, door_count
from .events import ScheduledEvents
from .faults import ANY, FaultRule, ServedFault, cut
from .gateway import HEARTBEAT_INTERVAL, Gateway, GatewaySession
from .interactions import (
    INTERACTION_COMMAND,
    INTERACTION_COMPONENT,
    INTERACTION_MODAL,
    InteractionHandle,
    build_command_data,
    build_interaction,
    build_modal_components,
)
from .models import (
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    MessageEvent,
)
from .openapi import SchemaViolation, request_bodies
from .rest import (
    DISCORD_CHANNEL_RATE,
    DISCORD_GLOBAL_RATE,
    INTERACTION_TOKEN_LIFETIME,
    UNSET,
    Rate,
    RestApi,
    Unset,
)
from .state import (
    ApiError,
    Endpoint,
    FakeState,
    RecordedRequest,
    SyncCall,
)

__all__ = ["ApiError", "FakeDiscord", "RecordedRequest", "SyncCall"]

T = TypeVar("T")


class FakeDiscord:
    """Fake Discord server. Use ``async with FakeDiscord(...) as fake`` in a test.

    ``strict_commands`` (default True) refuses ``slash()`` for a command the bot never synced,
    as the Discord client would; ``interaction_deadline`` is the 3 s answer window (a later
    callback gets 404 / 10062 "Unknown interaction"); ``interaction_token_lifetime`` the
    15 minutes an interaction token works for followups and edits (then 401 / 50027 "Invalid
    Webhook Token"). ``channel_rate`` and ``global_rate`` are Discord's rate limits as
    (requests, seconds): 5 per 5 s per channel for message creates, edits and deletes, and 50
    per second across the bot-token routes; None turns one off, ``set_rate_limits`` changes
    them on a live fake. ``heartbeat_interval`` is the one HELLO gives (Discord's 41.25 s; a
    test of a zombie connection shortens it, as it shortens the client's timeout).

    Faults on demand (``fail``, ``lose_answers``, ``reset_connections``, ``delay``,
    ``go_down``/``come_back``, ``drop_gateway``, ``send_reconnect``, ``invalidate_session``,
    ``zombie_gateway``, ``advance_clock``): see ``faults``; each one served is in ``faults``.

    Every request body is also held to Discord's OpenAPI spec (``openapi``): one it refuses is
    answered 400 / 50035 and recorded in ``schema_violations``, and leaving the ``async with``
    with any recorded fails the test (a test that plants one on purpose takes it with
    ``take_schema_violations``). So does a request to a route the fake does not serve, whose
    body nobody could check (``take_unhandled`` for one sent on purpose).
    """

    def __init__(
        self,
        guilds: Sequence[FakeGuild] = (),
        users: Sequence[FakeUser] = (),
        *,
        bot_user: FakeUser | None = None,
        owner: FakeUser | None = None,
        token: str | None = None,
        strict_commands: bool = True,
        interaction_deadline: float = 3.0,
        attachment_size_limit: int = 10 * 1024 * 1024,
        channel_rate: Rate | None = DISCORD_CHANNEL_RATE,
        global_rate: Rate | None = DISCORD_GLOBAL_RATE,
        interaction_token_lifetime: float = INTERACTION_TOKEN_LIFETIME,
        shards: int = 1,
        host: str = "127.0.0.1",
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
    ) -> None:
        self.endpoint = Endpoint(host=host)
        self.state = FakeState(
            guilds,
            users,
            bot_user=bot_user if bot_user is not None else FakeUser("PokerBot", bot=True),
            owner=owner,
            token=token if token is not None else f"fake.{secrets.token_urlsafe(24)}",
            attachment_size_limit=attachment_size_limit,
            endpoint=self.endpoint,
        )
        self.gateway = Gateway(self.state, heartbeat_interval)
        self.rest = RestApi(
            self.state,
            interaction_deadline=interaction_deadline,
            interaction_token_lifetime=interaction_token_lifetime,
            channel_rate=channel_rate,
            global_rate=global_rate,
            shards=shards,
            request_bodies=request_bodies(),
        )
        self.rest.dispatch = self.gateway.dispatch
        # Scheduled events: their routes join the REST API's, their test actions are here.
        self.calendar = ScheduledEvents(self.rest, self.gateway)
        self.rest.add_routes(self.calendar.routes())
        self.strict_commands = strict_commands
        self._runner: web.AppRunner | None = None
        self._site: web.SockSite | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def host(self) -> str:
        return self.endpoint.host

    @property
    def port(self) -> int:
        return self.endpoint.port

    @property
    def base_url(self) -> str:
        return self.endpoint.base_url

    @property
    def api_base(self) -> str:
        return self.endpoint.api_base

    @property
    def gateway_url(self) -> str:
        return self.endpoint.gateway_url

    async def start(self) -> None:
        self.state.open()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self.rest.serve_attachment)
        app.router.add_route("*", r"/api/v{version:\d+}/{path:.*}", self.rest.handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await self._listen()

    async def _listen(self) -> None:
        """Listen on the fake's port (a free one the first time, the same one after an
        outage)."""
        assert self._runner is not None
        # Bind first so the port is known without reaching into the site's private server.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.endpoint.host, self.endpoint.port))
        self.endpoint.port = sock.getsockname()[1]
        self._site = web.SockSite(self._runner, sock)
        await self._site.start()

    async def stop(self) -> None:
        self.rest.faults.clear()
        self.rest.faults.down = self.gateway.down = False
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        await self.stop()
        violations = self.state.schema_violations
        unhandled = self.state.unhandled
        if not violations and not unhandled:
            return
        text = "\n".join(
            (["Discord's OpenAPI spec refuses request bodies the bot sent:"]
             + [str(v) for v in violations] if violations else [])
            # A route the fake does not serve is a request whose body nobody checked.
            + (["The bot called routes the fake does not serve (their bodies went unchecked):"]
               + [f"{r.method} {r.path}" for r in unhandled] if unhandled else [])
        )
        if exc is not None:
            exc.add_note(text)
            return
        raise AssertionError(text)

    # ------------------------------------------------------------------ the world (state)

    @property
    def bot_user(self) -> FakeUser:
        return self.state.bot_user

    @property
    def application_id(self) -> int:
        return self.state.application_id

    @property
    def token(self) -> str:
        return self.state.token

    @property
    def owner(self) -> FakeUser:
        return self.state.owner

    @property
    def guilds(self) -> list[FakeGuild]:
        return self.state.guilds

    @property
    def users(self) -> dict[int, FakeUser]:
        return self.state.users

    @property
    def channels(self) -> dict[int, FakeChannel]:
        return self.state.channels

    @property
    def messages(self) -> dict[int, FakeMessage]:
        return self.state.messages

    @property
    def events(self) -> list[MessageEvent]:
        return self.state.events

    @property
    def commands(self) -> dict[int | None, list[dict[str, Any]]]:
        return self.state.commands

    @property
    def sync_calls(self) -> list[SyncCall]:
        return self.state.sync_calls

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.state.requests

    @property
    def unhandled(self) -> list[RecordedRequest]:
        return self.state.unhandled

    @property
    def rate_limited(self) -> list[RecordedRequest]:
        return self.state.rate_limited

    def door(self, since: int = 0) -> DoorCount:
        """The requests that reached the door from ``fake.requests[since]`` on: how many a
        second Discord's global limit counted, at the busiest and on average, by route."""
        return door_count(self.state.requests[since:])

    @property
    def schema_violations(self) -> list[SchemaViolation]:
        """Request bodies Discord's OpenAPI spec refused (each answered 400 / 50035)."""
        return self.state.schema_violations

    def take_unhandled(self) -> list[RecordedRequest]:
        """Remove and return the requests to routes the fake does not serve: a test that calls
        one on purpose takes them, so that only the bot's own fail it at the exit."""
        taken = list(self.state.unhandled)
        self.state.unhandled.clear()
        return taken

    def take_schema_violations(
        self, method: str | None = None, path: str | None = None
    ) -> list[SchemaViolation]:
        """Remove and return the recorded violations (those of one request when ``method``
        and ``path`` are given): a test that sends a bad body on purpose takes its own, so
        that only the ones nobody expected fail it."""
        taken = [
            v
            for v in self.state.schema_violations
            if (method is None or v.method == method.upper()) and (path is None or v.path == path)
        ]
        self.state.schema_violations[:] = [
            v for v in self.state.schema_violations if v not in taken
        ]
        return taken

    @property
    def interactions(self) -> list[InteractionHandle]:
        return self.state.interactions

    @property
    def attachment_size_limit(self) -> int:
        return self.state.attachment_size_limit

    async def wait_for(
        self, check: Callable[[], T | None], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until ``check()`` returns something other than None/False; return it."""
        return await self.state.wait_for(check, timeout=timeout, what=what)

    def mark(self) -> int:
        """A cursor: pass it as ``after=`` to wait only for changes made from now on."""
        return self.state.mark()

    async def wait_for_event(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | FakeUser | int | None = None,
        kinds: Iterable[str] = ("create", "edit"),
        after: int = 0,
        timeout: float = 5.0,
    ) -> MessageEvent:
        return await self.state.wait_for_event(
            predicate, channel=channel, kinds=kinds, after=after, timeout=timeout
        )

    async def wait_for_message(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | FakeUser | int | None = None,
        kinds: Iterable[str] = ("create", "edit"),
        after: int = 0,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The first message version (created or edited, from ``after`` on) that matches,
        within ``timeout`` seconds of a free machine (stretched with the load)."""
        return await self.state.wait_for_message(
            predicate, channel=channel, kinds=kinds, after=after, timeout=scaled(timeout)
        )

    def describe_recent(self, count: int = 8) -> str:
        return self.state.describe_recent(count)

    def threads_of(self, parent: FakeChannel) -> list[FakeChannel]:
        """The threads the bot started under ``parent``, oldest first."""
        guild = self.guild_of(parent)
        return [] if guild is None else guild.threads_of(parent)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (made on first use, as Discord does)."""
        return self.state.dm_channel(user)

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return self.state.guild_of(channel)

    def messages_in(self, channel: FakeChannel | FakeUser | int) -> list[FakeMessage]:
        """Current versions of the messages in a channel, oldest first, deleted ones left out."""
        return self.state.messages_in(channel)

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        return self.state.dm_messages(user)

    def message(self, message: FakeMessage | int) -> FakeMessage:
        """The current version of a message."""
        return self.state.message(message)

    def command(self, name: str, guild: FakeGuild | None = None) -> dict[str, Any] | None:
        """The synced command called ``name`` (guild commands first, then global)."""
        return self.state.command(name, guild)

    # ------------------------------------------------------------------ REST

    @property
    def interaction_deadline(self) -> float:
        return self.rest.interaction_deadline

    @property
    def interaction_token_lifetime(self) -> float:
        return self.rest.interaction_token_lifetime

    @property
    def channel_rate(self) -> Rate | None:
        """Message creates/edits/deletes allowed per channel, as (requests, seconds)."""
        return self.rest.limiter.channel_rate

    @property
    def global_rate(self) -> Rate | None:
        """Bot-token requests allowed in all, as (requests, seconds)."""
        return self.rest.limiter.global_rate

    def set_rate_limits(
        self,
        *,
        channel_rate: Rate | Unset | None = UNSET,
        global_rate: Rate | Unset | None = UNSET,
    ) -> None:
        """Change the automatic rate limits (None turns one off; a limit not given stays);
        the buckets of a limit that changed start fresh windows."""
        self.rest.set_rate_limits(channel_rate=channel_rate, global_rate=global_rate)

    def rate_limit(
        self,
        method: str,
        path_pattern: str,
        *,
        retry_after: float = 0.05,
        count: int = 1,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``count`` matching requests with 429 (``path_pattern`` is a regex
        over the path after ``/api/v10``, e.g. ``r"/channels/\\d+/messages"``)."""
        self.rest.rate_limit(
            method, path_pattern, retry_after=retry_after, count=count, is_global=is_global
        )

    # ------------------------------------------------------------------ faults

    @property
    def faults(self) -> list[ServedFault]:
        """Every fault served, in order (``faults.ServedFault``)."""
        return self.state.faults

    def fail(
        self,
        status: int,
        path: str = ANY,
        *,
        method: str = "*",
        count: int | None = 1,
        fraction: float = 1.0,
        for_seconds: float | None = None,
        answering: str | None = None,
    ) -> FaultRule:
        """Answer matching requests ``status`` (500, 502, 503 or 504) before they take
        effect: the next ``count`` (None: all), each with probability ``fraction``, within
        ``for_seconds`` if given. ``path`` is a pattern (see ``faults`` for the routes);
        ``answering`` ("command", "button", "form") keeps to answers to such interactions."""
        return self.rest.faults.add("status", path, method=method, status=status, count=count,
                                    fraction=fraction, for_seconds=for_seconds,
                                    answering=answering)

    def lose_answers(
        self,
        path: str = ANY,
        *,
        method: str = "*",
        status: int = 502,
        count: int | None = 1,
        fraction: float = 1.0,
        for_seconds: float | None = None,
        answering: str | None = None,
    ) -> FaultRule:
        """Let matching requests take effect, then answer them ``status`` (502) instead."""
        return self.rest.faults.add("lost", path, method=method, status=status, count=count,
                                    fraction=fraction, for_seconds=for_seconds,
                                    answering=answering)

    def reset_connections(
        self,
        path: str = ANY,
        *,
        method: str = "*",
        applied: bool = True,
        count: int | None = 1,
        fraction: float = 1.0,
        for_seconds: float | None = None,
        answering: str | None = None,
    ) -> FaultRule:
        """Cut the connection of matching requests in the middle of the answer's body, once
        they took effect (``applied=False``: as they arrive, before anything happens)."""
        return self.rest.faults.add("reset", path, method=method, applied=applied,
                                    count=count, fraction=fraction, for_seconds=for_seconds,
                                    answering=answering)

    def delay(
        self,
        path: str = ANY,
        *,
        method: str = "*",
        by: tuple[float, float] = (1.0, 3.0),
        count: int | None = None,
        fraction: float = 1.0,
        for_seconds: float | None = None,
        answering: str | None = None,
    ) -> FaultRule:
        """Hold matching requests a time drawn from ``by`` (seconds) before serving them."""
        return self.rest.faults.add("delay", path, method=method, delay=by, count=count,
                                    fraction=fraction, for_seconds=for_seconds,
                                    answering=answering)

    def clear_faults(self) -> None:
        """End every fault rule (an outage goes on until ``come_back``)."""
        self.rest.faults.clear()

    @property
    def down(self) -> bool:
        return self.rest.faults.down

    async def go_down(self, *, refuse: bool = True) -> None:
        """Discord goes away: every open connection (REST and gateway) is reset, and until
        ``come_back`` new ones are refused (``refuse=False``: accepted, then reset)."""
        if self.down:
            return
        self.rest.faults.down = True
        self.gateway.down = True
        self.rest.faults.served("outage", "*", "/", 0, "Discord went down")
        if refuse and self._site is not None:
            await self._site.stop()
            self._site = None
        self.gateway.cut_all()
        if self._runner is not None and self._runner.server is not None:
            for handler in self._runner.server.connections:
                cut(handler.transport)

    async def come_back(self) -> None:
        """Discord answers again, on the same port."""
        if not self.down:
            return
        if self._site is None and self._runner is not None:
            for attempt in range(50):
                try:
                    await self._listen()
                    break
                except OSError:
                    if attempt == 49:
                        raise
                    await asyncio.sleep(0.1)
        self.rest.faults.down = False
        self.gateway.down = False
        self.rest.faults.served("outage", "*", "/", 0, "Discord is back")

    @contextlib.asynccontextmanager
    async def outage(self, *, refuse: bool = True) -> AsyncIterator[None]:
        """Discord is down inside the block."""
        await self.go_down(refuse=refuse)
        try:
            yield
        finally:
            await self.come_back()

    def advance_clock(self, seconds: float) -> None:
        """Time passes for the fake's world: every message and interaction already there is
        ``seconds`` older (an edit of a message past an hour is refused, 30046)."""
        self.state.advance_clock(seconds)

    @property
    def nonce_replays(self) -> list[FakeMessage]:
        """Creates with ``enforce_nonce`` answered with the first message of their nonce."""
        return self.state.nonce_replays

    # ------------------------------------------------------------------ gateway

    @property
    def sessions(self) -> list[GatewaySession]:
        return self.gateway.sessions

    @property
    def identify_count(self) -> int:
        return self.gateway.identify_count

    async def wait_for_session(self, timeout: float = 5.0) -> GatewaySession:
        return await self.gateway.wait_for_session(timeout)

    async def dispatch(self, event: str, data: Any) -> None:
        await self.gateway.dispatch(event, data)

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every gateway connection with ``code`` (1006: dropped without a close frame;
        4009: the session timed out, a resume is refused)."""
        await self.gateway.close_with(code)

    async def send_reconnect(self) -> None:
        """Op 7 RECONNECT: the client should close and RESUME."""
        await self.gateway.reconnect()

    async def invalidate_session(self, *, resumable: bool) -> None:
        """Op 9 INVALID_SESSION (d ``resumable``)."""
        await self.gateway.invalidate(resumable)

    def zombie_gateway(self) -> None:
        """The gateway connections stop answering (heartbeat ACKs and events) while open."""
        self.gateway.zombie()

    # ------------------------------------------------------------------ users' actions

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        *,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        """Push a slash command. ``subcommand`` may be "join" or "group join"."""
        guild = self.guild_of(channel)
        command = self.command(name, guild)
        if command is None and self.strict_commands:
            synced = {scope: [c["name"] for c in cmds] for scope, cmds in self.commands.items()}
            raise LookupError(f"/{name} is not synced, so no user could run it; synced: {synced}")
        data = build_command_data(
            self.state,
            name=name,
            command=command,
            subcommand=subcommand,
            options=options or {},
            guild=guild,
            strict=self.strict_commands,
        )
        return await self._push(
            INTERACTION_COMMAND,
            user,
            channel,
            data,
            locale=locale,
            permissions=permissions,
            age=age,
        )

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        *,
        values: Sequence[str] | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        """Press a button (or pick ``values`` in a select) on the current version of a message."""
        current = self.message(message)
        if current.deleted:
            raise ValueError(f"message {current.id} was deleted")
        if current.visible_to is not None and current.visible_to != user.id:
            raise ValueError(f"{user.name} cannot see ephemeral message {current.id}")
        component = current.component(custom_id)
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            data["values"] = list(values or [])
        channel = self.channels[current.channel_id]
        return await self._push(
            INTERACTION_COMPONENT,
            user,
            channel,
            data,
            message=current,
            locale=locale,
            permissions=permissions,
            age=age,
        )

    async def submit_modal(
        self,
        user: FakeUser,
        custom_id: str,
        values: Mapping[str, str | Sequence[str]],
        *,
        source: InteractionHandle | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        """Submit the modal the bot last opened with ``custom_id`` (``values`` by input id)."""
        opener = source if source is not None else self.state.modal_sources.get(custom_id)
        if opener is None or opener.modal is None:
            raise LookupError(f"the bot never opened a modal {custom_id!r}")
        components = build_modal_components(opener.modal, values)
        data = {"custom_id": custom_id, "components": components}
        message = None if opener.message is None else self.message(opener.message)
        return await self._push(
            INTERACTION_MODAL,
            user,
            opener.channel,
            data,
            message=message,
            locale=locale,
            permissions=permissions,
            age=age,
        )

    async def _push(
        self,
        interaction_type: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        handle = build_interaction(
            self.state,
            interaction_type,
            user,
            channel,
            data,
            created=time.time() - age,
            message=message,
            locale=locale,
            permissions=permissions,
        )
        self.state.add_interaction(handle)
        await self.dispatch("INTERACTION_CREATE", handle.payload)
        return handle
