"""Many tables stopped in the middle of their hands, for the restart tests and ``bench.e2e``.

The tables are written straight into storage as the runtime writes them (a table and its
config, three players bought in, a hand dealt and its first decision taken; or, for one table
in ``paused_every``, dealing paused by its host and no hand), and each has the table message
the previous process left in its channel of the fake Discord, buttons still on. Starting the
bot then is exactly a restart: every table comes back at once.

After the restart a table is *shown again* when the message it now calls its own is a new one
that shows what the runtime holds (the hand's header, the player to act named, the buttons
of the decision due), and *tidied* once the message it replaced has lost its buttons. A bot
running in another process is read through storage instead (``stored_message``), which holds
the same: every change is stored before anybody is told.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.presenter import Scene, TableMessage, table_message
from bot.runtime.config import TableConfig
from bot.runtime.manager import GameRuntime
from bot.storage import Database, economy, hands, tables
from bot.storage.hands import HandSeat
from bot.storage.tables import TableSave
from bot.ui import build_view
from engine.cards import FULL_DECK
from engine.commitment import DeckCommitment
from engine.hand import Action, ActionKind
from engine.table import Table, TableOptions
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser

# Discord's most channels in one server; the tables past it are spread over smaller servers.
FIRST_GUILD_TABLES = 500
OTHER_GUILD_TABLES = 250
OPTIONS = TableOptions(small_blind=5, big_blind=10)
TIMER = 300  # no player times out while a benchmark watches


@dataclass
class Seat:
    """One table of the world: its channel and its players."""

    channel: FakeChannel
    players: list[FakeUser]


@dataclass
class RestartWorld:
    guilds: list[FakeGuild]
    seats: list[Seat]
    spectators: list[FakeUser]  # members of every server, seated nowhere

    @property
    def users(self) -> list[FakeUser]:
        return [u for s in self.seats for u in s.players] + self.spectators


def restart_world(
    tables: int,
    players: int = 3,
    *,
    spectators: int = 4,
    first: int = FIRST_GUILD_TABLES,
    others: int = OTHER_GUILD_TABLES,
    shards: int = 1,
) -> RestartWorld:
    """One server of up to ``first`` tables, the rest in servers of ``others``; a channel and
    ``players`` users (DMs open) per table. With ``shards``, server ``k`` is on shard
    ``k % shards``."""
    watchers = [FakeUser(f"rail-{k}") for k in range(spectators)]
    owner = FakeUser("owner")
    seats: list[Seat] = []
    guilds: list[FakeGuild] = []
    start = 0
    while start < tables:
        size = first if not guilds else others
        channels: list[FakeChannel] = []
        members: list[FakeUser] = []
        for t in range(start, min(tables, start + size)):
            channel = FakeChannel(f"table-{t:04d}")
            users = [FakeUser(f"p{t:04d}-{k}") for k in range(players)]
            seats.append(Seat(channel, users))
            channels.append(channel)
            members.extend(users)
        guilds.append(_guild_on(len(guilds) % shards, shards, f"Casino {len(guilds) + 1}",
                                channels, [owner, *members, *watchers], owner))
        start += size
    return RestartWorld(guilds, seats, watchers)


def _guild_on(
    shard: int, shards: int, name: str, channels: list[FakeChannel], members: list[FakeUser],
    owner: FakeUser,
) -> FakeGuild:
    """A server whose id puts it on ``shard`` (its id is a snowflake of the time it is made:
    made again until the time fits)."""
    while True:
        guild = FakeGuild.create(name, channels=(), members=members, owner=owner)
        if (guild.id >> 22) % shards == shard:
            break
    for position, channel in enumerate(channels):
        channel.guild_id = guild.id
        channel.position = position
        guild.channels.append(channel)
    return guild


@dataclass(frozen=True)
class Seeded:
    """A table as the stopped process left it."""

    table_id: int
    seat: Seat
    old_message_id: int
    awaits_player: bool  # a hand in progress with a player to act (else dealing paused)


async def seed_tables(
    db: Database,
    fake: FakeDiscord,
    world: RestartWorld,
    *,
    paused_every: int = 5,
    rng: random.Random | None = None,
) -> list[Seeded]:
    """Every seat of ``world`` a table in storage, as described above."""
    rng = rng if rng is not None else random.Random(1)
    for guild in world.guilds:
        await economy.ensure_guild(db, guild.id)
    seeded = []
    for n, seat in enumerate(world.seats):
        paused = paused_every > 0 and n % paused_every == paused_every - 1
        seeded.append(await _seed_one(db, fake, seat, paused=paused, rng=rng))
    return seeded


async def _seed_one(
    db: Database, fake: FakeDiscord, seat: Seat, *, paused: bool, rng: random.Random
) -> Seeded:
    guild_id = seat.channel.guild_id
    assert guild_id is not None
    low, high = OPTIONS.buy_in_range
    table = Table(OPTIONS, random.Random(rng.getrandbits(32)))
    config = TableConfig(
        options=OPTIONS, timer=TIMER, dealing=not paused,
        names={user.id: user.name for user in seat.players}, state=table.to_json(),
    )
    info = await tables.create_table(
        db, guild_id, seat.channel.id, seat.players[0].id, config=config.to_json(),
        min_buy_in=low, max_buy_in=high, max_seats=OPTIONS.seats, chip_unit=OPTIONS.chip_unit,
    )
    for number, user in enumerate(seat.players, start=1):
        table.join(user.id, high, seat=number)
        config.state = table.to_json()
        await tables.buy_in(db, info.table_id, user.id, high, seat_no=number,
                            save=TableSave(config.to_json(), low, high))
    commitment = None
    if not paused:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        commitment = DeckCommitment.commit(tuple(deck))
        table.start_hand(tuple(deck))
        hand, plan = table.hand, table.plan
        assert hand is not None and plan is not None
        config.state = table.to_json()
        hand_id = await hands.start_hand(
            db, info.table_id, config=hand.config, deck=tuple(deck), commitment=commitment,
            players=[HandSeat(i, s, int(pid), hand.config.stacks[i]) for i, (s, pid) in
                     enumerate(zip(table.hand_seats, table.hand_players, strict=True))],
            button_seat=plan.button_seat, save=TableSave(config.to_json(), low, high),
        )
        legal = hand.legal()
        assert legal is not None
        hand.apply(Action(ActionKind.CALL, legal.player))
        await hands.append_actions(db, hand_id, 0, hand.actions)
    scene = Scene(table=table, names=config.names, hand_number=table.hand_number,
                  commitment=commitment.root_hex if commitment is not None else None,
                  dealing=config.dealing)
    shown = table_message(scene)
    view = build_view(info.table_id, shown.buttons)
    old = fake.state.create_message(
        seat.channel,
        {"content": shown.text(None),
         "components": view.to_components() if view is not None else []},
        (),
    )
    await tables.set_table_message(db, info.table_id, old.id)
    return Seeded(info.table_id, seat, old.id, awaits_player=not paused)


def shown_again(fake: FakeDiscord, runtime: GameRuntime, seeded: Seeded) -> bool:
    """The table's message is a new one showing the table as the runtime holds it now."""
    live_table = runtime.registry.find(seeded.table_id)
    if live_table is None:
        return False
    message_id = live_table.messenger.message_id
    if message_id is None or message_id == seeded.old_message_id:
        return False
    return shows(fake.messages.get(message_id), seeded.table_id, live_table.message())


def shows(current: FakeMessage | None, table_id: int, expected: TableMessage) -> bool:
    """``current`` says what ``expected`` says: the hand's header, the player to act named,
    the buttons of the decision due (the image and the countdown are not compared)."""
    if current is None or current.deleted or not current.content.startswith(expected.head):
        return False
    prompt = expected.prompt
    if prompt is not None and f"<@{prompt.player_id}>" not in current.content:
        return False
    view = build_view(table_id, expected.buttons)
    wanted = [] if view is None else [
        button["custom_id"] for row in view.to_components() for button in row["components"]
    ]
    return sorted(current.custom_ids()) == sorted(wanted)


async def stored_message(db: Database, table_id: int) -> tuple[int | None, TableMessage]:
    """The message a table stored as its own, and what it should show, read from storage
    alone (nothing written): its saved state with its running hand replayed."""
    info = await tables.get_table(db, table_id)
    config = TableConfig.from_json(info.config)
    running = await hands.unfinished_hands(db, table_id)
    rng = random.Random(0)
    state = config.state or Table(config.options, rng).to_json()
    commitment = None
    if running and state.get("in_hand"):
        table = Table.from_json(state, rng, hand=hands.rebuild_hand(running[0]))
        commitment = running[0].commitment
    else:
        table = Table.from_json({**state, "in_hand": False}, rng)
    scene = Scene(table=table, names=config.names, hand_number=table.hand_number,
                  locale=config.locale, dealing=config.dealing,
                  commitment=commitment.root_hex if commitment is not None else None)
    return info.message_id, table_message(scene)


def tidied(fake: FakeDiscord, seeded: Seeded, old_message_id: int | None = None) -> bool:
    """The message the previous process left (``old_message_id``, else the seeded one) has
    lost its buttons."""
    old = seeded.old_message_id if old_message_id is None else old_message_id
    return not fake.message(old).custom_ids()
