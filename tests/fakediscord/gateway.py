"""The fake Discord's gateway: websocket sessions, login, resume, member chunks and dispatch.

The client asks for zlib-stream compression; it decompresses only binary frames and reads text
frames as plain JSON, so the fake never compresses. Heartbeats are answered but never required
(the interval is Discord's, far longer than a test).

Sharding works as Discord's: a session identifies with ``shard: [id, count]`` and hears only the
guilds of its shard, ``(guild_id >> 22) % count == id`` (READY, GUILD_CREATE, and every event
about one of those guilds, interactions included); events of no guild go to shard 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from .state import API_VERSION, FakeState

HEARTBEAT_INTERVAL_MS = 41_250

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_RESUME = 6
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11


@dataclass
class GatewaySession:
    ws: web.WebSocketResponse
    session_id: str = ""
    seq: int = 0
    intents: int = 0
    identified: bool = False
    query: dict[str, str] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shard: tuple[int, int] = (0, 1)

    def hears(self, guild_id: int | None) -> bool:
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id

    async def send(self, op: int, data: Any = None) -> None:
        async with self.lock:
            await self.ws.send_str(json.dumps({"op": op, "d": data, "s": None, "t": None}))

    async def dispatch(self, event: str, data: Any) -> None:
        async with self.lock:
            self.seq += 1
            frame = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}
            await self.ws.send_str(json.dumps(frame))


class Gateway:
    """Every websocket the bot opened, and the events pushed down them."""

    def __init__(self, state: FakeState) -> None:
        self.state = state
        self.identify_count = 0
        self._sessions: list[GatewaySession] = []
        self._known_sessions: dict[str, GatewaySession] = {}
        self._sockets: set[web.WebSocketResponse] = set()

    @property
    def sessions(self) -> list[GatewaySession]:
        """Sessions that identified (or resumed) and are still open."""
        return [s for s in self._sessions if s.identified and not s.ws.closed]

    async def wait_for_session(self, timeout: float = 5.0) -> GatewaySession:
        return await self.state.wait_for(
            lambda: self.sessions[-1] if self.sessions else None,
            timeout=timeout,
            what="a gateway IDENTIFY",
        )

    async def dispatch(self, event: str, data: Any) -> None:
        """Send an event to every session of the shard it concerns."""
        guild = data.get("guild_id") if isinstance(data, dict) else None
        guild_id = int(guild) if guild is not None else None
        sessions = [s for s in self.sessions if s.hears(guild_id)]
        if not sessions:
            raise RuntimeError(f"cannot dispatch {event}: no bot is connected for its shard")
        for session in sessions:
            await session.dispatch(event, data)

    async def drop(self, code: int = 4000) -> None:
        """Close every gateway connection (the client should reconnect and RESUME)."""
        for session in list(self._sessions):
            await session.ws.close(code=code)

    async def close(self) -> None:
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"fake discord stopping")

    # ------------------------------------------------------------------ the websocket

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        session = GatewaySession(ws, query=dict(request.query))
        try:
            await session.send(OP_HELLO, {"heartbeat_interval": HEARTBEAT_INTERVAL_MS})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                data = frame.get("d")
                if op == OP_HEARTBEAT:
                    await session.send(OP_HEARTBEAT_ACK)
                elif op == OP_IDENTIFY:
                    await self._identify(session, data)
                elif op == OP_RESUME:
                    await self._resume(session, data)
                elif op == OP_REQUEST_GUILD_MEMBERS:
                    await self._request_members(session, data)
        finally:
            self._sockets.discard(ws)
            if session in self._sessions:
                self._sessions.remove(session)
            self.state.notify()
        return ws

    async def _identify(self, session: GatewaySession, data: dict[str, Any]) -> None:
        state = self.state
        if data.get("token") != state.token:
            await session.ws.close(code=4004, message=b"Authentication failed.")
            return
        self.identify_count += 1
        session.session_id = uuid.uuid4().hex
        session.intents = int(data.get("intents", 0))
        shard = data.get("shard") or [0, 1]
        session.shard = (int(shard[0]), int(shard[1]))
        guilds = [g for g in state.guilds if session.hears(g.id)]
        ready = {
            "v": API_VERSION,
            "user": {**state.bot_user.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": state.endpoint.gateway_url,
            "shard": shard,
            "application": {"id": str(state.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": [],
            "guild_join_requests": [],
            "user_settings": {},
        }
        await session.dispatch("READY", ready)
        for guild in guilds:
            await session.dispatch("GUILD_CREATE", guild.payload())
        session.identified = True
        self._sessions.append(session)
        self._known_sessions[session.session_id] = session
        state.notify()

    async def _resume(self, session: GatewaySession, data: dict[str, Any]) -> None:
        previous = self._known_sessions.get(str(data.get("session_id")))
        if previous is None or data.get("token") != self.state.token:
            await session.send(OP_INVALID_SESSION, False)
            return
        session.session_id = previous.session_id
        session.seq = previous.seq
        session.intents = previous.intents
        session.shard = previous.shard
        session.identified = True
        self._known_sessions[session.session_id] = session
        self._sessions.append(session)
        await session.dispatch("RESUMED", {})
        self.state.notify()

    async def _request_members(self, session: GatewaySession, data: dict[str, Any]) -> None:
        guild = next(
            (g for g in self.state.guilds if str(g.id) == str(data.get("guild_id"))), None
        )
        if guild is None:
            return
        chunk = {
            "guild_id": str(guild.id),
            "members": [guild.member_payload(m) for m in guild.members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": data.get("nonce"),
        }
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
