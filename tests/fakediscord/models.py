"""The fake Discord's world: users, guilds, channels, roles, messages and their JSON shapes.

Payloads follow the Discord API v10 objects closely enough for discord.py 2.7 to parse them
(every key the library reads with ``data[...]`` is present).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import itertools
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000

# Permission bits the fake hands out (values from the Discord docs).
ADMINISTRATOR = 1 << 3
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

MEMBER_PERMISSIONS = (
    ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
)

EPHEMERAL = 1 << 6
LOADING = 1 << 7
SILENT = 1 << 12  # SUPPRESS_NOTIFICATIONS
IS_COMPONENTS_V2 = 1 << 15

USER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")
EVERYONE_MENTION = re.compile(r"@(?:everyone|here)\b")

CHANNEL_TEXT = 0
CHANNEL_DM = 1
CHANNEL_PUBLIC_THREAD = 11
CHANNEL_PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({CHANNEL_PUBLIC_THREAD, CHANNEL_PRIVATE_THREAD})
# The lifetimes (minutes of inactivity) Discord accepts for a thread before it archives it.
AUTO_ARCHIVE_MINUTES = frozenset({60, 1440, 4320, 10080})
MAX_ACTIVE_THREADS = 1000  # per guild


class SnowflakeFactory:
    """Snowflakes stamped with the wall clock, so the bot's age checks see fresh interactions.

    A per-process counter in the increment bits keeps ids unique within one millisecond; the
    lock makes the factory safe to share between fakes that tests run in threads.
    """

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def __call__(self, at: float | None = None) -> int:
        moment = time.time() if at is None else at
        millis = int(moment * 1000) - DISCORD_EPOCH_MS
        with self._lock:
            increment = next(self._counter) & 0xFFF
        return (millis << 22) | (1 << 17) | increment


new_snowflake = SnowflakeFactory()


def snowflake_time(snowflake: int) -> float:
    """Unix time (seconds) encoded in a snowflake."""
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000


def iso_timestamp(moment: float | None = None) -> str:
    when = time.time() if moment is None else moment
    return dt.datetime.fromtimestamp(when, tz=dt.UTC).isoformat()


@dataclass(eq=False)
class FakeUser:
    """A Discord account. ``dms_open=False`` makes DMs to it fail with 403 / code 50007."""

    name: str
    id: int = field(default_factory=new_snowflake)
    bot: bool = False
    dms_open: bool = True
    locale: str = "en-US"
    global_name: str | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name if self.global_name is not None else self.name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(eq=False)
class FakeRole:
    name: str
    id: int = field(default_factory=new_snowflake)
    permissions: int = 0
    position: int = 1

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a DM channel with ``recipient`` (``type=CHANNEL_DM``), or a thread
    under the text channel ``parent`` (``type=CHANNEL_PUBLIC_THREAD`` or private)."""

    name: str
    id: int = field(default_factory=new_snowflake)
    type: int = CHANNEL_TEXT
    guild_id: int | None = None
    position: int = 0
    recipient: FakeUser | None = None
    # The bot's permissions here; None means the usual member set (see MEMBER_PERMISSIONS).
    # A thread has no overwrites of its own: it has its parent's permissions.
    bot_permissions: int | None = None
    parent: FakeChannel | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    created_at: float = field(default_factory=time.time)

    @property
    def is_dm(self) -> bool:
        return self.type == CHANNEL_DM

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def app_permissions(self) -> int:
        if self.parent is not None:
            return self.parent.app_permissions
        return MEMBER_PERMISSIONS if self.bot_permissions is None else self.bot_permissions

    def payload(self, *, permissions: int | None = None) -> dict[str, Any]:
        if self.is_thread:
            assert self.parent is not None
            data: dict[str, Any] = {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild_id),
                "parent_id": str(self.parent.id),
                "owner_id": str(self.owner_id or 0),
                "name": self.name,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "message_count": 0,
                "member_count": 1,
                "total_message_sent": 0,
                "flags": 0,
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": iso_timestamp(self.created_at),
                    "locked": self.locked,
                    "create_timestamp": iso_timestamp(self.created_at),
                },
            }
            if permissions is not None:
                data["permissions"] = str(permissions)
            return data
        if self.is_dm:
            recipients = [self.recipient.payload()] if self.recipient is not None else []
            data = {
                "id": str(self.id),
                "type": CHANNEL_DM,
                "last_message_id": None,
                "recipients": recipients,
                "flags": 0,
            }
        else:
            data = {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild_id),
                "name": self.name,
                "position": self.position,
                "permission_overwrites": [],
                "parent_id": None,
                "topic": None,
                "nsfw": False,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "flags": 0,
            }
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class FakeGuild:
    """A server. The bot user is added to ``members`` when the fake starts."""

    name: str
    channels: list[FakeChannel] = field(default_factory=list)
    members: list[FakeUser] = field(default_factory=list)
    roles: list[FakeRole] = field(default_factory=list)
    id: int = field(default_factory=new_snowflake)
    owner: FakeUser | None = None
    locale: str = "en-US"
    member_roles: dict[int, list[int]] = field(default_factory=dict)
    joined_at: float = field(default_factory=time.time)
    threads: list[FakeChannel] = field(default_factory=list)

    @classmethod
    def create(
        cls,
        name: str,
        *,
        channels: Sequence[FakeChannel | str] = ("general",),
        members: Sequence[FakeUser] = (),
        roles: Sequence[FakeRole] = (),
        owner: FakeUser | None = None,
        locale: str = "en-US",
    ) -> FakeGuild:
        guild = cls(name=name, members=list(members), roles=list(roles), locale=locale)
        guild.owner = owner if owner is not None else (guild.members[0] if guild.members else None)
        for position, item in enumerate(channels):
            channel = FakeChannel(name=item) if isinstance(item, str) else item
            channel.guild_id = guild.id
            channel.position = position
            guild.channels.append(channel)
        return guild

    def channel(self, name: str) -> FakeChannel:
        for channel in self.channels:
            if channel.name == name:
                return channel
        raise LookupError(f"guild {self.name!r} has no channel {name!r}")

    def threads_of(self, parent: FakeChannel) -> list[FakeChannel]:
        """The threads under ``parent``, oldest first (archived ones included)."""
        return [t for t in self.threads if t.parent is parent]

    def everyone_role(self) -> FakeRole:
        # The @everyone role shares the guild's id; Discord always sends it.
        return FakeRole(name="@everyone", id=self.id, permissions=MEMBER_PERMISSIONS, position=0)

    def has_member(self, user: FakeUser) -> bool:
        return any(member.id == user.id for member in self.members)

    def permissions_of(self, user: FakeUser) -> int:
        if self.owner is not None and self.owner.id == user.id:
            return ALL_PERMISSIONS
        total = MEMBER_PERMISSIONS
        wanted = set(self.member_roles.get(user.id, []))
        for role in self.roles:
            if role.id in wanted:
                total |= role.permissions
        return ALL_PERMISSIONS if total & ADMINISTRATOR else total

    def member_payload(
        self, user: FakeUser, *, with_user: bool = True, permissions: int | None = None
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.member_roles.get(user.id, [])],
            "nick": None,
            "avatar": None,
            "banner": None,
            "joined_at": iso_timestamp(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            # discord.py reads member flags unconditionally.
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = user.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    def payload(self) -> dict[str, Any]:
        roles = [self.everyone_role(), *self.roles]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner.id if self.owner is not None else self.members[0].id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [role.payload() for role in roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": iso_timestamp(self.joined_at),
            "large": False,
            "unavailable": False,
            # Must equal len(members) or a chunking client asks for member chunks.
            "member_count": len(self.members),
            "members": [self.member_payload(member) for member in self.members],
            "channels": [channel.payload() for channel in self.channels],
            # Discord sends the active threads the bot can see with the guild.
            "threads": [t.payload() for t in self.threads if not t.archived],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


@dataclass(frozen=True)
class FakeAttachment:
    """A file the bot uploaded: its bytes, name and alt text, as Discord stored them."""

    id: int
    filename: str
    data: bytes
    description: str | None = None
    content_type: str | None = None
    url: str = ""

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type or _guess_content_type(self.filename),
        }
        if self.description is not None:
            data["description"] = self.description
        return data

    def open_image(self) -> Any:
        """The attachment decoded by Pillow (imported lazily: only image tests need it)."""
        from PIL import Image

        image = Image.open(io.BytesIO(self.data))
        image.load()
        return image


def _guess_content_type(filename: str) -> str:
    lowered = filename.lower()
    if lowered.endswith(".png"):
        return "image/png"
    if lowered.endswith((".jpg", ".jpeg")):
        return "image/jpeg"
    if lowered.endswith(".gif"):
        return "image/gif"
    if lowered.endswith(".txt"):
        return "text/plain; charset=utf-8"
    return "application/octet-stream"


@dataclass(frozen=True)
class FakeMessage:
    """One version of a message. Every create or edit makes a new frozen version.

    ``visible_to`` is the only user who can see an ephemeral message; ``interaction_id`` links
    an interaction response or followup to the interaction that produced it.
    """

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: tuple[dict[str, Any], ...] = ()
    components: tuple[dict[str, Any], ...] = ()
    attachments: tuple[FakeAttachment, ...] = ()
    flags: int = 0
    created_at: float = field(default_factory=time.time)
    edited_at: float | None = None
    deleted: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    type: int = 0
    interaction_id: int | None = None
    interaction_type: int = 2
    interaction_user: FakeUser | None = None
    visible_to: int | None = None
    version: int = 0
    # The allowed_mentions that governed this version's mentions (None: none was sent). An
    # edit that leaves the content alone keeps the previous version's; one that changes it
    # is parsed again with its own, or with the defaults when it sent none.
    allowed_mentions: dict[str, Any] | None = None
    nonce: str | int | None = None  # as the create sent it (echoed in the payload)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def mention_text(self) -> str:
        """The text Discord parses mentions from: the content, or with components v2 the
        text displays (embeds never mention anyone)."""
        if not self.flags & IS_COMPONENTS_V2:
            return self.content
        texts = [str(c.get("content", "")) for c in self.walk_components() if c.get("type") == 10]
        return "\n".join(texts)

    def _allows(self, kind: str) -> bool:
        """Whether every mention of ``kind`` in the text counts (``parse``, or the default)."""
        allowed = self.allowed_mentions
        if allowed is None:
            # Without allowed_mentions Discord parses everything, except in interaction
            # responses and followups, where only users are parsed by default.
            return kind == "users" or self.interaction_id is None
        return kind in (allowed.get("parse") or [])

    def _listed(self, kind: str) -> set[int]:
        allowed = self.allowed_mentions or {}
        return {int(item) for item in allowed.get(kind) or []}

    @property
    def mentioned_user_ids(self) -> frozenset[int]:
        """Users this version mentions (Discord's ``mentions``): with no ``allowed_mentions``
        every ``<@id>``/``<@!id>`` in the text; with one, all of them if ``parse`` has
        "users", else those of its ``users`` list that the text mentions."""
        found = {int(user) for user in USER_MENTION.findall(self.mention_text)}
        return frozenset(found if self._allows("users") else found & self._listed("users"))

    @property
    def mentioned_role_ids(self) -> frozenset[int]:
        found = {int(role) for role in ROLE_MENTION.findall(self.mention_text)}
        return frozenset(found if self._allows("roles") else found & self._listed("roles"))

    @property
    def mentions_everyone(self) -> bool:
        return bool(EVERYONE_MENTION.search(self.mention_text)) and self._allows("everyone")

    @property
    def notifies(self) -> bool:
        """Whether this version sends its mentions a notification: only a message as created
        does (an edit, including the followup that fills in a deferred reply, highlights but
        never notifies); an ephemeral message or one sent with SUPPRESS_NOTIFICATIONS never
        does."""
        return not (self.edited_at is not None or self.ephemeral or self.flags & SILENT)

    @property
    def pinged_user_ids(self) -> frozenset[int]:
        """Users this version pings: its mentioned users, if it notifies at all."""
        return self.mentioned_user_ids if self.notifies else frozenset()

    @property
    def pinged_role_ids(self) -> frozenset[int]:
        return self.mentioned_role_ids if self.notifies else frozenset()

    @property
    def pings_everyone(self) -> bool:
        return self.mentions_everyone and self.notifies

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def replace(self, **changes: Any) -> FakeMessage:
        return dataclasses.replace(self, **changes)

    def walk_components(self) -> list[dict[str, Any]]:
        """Every component, nested ones included (action rows, containers, sections)."""
        found: list[dict[str, Any]] = []
        stack = list(reversed(self.components))
        while stack:
            component = stack.pop()
            found.append(component)
            children = list(component.get("components", []))
            if "accessory" in component:
                children.append(component["accessory"])
            if "component" in component:
                children.append(component["component"])
            stack.extend(reversed(children))
        return found

    def component(self, custom_id: str) -> dict[str, Any]:
        for component in self.walk_components():
            if component.get("custom_id") == custom_id:
                return component
        raise LookupError(f"message {self.id} has no component {custom_id!r}")

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.walk_components() if "custom_id" in c]

    def attachment(self, filename: str | None = None) -> FakeAttachment:
        for attachment in self.attachments:
            if filename is None or attachment.filename == filename:
                return attachment
        raise LookupError(f"message {self.id} has no attachment {filename!r}")

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": iso_timestamp(self.created_at),
            "edited_timestamp": None if self.edited_at is None else iso_timestamp(self.edited_at),
            "tts": False,
            "mention_everyone": self.mentions_everyone,
            "mentions": [],
            "mention_roles": [str(role) for role in sorted(self.mentioned_role_ids)],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": list(self.embeds),
            "components": list(self.components),
            "pinned": False,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_id is not None and self.interaction_user is not None:
            data["interaction_metadata"] = {
                "id": str(self.interaction_id),
                "type": self.interaction_type,
                "user": self.interaction_user.payload(),
                "authorizing_integration_owners": {},
            }
        return data


@dataclass(frozen=True)
class MessageEvent:
    """A change the bot made: ``kind`` is "create", "edit" or "delete"; ``message`` the version."""

    index: int
    kind: str
    message: FakeMessage
