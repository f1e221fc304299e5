"""What ``/poker ledger``, ``/chips stats`` and the recap of a night show, built from what
storage counted: the message, the CSV file and the chart's view, in the reader's language.

Who pays whom (``engine.settlement``) is the same in the ledger's CSV (its "settlement"
section) and in the recap, from the same nets; it is counted off the event loop
(:func:`settlement`: up to a tenth of a second for twenty players).

Names come from the table's stored names (each player's display name when he last played
there), so a player who has since left the server still has one. Messages carry them escaped
(``safe_text``: no markdown, no mention, isolated from the sentence around them); the chart
draws them raw (its alt text isolates them) and its title isolates the name it holds.

The CSV takes them as data, not isolated: a name alone in a cell stands in no sentence, a
spreadsheet lays every cell out on its own, and a program reading the file gets the name as
the player wrote it. Two things are added: a cell that starts like a formula is read as text,
and an override or isolate the name leaves open is closed at the end of its cell
(:func:`bot.i18n.bidi_balanced`), so a plain-text view of the file (Discord previews CSV
attachments as text) cannot show the numbers of the row reversed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.i18n import bidi_balanced, isolate, t
from bot.presenter import chips, display_name, safe_text
from bot.render import ChartLabels, ChartSeries, ChartView
from bot.render.labels import catalog_words, format_percent
from bot.runtime.messenger import MESSAGE_LIMIT
from bot.storage.sessions import Session, SessionPlayer
from bot.storage.stats import AllInFigures, Period, PlayerStats, Ratio
from engine.errors import EngineError
from engine.settlement import Transfer, settle
from engine.table import TableOptions
from engine.tournament import TournamentConfig

# What a spreadsheet takes for the start of a formula (or of a command, for the old DDE
# ones): a name beginning so is written with a leading apostrophe, which shows it as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
CSV_COLUMNS = (
    "player", "user_id", "carried", "buy_ins", "top_ups", "cash_outs", "stack", "net", "seated"
)
# The CSV's second section, after a blank row and a row naming it: who pays whom.
SETTLEMENT_SECTION = "settlement"
SETTLEMENT_COLUMNS = ("payer", "payer_id", "payee", "payee_id", "amount")


def chart_labels(locale: object) -> ChartLabels:
    """The chart's words from the catalog (``chart.<field>``), per catalog language."""
    return catalog_words(ChartLabels, "chart", locale)


def signed(amount: int, locale: object) -> str:
    """A won or lost amount: "+300", "-1,200", "0"."""
    text = chips(abs(amount), locale)
    return "+" + text if amount > 0 else "-" + text if amount < 0 else text


def csv_cell(text: str) -> str:
    """A text cell that no spreadsheet runs as a formula.

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell("Ann"), csv_cell("-1")
    ('\\'=HYPERLINK("http://x")', 'Ann', "'-1")
    """
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def stored_names(config: object) -> dict[int, str]:
    """Players' names as the table stored them (``TableConfig.names``); none if unreadable."""
    raw = config.get("names") if isinstance(config, Mapping) else None
    if not isinstance(raw, Mapping):
        return {}
    names: dict[int, str] = {}
    for key, value in raw.items():
        if str(key).isdigit() and isinstance(value, str):
            names[int(key)] = value
    return names


def stored_stakes(config: object, tournament_state: object = None) -> Callable[[int | None], int]:
    """The small blind a stored hand was dealt at, by its level: a tournament's from its saved
    state (``tournament_state``: its levels as last changed), a cash table's from the options
    its table stored (``config``); 0 where neither can be read."""
    try:
        if isinstance(tournament_state, Mapping):
            levels = TournamentConfig.from_json(dict(tournament_state["config"]))
            return lambda level: levels.level_options(level or 1)[0]
        options = config.get("options") if isinstance(config, Mapping) else None
        small = TableOptions.from_json(dict(options)).small_blind if options else 0
    except (KeyError, TypeError, ValueError, EngineError):
        small = 0
    return lambda level: small


# --- the ledger ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedgerReport:
    text: str  # within one message; players that do not fit are counted, the CSV has them all
    csv: bytes
    csv_name: str
    chart: ChartView


def settlement(players: Sequence[SessionPlayer]) -> list[Transfer[int]]:
    """Who pays whom to bring every player's net to zero (by user id): the fewest transfers,
    the same for the same nets. CPU work for many players: call it off the event loop."""
    return settle({p.user_id: p.net for p in players})


def ledger_report(
    session: Session,
    names: Mapping[int, str],
    locale: object,
    *,
    table_name: str,
    intro: str = "",
    limit: int = MESSAGE_LIMIT,
    transfers: Sequence[Transfer[int]] | None = None,
) -> LedgerReport:
    """The session as a message (``intro`` first), a CSV file (with ``transfers``, its
    settlement section) and a chart."""
    head = [intro] if intro else []
    if session.reset_by is None:
        since = t("ledger.since_open", locale, time=f"<t:{session.started_at}:R>")
    else:
        since = t("ledger.since_reset", locale, time=f"<t:{session.started_at}:R>",
                  hand=session.first_hand)
    head.append(t("ledger.title", locale, table=isolate(table_name), since=since))
    summary = t("ledger.summary", locale, hands=session.hands, players=len(session.players))
    if session.voided:
        summary += " " + t("ledger.voided", locale, count=session.voided)
    if not session.is_open:
        summary += " " + t("ledger.closed", locale)
    head.append(summary)
    rows = [_row(p, names, locale) for p in session.players]
    tail = [t("ledger.total", locale, total=signed(session.total_net, locale))]
    if not rows:
        tail = [t("ledger.empty", locale)]
    text = _fit(head, rows, tail, locale, limit)
    return LedgerReport(
        text=text,
        csv=ledger_csv(session.players, names, locale, transfers),
        csv_name=f"ledger-table-{session.table_id}-from-hand-{session.first_hand}.csv",
        chart=_stack_chart(session, names, locale, table_name),
    )


def _row(player: SessionPlayer, names: Mapping[int, str], locale: object) -> str:
    parts = []
    if player.carried:
        parts.append(t("ledger.part.carried", locale, amount=chips(player.carried, locale)))
    if player.buy_ins or not player.carried:
        parts.append(t("ledger.part.buy_ins", locale, amount=chips(player.buy_ins, locale)))
    if player.top_ups:
        parts.append(t("ledger.part.top_ups", locale, amount=chips(player.top_ups, locale)))
    if player.cash_outs:
        parts.append(t("ledger.part.cash_outs", locale, amount=chips(player.cash_outs, locale)))
    if player.seated:
        parts.append(t("ledger.part.stack", locale, amount=chips(player.stack, locale)))
    else:
        parts.append(t("ledger.part.left", locale))
    return t(
        "ledger.row",
        locale,
        player=safe_text(display_name(names, player.user_id, locale)),
        parts=t("ledger.separator", locale).join(parts),
        net=signed(player.net, locale),
    )


def _fit(head: list[str], rows: list[str], tail: list[str], locale: object, limit: int) -> str:
    """Every row that fits in one message; the rest counted in a closing line."""
    text = "\n".join([*head, *rows, *tail])
    if len(text) <= limit:
        return text
    kept = list(rows)
    while kept:
        kept.pop()
        more = t("ledger.more", locale, count=len(rows) - len(kept))
        text = "\n".join([*head, *kept, more, *tail])
        if len(text) <= limit:
            return text
    return text[:limit]


def ledger_csv(
    players: Sequence[SessionPlayer],
    names: Mapping[int, str],
    locale: object,
    transfers: Sequence[Transfer[int]] | None = None,
) -> bytes:
    """The session's players as CSV (UTF-8 with a byte-order mark, so spreadsheets read names
    in any script), machine-readable column names, whole chip counts; with ``transfers``, a
    second section after a blank row: ``settlement``, then who pays whom."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)

    def name(user_id: int) -> str:
        return csv_cell(bidi_balanced(display_name(names, user_id, locale)))

    for p in players:
        writer.writerow([
            name(p.user_id), p.user_id, p.carried, p.buy_ins, p.top_ups, p.cash_outs, p.stack,
            p.net, "yes" if p.seated else "no",
        ])
    if transfers is not None:
        writer.writerow([])
        writer.writerow([SETTLEMENT_SECTION])
        writer.writerow(SETTLEMENT_COLUMNS)
        for move in transfers:
            writer.writerow([name(move.payer), move.payer, name(move.payee), move.payee,
                             move.amount])
    return out.getvalue().encode("utf-8-sig")


def _stack_chart(
    session: Session, names: Mapping[int, str], locale: object, table_name: str
) -> ChartView:
    series = session.series
    start = t("chart.start", locale)
    labels = (start, *(f"#{n}" for n in series.hands[1:]))
    lines = tuple(
        ChartSeries(display_name(names, p.user_id, locale), series.stacks[p.user_id])
        for p in session.players
        if p.user_id in series.stacks
    )
    if len(series.hands) > 1:
        span = t("ledger.chart_hands", locale, first=series.hands[1], last=series.hands[-1])
    else:
        span = t("ledger.chart_no_hands", locale, first=session.first_hand)
    return ChartView(
        title=t("ledger.chart_title", locale, table=isolate(table_name)),
        subtitle=t("ledger.chart_subtitle", locale, hands=span, players=len(lines)),
        x_title=t("chart.hand", locale),
        y_title=t("chart.chips", locale),
        x_labels=labels if len(series.hands) > 1 or lines else (),
        series=lines,
        filename="ledger.png",
    )


# --- a player's statistics -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StatsReport:
    text: str
    chart: ChartView


def ratio(value: Ratio, locale: object) -> str:
    """A percentage with what it counts: "25.0% (3/12)", or "– (0/0)" with nothing counted."""
    if value.pct is None:
        return t("stats.ratio_none", locale)
    return t("stats.ratio", locale, pct=f"{value.pct:.1f}", part=value.part, whole=value.whole)


def period_name(period: Period, locale: object) -> str:
    return t(f"choice.period.{period.value}", locale)


def stats_report(
    found: PlayerStats, player: str, display_name: str, locale: object
) -> StatsReport:
    """``player`` names him in the message (a mention), ``display_name`` on the chart."""
    lines = [
        t("stats.title", locale, player=player, period=period_name(found.period, locale)),
        t(
            "stats.hands",
            locale,
            hands=found.hands_played,
            won=found.hands_won,
            net=signed(found.net, locale),
            biggest=chips(found.biggest_pot, locale),
        ),
        t("stats.preflop", locale, vpip=ratio(found.vpip, locale),
          pfr=ratio(found.pfr, locale), three_bet=ratio(found.three_bet, locale)),
        t("stats.showdown", locale, wtsd=ratio(found.wtsd, locale),
          wsd=ratio(found.wsd, locale)),
    ]
    lines += all_in_lines(found.all_in, locale)
    if found.tracked < found.hands_played:
        lines.append(t("stats.untracked", locale, tracked=found.tracked))
    if found.tournament_all_in.hands:
        lines += all_in_lines(found.tournament_all_in, locale, tournament=True)
    return StatsReport("\n".join(lines), _net_chart(found, display_name, locale))


def all_in_lines(
    figures: AllInFigures, locale: object, *, tournament: bool = False
) -> list[str]:
    """Net, all-in EV net and luck, with the count of all-in hands (``tournament``: in
    tournament chips, said so); the hands whose all-in EV is unknown are named, never
    guessed."""
    if not figures.hands:
        return []
    key = "stats.tournament_all_in" if tournament else "stats.all_in"
    ev = figures.ev_net
    if ev is None:
        return [t(f"{key}_none", locale, hands=figures.hands)]
    lines = [t(key, locale, net=signed(figures.counted_net, locale), ev=signed(ev, locale),
               luck=signed(figures.luck, locale), all_in=figures.all_in_hands)]
    if figures.unknown:
        lines.append(t("stats.all_in_partial", locale, counted=figures.counted,
                       unknown=figures.unknown))
    return lines


def _date(timestamp: int) -> str:
    # ISO dates read the same in every language and time zone's convention.
    return datetime.fromtimestamp(timestamp, UTC).date().isoformat()


def _net_chart(found: PlayerStats, display_name: str, locale: object) -> ChartView:
    points = found.net_series
    period = period_name(found.period, locale)
    if points:
        subtitle = t("stats.chart_subtitle", locale, period=period, hands=len(points),
                     first=_date(points[0][0]), last=_date(points[-1][0]))
    else:
        subtitle = period
    # The lines start at zero, before his first hand of the period.
    values = (0, *(net for _, net in points)) if points else ()
    series: tuple[ChartSeries, ...] = (ChartSeries(display_name, values),) if values else ()
    evs = found.ev_series
    if values and any(ev is not None for ev in evs):
        # As PokerTracker's all-in equity graph: what he won, and what his all-ins were worth
        # (where a hand's all-in EV is unknown, the second line has a gap: nothing is guessed).
        first = 0 if evs[0] is not None else None
        series = (
            ChartSeries(t("stats.chart_net", locale), values),
            ChartSeries(t("stats.chart_ev", locale), (first, *evs)),
        )
    return ChartView(
        title=t("stats.chart_title", locale, player=isolate(display_name)),
        subtitle=subtitle,
        x_title=t("chart.hands", locale),
        y_title=t("chart.net", locale),
        x_labels=tuple(chips(n, locale) for n in range(len(values))),
        series=series,
        net=True,
        filename="net.png",
    )


# --- the recap of a night --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecapLine:
    """One player in a recap: ``net`` in wallet chips (the ledger's net; a tournament's prize
    minus his buy-in), ``figures`` over his hands in the table's chips (tournament chips in a
    tournament)."""

    user_id: int
    net: int
    figures: AllInFigures
    place: int | None = None  # a tournament's
    prize: int | None = None


@dataclass(frozen=True, slots=True)
class PotFacts:
    """The biggest pot: its hand (and table, in a tournament), its chips and who took them."""

    hand_no: int
    table_no: int | None
    pot: int
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SwingFacts:
    """The biggest swing of equity: the player whose luck was largest in one hand, the share
    of the chips at stake his cards were worth at the all-in moment, his all-in EV net, his
    net and his luck in that hand."""

    hand_no: int
    table_no: int | None
    user_id: int
    share: float  # 0 to 1
    stake: int
    ev_net: int
    net: int
    luck: int


@dataclass(frozen=True, slots=True)
class RecapFacts:
    """What a recap says (``bot.runtime.recaps`` reads it from storage)."""

    recap_id: int
    channel_id: int
    hands: int
    lines: tuple[RecapLine, ...]  # by net (by place in a tournament)
    first_hand: int | None = None  # a cash session's hands
    last_hand: int | None = None
    tournament: str | None = None  # a tournament's name
    pot: PotFacts | None = None
    swing: SwingFacts | None = None
    transfers: tuple[Transfer[int], ...] | None = None  # a cash session's settlement


def recap_text(facts: RecapFacts, names: Mapping[int, str], locale: object) -> str:
    """The recap as the channel reads it (split into messages by the poster if long)."""

    def who(user_id: int) -> str:
        return safe_text(display_name(names, user_id, locale))

    if facts.tournament is None:
        lines = [t("recap.title", locale, where=f"<#{facts.channel_id}>",
                   first=facts.first_hand, last=facts.last_hand, hands=facts.hands),
                 t("recap.results", locale)]
        lines += [t("recap.row", locale, rank=rank, player=who(line.user_id),
                    net=signed(line.net, locale), all_in=_all_in_words(line.figures, locale))
                  for rank, line in enumerate(facts.lines, start=1)]
    else:
        lines = [t("recap.title_tournament", locale, name=safe_text(facts.tournament),
                   hands=facts.hands),
                 t("recap.results_tournament", locale)]
        lines += [t("recap.row_tournament", locale, place=line.place, player=who(line.user_id),
                    prize=chips(line.prize or 0, locale), net=signed(line.net, locale),
                    all_in=_all_in_words(line.figures, locale))
                  for line in facts.lines]
    if facts.pot is not None:
        pot = facts.pot
        winners = t("list.separator", locale).join(who(u) for u in pot.winners)
        lines.append(t("recap.biggest_pot", locale, hand=_hand_words(pot, locale),
                       pot=chips(pot.pot, locale), winners=winners))
    if facts.swing is not None:
        swing = facts.swing
        lines.append(t("recap.swing", locale, hand=_hand_words(swing, locale),
                       player=who(swing.user_id), share=format_percent(swing.share),
                       stake=chips(swing.stake, locale), ev=signed(swing.ev_net, locale),
                       net=signed(swing.net, locale), luck=signed(swing.luck, locale)))
    if facts.transfers is not None:
        lines.append(t("recap.settle", locale))
        lines += [t("recap.transfer", locale, payer=who(move.payer), payee=who(move.payee),
                    amount=chips(move.amount, locale)) for move in facts.transfers]
        if not facts.transfers:
            lines.append(t("recap.settled", locale))
    footer = "recap.footer" if facts.tournament is None else "recap.footer_tournament"
    lines.append(t(footer, locale, id=facts.recap_id))
    return "\n".join(lines)


def recap_dm(
    facts: RecapFacts, names: Mapping[int, str], user_id: int, locale: object
) -> str | None:
    """A player's own figures from the recap, in his language (None: he is not in it)."""
    line = next((line for line in facts.lines if line.user_id == user_id), None)
    if line is None:
        return None

    def who(other: int) -> str:
        return safe_text(display_name(names, other, locale))

    all_in = _all_in_words(line.figures, locale)
    if facts.tournament is not None:
        return t("recap.dm_tournament", locale, name=safe_text(facts.tournament),
                 id=facts.recap_id, place=line.place, prize=chips(line.prize or 0, locale),
                 net=signed(line.net, locale), all_in=all_in)
    lines = [t("recap.dm", locale, where=f"<#{facts.channel_id}>", id=facts.recap_id,
               net=signed(line.net, locale), all_in=all_in)]
    moves = [m for m in facts.transfers or () if user_id in (m.payer, m.payee)]
    for move in moves:
        if move.payer == user_id:
            lines.append(t("recap.dm_pays", locale, player=who(move.payee),
                           amount=chips(move.amount, locale)))
        else:
            lines.append(t("recap.dm_paid", locale, player=who(move.payer),
                           amount=chips(move.amount, locale)))
    if facts.transfers is not None and not moves:
        lines.append(t("recap.dm_even", locale))
    return "\n".join(lines)


def _all_in_words(figures: AllInFigures, locale: object) -> str:
    if not figures.hands:
        return t("recap.no_hands", locale)
    ev = figures.ev_net
    if ev is None:
        return t("recap.all_in_none", locale)
    return t("recap.all_in", locale, ev=signed(ev, locale), luck=signed(figures.luck, locale),
             count=figures.all_in_hands)


def _hand_words(facts: PotFacts | SwingFacts, locale: object) -> str:
    if facts.table_no is None:
        return t("recap.hand", locale, hand=facts.hand_no)
    return t("recap.hand_at_table", locale, hand=facts.hand_no, table=facts.table_no)
