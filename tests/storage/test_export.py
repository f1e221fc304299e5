"""``/history export`` below Discord: a session's zip as ``bot.runtime.history.export_of``
builds it from storage, on both backends.

The worst member first: another server's session, a session he did not play, a practice
table, an empty range, a range upside down, a crowd of exports at once, a session too big for
Discord's file (refused before a hand is read when its directory alone would not fit, else at
the first hand past the limit, with how many hands fit: and that many do fit). Then what the
zip holds: every hand of the session once, in both formats, names that break the PokerStars
format made safe in both, and for every player of the session no hole card he may not see.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import re
import tomllib
import zipfile
from types import SimpleNamespace
from typing import Any

import pytest

from bot.errors import BotError
from bot.runtime import export as export_module
from bot.runtime import history
from bot.runtime.export import ExportFile
from bot.runtime.history import ExportAsk, SessionExport, export_of
from bot.storage import Database, economy, hands, recaps, sessions
from engine.cards import Card, format_card
from engine.hand import HandConfig
from tests.engine.pokerstars_reader import read_hand, split_hands

from .conftest import CHANNEL, GUILD
from .export_kit import HOSTILE_NAMES, PlayedSession, play_session

OTHER_GUILD = 1_000_000_002
USERS = (201, 202, 203, 204, 205)
NAMES = dict(zip(USERS, HOSTILE_NAMES, strict=False))
TEN_MB = 10 * 1024 * 1024
NOBODY_LIVE = SimpleNamespace(find_in=lambda channel: None, tournament_in=lambda channel: None)
CARD_GROUP = re.compile(r"\[((?:[2-9TJQKA][cdhs] ?)+)\]")


def ask(user: int = USERS[0], *, session: int | None = None, low: int | None = None,
        high: int | None = None, guild: int = GUILD, channel: int | None = CHANNEL,
        limit: int = TEN_MB) -> ExportAsk:
    return ExportAsk(guild, channel, user, session, low, high, limit)


def channel_names(channel: int) -> str:
    return "friday night" if channel == CHANNEL else ""


async def export(db: Database, request: ExportAsk, live: Any = NOBODY_LIVE) -> SessionExport:
    return await export_of(db, live, request, "en", channel_names)


async def refused(db: Database, request: ExportAsk, live: Any = NOBODY_LIVE) -> BotError:
    with pytest.raises(BotError) as caught:
        await export(db, request, live)
    return caught.value


def opened(file: ExportFile) -> dict[str, str]:
    with zipfile.ZipFile(file.file) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def open_table(played: PlayedSession) -> SimpleNamespace:
    """The live tables of a channel where ``played``'s table is open."""
    table = SimpleNamespace(table_id=played.table_id, names={})
    return SimpleNamespace(find_in=lambda channel: table if channel == CHANNEL else None,
                           tournament_in=lambda channel: None)


async def ended_session(db: Database, played: PlayedSession) -> int:
    """End the table's session by a ledger reset; the number its recap gives it."""
    await sessions.reset_session(db, played.table_id, actor_id=USERS[0])
    ended = await recaps.latest_in_channel(db, GUILD, CHANNEL)
    assert ended is not None
    return ended


async def session_of(db: Database, hands_count: int, seed: int = 7, **kwargs: Any) -> PlayedSession:
    return await play_session(db, random.Random(seed), guild=GUILD, channel=CHANNEL,
                              users=USERS, hands_count=hands_count, names=NAMES, **kwargs)


# --- the worst member ---------------------------------------------------------------------------


async def test_another_servers_session_is_no_session_here(db: Database) -> None:
    played = await session_of(db, 3)
    ended = await ended_session(db, played)
    await economy.ensure_guild(db, OTHER_GUILD)
    elsewhere = await refused(db, ask(session=ended, guild=OTHER_GUILD, channel=1))
    assert (elsewhere.code, elsewhere.params) == ("no_such_recap", {"session": ended})
    # A number no session has reads the same: nobody learns which numbers exist elsewhere.
    missing = await refused(db, ask(session=ended + 1000))
    assert (missing.code, missing.params) == ("no_such_recap", {"session": ended + 1000})
    # And a channel with no table never had a session.
    assert (await refused(db, ask(channel=CHANNEL + 1))).code == "no_table"


async def test_a_session_the_asker_did_not_play_is_refused(db: Database) -> None:
    await session_of(db, 3)
    assert (await refused(db, ask(user=999))).code == "export_not_played"
    # Nor a range of it without a hand of his: the rule holds for what is asked.
    assert (await export(db, ask(low=2, high=3))).file.hands == 2


async def test_a_practice_tables_hands_have_no_export(db: Database) -> None:
    await session_of(db, 2, practice=True)
    assert (await refused(db, ask())).code == "export_practice"


async def test_an_empty_range_and_a_range_upside_down_are_refused(db: Database) -> None:
    await session_of(db, 3)
    assert (await refused(db, ask(low=4))).code == "export_empty"
    upside = await refused(db, ask(low=3, high=2))
    assert (upside.code, upside.params) == ("export_bad_range", {"low": 3, "high": 2})


async def test_a_new_session_has_nothing_to_export_until_a_hand_ends(db: Database) -> None:
    played = await session_of(db, 2)
    await sessions.reset_session(db, played.table_id, actor_id=USERS[0])
    assert (await refused(db, ask(), open_table(played))).code == "export_empty"


async def test_a_session_that_ended_is_exported_by_its_recaps_number(db: Database) -> None:
    """The night a reset closed is still taken home: named by the number its recap gives
    (the same as ``/history recap``'s), it holds its own hands and not the next session's."""
    played = await session_of(db, 3)
    ended = await ended_session(db, played)
    assert (await recaps.get_recap(db, ended)).last_hand == 3
    more = await play_session(db, random.Random(8), guild=GUILD, channel=CHANNEL, users=USERS,
                              hands_count=2, names=NAMES, table_id=played.table_id)
    assert more.table_id == played.table_id
    built = await export(db, ask(session=ended))
    assert (built.file.hands, built.first, built.last) == (3, 1, 3)
    current = await export(db, ask(), open_table(played))
    assert (current.file.hands, current.first, current.last) == (2, 4, 5)
    # Once the table is gone from the channel, the channel's last ended session is the
    # default: the one the reset closed.
    assert (await export(db, ask())).file.hands == 3
    # A range inside the ended session stays inside it.
    part = await export(db, ask(session=ended, low=2, high=9))
    assert (part.file.hands, part.first, part.last) == (2, 2, 3)
    # Its players alone may have it.
    assert (await refused(db, ask(user=999, session=ended))).code == "export_not_played"


async def test_a_crowd_of_exports_is_refused_beyond_the_ones_being_built(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await session_of(db, 2)
    gate = asyncio.Event()
    real = history.build_export

    async def held(*args: Any, **kwargs: Any) -> ExportFile:
        await gate.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(history, "build_export", held)
    building = [asyncio.create_task(export(db, ask())) for _ in range(history.EXPORTS_AT_ONCE)]
    while history._SLOTS.busy < history.EXPORTS_AT_ONCE:
        await asyncio.sleep(0.01)
    assert (await refused(db, ask())).code == "export_busy"
    gate.set()
    for done in await asyncio.gather(*building):
        assert done.file.hands == 2
    assert history._SLOTS.busy == 0
    assert (await export(db, ask())).file.hands == 2  # the slots came back


async def test_a_zip_past_discords_limit_is_refused_with_how_many_hands_fit(
    db: Database,
) -> None:
    await session_of(db, 40)
    whole = await export(db, ask())
    limit = whole.file.size * 3 // 5
    too_large = await refused(db, ask(limit=limit))
    assert too_large.code == "export_too_large"
    fits = too_large.params["fits"]
    assert 10 < fits < 40
    # What the refusal says fits does fit, and one hand more does not.
    part = await export(db, ask(low=1, high=fits, limit=limit))
    assert part.file.hands == fits and part.file.size <= limit
    assert (await refused(db, ask(low=1, high=fits + 1, limit=limit))).code == "export_too_large"


async def test_a_session_whose_directory_alone_passes_the_limit_is_refused_unread(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await session_of(db, 30)

    async def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a hand was read")

    monkeypatch.setattr(hands, "load_hands", never)
    too_large = await refused(db, ask(limit=2_000))
    assert too_large.code == "export_too_large" and too_large.params["fits"] < 30


# --- what the zip holds -------------------------------------------------------------------------


def cards_of_phh(text: str) -> set[str]:
    """Every card a PHH file names: its dealt, shown and board cards (``??`` is none)."""
    found: set[str] = set()
    for action in tomllib.loads(text)["actions"]:
        token = action.split()[-1]
        if action.startswith(("d dh", "d db")) or " sm " in action:
            found |= {token[k:k + 2] for k in range(0, len(token), 2)} - {"??"}
    return found


async def allowed_cards(db: Database, hand_id: int, viewer: int) -> tuple[set[str], int]:
    """The cards ``viewer`` may see in a hand (the boards, the hands shown, his own), and the
    hand's number."""
    stored = await hands.load_hand(db, hand_id)
    hand = hands.rebuild_hand(stored)
    assert hand.result is not None
    seen: set[Card] = {c for board in hand.boards for c in board}
    for player in stored.players:
        if player.player in hand.result.shown or player.user_id == viewer:
            seen |= set(hand.hole_cards(player.player))
    return {format_card(c) for c in seen}, stored.hand_no


async def test_every_player_gets_every_hand_in_both_formats_with_only_his_cards(
    db: Database,
) -> None:
    played = await session_of(db, 25, seed=11)
    for viewer in USERS:
        built = await export(db, ask(viewer))
        files = opened(built.file)
        assert built.first == 1 and built.last == 25 and built.file.hands == 25
        stem = f"table-{played.table_id}-hands-1-25"
        assert built.file.filename == f"{stem}.zip"
        text = files.pop(f"{stem}/{stem}.txt")
        assert sorted(files) == sorted(
            f"{stem}/phh/table-{played.table_id}-hand-{n}.phh" for n in range(1, 26))
        blocks = split_hands(text)
        assert [read_hand(b).hand for b in blocks] == played.hand_ids
        for hand_id, block in zip(played.hand_ids, blocks, strict=True):
            allowed, number = await allowed_cards(db, hand_id, viewer)
            phh = files[f"{stem}/phh/table-{played.table_id}-hand-{number}.phh"]
            assert cards_of_phh(phh) <= allowed, (viewer, number)
            written = {c for group in CARD_GROUP.findall(block) for c in group.split()}
            assert written <= allowed, (viewer, number)
            read = read_hand(block)
            assert read.table == "friday night" and read.max_seats == 9
            assert (read.small_blind, read.big_blind) == (5, 10)
            # His own cards are dealt to him in the text and in the PHH file.
            stored = await hands.load_hand(db, hand_id)
            mine = next((p for p in stored.players if p.user_id == viewer), None)
            if mine is not None:
                own = hands.rebuild_hand(stored).hole_cards(mine.player)
                assert list(read.dealt.values()) == [own]
                assert f"d dh p{mine.player + 1} {''.join(map(format_card, own))}" in phh
            else:
                assert read.dealt == {}


async def test_names_that_break_the_format_pass_through_unharmed(db: Database) -> None:
    """Colons, brackets, a line break, "Seat 1:", a verb, two names that differ by case: each
    player is one safe name from the first hand to the last, the same in both formats."""
    await session_of(db, 12, seed=5)
    built = await export(db, ask())
    files = opened(built.file)
    (text,) = [body for name, body in files.items() if name.endswith(".txt")]
    seen: dict[str, int] = {}
    for block in split_hands(text):
        read = read_hand(block)  # refuses any line it cannot read
        for name, seat in read.seats.items():
            assert seen.setdefault(name, seat) == seat  # one name, one seat, every hand
            assert re.fullmatch(r"[\w.-]+", name) and not name.lower().startswith("calls")
    assert len(seen) == len(USERS)
    for body in (b for name, b in files.items() if name.endswith(".phh")):
        assert set(tomllib.loads(body)["players"]) <= set(seen)
    assert "\nSeat 1: Bob" not in text and "Seat_1_Bob" in seen


async def test_the_export_reads_a_page_at_a_time(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No read holds more than a page of the session's hands."""
    await session_of(db, 12)
    monkeypatch.setattr(export_module, "PAGE", 5)
    real = hands.load_hands
    sizes: list[int] = []

    async def counted(db: Database, hand_ids: list[int]) -> list[hands.StoredHand]:
        sizes.append(len(hand_ids))
        return await real(db, hand_ids)

    monkeypatch.setattr(hands, "load_hands", counted)
    assert (await export(db, ask())).file.hands == 12
    assert sizes == [5, 5, 2]


async def test_load_hands_gives_each_hand_as_load_hand_does(db: Database) -> None:
    played = await session_of(db, 6)
    ids = list(reversed(played.hand_ids))
    assert await hands.load_hands(db, ids) == [await hands.load_hand(db, i) for i in ids]
    assert await hands.load_hands(db, []) == []
    with pytest.raises(Exception) as caught:
        await hands.load_hands(db, [*ids, 10**9])
    assert getattr(caught.value, "code", None) == "unknown_hand"


async def test_the_stakes_are_the_hands_own_and_the_tables_where_it_posts_none(
    db: Database,
) -> None:
    """A hand's header carries the small blind it posted; a bomb pot (no blind posted) takes
    the table's, as ``small_blind_at`` gives it."""
    played = await session_of(db, 1)
    stored = await hands.load_hand(db, played.hand_ids[0])
    names = [f"p{p.player}" for p in stored.players]
    posted = hands.pokerstars_facts(stored, names=names, table_name="t", max_seats=9,
                                    small_blind=3)
    assert (posted.small_blind, posted.big_blind) == (5, 10)
    bomb = HandConfig.bomb([p.starting_stack for p in stored.players], 20, 10)
    assert hands.posted_small_blind(bomb) is None
    bombed = dataclasses.replace(stored, config=bomb.to_json())
    fallback = hands.pokerstars_facts(bombed, names=names, table_name="t", max_seats=9,
                                      small_blind=3)
    assert (fallback.small_blind, fallback.big_blind) == (3, 10)


async def test_a_server_that_takes_bigger_files_gets_no_bigger_export_than_the_cap(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server boosted to take 100 MB is held to what an export builds at most (its directory
    is in memory while it is built)."""
    await session_of(db, 20)
    whole = await export(db, ask())
    cap = whole.file.size // 2
    monkeypatch.setattr(history, "LARGEST_ZIP", cap)
    capped = await refused(db, ask(limit=100 * 1024 * 1024))
    assert capped.code == "export_too_large"
    assert capped.params["megabytes"] == f"{cap / (1 << 20):.3g}"


async def test_a_tournament_is_one_session_with_its_number_level_and_buy_in(
    db: Database,
) -> None:
    """A tournament's channel gives the whole tournament: every table's hands, each headed
    with the tournament's number, the level and the buy-in, as PokerStars writes them."""
    from tests.storage.test_tournament_hands import running

    r = await running(db)
    for number in (1, 2):
        hand_id, results, summary, _ = await r.all_in_hand(number)
        await hands.record_tournament_hand(db, hand_id, summary, results, save=r.save())
    player = (await hands.load_hand(db, r.hand_ids[1])).players[0].user_id
    lobby = SimpleNamespace(find_in=lambda channel: None,
                            tournament_in=lambda channel: SimpleNamespace(tournament_id=r.tid))
    built = await export(db, ask(user=player), lobby)
    assert built.tournament and built.file.hands == 2
    assert built.file.filename == f"tournament-{r.tid}-hands-1-1.zip"
    files = opened(built.file)
    (text,) = [body for name, body in files.items() if name.endswith(".txt")]
    reads = [read_hand(block) for block in split_hands(text)]
    assert [read.hand for read in reads] == [r.hand_ids[1], r.hand_ids[2]]
    for read in reads:
        assert (read.tournament, read.buy_in, read.level) == (r.tid, "100+0", "I")
        assert (read.small_blind, read.big_blind) == (10, 20) and not read.play_money
    tables = [await r.table_id(n) for n in (1, 2)]
    assert sorted(name.rsplit("/", 1)[1] for name in files if name.endswith(".phh")) == sorted(
        f"table-{table}-hand-1.phh" for table in tables)
    assert all("event = 'Friday'" in body for name, body in files.items()
               if name.endswith(".phh"))
    # Its players alone may have it, as for a cash session.
    assert (await refused(db, ask(user=999), lobby)).code == "export_not_played"
