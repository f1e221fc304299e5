"""The fake Discord's world and its memory: who exists, what the bot posted, what it synced.

``FakeState`` holds the users, guilds and channels, every version of every message (the event
log), the synced commands, the interactions pushed to the bot, the uploaded files and the log
of REST requests. It also decides what may be stored: a message, embed, component or command
that real Discord would refuse raises ``ApiError`` here, whichever route it came through.

Waiting lives here too: each recorded change wakes every waiter, which re-checks its condition.
Nothing in this module knows about HTTP or websockets.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .models import (
    CHANNEL_DM,
    EPHEMERAL,
    LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    MessageEvent,
    new_snowflake,
)

if TYPE_CHECKING:
    from .faults import ServedFault
    from .interactions import InteractionHandle
    from .openapi import SchemaViolation

T = TypeVar("T")

API_VERSION = 10
# Flags a bot may set on a message it sends (others are Discord's own).
SETTABLE_FLAGS = (1 << 2) | EPHEMERAL | (1 << 12) | (1 << 15)
SUPPRESS_EMBEDS = 1 << 2
IS_COMPONENTS_V2 = 1 << 15
# Discord refuses edits of channel messages older than an hour (it allows a few, then answers
# 429 with this code and no rate-limit headers to wait on; the fake, as the worst case,
# refuses every one).
OLD_MESSAGE_AGE = 3600.0
OLD_MESSAGE_EDITS = 30046
# A create with ``enforce_nonce`` returns the message its author created with that nonce in
# "the past few minutes" (Discord's words): the fake takes the short end.
NONCE_WINDOW = 120.0


class ApiError(Exception):
    """An error response in Discord's shape: ``{"message": ..., "code": ...}``, with the
    ``errors`` object of an invalid form body when there is one."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    status: int
    at: float  # when it was answered (wall clock)
    # For a 429: "user" (a per-channel bucket), "global", or "rule" (asked for by a test).
    limit: str | None = None
    arrived: float = 0.0  # when it reached the door (monotonic)
    # Made on the bot's token: Discord's global limit counts it (interaction answers it
    # does not).
    counted: bool = False


@dataclass(frozen=True)
class SyncCall:
    """One bulk overwrite of the command schema (``guild_id`` None for global commands)."""

    guild_id: int | None
    commands: list[dict[str, Any]]
    at: float


@dataclass
class UploadedFile:
    """One ``files[n]`` part of a multipart request, before it becomes an attachment."""

    field_name: str
    filename: str
    data: bytes
    content_type: str | None


@dataclass
class Endpoint:
    """Where the world is served (the port is known once the server is bound)."""

    host: str = "127.0.0.1"
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"


class Notifier:
    """Wakes every waiter after each recorded change; waiters re-check their condition."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self) -> None:
        await self._event.wait()


class FakeState:
    """Everything the fake Discord knows, and the rules for what it accepts to store."""

    def __init__(
        self,
        guilds: Sequence[FakeGuild] = (),
        users: Sequence[FakeUser] = (),
        *,
        bot_user: FakeUser,
        owner: FakeUser | None,
        token: str,
        attachment_size_limit: int,
        endpoint: Endpoint,
    ) -> None:
        self.bot_user = bot_user
        self.application_id = bot_user.id
        self.token = token
        self.guilds = list(guilds)
        self.owner = owner if owner is not None else self._default_owner()
        self.attachment_size_limit = attachment_size_limit
        self.endpoint = endpoint

        self.users: dict[int, FakeUser] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_by_user: dict[int, FakeChannel] = {}
        for guild in self.guilds:
            if not guild.has_member(self.bot_user):
                guild.members.append(self.bot_user)
            for member in guild.members:
                self.users[member.id] = member
            for channel in guild.channels:
                channel.guild_id = guild.id
                self.channels[channel.id] = channel
        for user in (*users, self.bot_user, self.owner):
            self.users[user.id] = user

        self.messages: dict[int, FakeMessage] = {}
        self.channel_log: dict[int, list[int]] = {}
        self.events: list[MessageEvent] = []
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.command_ids: dict[tuple[int | None, str, int], int] = {}
        self.sync_calls: list[SyncCall] = []
        self.requests: list[RecordedRequest] = []
        self.unhandled: list[RecordedRequest] = []
        self.rate_limited: list[RecordedRequest] = []
        # Bodies Discord's OpenAPI spec refuses (see ``openapi``); a test with any fails.
        self.schema_violations: list[SchemaViolation] = []
        # Every fault served (``faults``): what a test asked for, and Discord's own refusals
        # that tell of a bad day (an edit of an old message).
        self.faults: list[ServedFault] = []
        # (channel, author, nonce) -> the message created with it, for ``enforce_nonce``.
        self.nonces: dict[tuple[int, int, str], FakeMessage] = {}
        # Creates answered with the first message of their nonce instead of a new one.
        self.nonce_replays: list[FakeMessage] = []
        self.interactions: list[InteractionHandle] = []
        self.interactions_by_id: dict[int, InteractionHandle] = {}
        self.interactions_by_token: dict[str, InteractionHandle] = {}
        self.modal_sources: dict[str, InteractionHandle] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self._notifier: Notifier | None = None

    def _default_owner(self) -> FakeUser:
        for guild in self.guilds:
            if guild.owner is not None:
                return guild.owner
        return FakeUser("owner")

    # ------------------------------------------------------------------ waiting

    def open(self) -> None:
        """Make waiting possible (needs the running event loop)."""
        self._notifier = Notifier()

    def notify(self) -> None:
        if self._notifier is not None:
            self._notifier.notify()

    async def wait_for(
        self, check: Callable[[], T | None], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until ``check()`` returns something other than None/False; return it."""
        assert self._notifier is not None, "FakeDiscord is not started"
        try:
            async with asyncio.timeout(timeout):
                while True:
                    result = check()
                    if result is not None and result is not False:
                        return result
                    await self._notifier.wait()
        except TimeoutError:
            raise TimeoutError(
                f"{what} did not happen within {timeout}s\n{self.describe_recent()}"
            ) from None

    def mark(self) -> int:
        """A cursor: pass it as ``after=`` to wait only for changes made from now on."""
        return len(self.events)

    async def wait_for_event(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | FakeUser | int | None = None,
        kinds: Iterable[str] = ("create", "edit"),
        after: int = 0,
        timeout: float = 5.0,
    ) -> MessageEvent:
        wanted_kinds = frozenset(kinds)
        channel_id = None if channel is None else self.channel_id(channel)
        position = after

        def check() -> MessageEvent | None:
            nonlocal position
            while position < len(self.events):
                event = self.events[position]
                position += 1
                if event.kind not in wanted_kinds:
                    continue
                if channel_id is not None and event.message.channel_id != channel_id:
                    continue
                if predicate is None or predicate(event.message):
                    return event
            return None

        return await self.wait_for(check, timeout=timeout, what=f"a message {sorted(wanted_kinds)}")

    async def wait_for_message(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | FakeUser | int | None = None,
        kinds: Iterable[str] = ("create", "edit"),
        after: int = 0,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The first message version (created or edited, from ``after`` on) that matches."""
        event = await self.wait_for_event(
            predicate, channel=channel, kinds=kinds, after=after, timeout=timeout
        )
        return event.message

    def describe_recent(self, count: int = 8) -> str:
        lines = [
            f"  {e.kind} ch={e.message.channel_id} id={e.message.id} "
            f"flags={e.message.flags} content={e.message.content[:70]!r}"
            for e in self.events[-count:]
        ]
        failures = [
            f"  {r.method} {r.path} -> {r.status}" for r in self.requests if r.status >= 400
        ]
        text = "recent messages:\n" + ("\n".join(lines) or "  (none)")
        if failures:
            text += "\nfailed requests:\n" + "\n".join(failures[-count:])
        return text

    def record_request(
        self,
        method: str,
        path: str,
        status: int,
        extra: list[RecordedRequest] | None = None,
        *,
        limit: str | None = None,
        arrived: float | None = None,
        counted: bool = False,
    ) -> None:
        entry = RecordedRequest(
            method, path, status, time.time(), limit,
            time.monotonic() if arrived is None else arrived, counted,
        )
        self.requests.append(entry)
        if extra is not None:
            extra.append(entry)
        self.notify()

    # ------------------------------------------------------------------ lookups

    def channel_id(self, channel: FakeChannel | FakeUser | int) -> int:
        if isinstance(channel, FakeChannel):
            return channel.id
        if isinstance(channel, FakeUser):
            return self.dm_channel(channel).id
        return int(channel)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (made on first use, as Discord does)."""
        channel = self.dm_by_user.get(user.id)
        if channel is None:
            channel = FakeChannel(name=f"dm-{user.name}", type=CHANNEL_DM, recipient=user)
            self.dm_by_user[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        for guild in self.guilds:
            if guild.id == channel.guild_id:
                return guild
        return None

    def guild(self, guild_id: int) -> FakeGuild | None:
        return next((g for g in self.guilds if g.id == guild_id), None)

    def messages_in(self, channel: FakeChannel | FakeUser | int) -> list[FakeMessage]:
        """Current versions of the messages in a channel, oldest first, deleted ones left out."""
        ids = self.channel_log.get(self.channel_id(channel), [])
        return [self.messages[i] for i in ids if not self.messages[i].deleted]

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        channel = self.dm_by_user.get(user.id)
        return [] if channel is None else self.messages_in(channel)

    def message(self, message: FakeMessage | int) -> FakeMessage:
        """The current version of a message."""
        message_id = message.id if isinstance(message, FakeMessage) else int(message)
        return self.messages[message_id]

    def command(self, name: str, guild: FakeGuild | None = None) -> dict[str, Any] | None:
        """The synced command called ``name`` (guild commands first, then global)."""
        scopes: list[int | None] = [guild.id] if guild is not None else []
        scopes.append(None)
        for scope in scopes:
            for command in self.commands.get(scope, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        return None

    # ------------------------------------------------------------------ interactions

    def add_interaction(self, handle: InteractionHandle) -> None:
        self.interactions_by_id[handle.id] = handle
        self.interactions_by_token[handle.token] = handle
        self.interactions.append(handle)

    # ------------------------------------------------------------------ commands

    def replace_commands(self, scope: int | None, payload: Any) -> list[dict[str, Any]]:
        """A bulk overwrite: all of ``payload`` is stored, or nothing (``ApiError``)."""
        if not isinstance(payload, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        if not all(isinstance(command, Mapping) for command in payload):
            raise ApiError(400, 50035, "Invalid Form Body: a command must be an object")
        problems = [p for command in payload for p in command_problems(command)]
        problems.extend(command_set_problems(payload))
        if problems:
            # One bad command refuses the whole upload; the previous commands stay.
            raise ApiError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        stored = []
        for command in payload:
            kind = int(command.get("type", 1))
            key = (scope, command["name"], kind)
            command_id = self.command_ids.setdefault(key, new_snowflake())
            entry = {
                **command,
                "id": str(command_id),
                "application_id": str(self.application_id),
                "type": kind,
                "version": str(new_snowflake()),
                "default_member_permissions": command.get("default_member_permissions"),
                "nsfw": command.get("nsfw", False),
            }
            if scope is not None:
                entry["guild_id"] = str(scope)
            stored.append(entry)
        self.commands[scope] = stored
        self.sync_calls.append(SyncCall(scope, payload, time.time()))
        return stored

    # ------------------------------------------------------------------ messages

    def _attachments_from(
        self,
        data: Mapping[str, Any],
        files: Sequence[UploadedFile],
        existing: Sequence[FakeAttachment],
    ) -> tuple[FakeAttachment, ...] | None:
        """The attachment list after a create/edit, or None when the body leaves it alone."""
        uploads: dict[str, UploadedFile] = {}
        for position, upload in enumerate(files):
            match = re.fullmatch(r"files\[(\d+)\]", upload.field_name)
            uploads[match.group(1) if match else str(position)] = upload
        total = sum(len(u.data) for u in files)
        if total > self.attachment_size_limit:
            raise ApiError(413, 40005, "Request entity too large")
        if len(files) > FILES_PER_MESSAGE:
            raise ApiError(
                400, 50035, f"Invalid Form Body: more than {FILES_PER_MESSAGE} files"
            )
        entries = data.get("attachments")
        if entries is None:
            if not files:
                return None
            entries = [{"id": key} for key in uploads]
            keep: list[FakeAttachment] = list(existing)
        else:
            keep = []
        by_id = {str(a.id): a for a in existing}
        result = list(keep)
        for entry in entries:
            key = str(entry.get("id"))
            if key in by_id:
                result.append(by_id[key])
                continue
            uploaded = uploads.get(key)
            if uploaded is None:
                raise ApiError(400, 50035, f"Invalid Form Body: attachment {key} has no file")
            description = entry.get("description")
            if description is not None and len(str(description)) > ALT_TEXT_LIMIT:
                raise ApiError(
                    400,
                    50035,
                    f"Invalid Form Body: attachments[{key}].description longer than "
                    f"{ALT_TEXT_LIMIT} characters",
                )
            attachment_id = new_snowflake()
            filename = str(entry.get("filename") or uploaded.filename)
            attachment = FakeAttachment(
                id=attachment_id,
                filename=filename,
                data=uploaded.data,
                description=entry.get("description"),
                content_type=uploaded.content_type
                if uploaded.content_type not in (None, "application/octet-stream")
                else None,
                url=f"{self.endpoint.base_url}/attachments/{attachment_id}/{filename}",
            )
            self.attachments[attachment_id] = attachment
            result.append(attachment)
        return tuple(result)

    def create_message(
        self,
        channel: FakeChannel,
        data: Mapping[str, Any],
        files: Sequence[UploadedFile],
        *,
        interaction: InteractionHandle | None = None,
        message_type: int = 0,
        allow_empty: bool = False,
        raw_flags: int | None = None,
    ) -> FakeMessage:
        nonce = data.get("nonce")
        if nonce is not None and data.get("enforce_nonce"):
            first = self._first_with_nonce(channel, str(nonce))
            if first is not None:
                self.nonce_replays.append(first)
                return first
        _refuse(allowed_mentions_problems(data.get("allowed_mentions")))
        attachments = self._attachments_from(data, files, ()) or ()
        flags = raw_flags if raw_flags is not None else int(data.get("flags", 0)) & SETTABLE_FLAGS
        message = FakeMessage(
            id=new_snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            content=str(data.get("content") or ""),
            embeds=tuple(data.get("embeds") or ()),
            components=tuple(data.get("components") or ()),
            attachments=attachments,
            flags=flags,
            type=message_type,
            webhook_id=None if interaction is None else self.application_id,
            application_id=None if interaction is None else self.application_id,
            interaction_id=None if interaction is None else interaction.id,
            interaction_type=2 if interaction is None else interaction.type,
            interaction_user=None if interaction is None else interaction.user,
            visible_to=interaction.user.id
            if interaction is not None and flags & EPHEMERAL
            else None,
            allowed_mentions=_mentions_object(data.get("allowed_mentions")),
            nonce=nonce if isinstance(nonce, str | int) else None,
        )
        problems = message_problems(message)
        if not allow_empty and not (
            message.content or message.embeds or message.components or message.attachments
        ):
            problems.append("cannot send an empty message")
        if problems == ["cannot send an empty message"]:
            raise ApiError(400, 50006, "Cannot send an empty message")
        _refuse(problems)
        self.messages[message.id] = message
        self.channel_log.setdefault(channel.id, []).append(message.id)
        if nonce is not None and data.get("enforce_nonce"):
            self.nonces[(channel.id, message.author.id, str(nonce))] = message
        self._record_event("create", message)
        return message

    def _first_with_nonce(self, channel: FakeChannel, nonce: str) -> FakeMessage | None:
        """The current version of the message the bot created here with ``nonce`` within
        the window, if any."""
        first = self.nonces.get((channel.id, self.bot_user.id, nonce))
        if first is None or time.time() - first.created_at > NONCE_WINDOW:
            return None
        return self.messages[first.id]

    def old_edit_refusal(self, message: FakeMessage) -> ApiError | None:
        """Discord's refusal of an edit of ``message`` when it is older than an hour."""
        if time.time() - message.created_at <= OLD_MESSAGE_AGE:
            return None
        return ApiError(
            429,
            OLD_MESSAGE_EDITS,
            "Maximum number of edits to messages older than 1 hour reached. Try again later",
        )

    def advance_clock(self, seconds: float) -> None:
        """Let ``seconds`` pass for everything already here: every message and interaction
        is that much older (what is created from now on is new)."""
        for message_id, message in list(self.messages.items()):
            self.messages[message_id] = message.replace(
                created_at=message.created_at - seconds,
                edited_at=None if message.edited_at is None else message.edited_at - seconds,
            )
        for key, first in list(self.nonces.items()):
            self.nonces[key] = first.replace(created_at=first.created_at - seconds)
        for handle in self.interactions:
            handle.created_at -= seconds

    def edit_message(
        self,
        current: FakeMessage,
        data: Mapping[str, Any],
        files: Sequence[UploadedFile],
        *,
        clear_loading: bool = False,
    ) -> FakeMessage:
        _refuse(allowed_mentions_problems(data.get("allowed_mentions")))
        changes: dict[str, Any] = {"edited_at": time.time(), "version": current.version + 1}
        if "content" in data:
            changes["content"] = str(data.get("content") or "")
            # Mentions are parsed again from the new content, with this request's
            # allowed_mentions or, without one, Discord's defaults (not the create's).
            changes["allowed_mentions"] = _mentions_object(data.get("allowed_mentions"))
        if "embeds" in data:
            changes["embeds"] = tuple(data.get("embeds") or ())
        if "components" in data:
            changes["components"] = tuple(data.get("components") or ())
        attachments = self._attachments_from(data, files, current.attachments)
        if attachments is not None:
            changes["attachments"] = attachments
        flags = current.flags
        if "flags" in data:
            # Only SUPPRESS_EMBEDS can change on an existing message.
            flags = (flags & ~SUPPRESS_EMBEDS) | (int(data.get("flags") or 0) & SUPPRESS_EMBEDS)
        if clear_loading:
            flags &= ~LOADING
        changes["flags"] = flags
        message = current.replace(**changes)
        _refuse(message_problems(message))
        self.messages[message.id] = message
        self._record_event("edit", message)
        return message

    def delete_message(self, current: FakeMessage) -> None:
        message = current.replace(deleted=True, version=current.version + 1)
        self.messages[message.id] = message
        self._record_event("delete", message)

    def _record_event(self, kind: str, message: FakeMessage) -> None:
        self.events.append(MessageEvent(index=len(self.events), kind=kind, message=message))
        self.notify()


def _refuse(problems: Sequence[str]) -> None:
    if problems:
        raise ApiError(400, 50035, "Invalid Form Body: " + "; ".join(problems))


def _mentions_object(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, Mapping) else None


# ---------------------------------------------------------------------- validation
#
# Each function returns the problems real Discord would refuse a body for (400, code 50035
# "Invalid Form Body"), as short sentences; an empty list means the body is accepted.

# Locales Discord accepts as keys of name_localizations / description_localizations.
DISCORD_LOCALES = frozenset(
    {
        "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt",
        "hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el",
        "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko",
    }
)  # fmt: skip
COMMAND_LIMITS = {1: 100, 2: 5, 3: 5}  # per scope: chat input, user and message commands
COMMAND_SIZE_LIMIT = 4000
CONTENT_LIMIT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FIELDS_LIMIT = 25
EMBED_FIELD_NAME_LIMIT = 256
EMBED_FIELD_VALUE_LIMIT = 1024
EMBED_FOOTER_LIMIT = 2048
EMBED_AUTHOR_LIMIT = 256
EMBED_TOTAL_LIMIT = 6000
FILES_PER_MESSAGE = 10
ALT_TEXT_LIMIT = 1024
MENTION_IDS_LIMIT = 100
MENTION_TYPES = frozenset({"roles", "users", "everyone"})

_NAME = re.compile(r"^[-_\w]{1,32}$")


def _localizations(node: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = node.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def _locale_problems(where: str, node: Mapping[str, Any], key: str) -> list[str]:
    unknown = sorted(str(k) for k in _localizations(node, key) if k not in DISCORD_LOCALES)
    return [f"{where}.{key}: {locale!r} is not a valid locale" for locale in unknown]


def _name_problems(where: str, value: Any, *, chat_input: bool) -> list[str]:
    name = str(value) if value is not None else ""
    if chat_input:
        if not _NAME.fullmatch(name) or name != name.lower():
            return [f"{where}: bad name {name!r} (1-32 lowercase word characters)"]
    elif not 1 <= len(name) <= 32:
        return [f"{where}: name {name!r} must be 1-32 characters"]
    return []


def _length_problems(where: str, value: Any, low: int, high: int) -> list[str]:
    text = str(value) if value is not None else ""
    if not low <= len(text) <= high:
        return [f"{where} must be {low}-{high} characters (has {len(text)})"]
    return []


def _choice_problems(where: str, choices: Sequence[Mapping[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(choices) > 25:
        problems.append(f"{where}: more than 25 choices")
    for index, choice in enumerate(choices):
        at = f"{where}.choices[{index}]"
        problems.extend(_length_problems(f"{at}.name", choice.get("name"), 1, 100))
        problems.extend(_locale_problems(at, choice, "name_localizations"))
        for locale, text in _localizations(choice, "name_localizations").items():
            problems.extend(_length_problems(f"{at}.name[{locale}]", text, 1, 100))
        value = choice.get("value")
        if isinstance(value, str) and len(value) > 100:
            problems.append(f"{at}.value longer than 100 characters")
    return problems


def command_problems(command: Mapping[str, Any], depth: int = 0) -> list[str]:
    """What Discord's validation would reject in one command or option, localizations
    included (each localized name and description is held to the base's rules)."""
    problems: list[str] = []
    name = str(command.get("name", ""))
    kind = int(command.get("type", 1))
    chat_input = depth > 0 or kind == 1
    problems.extend(_name_problems(name or "command", name, chat_input=chat_input))
    problems.extend(_locale_problems(name, command, "name_localizations"))
    for locale, text in _localizations(command, "name_localizations").items():
        problems.extend(_name_problems(f"{name}[{locale}]", text, chat_input=chat_input))
    if chat_input:
        description = command.get("description", "")
        problems.extend(_length_problems(f"{name}: description", description, 1, 100))
        problems.extend(_locale_problems(name, command, "description_localizations"))
        for locale, text in _localizations(command, "description_localizations").items():
            problems.extend(_length_problems(f"{name}: description[{locale}]", text, 1, 100))
    options = list(command.get("options") or [])
    if len(options) > 25:
        problems.append(f"{name}: more than 25 options")
    seen_optional = False
    for option in options:
        if option.get("type") in (1, 2):
            problems.extend(command_problems(option, depth + 1))
            continue
        if option.get("required"):
            if seen_optional:
                problems.append(f"{name}: required option after an optional one")
        else:
            seen_optional = True
        where = f"{name}.{option.get('name')}"
        problems.extend(_choice_problems(where, list(option.get("choices") or [])))
        problems.extend(command_problems({**option, "options": [], "choices": []}, depth + 1))
    if depth == 0 and kind == 1:
        size = command_size(command)
        if size > COMMAND_SIZE_LIMIT:
            problems.append(
                f"{name}: {size} characters of names, descriptions and choice values "
                f"(longest localization of each counted), more than {COMMAND_SIZE_LIMIT}"
            )
    return problems


def command_size(node: Mapping[str, Any]) -> int:
    """Discord's size of a command: the characters of every name, description and choice
    value in it, counting for each field the longest of its default and its localizations.

    This is at least the size in any one locale (each field in that locale's words, or the
    default's where it has none), so a command within it is within the limit in every locale.
    """
    total = 0
    for key in ("name", "description"):
        if key in node:
            localized = _localizations(node, f"{key}_localizations").values()
            total += max(len(str(text or "")) for text in (node.get(key), *localized))
    for choice in node.get("choices") or []:
        total += command_size({"name": choice.get("name"), **_only(choice, "name_localizations")})
        total += len(str(choice.get("value", "")))
    for option in node.get("options") or []:
        total += command_size(option)
    return total


def _only(node: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {key: node[key] for key in keys if key in node}


def command_set_problems(payload: Sequence[Mapping[str, Any]]) -> list[str]:
    """What Discord refuses in one bulk overwrite as a whole: duplicates and too many."""
    problems: list[str] = []
    names = [(c.get("name"), int(c.get("type", 1))) for c in payload]
    if len(set(names)) != len(names):
        problems.append("duplicate command names")
    for kind, limit in COMMAND_LIMITS.items():
        count = sum(1 for _, k in names if k == kind)
        if count > limit:
            problems.append(f"{count} commands of type {kind}, more than {limit}")
    return problems


def embed_problems(embeds: Sequence[Mapping[str, Any]]) -> list[str]:
    """Discord's embed limits, each embed and all of a message's embeds together."""
    problems: list[str] = []
    if len(embeds) > EMBEDS_PER_MESSAGE:
        problems.append(f"more than {EMBEDS_PER_MESSAGE} embeds")
    total = 0
    for index, embed in enumerate(embeds):
        at = f"embeds[{index}]"
        title = str(embed.get("title") or "")
        description = str(embed.get("description") or "")
        if len(title) > EMBED_TITLE_LIMIT:
            problems.append(f"{at}.title longer than {EMBED_TITLE_LIMIT} characters")
        if len(description) > EMBED_DESCRIPTION_LIMIT:
            problems.append(f"{at}.description longer than {EMBED_DESCRIPTION_LIMIT} characters")
        total += len(title) + len(description)
        fields = list(embed.get("fields") or [])
        if len(fields) > EMBED_FIELDS_LIMIT:
            problems.append(f"{at}: more than {EMBED_FIELDS_LIMIT} fields")
        for number, embed_field in enumerate(fields):
            name = str(embed_field.get("name") or "")
            value = str(embed_field.get("value") or "")
            where = f"{at}.fields[{number}]"
            problems.extend(_length_problems(f"{where}.name", name, 1, EMBED_FIELD_NAME_LIMIT))
            problems.extend(_length_problems(f"{where}.value", value, 1, EMBED_FIELD_VALUE_LIMIT))
            total += len(name) + len(value)
        footer = embed.get("footer")
        if footer is not None:
            text = str(footer.get("text") or "")
            problems.extend(_length_problems(f"{at}.footer.text", text, 1, EMBED_FOOTER_LIMIT))
            total += len(text)
        author = embed.get("author")
        if author is not None:
            name = str(author.get("name") or "")
            problems.extend(_length_problems(f"{at}.author.name", name, 1, EMBED_AUTHOR_LIMIT))
            total += len(name)
    if total > EMBED_TOTAL_LIMIT:
        problems.append(
            f"embeds hold {total} characters in all, more than {EMBED_TOTAL_LIMIT}"
        )
    return problems


def allowed_mentions_problems(value: Any) -> list[str]:
    """Discord's checks of an ``allowed_mentions`` object (``parse`` and an id list of the
    same kind are mutually exclusive; an empty list does not count)."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return ["allowed_mentions must be an object"]
    problems: list[str] = []
    parse = value.get("parse") or []
    unknown = [kind for kind in parse if kind not in MENTION_TYPES]
    if unknown:
        problems.append(f"allowed_mentions.parse: unknown types {unknown}")
    for kind in ("users", "roles"):
        ids = value.get(kind) or []
        if len(ids) > MENTION_IDS_LIMIT:
            problems.append(f"allowed_mentions.{kind}: more than {MENTION_IDS_LIMIT} ids")
        if ids and kind in parse:
            problems.append(
                f"allowed_mentions: parse {kind!r} and a {kind} list are mutually exclusive"
            )
    return problems


def message_problems(message: FakeMessage) -> list[str]:
    problems: list[str] = []
    if len(message.content) > CONTENT_LIMIT:
        problems.append(f"content longer than {CONTENT_LIMIT} characters")
    problems.extend(embed_problems(message.embeds))
    if len(message.attachments) > FILES_PER_MESSAGE:
        problems.append(f"more than {FILES_PER_MESSAGE} attachments")
    if not message.flags & IS_COMPONENTS_V2:
        if len(message.components) > 5:
            problems.append("more than 5 action rows")
        for row in message.components:
            if len(row.get("components", [])) > 5:
                problems.append("more than 5 components in a row")
    for component in message.walk_components():
        custom_id = component.get("custom_id")
        if custom_id is not None and not 1 <= len(str(custom_id)) <= 100:
            problems.append(f"custom_id {custom_id!r} must be 1-100 characters")
        label = component.get("label")
        if label is not None and len(str(label)) > 80:
            problems.append(f"label {label!r} longer than 80 characters")
    return problems


def modal_problems(data: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    if not 1 <= len(str(data.get("custom_id", ""))) <= 100:
        problems.append("modal custom_id must be 1-100 characters")
    if not 1 <= len(str(data.get("title", ""))) <= 45:
        problems.append("modal title must be 1-45 characters")
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        problems.append("a modal needs 1-5 top-level components")
    return problems
