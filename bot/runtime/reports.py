"""What ``/poker ledger`` and ``/chips stats`` show, built from what storage counted: the
message, the CSV file and the chart's view, in the reader's language.

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
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.i18n import bidi_balanced, isolate, t
from bot.presenter import chips, display_name, safe_text
from bot.render import ChartLabels, ChartSeries, ChartView
from bot.render.labels import catalog_words
from bot.runtime.messenger import MESSAGE_LIMIT
from bot.storage.sessions import Session, SessionPlayer
from bot.storage.stats import Period, PlayerStats, Ratio

# What a spreadsheet takes for the start of a formula (or of a command, for the old DDE
# ones): a name beginning so is written with a leading apostrophe, which shows it as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
CSV_COLUMNS = (
    "player", "user_id", "carried", "buy_ins", "top_ups", "cash_outs", "stack", "net", "seated"
)


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


# --- the ledger ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedgerReport:
    text: str  # within one message; players that do not fit are counted, the CSV has them all
    csv: bytes
    csv_name: str
    chart: ChartView


def ledger_report(
    session: Session,
    names: Mapping[int, str],
    locale: object,
    *,
    table_name: str,
    intro: str = "",
    limit: int = MESSAGE_LIMIT,
) -> LedgerReport:
    """The session as a message (``intro`` first), a CSV file and a chart."""
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
        csv=ledger_csv(session, names, locale),
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


def ledger_csv(session: Session, names: Mapping[int, str], locale: object) -> bytes:
    """The session's players as CSV (UTF-8 with a byte-order mark, so spreadsheets read names
    in any script), machine-readable column names, whole chip counts."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for p in session.players:
        writer.writerow([
            csv_cell(bidi_balanced(display_name(names, p.user_id, locale))), p.user_id, p.carried,
            p.buy_ins, p.top_ups, p.cash_outs, p.stack, p.net, "yes" if p.seated else "no",
        ])
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
    if found.tracked < found.hands_played:
        lines.append(t("stats.untracked", locale, tracked=found.tracked))
    return StatsReport("\n".join(lines), _net_chart(found, display_name, locale))


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
    # The line starts at zero, before his first hand of the period.
    values = (0, *(net for _, net in points)) if points else ()
    return ChartView(
        title=t("stats.chart_title", locale, player=isolate(display_name)),
        subtitle=subtitle,
        x_title=t("chart.hands", locale),
        y_title=t("chart.net", locale),
        x_labels=tuple(chips(n, locale) for n in range(len(values))),
        series=(ChartSeries(display_name, values),) if values else (),
        net=True,
        filename="net.png",
    )
