"""What the bot asks Discord for: its permissions and scopes, and the invite link built from
them. One definition, used by the invite link, the setup help and the channel checks."""

from __future__ import annotations

import discord

# Exactly what the bot uses: it reads no messages, so no privileged intent and no Administrator.
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)
SCOPES = ("bot", "applications.commands")

# discord.py iterates some permissions under their old aliases; say what the portal says.
_ALIASES = {"read_messages": "view_channel"}


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=REQUIRED_PERMISSIONS, scopes=SCOPES
    )


def permission_names(permissions: discord.Permissions = REQUIRED_PERMISSIONS) -> list[str]:
    return sorted(_ALIASES.get(name, name) for name, value in permissions if value)


def missing_in_channel(granted: discord.Permissions, *, thread: bool) -> list[str]:
    """The permissions a table needs in a channel (or thread) that ``granted`` lacks."""
    needed = discord.Permissions(REQUIRED_PERMISSIONS.value)
    # A thread needs "send messages in threads"; a channel needs plain "send messages".
    if thread:
        needed.send_messages = False
    else:
        needed.send_messages_in_threads = False
    lacking = discord.Permissions(needed.value & ~granted.value)
    return permission_names(lacking)
