"""Runtime settings from the environment and ``.env``, and the REST/gateway proxy switch."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import discord.gateway
import discord.http
import yarl
from dotenv import dotenv_values

DEFAULT_DATABASE_URL = "sqlite:///./data/poker.db"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
# How long the event loop may go without its heartbeat before /healthz says the process is
# stuck: well past a garbage collection or a slow start-up step, short enough that an
# orchestrator restarts a hung bot within a minute.
DEFAULT_HEALTH_MAX_LAG = 10.0
# The operator's endpoint stays on this machine unless METRICS_HOST says otherwise: its figures
# are the operator's, and a port open to the internet is one more thing to attack.
DEFAULT_METRICS_HOST = "127.0.0.1"

# What discord.py uses when no proxy is configured; kept so that clearing a setting restores it.
_DEFAULT_API_BASE = discord.http.Route.BASE
_DEFAULT_GATEWAY = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


class SettingsError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


def read_environment(
    environ: Mapping[str, str] | None = None,
    dotenv_path: str | os.PathLike[str] | None = ".env",
) -> dict[str, str]:
    """Every setting the bot may read: ``.env`` first, the process environment over it.

    ``.env`` is read without touching ``os.environ``, so nothing leaks into child processes or
    into other code reading the environment. Blank values count as unset.
    """
    values: dict[str, str] = {}
    if dotenv_path is not None and Path(dotenv_path).is_file():
        values.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
    values.update(os.environ if environ is None else environ)
    return {key: value.strip() for key, value in values.items() if value.strip()}


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment.

    ``discord_api_base`` replaces ``https://discord.com/api/v10`` (include the version path);
    ``discord_gateway_url`` replaces ``wss://gateway.discord.gg/``.
    """

    # Kept out of the repr: a settings object printed in a log or a traceback must not carry
    # the token, nor a database password inside the URL.
    discord_token: str = field(default="", repr=False)
    database_url: str = field(default=DEFAULT_DATABASE_URL, repr=False)
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    log_format: str = "text"
    metrics_port: int | None = None
    metrics_host: str = DEFAULT_METRICS_HOST
    health_max_lag: float = DEFAULT_HEALTH_MAX_LAG

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        dotenv_path: str | os.PathLike[str] | None = ".env",
        require_token: bool = True,
    ) -> Settings:
        """Read the settings (see :func:`read_environment`)."""
        values = read_environment(environ, dotenv_path)
        get = values.get

        token = get("DISCORD_TOKEN") or ""
        if require_token and not token:
            raise SettingsError("DISCORD_TOKEN is not set (put it in .env or the environment)")

        dev_guild_raw = get("DEV_GUILD_ID")
        dev_guild_id: int | None = None
        if dev_guild_raw is not None:
            if not dev_guild_raw.isdigit():
                raise SettingsError(
                    f"DEV_GUILD_ID must be a server id (digits), got {dev_guild_raw!r}"
                )
            dev_guild_id = int(dev_guild_raw)

        log_level = (get("LOG_LEVEL") or "INFO").upper()
        if log_level not in LOG_LEVELS:
            raise SettingsError(
                f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}"
            )

        log_format = (get("LOG_FORMAT") or "text").lower()
        if log_format not in LOG_FORMATS:
            raise SettingsError(
                f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, got {log_format!r}"
            )

        shard_count, shard_ids = _read_shards(get("SHARD_COUNT"), get("SHARD_IDS"))
        metrics_port = _read_port(get("METRICS_PORT"))
        health_max_lag = _read_lag(get("HEALTH_MAX_LAG"))
        settings = cls(
            discord_token=token,
            database_url=get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            dev_guild_id=dev_guild_id,
            log_level=log_level,
            discord_api_base=get("DISCORD_API_BASE"),
            discord_gateway_url=get("DISCORD_GATEWAY_URL"),
            shard_count=shard_count,
            shard_ids=shard_ids,
            log_format=log_format,
            metrics_port=metrics_port,
            metrics_host=get("METRICS_HOST") or DEFAULT_METRICS_HOST,
            health_max_lag=health_max_lag,
        )
        settings.check_proxies()
        return settings

    def check_proxies(self) -> None:
        if self.discord_api_base is not None:
            parts = urlsplit(self.discord_api_base)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise SettingsError(
                    f"DISCORD_API_BASE must be an http(s) URL such as "
                    f"http://127.0.0.1:8080/api/v10, got {self.discord_api_base!r}"
                )
        if self.discord_gateway_url is not None:
            parts = urlsplit(self.discord_gateway_url)
            if parts.scheme not in ("ws", "wss") or not parts.netloc:
                raise SettingsError(
                    f"DISCORD_GATEWAY_URL must be a ws(s) URL, got {self.discord_gateway_url!r}"
                )

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]

    @property
    def sqlite_path(self) -> Path | None:
        """The database file for a ``sqlite:///`` URL (relative to the working directory)."""
        prefix = "sqlite:///"
        if not self.database_url.startswith(prefix):
            return None
        rest = self.database_url[len(prefix) :]
        if rest in ("", ":memory:"):
            return None
        return Path(rest)

    @property
    def data_dir(self) -> Path:
        """Where the bot keeps its own files: next to the SQLite database, else ``./data``."""
        path = self.sqlite_path
        return path.parent if path is not None else Path("data")


MAX_SHARDS = 10_000


def _read_port(raw: str | None) -> int | None:
    """``METRICS_PORT``: unset, the endpoint is off; 0 lets the system pick a free port."""
    if raw is None:
        return None
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise SettingsError(f"METRICS_PORT must be a port number (0 to 65535), got {raw!r}")
    return int(raw)


def _read_lag(raw: str | None) -> float:
    if raw is None:
        return DEFAULT_HEALTH_MAX_LAG
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0.1 <= value <= 600:
        raise SettingsError(f"HEALTH_MAX_LAG must be seconds from 0.1 to 600, got {raw!r}")
    return value


def shard_of(guild_id: int, shard_count: int | None) -> int:
    """The shard whose connection carries a server's events (one shard while the count is
    unknown).

    >>> shard_of(5 << 22, 4), shard_of(5 << 22, None)
    (1, 0)
    """
    return (guild_id >> 22) % (shard_count or 1)


def _read_shards(
    count_raw: str | None, ids_raw: str | None
) -> tuple[int | None, tuple[int, ...] | None]:
    """``SHARD_COUNT`` and ``SHARD_IDS`` (``0,1``): which of the bot's shards this process runs.

    Neither: discord.py asks Discord how many shards the bot needs and runs them all here.
    ``SHARD_COUNT`` alone: that many, all here. Both: only those ids, out of that many (the
    other processes run the rest).
    """
    if count_raw is None:
        if ids_raw is not None:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT (the bot's total number of shards)")
        return None, None
    if not count_raw.isdigit() or not 1 <= int(count_raw) <= MAX_SHARDS:
        raise SettingsError(
            f"SHARD_COUNT must be a whole number from 1 to {MAX_SHARDS:,}, got {count_raw!r}"
        )
    count = int(count_raw)
    if ids_raw is None:
        return count, None
    parts = [part.strip() for part in ids_raw.split(",")]
    if not all(part.isdigit() for part in parts):
        raise SettingsError(
            f"SHARD_IDS must be shard numbers separated by commas (such as 0,1), got {ids_raw!r}"
        )
    ids = [int(part) for part in parts]
    beyond = [i for i in ids if i >= count]
    if beyond:
        raise SettingsError(
            f"SHARD_IDS {ids_raw!r}: shard numbers run from 0 to {count - 1}"
            f" when SHARD_COUNT is {count}"
        )
    if len(set(ids)) != len(ids):
        raise SettingsError(f"SHARD_IDS {ids_raw!r} names a shard twice")
    return count, tuple(sorted(ids))


def apply_proxies(settings: Settings) -> None:
    """Point discord.py's REST and gateway at the configured proxies (or back at Discord).

    Both are class attributes, so this affects every client in the process. The REST base is
    read when each ``Route`` is built (webhook and interaction routes included). The gateway
    URL is what a plain ``Client`` connects to (it never asks ``/gateway/bot``; only the
    auto-sharded client does, and a proxy answers that with its own URL). Resumes use the
    ``resume_gateway_url`` of READY, which a proxy also sets to itself.
    """
    settings.check_proxies()
    base = settings.discord_api_base
    discord.http.Route.BASE = base.rstrip("/") if base is not None else _DEFAULT_API_BASE
    gateway = settings.discord_gateway_url
    # yarl, not str: discord.py calls .with_query() on it.
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
        yarl.URL(gateway) if gateway is not None else _DEFAULT_GATEWAY
    )
