"""The engine's tournament status as the status board's view (what the bot's presenter does
for a real tournament; the render tests and ``bench/tournament.py`` share it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from bot.render.tournament import Phase, PlaceLine, PlayerLine, TablePanel, TournamentView
from engine.hand import AnteKind
from engine.seating import PlayerId
from engine.tournament import TournamentConfig, TournamentStatus

_PHASES = {"registering": Phase.REGISTERING, "running": Phase.RUNNING,
           "finished": Phase.FINISHED}


def view_from_status(
    status: TournamentStatus,
    names: Mapping[PlayerId, str],
    *,
    name: str,
    config: TournamentConfig,
    away: Collection[PlayerId] = (),
) -> TournamentView:
    def called(player: PlayerId) -> str:
        return names.get(player, str(player))

    nxt = status.next_level
    return TournamentView(
        name=name,
        phase=_PHASES[status.state.value],
        level=status.level,
        small_blind=status.small_blind,
        big_blind=status.big_blind,
        ante=status.ante,
        big_blind_ante=status.ante_kind is not AnteKind.PER_PLAYER,
        next_level=(nxt.small_blind, nxt.big_blind, nxt.ante) if nxt else None,
        seconds_to_next_level=status.seconds_to_next_level,
        seconds_left=status.seconds_left,
        on_break=status.on_break,
        paused=status.paused,
        time_up=status.time_up,
        entrants=status.entrants,
        max_players=config.max_players,
        players_left=status.players_left,
        starting_stack=config.starting_stack,
        buy_in=config.buy_in,
        average_stack=status.average_stack,
        largest_stack=status.largest_stack,
        chip_leader=called(status.chip_leader) if status.chip_leader is not None else None,
        prize_pool=status.prize_pool,
        payouts=status.prizes,
        late_registration_level=status.late_registration_level,
        registration_open=status.registration_open,
        tables=tuple(
            TablePanel(
                t.number,
                tuple(PlayerLine(called(p), stack, seat, p in away) for seat, p, stack in t.seats),
                t.in_hand,
            )
            for t in status.tables
        ),
        registered=tuple(called(p) for p in status.players)
        if status.state.value == "registering" else (),
        standings=tuple(PlaceLine(s.place, called(s.player_id), s.prize, s.tied)
                        for s in status.standings),
    )
