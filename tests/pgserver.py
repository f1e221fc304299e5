"""A throwaway PostgreSQL server for the tests, started from the server binaries on the machine.

``initdb`` makes a cluster in a temporary folder and ``pg_ctl`` starts it on a free loopback
port (its socket in the same folder), trusting local connections. ``initdb`` refuses to run as
root, and CI runs as root: then the folder is given to the unprivileged ``postgres`` system user
and every server command runs as him (``runuser``). The server skips fsync: the tests kill bot
processes, not the machine, and what they check is the bot's transactions, not the disk.

Each test gets a database of its own (``create_database``), dropped afterwards. The fault tests
stop a server and start it again on the same port (``halt``, ``launch``), and make a streaming
standby of one that they promote (``standby_of``, ``promote``): a failover.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import asyncpg

HOW_TO_GET = (
    "PostgreSQL tests skipped: no PostgreSQL server binaries (initdb, pg_ctl) on this machine;"
    " install them (Debian: apt install postgresql) to run the storage tests on PostgreSQL too"
)


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: on the PATH, else the newest Debian one."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        # A link on the PATH (Debian's /usr/local/bin ones) leads to the folder of them all,
        # pg_basebackup included.
        real = Path(found).resolve().parent
        return real if (real / "pg_ctl").exists() else Path(found).parent
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    for folder in reversed(candidates):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """One running server; ``url(database)`` to connect, ``stop()`` when done."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.root = Path(tempfile.mkdtemp(prefix="poker-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self.root.chmod(0o700)

    def _run(self, *args: str) -> None:
        command = [str(self.binaries / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-sync",
        )
        self.launch()

    def launch(self) -> None:
        """Start the server on its port (again, after ``halt``), and wait until it answers."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -F"
            " -c max_connections=200 -c shared_buffers=64MB"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "server.log"),
            "-w", "-t", "60", "start",
        )

    def halt(self, mode: str = "fast") -> None:
        """Stop the server, keeping its data: ``fast`` ends every session (each gets
        ``admin_shutdown``), ``immediate`` is a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def promote(self) -> None:
        """A standby becomes a primary that takes writes."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "promote")

    @classmethod
    def standby_of(cls, primary: PostgresServer) -> PostgresServer:
        """A new server streaming ``primary``'s changes, started. The primary waits for it at
        every commit (synchronous replication), so what was committed survives a failover."""
        standby = cls(primary.binaries)
        standby._run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
            "-D", str(standby.data), "-R", "-X", "stream", "--no-sync", "-c", "fast",
        )
        standby.launch()
        return standby

    async def settings(self, **values: str) -> None:
        """Set server settings (``ALTER SYSTEM``) and reload them."""
        conn = await asyncpg.connect(self.url())
        try:
            for name, value in values.items():
                await conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            await conn.execute("SELECT pg_reload_conf()")
        finally:
            await conn.close()

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    async def create_database(self) -> str:
        """A new empty database; its URL."""
        name = "t_" + uuid.uuid4().hex[:16]
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def run_on_a_new_database(self, body: Callable[[str], Awaitable[None]]) -> None:
        """Run ``body(url)`` on a database of its own, dropped afterwards (a hypothesis
        example on PostgreSQL: each one starts from nothing, as on SQLite's fresh file)."""

        async def on_a_new_database() -> None:
            url = await self.create_database()
            try:
                await body(url)
            finally:
                await self.drop_database(url)

        asyncio.run(on_a_new_database())


@contextlib.contextmanager
def running_server(binaries: Path) -> Iterator[PostgresServer]:
    server = PostgresServer(binaries)
    try:
        server.start()
        yield server
    finally:
        server.stop()
