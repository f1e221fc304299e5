"""The fake Discord's REST API: routes, authentication, request bodies and rate limits.

Handlers translate HTTP into changes of the ``FakeState`` (which validates what is stored) and
answer in Discord's shapes. Every request is recorded in ``state.requests``.

Rate limits are Discord's, enforced on every request:

- per channel: creating, editing and deleting messages in one channel (DMs included) share a
  bucket of 5 per 5 s. Every answer on those routes carries the bucket's ``X-RateLimit-*``
  headers, as Discord's do, so discord.py paces itself from them; a request beyond the bucket
  gets 429 with ``retry_after``, ``global: false`` and scope ``user``.
- global: 50 requests per second per bot token: every request made with the bot's token
  counts, whatever its route (``GET /gateway``, which needs no token, and routes the fake does
  not know, too). Routes authenticated by an interaction token (``/interactions/...``,
  ``/webhooks/{app}/{token}``) do not count. Beyond it: 429 with ``global: true`` and
  ``X-RateLimit-Global: true``.

A bucket is a fixed window that opens with its first request and refills completely when it
ends, which is what ``X-RateLimit-Reset-After`` tells the client. Requests refused with 429 are
recorded in ``state.rate_limited``. Each request is recorded with the moment it reached the
door and whether the global limit counted it, which ``door.door_count`` reads back as
requests a second, by route.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from .faults import FaultRule, Faults, cut, cut_mid_body, status_response
from .interactions import (
    INTERACTION_COMMAND,
    INTERACTION_MODAL,
    InteractionCallback,
    InteractionHandle,
)
from .models import (
    ATTACH_FILES,
    AUTO_ARCHIVE_MINUTES,
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    CHANNEL_TEXT,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    EPHEMERAL,
    LOADING,
    MANAGE_THREADS,
    MAX_ACTIVE_THREADS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
)
from .openapi import RequestBodies, SchemaViolation, discord_errors
from .state import (
    OLD_MESSAGE_EDITS,
    ApiError,
    FakeState,
    RecordedRequest,
    UploadedFile,
    modal_problems,
)

log = logging.getLogger(__name__)

Handler = Callable[..., Awaitable[web.StreamResponse]]
# (requests, seconds) a bucket allows; None turns that limit off.
Rate = tuple[int, float]

DISCORD_CHANNEL_RATE: Rate = (5, 5.0)
DISCORD_GLOBAL_RATE: Rate = (50, 1.0)
# Interaction tokens (callback and webhook routes) stop working after 15 minutes.
INTERACTION_TOKEN_LIFETIME = 15 * 60.0
CHANNEL_MESSAGES = "channel-messages"
# Routes authenticated by an interaction's token in the path: outside the global limit.
# The key under which a request keeps the wall time it reached the door.
ARRIVED_AT = web.RequestKey("fake_discord_arrived_at", float)
INTERACTION_TOKEN = re.compile(r"/(?:interactions/\d+|webhooks/\d+)/(?P<token>[^/]+)")
INTERACTION_TOKEN_PATH = re.compile(
    r"/(interactions/\d+/[^/]+/callback|webhooks/\d+/[^/]+)(/|$)"
)


def _parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ApiError(400, 50109, "The request body contains invalid JSON.") from error


def json_response(
    data: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> web.Response:
    # discord.py only decodes JSON when the header is exactly "application/json" (no charset).
    merged = {"Content-Type": "application/json"}
    if headers:
        merged.update(headers)
    return web.Response(status=status, body=json.dumps(data).encode(), headers=merged)


def no_content() -> web.Response:
    return web.Response(status=204)


def error_response(error: ApiError) -> web.Response:
    body: dict[str, Any] = {"message": error.message, "code": error.code}
    if error.errors is not None:
        body["errors"] = error.errors
    return json_response(body, error.status)


class Unset:
    """The default of ``set_rate_limits``: leave that limit as it is."""


UNSET = Unset()


@dataclass
class RateLimitRule:
    """A 429 a test asked for (``FakeDiscord.rate_limit``), on top of the automatic limits."""

    method: str
    pattern: re.Pattern[str]
    retry_after: float
    remaining: int
    is_global: bool


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    # Authenticated with the bot token (the others carry an interaction token in the path).
    bot_auth: bool
    # The shared per-resource bucket this route counts against (keyed by its channel id).
    bucket: str | None = None


class Bucket:
    """A fixed window of ``limit`` requests per ``per`` seconds that opens on first use."""

    def __init__(self, limit: int, per: float, name: str) -> None:
        self.limit = limit
        self.per = per
        # Discord names a bucket by an opaque hash; discord.py keys its own limiter by it.
        self.hash = hashlib.sha1(name.encode()).hexdigest()[:16]
        self.count = 0
        self.resets_at = 0.0

    def take(self, now: float) -> bool:
        """Count one request; False (and nothing counted) when the window is spent."""
        if now >= self.resets_at:
            self.count = 0
            self.resets_at = now + self.per
        if self.count >= self.limit:
            return False
        self.count += 1
        return True

    def reset_after(self, now: float) -> float:
        return max(0.001, round(self.resets_at - now, 3))

    def headers(self, now: float) -> dict[str, str]:
        reset_after = self.reset_after(now)
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.limit - self.count)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": self.hash,
        }


class RateLimiter:
    """Discord's automatic limits: per-channel message buckets and the global budget."""

    def __init__(self, channel_rate: Rate | None, global_rate: Rate | None) -> None:
        self.channel_rate = channel_rate
        self.global_rate = global_rate
        self._channels: dict[str, Bucket] = {}
        self._global: Bucket | None = None

    def configure(self, channel_rate: Rate | None, global_rate: Rate | None) -> None:
        """New limits; a limit that changes starts fresh windows, one that stays keeps its
        (a restarted bot still meets the buckets its previous process filled)."""
        if channel_rate != self.channel_rate:
            self.channel_rate = channel_rate
            self._channels.clear()
        if global_rate != self.global_rate:
            self.global_rate = global_rate
            self._global = None

    def take_global(self, now: float) -> web.Response | None:
        """None if the request fits the global budget, else the 429 to answer."""
        if self.global_rate is None:
            return None
        if self._global is None:
            self._global = Bucket(*self.global_rate, name="global")
        if self._global.take(now):
            return None
        retry_after = self._global.reset_after(now)
        headers = {
            "X-RateLimit-Global": "true",
            "X-RateLimit-Scope": "global",
        }
        return _too_many(retry_after, is_global=True, headers=headers)

    def bucket(self, kind: str, key: str) -> Bucket | None:
        if kind != CHANNEL_MESSAGES or self.channel_rate is None:
            return None
        bucket = self._channels.get(key)
        if bucket is None:
            bucket = Bucket(*self.channel_rate, name=kind)
            self._channels[key] = bucket
        return bucket


def _too_many(
    retry_after: float, *, is_global: bool, headers: Mapping[str, str]
) -> web.Response:
    body = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": is_global,
    }
    merged = {
        # Without Via discord.py takes a 429 for a Cloudflare ban and gives up.
        "Via": "1.1 google",
        "Retry-After": str(math.ceil(retry_after)),
        **headers,
    }
    return json_response(body, 429, merged)


class RestApi:
    """The HTTP side of the fake: ``handle`` serves ``/api/v{n}/...``."""

    def __init__(
        self,
        state: FakeState,
        *,
        interaction_deadline: float = 3.0,
        interaction_token_lifetime: float = INTERACTION_TOKEN_LIFETIME,
        channel_rate: Rate | None = DISCORD_CHANNEL_RATE,
        global_rate: Rate | None = DISCORD_GLOBAL_RATE,
        shards: int = 1,
        request_bodies: RequestBodies | None = None,
    ) -> None:
        self.state = state
        # Discord's OpenAPI request schemas (None: bodies are not validated).
        self.request_bodies = request_bodies
        # Each request's parsed body while it is served (read once, by the schema check).
        self._bodies: dict[int, tuple[Any, list[UploadedFile]]] = {}
        self.shards = shards
        self.interaction_deadline = interaction_deadline
        self.interaction_token_lifetime = interaction_token_lifetime
        self.limiter = RateLimiter(channel_rate, global_rate)
        # The faults a test asked for (none by default), and the record of those served.
        self.faults = Faults(state.faults.append)
        self._rules: list[RateLimitRule] = []
        self.routes = self._build_routes()
        # Gateway events the REST side causes (THREAD_CREATE, THREAD_UPDATE); set by the server.
        self.dispatch: Callable[[str, Any], Awaitable[None]] | None = None

    # ------------------------------------------------------------------ plumbing

    def _build_routes(self) -> list[Route]:
        webhook_message = (
            r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>@original|\d+)"
        )
        channel_message = r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)"
        guild_commands = r"/applications/(?P<app_id>\d+)/guilds/(?P<guild_id>\d+)/commands"
        table: list[tuple[str, str, Handler, bool] | tuple[str, str, Handler, bool, str]] = [
            ("GET", r"/users/@me", self._get_me, True),
            ("GET", r"/users/(?P<user_id>\d+)", self._get_user, True),
            ("POST", r"/users/@me/channels", self._create_dm, True),
            ("GET", r"/oauth2/applications/@me", self._get_application, True),
            ("GET", r"/applications/@me", self._get_application, True),
            ("GET", r"/gateway", self._get_gateway, False),
            ("GET", r"/gateway/bot", self._get_gateway_bot, True),
            ("PUT", r"/applications/(?P<app_id>\d+)/commands", self._put_commands, True),
            ("GET", r"/applications/(?P<app_id>\d+)/commands", self._get_commands, True),
            ("PUT", guild_commands, self._put_commands, True),
            ("GET", guild_commands, self._get_commands, True),
            (
                "POST",
                r"/interactions/(?P<interaction_id>\d+)/(?P<token>[^/]+)/callback",
                self._interaction_callback,
                False,
            ),
            ("POST", r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)", self._webhook_post, False),
            ("GET", webhook_message, self._webhook_get, False),
            ("PATCH", webhook_message, self._webhook_patch, False),
            ("DELETE", webhook_message, self._webhook_delete, False),
            ("GET", r"/channels/(?P<channel_id>\d+)", self._get_channel, True),
            ("PATCH", r"/channels/(?P<channel_id>\d+)", self._patch_channel, True),
            ("POST", r"/channels/(?P<channel_id>\d+)/threads", self._start_thread, True),
            (
                "POST",
                r"/channels/(?P<channel_id>\d+)/messages",
                self._channel_post,
                True,
                CHANNEL_MESSAGES,
            ),
            ("GET", r"/channels/(?P<channel_id>\d+)/messages", self._channel_history, True),
            ("GET", channel_message, self._channel_get, True),
            ("PATCH", channel_message, self._channel_patch, True, CHANNEL_MESSAGES),
            ("DELETE", channel_message, self._channel_delete, True, CHANNEL_MESSAGES),
            ("POST", r"/channels/(?P<channel_id>\d+)/typing", self._typing, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)", self._get_guild, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/channels", self._get_guild_channels, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/roles", self._get_guild_roles, True),
            (
                "GET",
                r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)",
                self._get_member,
                True,
            ),
        ]
        return [Route(entry[0], re.compile(entry[1]), *entry[2:]) for entry in table]

    def add_routes(self, entries: Sequence[tuple[str, str, Handler, bool]]) -> None:
        """More routes, served like the API's own (another module's, such as scheduled
        events)."""
        self.routes.extend(Route(e[0], re.compile(e[1]), *e[2:]) for e in entries)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Entry point for ``/api/v{version}/{path}``."""
        arrived = time.monotonic()
        # Discord judges an interaction's deadline by when its answer reached the door.
        request[ARRIVED_AT] = time.time()
        state = self.state
        faults = self.faults
        path = "/" + request.match_info["path"]
        method = request.method
        # Discord counts every request made on the bot's token against its global limit,
        # whatever the route (one it does not know, or one that needs no token, too); only
        # the routes of an interaction's token are outside it.
        counted = (
            request.headers.get("Authorization") == f"Bot {state.token}"
            and INTERACTION_TOKEN_PATH.match(path) is None
        )

        def record(status: int, extra: list[RecordedRequest] | None = None,
                   limit: str | None = None) -> None:
            state.record_request(method, path, status, extra, limit=limit, arrived=arrived,
                                 counted=counted)

        answering = self._interaction_type(path)
        held = faults.delay_for(method, path, answering)
        if held:
            await asyncio.sleep(held)
        if faults.down:
            # A request on a connection opened before the outage (or held across its start):
            # it dies with it.
            record(0)
            faults.served("outage", method, path, 0)
            cut(request.transport)
            return web.Response(status=503)
        limited = self._take_rule(method, path)
        if limited is not None:
            record(429, state.rate_limited, "rule")
            return limited
        route, match = self._route(method, path)
        fault = faults.fault_for(method, path, answering) if route is not None else None
        if fault is not None and fault.before_effect:
            return await self._fault_before_effect(request, fault, record)
        if counted:
            refused = self.limiter.take_global(arrived)
            if refused is not None:
                record(429, state.rate_limited, "global")
                return refused
        if route is None or match is None:
            log.warning("fake discord: unhandled %s %s", method, path)
            record(404, state.unhandled)
            return json_response({"message": "404: Not Found", "code": 0}, 404)
        response: web.StreamResponse
        if route.bot_auth and request.headers.get("Authorization") != f"Bot {state.token}":
            response = json_response({"message": "401: Unauthorized", "code": 0}, 401)
            record(response.status)
            return response
        now = time.monotonic()
        bucket = None
        if route.bucket is not None:
            bucket = self.limiter.bucket(route.bucket, match["channel_id"])
        if bucket is not None and not bucket.take(now):
            refused = _too_many(
                bucket.reset_after(now),
                is_global=False,
                headers={**bucket.headers(now), "X-RateLimit-Scope": "user"},
            )
            record(429, state.rate_limited, "user")
            return refused
        try:
            await self._check_body(request, method, path)
            response = await route.handler(request, **match.groupdict())
        except ApiError as error:
            response = error_response(error)
            if error.code == OLD_MESSAGE_EDITS:
                faults.served("old_edit", method, path, error.status, error.message)
        finally:
            self._bodies.pop(id(request), None)
        if bucket is not None:
            response.headers.update(bucket.headers(time.monotonic()))
        if fault is None:
            record(response.status)
            return response
        # The request took effect; its answer is lost on the way back.
        detail = f"the answer was {response.status}"
        if fault.kind == "lost":
            record(fault.status)
            faults.served("lost", method, path, fault.status, detail)
            return status_response(fault.status)
        record(response.status)
        faults.served("reset", method, path, response.status, detail + ", cut mid-body")
        assert isinstance(response, web.Response)
        return await cut_mid_body(request, response)

    def _interaction_type(self, path: str) -> int | None:
        """The type of the interaction whose token the path carries (None: not such a path)."""
        found = INTERACTION_TOKEN.match(path)
        if found is None:
            return None
        handle = self.state.interactions_by_token.get(found["token"])
        return None if handle is None else handle.type

    def _route(self, method: str, path: str) -> tuple[Route | None, re.Match[str] | None]:
        for route in self.routes:
            if route.method == method:
                match = route.pattern.fullmatch(path)
                if match is not None:
                    return route, match
        return None, None

    async def _fault_before_effect(
        self, request: web.Request, rule: FaultRule, record: Callable[[int], None]
    ) -> web.StreamResponse:
        """A fault served before the request reaches the API: its body is still held to
        Discord's spec (a violation fails the test as ever), then nothing happens."""
        method, path = request.method, "/" + request.match_info["path"]
        try:
            await self._check_body(request, method, path)
        except ApiError:
            pass  # recorded in schema_violations, which fails the test
        finally:
            self._bodies.pop(id(request), None)
        if rule.kind == "status":
            record(rule.status)
            self.faults.served("status", method, path, rule.status)
            return status_response(rule.status)
        record(0)
        self.faults.served("reset", method, path, 0, "cut before it took effect")
        cut(request.transport)
        return web.Response(status=503)

    # ------------------------------------------------------------------ rate limits

    def rate_limit(
        self,
        method: str,
        path_pattern: str,
        *,
        retry_after: float = 0.05,
        count: int = 1,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``count`` matching requests with 429."""
        self._rules.append(
            RateLimitRule(method.upper(), re.compile(path_pattern), retry_after, count, is_global)
        )

    def set_rate_limits(
        self,
        *,
        channel_rate: Rate | Unset | None = UNSET,
        global_rate: Rate | Unset | None = UNSET,
    ) -> None:
        """Change the automatic limits of a live fake (None turns one off)."""
        self.limiter.configure(
            self.limiter.channel_rate if isinstance(channel_rate, Unset) else channel_rate,
            self.limiter.global_rate if isinstance(global_rate, Unset) else global_rate,
        )

    def _take_rule(self, method: str, path: str) -> web.Response | None:
        for rule in self._rules:
            if rule.remaining > 0 and rule.method == method and rule.pattern.fullmatch(path):
                rule.remaining -= 1
                headers = {
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
                    "X-RateLimit-Scope": "global" if rule.is_global else "user",
                }
                if rule.is_global:
                    headers["X-RateLimit-Global"] = "true"
                return _too_many(rule.retry_after, is_global=rule.is_global, headers=headers)
        return None

    # ------------------------------------------------------------------ bodies

    async def _check_body(self, request: web.Request, method: str, path: str) -> None:
        """Hold the body to the ``requestBody`` schema of Discord's OpenAPI spec for this path
        and method: a body it refuses is answered as Discord does (400, 50035 "Invalid Form
        Body" with an ``errors`` object) and recorded in ``state.schema_violations``, so the
        test fails even if the bot swallows the error."""
        payload, _ = await self.read_body(request)
        bodies = self.request_bodies
        if bodies is None or payload is None:
            return
        operation = bodies.operation(method, path)
        if operation is None:
            return
        problems = bodies.problems(operation, payload)
        if not problems:
            return
        violation = SchemaViolation(method, path, operation.name, tuple(problems), payload)
        self.state.schema_violations.append(violation)
        log.warning("fake discord: Discord's OpenAPI spec refuses a body:\n%s", violation)
        raise ApiError(400, 50035, "Invalid Form Body", errors=discord_errors(problems))

    async def read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        """The JSON payload (``payload_json`` of a multipart body) and the uploaded files,
        read once per request (the schema check reads them before the handler)."""
        cached = self._bodies.get(id(request))
        if cached is None:
            cached = await self._read_body(request)
            self._bodies[id(request)] = cached
        return cached

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        files: list[UploadedFile] = []
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue
                raw = await part.read(decode=False)
                name = part.name or ""
                if name == "payload_json":
                    payload = _parse_json(raw)
                elif part.filename is not None:
                    files.append(
                        UploadedFile(
                            field_name=name,
                            filename=part.filename,
                            data=bytes(raw),
                            content_type=part.headers.get("Content-Type"),
                        )
                    )
            return payload, files
        raw_body = await request.read()
        if not raw_body:
            return None, files
        return _parse_json(raw_body), files

    async def _read_message_body(
        self, request: web.Request
    ) -> tuple[dict[str, Any], list[UploadedFile]]:
        payload, files = await self.read_body(request)
        return (payload if isinstance(payload, dict) else {}), files

    # ------------------------------------------------------------------ identity

    async def _get_me(self, request: web.Request) -> web.Response:
        me = self.state.bot_user.payload()
        return json_response({**me, "verified": True, "mfa_enabled": False})

    async def _get_user(self, request: web.Request, user_id: str) -> web.Response:
        user = self.state.users.get(int(user_id))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return json_response(user.payload())

    async def _get_application(self, request: web.Request) -> web.Response:
        state = self.state
        return json_response(
            {
                "id": str(state.application_id),
                "name": state.bot_user.name,
                "icon": None,
                "description": "",
                "summary": "",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": state.bot_user.payload(),
                "owner": state.owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(state.guilds),
                "integration_types_config": {"0": {}},
            }
        )

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.state.endpoint.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.state.endpoint.gateway_url,
                "shards": self.shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    # ------------------------------------------------------------------ commands

    async def _put_commands(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> web.Response:
        state = self.state
        if int(app_id) != state.application_id:
            raise ApiError(403, 50001, "Missing Access")
        scope = None if guild_id is None else int(guild_id)
        if scope is not None and state.guild(scope) is None:
            raise ApiError(403, 50001, "Missing Access")
        payload, _ = await self.read_body(request)
        return json_response(state.replace_commands(scope, payload))

    async def _get_commands(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> web.Response:
        scope = None if guild_id is None else int(guild_id)
        return json_response(self.state.commands.get(scope, []))

    # ------------------------------------------------------------------ interactions

    def _handle_for(self, app_id: str, token: str) -> InteractionHandle:
        handle = self.state.interactions_by_token.get(token)
        if handle is None or int(app_id) != self.state.application_id:
            raise ApiError(404, 10015, "Unknown Webhook")
        if handle.age() > self.interaction_token_lifetime:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return handle

    async def _interaction_callback(
        self, request: web.Request, interaction_id: str, token: str
    ) -> web.Response:
        state = self.state
        handle = state.interactions_by_id.get(int(interaction_id))
        if handle is None or handle.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        if handle.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if handle.age(request.get(ARRIVED_AT)) > self.interaction_deadline:
            handle.expired = True
            raise ApiError(404, 10062, "Unknown interaction")
        payload, files = await self.read_body(request)
        if not isinstance(payload, dict) or "type" not in payload:
            raise ApiError(400, 50035, "Invalid Form Body")
        kind = int(payload["type"])
        data = payload.get("data") or {}
        message: FakeMessage | None = None
        if kind == 4:
            message = state.create_message(
                handle.channel, data, files, interaction=handle, message_type=_reply_type(handle)
            )
            handle.original_id = message.id
        elif kind == 5:
            flags = LOADING | (int(data.get("flags", 0)) & EPHEMERAL)
            message = state.create_message(
                handle.channel,
                {"content": "", "flags": flags},
                [],
                interaction=handle,
                message_type=_reply_type(handle),
                allow_empty=True,
                raw_flags=flags,
            )
            handle.original_id = message.id
        elif kind in (6, 7):
            if handle.message is None:
                raise ApiError(400, 50035, "Invalid Form Body: no message to update")
            handle.original_id = handle.message
            if kind == 7:
                message = state.edit_message(state.messages[handle.message], data, files)
        elif kind == 9:
            problems = modal_problems(data)
            if handle.type == INTERACTION_MODAL:
                problems.append("a modal cannot answer a modal submit")
            if problems:
                raise ApiError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
            handle.modal = data
            state.modal_sources[data["custom_id"]] = handle
        elif kind != 8:
            raise ApiError(400, 50035, f"Invalid Form Body: unknown callback type {kind}")
        new_attachments = tuple(message.attachments) if message is not None and kind == 4 else ()
        handle.callback = InteractionCallback(
            type=kind, data=data, attachments=new_attachments, message=message
        )
        state.notify()
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return no_content()
        original = None if handle.original_id is None else state.messages.get(handle.original_id)
        interaction_info: dict[str, Any] = {"id": str(handle.id), "type": handle.type}
        if original is not None:
            interaction_info["response_message_id"] = str(original.id)
            interaction_info["response_message_loading"] = original.loading
            interaction_info["response_message_ephemeral"] = original.ephemeral
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            resource["message"] = message.payload()
        return json_response({"interaction": interaction_info, "resource": resource})

    async def _webhook_post(self, request: web.Request, app_id: str, token: str) -> web.Response:
        state = self.state
        handle = self._handle_for(app_id, token)
        if handle.callback is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        data, files = await self._read_message_body(request)
        original = None if handle.original_id is None else state.messages.get(handle.original_id)
        if original is not None and original.loading:
            # The first followup after a "thinking" defer replaces the loading message.
            flags = original.flags & EPHEMERAL
            message = state.edit_message(
                original, {**data, "flags": flags}, files, clear_loading=True
            )
        else:
            message = state.create_message(
                handle.channel, data, files, interaction=handle, message_type=0
            )
        handle.followup_ids.append(message.id)
        state.notify()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return json_response(message.payload())
        return no_content()

    def _webhook_message(self, handle: InteractionHandle, message_id: str) -> FakeMessage:
        messages = self.state.messages
        if message_id == "@original":
            if handle.original_id is None:
                raise ApiError(404, 10008, "Unknown Message")
            return messages[handle.original_id]
        message = messages.get(int(message_id))
        allowed = {handle.original_id, *handle.followup_ids}
        if message is None or message.id not in allowed or message.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def _webhook_get(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> web.Response:
        handle = self._handle_for(app_id, token)
        return json_response(self._webhook_message(handle, message_id).payload())

    async def _webhook_patch(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> web.Response:
        handle = self._handle_for(app_id, token)
        current = self._webhook_message(handle, message_id)
        data, files = await self._read_message_body(request)
        message = self.state.edit_message(current, data, files, clear_loading=True)
        return json_response(message.payload())

    async def _webhook_delete(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> web.Response:
        handle = self._handle_for(app_id, token)
        self.state.delete_message(self._webhook_message(handle, message_id))
        return no_content()

    # ------------------------------------------------------------------ channels

    def _channel(self, channel_id: str) -> FakeChannel:
        channel = self.state.channels.get(int(channel_id))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    @staticmethod
    def _check_bot_can_post(channel: FakeChannel, files: Sequence[UploadedFile]) -> None:
        if channel.is_dm:
            return
        allowed = channel.app_permissions
        if not allowed & VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        # In a thread "Send Messages in Threads" counts, not "Send Messages".
        send = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
        if not allowed & send or (files and not allowed & ATTACH_FILES):
            raise ApiError(403, 50013, "Missing Permissions")
        if channel.is_thread and channel.archived:
            if channel.locked:
                raise ApiError(400, 50083, "Thread is archived")
            channel.archived = False  # a message to an archived (unlocked) thread reopens it

    def _channel_message(self, channel: FakeChannel, message_id: str) -> FakeMessage:
        message = self.state.messages.get(int(message_id))
        # Ephemeral messages do not exist for the bot-token channel routes.
        if (
            message is None
            or message.channel_id != channel.id
            or message.deleted
            or message.ephemeral
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def _create_dm(self, request: web.Request) -> web.Response:
        payload, _ = await self.read_body(request)
        recipient = self.state.users.get(int((payload or {}).get("recipient_id", 0)))
        if recipient is None or recipient.bot:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return json_response(self.state.dm_channel(recipient).payload())

    async def _get_channel(self, request: web.Request, channel_id: str) -> web.Response:
        return json_response(self._channel(channel_id).payload())

    async def _start_thread(self, request: web.Request, channel_id: str) -> web.Response:
        """Start a thread without a message (``POST /channels/{id}/threads``), with Discord's
        checks: a text channel (not a thread, not a DM), the bot's permission to see it and to
        create that kind of thread, a name of 1 to 100 characters, an allowed archive time, and
        at most 1,000 active threads in the guild."""
        parent = self._channel(channel_id)
        if parent.is_dm or parent.type != CHANNEL_TEXT:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        payload, _ = await self.read_body(request)
        data = payload if isinstance(payload, dict) else {}
        # API v10 makes a private thread unless told otherwise (threads without a message).
        kind = int(data.get("type", CHANNEL_PRIVATE_THREAD))
        allowed = parent.app_permissions
        if not allowed & VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        needed = {CHANNEL_PUBLIC_THREAD: CREATE_PUBLIC_THREADS,
                  CHANNEL_PRIVATE_THREAD: CREATE_PRIVATE_THREADS}.get(kind)
        problems = []
        if needed is None:
            problems.append(f"type: {kind} is not a thread type")
        name = data.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems.append("name: must be 1 to 100 characters")
        duration = data.get("auto_archive_duration", 4320)
        if duration not in AUTO_ARCHIVE_MINUTES:
            problems.append(f"auto_archive_duration: {duration!r} is not one of 60, 1440, 4320,"
                            " 10080")
        if problems:
            raise ApiError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        if needed is not None and not allowed & needed:
            raise ApiError(403, 50013, "Missing Permissions")
        guild = self.state.guild_of(parent)
        assert guild is not None
        if sum(1 for t in guild.threads if not t.archived) >= MAX_ACTIVE_THREADS:
            raise ApiError(400, 160006, "Maximum number of active threads reached")
        thread = FakeChannel(
            name=str(name),
            type=kind,
            guild_id=guild.id,
            parent=parent,
            owner_id=self.state.bot_user.id,
            auto_archive_duration=int(duration),
        )
        guild.threads.append(thread)
        self.state.channels[thread.id] = thread
        self.state.notify()
        body = thread.payload()
        await self._tell("THREAD_CREATE", {**body, "newly_created": True})
        return json_response(body, 201)

    async def _tell(self, event: str, data: dict[str, Any]) -> None:
        # A REST call made with no gateway connected (a test's raw request) tells nobody.
        if self.dispatch is not None:
            with contextlib.suppress(RuntimeError):
                await self.dispatch(event, data)

    async def _patch_channel(self, request: web.Request, channel_id: str) -> web.Response:
        """Modify a thread (``archived``, ``locked``, ``name``, ``auto_archive_duration``):
        its creator may archive it and rename it; locking takes Manage Threads. Only threads:
        the bot never edits other channels."""
        channel = self._channel(channel_id)
        if not channel.is_thread:
            raise ApiError(403, 50013, "Missing Permissions")
        payload, _ = await self.read_body(request)
        data = payload if isinstance(payload, dict) else {}
        allowed = channel.app_permissions
        owner = channel.owner_id == self.state.bot_user.id
        if not allowed & MANAGE_THREADS and (
            not owner or "locked" in data or (channel.locked and data.get("archived") is False)
        ):
            raise ApiError(403, 50013, "Missing Permissions")
        if "name" in data:
            name = data["name"]
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                raise ApiError(400, 50035, "Invalid Form Body: name: must be 1 to 100 characters")
            channel.name = name
        if "auto_archive_duration" in data:
            if data["auto_archive_duration"] not in AUTO_ARCHIVE_MINUTES:
                raise ApiError(400, 50035, "Invalid Form Body: auto_archive_duration")
            channel.auto_archive_duration = int(data["auto_archive_duration"])
        if "archived" in data:
            channel.archived = bool(data["archived"])
        if "locked" in data:
            channel.locked = bool(data["locked"])
        self.state.notify()
        body = channel.payload()
        await self._tell("THREAD_UPDATE", body)
        return json_response(body)

    async def _channel_post(self, request: web.Request, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        if channel.is_dm and channel.recipient is not None and not channel.recipient.dms_open:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        data, files = await self._read_message_body(request)
        self._check_bot_can_post(channel, files)
        if int(data.get("flags", 0)) & EPHEMERAL:
            raise ApiError(400, 50035, "Invalid Form Body: only interaction replies are ephemeral")
        message = self.state.create_message(channel, data, files)
        return json_response(message.payload())

    async def _channel_history(self, request: web.Request, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        limit = int(request.query.get("limit", "50"))
        visible = [m for m in self.state.messages_in(channel) if not m.ephemeral]
        newest_first = list(reversed(visible))[:limit]
        return json_response([m.payload() for m in newest_first])

    async def _channel_get(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> web.Response:
        return json_response(self._channel_message(self._channel(channel_id), message_id).payload())

    async def _channel_patch(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> web.Response:
        current = self._channel_message(self._channel(channel_id), message_id)
        if current.author.id != self.state.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        refusal = self.state.old_edit_refusal(current)
        if refusal is not None:
            raise refusal
        data, files = await self._read_message_body(request)
        return json_response(self.state.edit_message(current, data, files).payload())

    async def _channel_delete(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> web.Response:
        self.state.delete_message(self._channel_message(self._channel(channel_id), message_id))
        return no_content()

    async def _typing(self, request: web.Request, channel_id: str) -> web.Response:
        self._channel(channel_id)
        return no_content()

    # ------------------------------------------------------------------ guilds

    def _guild(self, guild_id: str) -> FakeGuild:
        guild = self.state.guild(int(guild_id))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, request: web.Request, guild_id: str) -> web.Response:
        payload = self._guild(guild_id).payload()
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            payload.pop(key, None)
        return json_response(payload)

    async def _get_guild_channels(self, request: web.Request, guild_id: str) -> web.Response:
        return json_response([c.payload() for c in self._guild(guild_id).channels])

    async def _get_guild_roles(self, request: web.Request, guild_id: str) -> web.Response:
        guild = self._guild(guild_id)
        return json_response([r.payload() for r in (guild.everyone_role(), *guild.roles)])

    async def _get_member(self, request: web.Request, guild_id: str, user_id: str) -> web.Response:
        guild = self._guild(guild_id)
        member = next((m for m in guild.members if m.id == int(user_id)), None)
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return json_response(guild.member_payload(member))

    # ------------------------------------------------------------------ the CDN

    async def serve_attachment(self, request: web.Request) -> web.Response:
        attachment = self.state.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        content_type = attachment.content_type or "application/octet-stream"
        return web.Response(body=attachment.data, headers={"Content-Type": content_type})


def _reply_type(handle: InteractionHandle) -> int:
    # A reply to a slash command is a CHAT_INPUT_COMMAND message; to a component, a DEFAULT one.
    return 20 if handle.type == INTERACTION_COMMAND else 0
