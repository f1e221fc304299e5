"""The recap of a night: one row per cash session that ended and per tournament that finished
(``recaps``, migration 0010), and what a recap is made of.

**Written with the end.** The transaction that ends a session (a ledger reset, a table closing:
``bot.storage.sessions.end_session_in``) or finishes a tournament (``tournaments._finish_in``)
inserts its recap row, with each player's figures as they stood then: the ledger's (what
``/poker ledger`` said at that moment) or the places and prizes. So a session can never end
without its recap being owed, whatever moment a crash picks.

**Posted once.** A recap is ``owed`` until a process claims it (:func:`claim`: ``posting``,
with the time), posts it, and marks it ``posted`` (:func:`mark_posted`). Its messages carry a
nonce stored with the row (the k-th message ``nonce + k``), which Discord enforces for a few
minutes: a post cut by a crash after Discord took it is sent again at start-up with the same
nonce and Discord answers with the message it made, not a second one. A post cut longer ago
than :data:`NONCE_WINDOW` cannot be sent again without that risk: it is marked ``lost`` and
left to ``/history recap`` (a WARNING says so). A recap whose host turned recaps off is kept
as ``off``; a session without a finished hand as ``empty``: neither is posted.

**Figures.** :func:`load_recap` reads the row and, from the hands it covers (a cash session's
by number, every table's of a tournament), each player's net over his hands, his all-in hands
and his luck (net minus all-in EV net, in his all-in hands), the biggest pot and the hand of
the biggest swing of equity (the largest luck of one player in one hand).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.storage.db import Database, Row, Tx, unix_now
from bot.storage.errors import StorageError, check_id, from_json_text, to_json_text
from bot.storage.scopes import SessionHands
from bot.storage.stats import ALL_IN_FIGURES, LUCK, AllInFigures, all_in_figures

# Discord keeps a message's nonce "for the past few minutes": the fake takes two, and so does
# the bot.
NONCE_WINDOW = 120
NONCE_BITS = 62

STATES = ("owed", "posting", "posted", "off", "empty", "lost")


@dataclass(frozen=True, slots=True)
class Recap:
    """One recap row and the figures read from its hands (see the module doc)."""

    recap_id: int
    guild_id: int
    channel_id: int
    table_id: int | None  # a cash session's table
    tournament_id: int | None
    first_hand: int | None
    last_hand: int | None
    hands: int
    figures: Any  # the players' figures as the session ended (JSON)
    state: str
    nonce: int
    ended_at: int
    claimed_at: int | None
    posted_at: int | None
    config: Any = None  # the table's or the tournament's stored config (names)
    practice: bool = False
    # Each player's figures over the recap's hands, in the table's chips (tournament chips in
    # a tournament's), by user id.
    players: Mapping[int, AllInFigures] = field(default_factory=dict)
    biggest_pot: int | None = None  # hand id
    biggest_swing: int | None = None  # hand id


async def insert_recap(
    tx: Tx,
    *,
    guild_id: int,
    channel_id: int,
    figures: object,
    post: bool,
    now: int,
    table_id: int | None = None,
    hands: tuple[int, int, int] | None = None,
    tournament_id: int | None = None,
    played: int | None = None,
) -> int:
    """In the transaction that ends it: a session's recap (``table_id`` with ``hands``: its
    first and last hand numbers and how many finished) or a tournament's (``tournament_id``,
    ``played`` hands finished); owed unless ``post`` is off or it had no hand. Its id."""
    count = hands[2] if hands is not None else (played or 0)
    state = "empty" if count == 0 else "owed" if post else "off"
    first, last = (hands[0], hands[1]) if hands is not None else (None, None)
    return await tx.insert(
        "INSERT INTO recaps (guild_id, channel_id, table_id, tournament_id, first_hand,"
        " last_hand, hands, figures, state, nonce, ended_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING recap_id",
        (guild_id, channel_id, table_id, tournament_id, first, last, count,
         to_json_text(figures, "figures"), state, secrets.randbits(NONCE_BITS), now),
    )


async def finished_tournament_hands(tx: Tx, tournament_id: int) -> int:
    return int(await tx.scalar(
        "SELECT COUNT(*) FROM hands WHERE tournament_id = ? AND status = 'finished'",
        (tournament_id,),
    ))


_COLUMNS = (
    "recap_id, guild_id, channel_id, table_id, tournament_id, first_hand, last_hand, hands,"
    " figures, state, nonce, ended_at, claimed_at, posted_at"
)


def _recap(row: Row) -> Recap:
    return Recap(
        recap_id=int(row["recap_id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        table_id=None if row["table_id"] is None else int(row["table_id"]),
        tournament_id=None if row["tournament_id"] is None else int(row["tournament_id"]),
        first_hand=None if row["first_hand"] is None else int(row["first_hand"]),
        last_hand=None if row["last_hand"] is None else int(row["last_hand"]),
        hands=int(row["hands"]),
        figures=from_json_text(row["figures"]),
        state=str(row["state"]),
        nonce=int(row["nonce"]),
        ended_at=int(row["ended_at"]),
        claimed_at=None if row["claimed_at"] is None else int(row["claimed_at"]),
        posted_at=None if row["posted_at"] is None else int(row["posted_at"]),
    )


async def get_recap(db: Database, recap_id: int) -> Recap:
    """The recap row alone (``unknown_recap`` if there is none)."""
    check_id(recap_id, "recap_id")
    row = await db.fetchone(f"SELECT {_COLUMNS} FROM recaps WHERE recap_id = ?", (recap_id,))
    if row is None:
        raise StorageError("unknown_recap", recap_id=recap_id)
    return _recap(row)


# --- posting once ----------------------------------------------------------------------------


async def to_post(db: Database, guild_ids: list[int] | None = None) -> list[int]:
    """The recaps owed or cut while posting (of ``guild_ids``, or all), oldest first."""
    rows = await db.fetchall(
        "SELECT recap_id, guild_id FROM recaps WHERE state IN ('owed', 'posting')"
        " ORDER BY recap_id"
    )
    wanted = None if guild_ids is None else set(guild_ids)
    return [int(r[0]) for r in rows if wanted is None or int(r[1]) in wanted]


@dataclass(frozen=True, slots=True)
class Claim:
    """A recap taken to post (``state`` posting), or found lost; ``first``: no try of it was
    made before this one, so giving it back (:func:`release`) cannot hide one."""

    recap: Recap
    first: bool


async def claim(db: Database, recap_id: int, *, now: int | None = None) -> Claim | None:
    """Take recap ``recap_id`` to post it: an owed one, or one whose post was cut less than
    :data:`NONCE_WINDOW` seconds ago (sent again with its nonce, Discord does not make it
    twice). None when there is nothing to post: posted, off, empty or lost. A post cut longer
    ago is marked lost (and returned so): sending it again could show it twice."""
    check_id(recap_id, "recap_id")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await tx.fetchone(f"SELECT {_COLUMNS} FROM recaps WHERE recap_id = ?", (recap_id,))
        if row is None:
            raise StorageError("unknown_recap", recap_id=recap_id)
        recap = _recap(row)
        if recap.state == "owed":
            await tx.execute(
                "UPDATE recaps SET state = 'posting', claimed_at = ? WHERE recap_id = ?",
                (now, recap_id),
            )
            return Claim(Recap(**{**_fields(recap), "state": "posting", "claimed_at": now}),
                         first=True)
        if recap.state != "posting" or recap.claimed_at is None:
            return None
        if now - recap.claimed_at >= NONCE_WINDOW:
            await tx.execute("UPDATE recaps SET state = 'lost' WHERE recap_id = ?", (recap_id,))
            return Claim(Recap(**{**_fields(recap), "state": "lost"}), first=False)
        # Cut within the window: the same nonce makes trying again safe. The claim's time is
        # kept, since the window runs from the first try.
        return Claim(recap, first=False)


def _fields(recap: Recap) -> dict[str, Any]:
    return {name: getattr(recap, name) for name in Recap.__dataclass_fields__}


def within_window(recap: Recap, now: int | None = None) -> bool:
    """Whether a post of ``recap`` begun at its claim may still be tried again safely."""
    now = unix_now() if now is None else now
    return recap.claimed_at is not None and now - recap.claimed_at < NONCE_WINDOW


async def mark_posted(db: Database, recap_id: int, *, now: int | None = None) -> bool:
    """The recap went out; False if it was not being posted (nothing changed)."""
    check_id(recap_id, "recap_id")
    now = unix_now() if now is None else now
    rows = await db.write_one(
        "UPDATE recaps SET state = 'posted', posted_at = ? WHERE recap_id = ?"
        " AND state = 'posting' RETURNING recap_id",
        (now, recap_id),
    )
    return bool(rows)


async def release(db: Database, recap_id: int) -> None:
    """Give back a claim under which nothing was sent (its first try failed before any
    message left): the recap is owed again."""
    check_id(recap_id, "recap_id")
    await db.write_one(
        "UPDATE recaps SET state = 'owed', claimed_at = NULL WHERE recap_id = ?"
        " AND state = 'posting' RETURNING recap_id",
        (recap_id,),
    )


async def mark_lost(db: Database, recap_id: int) -> None:
    """A post given up: it may have gone out (Discord's answer lost), so it is not tried
    again."""
    check_id(recap_id, "recap_id")
    await db.write_one(
        "UPDATE recaps SET state = 'lost' WHERE recap_id = ? AND state = 'posting'"
        " RETURNING recap_id",
        (recap_id,),
    )


# --- finding one -----------------------------------------------------------------------------


async def latest_in_channel(db: Database, guild_id: int, channel_id: int) -> int | None:
    """The last recap of a session or tournament played in the channel (of ``guild_id``)."""
    check_id(guild_id, "guild_id")
    check_id(channel_id, "channel_id")
    value = await db.fetchone(
        "SELECT recap_id FROM recaps WHERE guild_id = ? AND channel_id = ?"
        " ORDER BY recap_id DESC LIMIT 1",
        (guild_id, channel_id),
    )
    return None if value is None else int(value[0])


async def played_in(db: Database, recap: Recap, user_id: int) -> bool:
    """Whether ``user_id`` was one of the recap's players."""
    if recap.tournament_id is not None:
        found = await db.fetchone(
            "SELECT 1 FROM tournament_entries WHERE tournament_id = ? AND user_id = ?",
            (recap.tournament_id, user_id),
        )
        return found is not None
    rows = recap.figures.get("players") if isinstance(recap.figures, dict) else None
    return any(isinstance(row, list) and row and row[0] == user_id for row in rows or ())


# --- its figures -----------------------------------------------------------------------------

def session_of(recap: Recap, *, low: int | None = None, high: int | None = None) -> SessionHands:
    """The session a recap covers, as its hands are read (``low``/``high`` as
    :class:`~bot.storage.scopes.SessionHands`). A practice table's sessions have no recap."""
    return SessionHands(
        guild_id=recap.guild_id,
        table_id=recap.table_id,
        tournament_id=recap.tournament_id,
        practice=False,
        first_hand=recap.first_hand or 1,
        last_hand=recap.last_hand,
        low=low,
        high=high,
    )


async def load_recap(db: Database, recap_id: int) -> Recap:
    """A recap with its figures, from one snapshot (see the module doc)."""
    check_id(recap_id, "recap_id")
    async with db.read() as tx:
        row = await tx.fetchone(f"SELECT {_COLUMNS} FROM recaps WHERE recap_id = ?", (recap_id,))
        if row is None:
            raise StorageError("unknown_recap", recap_id=recap_id)
        recap = _recap(row)
        if recap.tournament_id is not None:
            owner = await tx.fetchone(
                "SELECT config FROM tournaments WHERE tournament_id = ?", (recap.tournament_id,)
            )
            practice = False
        else:
            owner = await tx.fetchone(
                "SELECT config, practice FROM poker_tables WHERE table_id = ?",
                (recap.table_id,),
            )
            practice = bool(owner is not None and owner["practice"])
        config = None if owner is None else from_json_text(owner["config"])
        where, params = session_of(recap).where()
        players = {
            int(r[0]): all_in_figures(r[1:])
            for r in await tx.fetchall(
                f"SELECT hp.user_id, {ALL_IN_FIGURES} FROM hands h"
                f" JOIN hand_players hp ON hp.hand_id = h.hand_id WHERE {where}"
                " GROUP BY hp.user_id ORDER BY hp.user_id",
                params,
            )
        }
        biggest = await tx.fetchone(
            f"SELECT h.hand_id FROM hands h WHERE {where} AND h.pot IS NOT NULL"
            " ORDER BY h.pot DESC, h.hand_id LIMIT 1",
            params,
        )
        swing = await tx.fetchone(
            f"SELECT h.hand_id, MAX(ABS({LUCK})) AS most FROM hands h"
            f" JOIN hand_players hp ON hp.hand_id = h.hand_id WHERE {where}"
            " AND hp.all_in_ev_net IS NOT NULL GROUP BY h.hand_id"
            " ORDER BY most DESC, h.hand_id LIMIT 1",
            params,
        )
    return Recap(
        **{
            **_fields(recap),
            "config": config,
            "practice": practice,
            "players": players,
            "biggest_pot": None if biggest is None else int(biggest[0]),
            "biggest_swing": None if swing is None or not swing[1] else int(swing[0]),
        }
    )
