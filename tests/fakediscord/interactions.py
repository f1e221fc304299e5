"""Interaction payload builders and the handle a test awaits the bot's answer on."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .models import (
    ALL_PERMISSIONS,
    EPHEMERAL,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    new_snowflake,
)

if TYPE_CHECKING:
    from .state import FakeState

# Interaction types (Discord API).
INTERACTION_COMMAND = 2
INTERACTION_COMPONENT = 3
INTERACTION_MODAL = 5

# Application command option types (Discord API).
SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11

CALLBACK_NAMES = {
    4: "message",
    5: "deferred message",
    6: "deferred update",
    7: "update",
    8: "autocomplete",
    9: "modal",
}


@dataclass(frozen=True)
class InteractionCallback:
    """The bot's first answer to an interaction (the body of ``/interactions/.../callback``).

    ``type``: 4 message, 5 deferred message ("thinking"), 6 deferred update, 7 update the
    component's message, 8 autocomplete, 9 modal. ``message`` is the message it created or
    updated (types 4, 5, 7).
    """

    type: int
    data: dict[str, Any]
    attachments: tuple[FakeAttachment, ...] = ()
    message: FakeMessage | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags", 0)) & EPHEMERAL)

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.data.get("components") or [])

    @property
    def is_modal(self) -> bool:
        return self.type == 9

    @property
    def custom_id(self) -> str | None:
        value = self.data.get("custom_id")
        return None if value is None else str(value)

    def __repr__(self) -> str:
        kind = CALLBACK_NAMES.get(self.type, str(self.type))
        return f"<InteractionCallback {kind} ephemeral={self.ephemeral} content={self.content!r}>"


@dataclass(eq=False)
class InteractionHandle:
    """One interaction the fake pushed; await the bot's answers on it."""

    state: FakeState
    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    data: dict[str, Any]
    payload: dict[str, Any]
    created_at: float
    message: int | None = None
    callback: InteractionCallback | None = None
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    expired: bool = False

    def age(self, at: float | None = None) -> float:
        """Seconds since the interaction was created, now or ``at`` (a wall time): Discord's
        deadlines count from then."""
        return (time.time() if at is None else at) - self.created_at

    async def response(self, timeout: float = 5.0) -> InteractionCallback:
        """The interaction callback, once the bot has sent it."""
        return await self.state.wait_for(
            lambda: self.callback, timeout=timeout, what=f"a response to interaction {self.id}"
        )

    @property
    def original(self) -> FakeMessage | None:
        """Current version of the original response (or of the component's message after 6/7)."""
        return None if self.original_id is None else self.state.messages.get(self.original_id)

    async def wait_original(
        self, predicate: Callable[[FakeMessage], bool] | None = None, timeout: float = 5.0
    ) -> FakeMessage:
        """The original response once it is no longer "thinking" and matches ``predicate``."""

        def check() -> FakeMessage | None:
            message = self.original
            if message is None or message.loading:
                return None
            if predicate is not None and not predicate(message):
                return None
            return message

        return await self.state.wait_for(
            check, timeout=timeout, what=f"the original response of interaction {self.id}"
        )

    async def followup(self, index: int = 0, timeout: float = 5.0) -> FakeMessage:
        """The ``index``-th followup message (current version)."""

        def check() -> FakeMessage | None:
            if len(self.followup_ids) <= index:
                return None
            return self.state.messages[self.followup_ids[index]]

        return await self.state.wait_for(
            check, timeout=timeout, what=f"followup #{index} of interaction {self.id}"
        )

    @property
    def followups(self) -> list[FakeMessage]:
        return [self.state.messages[i] for i in self.followup_ids]


def _resolve_value(
    state: FakeState,
    guild: FakeGuild | None,
    kind: int,
    value: Any,
    resolved: dict[str, dict[str, Any]],
) -> Any:
    """Turn a test's Python value into the option value and fill ``resolved`` like Discord."""
    if (
        kind in (USER, MENTIONABLE)
        and isinstance(value, FakeUser | int)
        and not isinstance(value, bool)
    ):
        user = value if isinstance(value, FakeUser) else state.users.get(int(value))
        user_id = value.id if isinstance(value, FakeUser) else int(value)
        if user is not None:
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            if guild is not None and guild.has_member(user):
                member = guild.member_payload(
                    user, with_user=False, permissions=guild.permissions_of(user)
                )
                resolved.setdefault("members", {})[str(user.id)] = member
        return str(user_id)
    if kind in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
        resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)
    if kind == CHANNEL and isinstance(value, FakeChannel):
        entry = value.payload(permissions=guild.permissions_of(state.bot_user) if guild else None)
        resolved.setdefault("channels", {})[str(value.id)] = entry
        return str(value.id)
    if kind == ATTACHMENT and isinstance(value, FakeAttachment):
        resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
        return str(value.id)
    # Discord's client enforces types, ranges and choices; a test may still send anything,
    # because a bot must re-validate what it receives.
    return value


def _infer_type(value: Any) -> int:
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, FakeUser):
        return USER
    if isinstance(value, FakeChannel):
        return CHANNEL
    if isinstance(value, FakeRole):
        return ROLE
    if isinstance(value, FakeAttachment):
        return ATTACHMENT
    return STRING


def build_command_data(
    state: FakeState,
    *,
    name: str,
    command: Mapping[str, Any] | None,
    subcommand: str | None,
    options: Mapping[str, Any],
    guild: FakeGuild | None,
    strict: bool,
) -> dict[str, Any]:
    """The ``data`` of an APPLICATION_COMMAND interaction, shaped by the synced schema."""
    data: dict[str, Any] = {
        "id": str(command["id"]) if command is not None else str(new_snowflake()),
        "name": name,
        "type": 1,
    }
    if command is not None and command.get("guild_id") is not None:
        data["guild_id"] = str(command["guild_id"])
    schema: list[dict[str, Any]] = list(command.get("options") or []) if command else []
    container = data
    path = subcommand.split() if subcommand else []
    for part in path:
        found = next((o for o in schema if o.get("name") == part and o.get("type") in (1, 2)), None)
        if found is None and (strict and command is not None):
            raise LookupError(f"/{name} has no subcommand {part!r}")
        kind = int(found["type"]) if found is not None else SUB_COMMAND
        if found is None and part != path[-1]:
            kind = SUB_COMMAND_GROUP
        child: dict[str, Any] = {"name": part, "type": kind, "options": []}
        container["options"] = [child]
        container = child
        schema = list(found.get("options") or []) if found is not None else []
    resolved: dict[str, dict[str, Any]] = {}
    built = []
    for option_name, value in options.items():
        spec = next((o for o in schema if o.get("name") == option_name), None)
        if spec is None and strict and command is not None:
            known = [o.get("name") for o in schema]
            raise LookupError(f"/{name} {subcommand or ''} has no option {option_name!r} ({known})")
        kind = int(spec["type"]) if spec is not None else _infer_type(value)
        built.append(
            {
                "name": option_name,
                "type": kind,
                "value": _resolve_value(state, guild, kind, value, resolved),
            }
        )
    container["options"] = built
    if resolved:
        data["resolved"] = resolved
    return data


def build_interaction(
    state: FakeState,
    interaction_type: int,
    user: FakeUser,
    channel: FakeChannel,
    data: dict[str, Any],
    *,
    created: float,
    message: FakeMessage | None = None,
    locale: str | None = None,
    permissions: int | None = None,
) -> InteractionHandle:
    """An INTERACTION_CREATE payload as Discord sends it, wrapped in the handle tests await."""
    interaction_id = new_snowflake(created)
    token = f"itok.{interaction_id}.{secrets.token_urlsafe(16)}"
    guild = state.guild_of(channel)
    if guild is not None:
        user_permissions = guild.permissions_of(user) if permissions is None else permissions
    else:
        user_permissions = ALL_PERMISSIONS if permissions is None else permissions
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(state.application_id),
        "type": interaction_type,
        "data": data,
        "token": token,
        "version": 1,
        "channel_id": str(channel.id),
        "channel": channel.payload(permissions=user_permissions),
        "locale": locale if locale is not None else user.locale,
        "app_permissions": str(channel.app_permissions),
        "entitlements": [],
        # discord.py reads this key unconditionally.
        "attachment_size_limit": state.attachment_size_limit,
    }
    if guild is not None:
        payload["guild_id"] = str(guild.id)
        payload["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
        payload["guild_locale"] = guild.locale
        payload["member"] = guild.member_payload(user, permissions=user_permissions)
        payload["authorizing_integration_owners"] = {"0": str(guild.id)}
        payload["context"] = 0
    else:
        payload["user"] = user.payload()
        payload["authorizing_integration_owners"] = {"0": "0"}
        payload["context"] = 1
    if message is not None:
        payload["message"] = message.payload()
    return InteractionHandle(
        state=state,
        id=interaction_id,
        token=token,
        type=interaction_type,
        user=user,
        channel=channel,
        guild=guild,
        data=data,
        payload=payload,
        created_at=created,
        message=None if message is None else message.id,
    )


def _submitted(
    component: Mapping[str, Any], values: Mapping[str, str | Sequence[str]], used: set[str]
) -> dict[str, Any]:
    kind = int(component["type"])
    custom_id = component.get("custom_id")
    entry: dict[str, Any] = {"type": kind}
    if component.get("id") is not None:
        entry["id"] = component["id"]
    if custom_id is None:
        return entry
    entry["custom_id"] = custom_id
    if custom_id in values:
        used.add(custom_id)
    if kind == 4:
        value = values.get(custom_id, component.get("value") or "")
        entry["value"] = value if isinstance(value, str) else " ".join(value)
    else:
        picked = values.get(custom_id, [])
        entry["values"] = [picked] if isinstance(picked, str) else list(picked)
    return entry


def build_modal_components(
    modal: Mapping[str, Any], values: Mapping[str, str | Sequence[str]]
) -> list[dict[str, Any]]:
    """Mirror the modal's layout (action rows or labels) with the user's input filled in."""
    used: set[str] = set()
    result: list[dict[str, Any]] = []
    for top in modal.get("components") or []:
        kind = int(top["type"])
        if kind == 1:
            row: dict[str, Any] = {
                "type": 1,
                "components": [_submitted(c, values, used) for c in top.get("components", [])],
            }
            if top.get("id") is not None:
                row["id"] = top["id"]
            result.append(row)
        elif kind == 18:
            label: dict[str, Any] = {
                "type": 18,
                "component": _submitted(top["component"], values, used),
            }
            if top.get("id") is not None:
                label["id"] = top["id"]
            result.append(label)
        else:
            result.append(_submitted(top, values, used))
    unknown = set(values) - used
    if unknown:
        raise LookupError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(unknown)}")
    return result
