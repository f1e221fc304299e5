"""The fake Discord's gateway: websocket sessions, login, resume, member chunks and dispatch.

The client asks for zlib-stream compression; it decompresses only binary frames and reads text
frames as plain JSON, so the fake never compresses. Heartbeats are answered (the interval is
Discord's unless the fake was given a shorter one) but never required.

Sessions are Discord's: IDENTIFY opens one (its ``session_id`` and ``resume_gateway_url`` in
READY), every event dispatched to it takes the next sequence number and is kept, and it
outlives its connection. A RESUME naming it and the last sequence the client saw replays
every event after that one, those dispatched while no connection was open included, then
RESUMED. A session ends when the client closes with 1000 or 1001 (a clean stop), and when the
fake says so: a close with 4009 (session timed out) or INVALID_SESSION ``false``; resuming an
ended session is answered INVALID_SESSION ``false``, and the client must IDENTIFY again.

Faults (each recorded in ``state.faults`` as kind "gateway"): ``close(code)`` closes every
connection with that code, or with 1006 drops it without a close frame (a reset);
``reconnect()`` sends op 7 RECONNECT and ``invalidate(resumable)`` op 9 INVALID_SESSION;
``zombie()`` leaves the connections open but silent (no heartbeat ACK, no event delivered;
the events are kept for the resume), until the client gives up on them.

Sharding works as Discord's: a session identifies with ``shard: [id, count]`` and hears only the
guilds of its shard, ``(guild_id >> 22) % count == id`` (READY, GUILD_CREATE, and every event
about one of those guilds, interactions included); events of no guild go to shard 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from .faults import ServedFault, cut
from .state import API_VERSION, FakeState

HEARTBEAT_INTERVAL = 41.25  # seconds, as Discord's HELLO says

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Close codes: no close frame at all (the connection dropped), and Discord's own.
ABNORMAL_CLOSURE = 1006
CLEAN_CLOSES = frozenset({1000, 1001})
SESSION_TIMED_OUT = 4009
# Events a session keeps for a resume (Discord keeps "a while"; a test never needs more).
KEPT_EVENTS = 5000


@dataclass(eq=False)
class Session:
    """A Discord session: its id, its sequence, the events sent on it, and the connection
    it is on now (None while the client is away)."""

    session_id: str
    intents: int
    shard: tuple[int, int]
    seq: int = 0
    sent: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=KEPT_EVENTS))
    connection: GatewaySession | None = None
    ended: bool = False

    def hears(self, guild_id: int | None) -> bool:
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id

    def since(self, seq: int) -> list[tuple[int, str]]:
        return [(s, frame) for s, frame in self.sent if s > seq]

    def frame(self, event: str, data: Any) -> tuple[int, str]:
        """Number the next event and keep it."""
        self.seq += 1
        entry = (self.seq, json.dumps({"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}))
        self.sent.append(entry)
        return entry


@dataclass(eq=False)
class GatewaySession:
    """One websocket connection (and, once it identified or resumed, its ``session``)."""

    ws: web.WebSocketResponse
    query: dict[str, str] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    transport: Any = None
    session: Session | None = None
    identified: bool = False
    zombie: bool = False  # open but silent: nothing is sent on it any more
    # The fake closed it (the client's reply to a close carries 1000 whatever the code was).
    closed_by_fake: bool = False

    @property
    def session_id(self) -> str:
        return "" if self.session is None else self.session.session_id

    @property
    def seq(self) -> int:
        return 0 if self.session is None else self.session.seq

    @property
    def intents(self) -> int:
        return 0 if self.session is None else self.session.intents

    @property
    def shard(self) -> tuple[int, int]:
        return (0, 1) if self.session is None else self.session.shard

    def hears(self, guild_id: int | None) -> bool:
        return self.session is not None and self.session.hears(guild_id)

    async def send(self, op: int, data: Any = None) -> None:
        async with self.lock:
            await self._send_str(json.dumps({"op": op, "d": data, "s": None, "t": None}))

    async def dispatch(self, event: str, data: Any) -> None:
        assert self.session is not None
        await self.deliver(self.session.frame(event, data))

    async def deliver(self, entry: tuple[int, str]) -> None:
        async with self.lock:
            await self._send_str(entry[1])

    async def _send_str(self, text: str) -> None:
        if self.zombie or self.ws.closed:
            return  # kept in the session for a resume
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self.ws.send_str(text)


class Gateway:
    """Every websocket the bot opened, its sessions, and the events pushed down them."""

    def __init__(self, state: FakeState, heartbeat_interval: float = HEARTBEAT_INTERVAL) -> None:
        self.state = state
        self.heartbeat_interval = heartbeat_interval
        self.identify_count = 0
        self.resume_count = 0
        self._sessions: list[GatewaySession] = []
        self._known_sessions: dict[str, Session] = {}
        self._sockets: set[web.WebSocketResponse] = set()
        self._connections: set[GatewaySession] = set()
        # While Discord is down every new connection is cut as it arrives.
        self.down = False

    @property
    def sessions(self) -> list[GatewaySession]:
        """Connections that identified (or resumed) and are still open."""
        return [s for s in self._sessions if s.identified and not s.ws.closed]

    @property
    def live_sessions(self) -> list[Session]:
        """Discord's sessions that have not ended (their client may be away)."""
        return [s for s in self._known_sessions.values() if not s.ended]

    async def wait_for_session(self, timeout: float = 5.0) -> GatewaySession:
        return await self.state.wait_for(
            lambda: self.sessions[-1] if self.sessions else None,
            timeout=timeout,
            what="a gateway IDENTIFY",
        )

    async def dispatch(self, event: str, data: Any) -> None:
        """Send an event to every session of the shard it concerns; a session whose client is
        away keeps it for the resume."""
        guild = data.get("guild_id") if isinstance(data, dict) else None
        guild_id = int(guild) if guild is not None else None
        sessions = [s for s in self.live_sessions if s.hears(guild_id)]
        if not sessions:
            raise RuntimeError(f"cannot dispatch {event}: no bot is connected for its shard")
        for session in sessions:
            entry = session.frame(event, data)
            connection = session.connection
            if connection is not None:
                await connection.deliver(entry)

    # -- faults ------------------------------------------------------------------------------

    def _served(self, what: str) -> None:
        self.state.faults.append(ServedFault("gateway", "WS", "/gateway", 0, time.monotonic(),
                                             what))

    async def drop(self, code: int = 4000) -> None:
        """Close every gateway connection (the client should reconnect and RESUME)."""
        await self.close_with(code)

    async def close_with(self, code: int) -> None:
        """Close every connection with ``code``: 1006 drops it without a close frame, 4009 ends
        its session too (a resume is refused; the client must identify again)."""
        self._served(f"close {code}")
        for connection in list(self._connections):
            if code == SESSION_TIMED_OUT and connection.session is not None:
                connection.session.ended = True
            connection.closed_by_fake = True
            if code == ABNORMAL_CLOSURE:
                cut(connection.transport)
            else:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await connection.ws.close(code=code)

    async def reconnect(self) -> None:
        """Op 7 RECONNECT on every connection: the client closes it and resumes."""
        self._served("op 7 RECONNECT")
        for connection in self.sessions:
            await connection.send(OP_RECONNECT)

    async def invalidate(self, resumable: bool) -> None:
        """Op 9 INVALID_SESSION on every connection: ``resumable`` (d true) lets the client
        resume; false ends the session, and the client must identify again."""
        self._served(f"op 9 INVALID_SESSION {str(resumable).lower()}")
        for connection in self.sessions:
            if not resumable and connection.session is not None:
                connection.session.ended = True
            await connection.send(OP_INVALID_SESSION, resumable)

    def zombie(self) -> None:
        """Every open connection goes silent: no heartbeat ACK, no event, until the client
        notices and reconnects (the events are kept for its resume)."""
        self._served("zombie: heartbeat ACKs and events stop")
        for connection in self._connections:
            connection.zombie = True

    def cut_all(self) -> None:
        """Drop every connection with a reset (an outage)."""
        for connection in list(self._connections):
            connection.closed_by_fake = True
            cut(connection.transport)

    async def close(self) -> None:
        for connection in self._connections:
            connection.closed_by_fake = True
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"fake discord stopping")

    # ------------------------------------------------------------------ the websocket

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            self.state.faults.append(ServedFault("outage", "GET", "/gateway", 0,
                                                 time.monotonic(), "connection cut"))
            cut(request.transport)
            return web.Response(status=503)
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        connection = GatewaySession(ws, query=dict(request.query), transport=request.transport)
        self._connections.add(connection)
        try:
            await connection.send(
                OP_HELLO, {"heartbeat_interval": round(self.heartbeat_interval * 1000)}
            )
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                data = frame.get("d")
                if op == OP_HEARTBEAT:
                    await connection.send(OP_HEARTBEAT_ACK)
                elif op == OP_IDENTIFY:
                    await self._identify(connection, data)
                elif op == OP_RESUME:
                    await self._resume(connection, data)
                elif op == OP_REQUEST_GUILD_MEMBERS:
                    await self._request_members(connection, data)
        finally:
            self._sockets.discard(ws)
            self._connections.discard(connection)
            if connection in self._sessions:
                self._sessions.remove(connection)
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None
                # A client that closes cleanly ends its session (Discord forgets it).
                clean = ws.close_code in CLEAN_CLOSES and not connection.closed_by_fake
                if clean and not connection.zombie:
                    session.ended = True
            self.state.notify()
        return ws

    async def _identify(self, connection: GatewaySession, data: dict[str, Any]) -> None:
        state = self.state
        if data.get("token") != state.token:
            await connection.ws.close(code=4004, message=b"Authentication failed.")
            return
        self.identify_count += 1
        shard = data.get("shard") or [0, 1]
        session = Session(uuid.uuid4().hex, int(data.get("intents", 0)),
                          (int(shard[0]), int(shard[1])))
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
        connection.session = session
        await connection.dispatch("READY", ready)
        for guild in guilds:
            await connection.dispatch("GUILD_CREATE", guild.payload())
        # Attached last: events pushed meanwhile wait in the session, sent on the next one.
        await self._attach(connection, session, session.seq)
        self._known_sessions[session.session_id] = session
        state.notify()

    async def _resume(self, connection: GatewaySession, data: dict[str, Any]) -> None:
        session = self._known_sessions.get(str(data.get("session_id")))
        seq = data.get("seq")
        if (
            session is None
            or session.ended
            or data.get("token") != self.state.token
            or not isinstance(seq, int)
            or (session.sent and seq < session.sent[0][0] - 1)  # older than what is kept
        ):
            await connection.send(OP_INVALID_SESSION, False)
            return
        previous = session.connection
        if previous is not None and previous is not connection:
            # The client gave up on that connection (a zombie): Discord drops it.
            previous.zombie = previous.closed_by_fake = True
            session.connection = None
            cut(previous.transport)
        self.resume_count += 1
        connection.session = session
        await self._attach(connection, session, seq)
        await connection.dispatch("RESUMED", {})
        self.state.notify()

    async def _attach(self, connection: GatewaySession, session: Session, seq: int) -> None:
        """Send the session's events after ``seq`` on ``connection``, then make it the
        session's connection (no event can slip between the two)."""
        async with connection.lock:
            sent = seq
            while pending := session.since(sent):
                for number, frame in pending:
                    await connection._send_str(frame)
                    sent = number
            session.connection = connection
        connection.identified = True
        if connection not in self._sessions:
            self._sessions.append(connection)

    async def _request_members(self, connection: GatewaySession, data: dict[str, Any]) -> None:
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
        await connection.dispatch("GUILD_MEMBERS_CHUNK", chunk)
