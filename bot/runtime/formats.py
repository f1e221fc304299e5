"""The tournament formats at run time: the money their events move, the words they are told in,
and the deadlines the runtime keeps for the answers the engine waits on.

The engine decides rebuys, add-ons, re-entries and bounties (``engine.tournament``); a live
tournament (:mod:`bot.runtime.tourney`) stores each transition with the money it moves
(:func:`payments_of`, one ledger row per payment in the transition's transaction), tells it
(:func:`format_news`) and keeps two clocks the engine leaves to its caller: how long a busted
player has to answer a rebuy offer (:data:`REBUY_ANSWER`) and how long the add-on stays open
(to the end of the break that ends rebuys, else :data:`ADD_ON_OPEN`). Those deadlines live in
memory: after a restart every open offer gets a fresh answer time, which loses nobody a chip.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.presenter import (
    EVERYWHERE,
    LOBBY,
    News,
    TournamentScene,
    chips,
    mention,
    safe_text,
)
from bot.storage.tournaments import Payment
from engine.bounty import BountyKind
from engine.table import TableEvent
from engine.tournament import (
    AddOnClosed,
    AddOnOpened,
    BountyWon,
    PlayerAddedOn,
    PlayerRebought,
    PlayerRegistered,
    RebuyDeclined,
    RebuyOffered,
    RebuysClosed,
    TournamentConfig,
)

# Seconds a busted player has to answer a rebuy offer (read at each offer: tests shorten it).
REBUY_ANSWER = 60.0
# Seconds the add-on stays open when rebuys end without a break (else: to the break's end).
ADD_ON_OPEN = 120.0


def payments_of(events: Sequence[TableEvent]) -> tuple[Payment, ...]:
    """The money a transition's events move, in order: each rebuy and add-on from the wallet
    into the pool, each bounty won from the pool into the winner's wallet."""
    out: list[Payment] = []
    for event in events:
        if isinstance(event, PlayerRebought) and event.price:
            out.append(Payment(int(event.player_id), event.price, "rebuy"))
        elif isinstance(event, PlayerAddedOn) and event.price:
            out.append(Payment(int(event.player_id), event.price, "add_on"))
        elif isinstance(event, BountyWon) and (event.amount or event.onto_head):
            out.append(Payment(int(event.player_id), event.amount, "bounty",
                               head_of=int(event.from_player), onto_head=event.onto_head))
    return tuple(out)


def is_reentry(events: Sequence[TableEvent]) -> bool:
    return any(isinstance(e, PlayerRegistered) and e.entry > 1 for e in events)


def format_lines(config: TournamentConfig, locale: object, *, sit_and_go: bool = False,
                 repeat: bool = False) -> list[str]:
    """The format of a tournament in words, a line per feature (none for a freeze-out)."""
    lines: list[str] = []
    if sit_and_go:
        lines.append(t("format.sit_and_go", locale, players=config.max_players))
        if repeat:
            lines.append(t("format.repeat", locale))
    if config.rebuys:
        lines.append(t("format.rebuys", locale, rebuys=config.rebuys,
                       price=chips(config.rebuy_cost, locale),
                       chips=chips(config.rebuy_stack, locale), levels=config.rebuy_levels))
    if config.add_on:
        lines.append(t("format.add_on", locale, chips=chips(config.add_on, locale),
                       price=chips(config.add_on_cost, locale)))
    if config.reentries:
        lines.append(t("format.reentries", locale, reentries=config.reentries,
                       levels=config.late_registration_level))
    if config.bounty:
        key = ("format.bounty_progressive" if config.bounty_kind is BountyKind.PROGRESSIVE
               else "format.bounty")
        lines.append(t(key, locale, bounty=chips(config.bounty, locale)))
    return lines


def format_tags(config: TournamentConfig, locale: object, *, sit_and_go: bool = False
                ) -> list[str]:
    """The formats in a few words each, for the status board's header."""
    tags: list[str] = []
    if sit_and_go:
        tags.append(t("board.format_sit_and_go", locale))
    if config.rebuys:
        tags.append(t("board.format_rebuys", locale, rebuys=config.rebuys))
    if config.add_on:
        tags.append(t("board.format_add_on", locale))
    if config.reentries:
        tags.append(t("board.format_reentries", locale, reentries=config.reentries))
    if config.bounty:
        key = ("board.format_progressive" if config.bounty_kind is BountyKind.PROGRESSIVE
               else "board.format_bounty")
        tags.append(t(key, locale, bounty=chips(config.bounty, locale)))
    return tags


def format_news(event: object, scene: TournamentScene) -> list[News]:
    """How the formats' events are told in the tournament's channels (the offers and the
    add-on's buttons go by DM: :mod:`bot.runtime.tourney`)."""
    loc = scene.locale
    if isinstance(event, PlayerRebought):
        return [News(LOBBY, t("tournament.rebought", loc, player=mention(int(event.player_id)),
                              chips=chips(event.chips, loc), pool=chips(event.prize_pool, loc)))]
    if isinstance(event, RebuyOffered):
        return [News(LOBBY, t("tournament.rebuy_offered", loc,
                              player=mention(int(event.player_id))))]
    if isinstance(event, RebuyDeclined):
        key = f"tournament.rebuy_ended_{event.reason}"
        return [News(LOBBY, t(key, loc, player=mention(int(event.player_id))))]
    if isinstance(event, RebuysClosed):
        return [News(EVERYWHERE, t("tournament.rebuys_closed", loc,
                                   pool=chips(event.prize_pool, loc)))]
    if isinstance(event, AddOnOpened):
        return [News(EVERYWHERE, t("tournament.add_on_open", loc, chips=chips(event.chips, loc),
                                   price=chips(event.price, loc)))]
    if isinstance(event, PlayerAddedOn):
        return [News(LOBBY, t("tournament.added_on", loc, player=mention(int(event.player_id)),
                              chips=chips(event.chips, loc), pool=chips(event.prize_pool, loc)))]
    if isinstance(event, AddOnClosed):
        return [News(EVERYWHERE, t("tournament.add_on_closed", loc, taken=event.taken,
                                   pool=chips(event.prize_pool, loc)))]
    if isinstance(event, BountyWon):
        player = mention(int(event.player_id))
        if event.reason == "own":
            return [News(LOBBY, t("tournament.bounty_own", loc, player=player,
                                  amount=chips(event.amount, loc)))]
        text = t("tournament.bounty_won", loc, player=player, amount=chips(event.amount, loc),
                 loser=mention(int(event.from_player)))
        if event.onto_head:
            text += t("tournament.bounty_onto_head", loc, amount=chips(event.onto_head, loc),
                      head=chips(event.head, loc))
        return [News(LOBBY, text)]
    return []


def rebuy_offer_text(name: str, price: int, stack: int, left: int, deadline: float,
                     locale: object) -> str:
    return t("tournament.rebuy_offer", locale, name=safe_text(name), price=chips(price, locale),
             chips=chips(stack, locale), left=left, deadline=f"<t:{int(deadline)}:R>")


def add_on_offer_text(name: str, price: int, stack: int, deadline: float,
                      locale: object) -> str:
    return t("tournament.add_on_offer", locale, name=safe_text(name), price=chips(price, locale),
             chips=chips(stack, locale), deadline=f"<t:{int(deadline)}:R>")


__all__ = [
    "ADD_ON_OPEN",
    "REBUY_ANSWER",
    "add_on_offer_text",
    "format_lines",
    "format_news",
    "format_tags",
    "is_reentry",
    "payments_of",
    "rebuy_offer_text",
]
