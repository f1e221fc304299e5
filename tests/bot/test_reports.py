"""What ``/poker ledger`` and ``/chips stats`` say (``bot.runtime.reports``), without Discord:
a huge session still fits one message and the CSV holds everyone, names cannot break the
message or the spreadsheet, and every percentage carries its count."""

from __future__ import annotations

import csv
import io

import pytest

from bot.i18n import t
from bot.runtime.messenger import MESSAGE_LIMIT
from bot.runtime.reports import (
    FORMULA_STARTS,
    chart_labels,
    csv_cell,
    ledger_report,
    ratio,
    stats_report,
    stored_names,
)
from bot.storage.sessions import Session, SessionPlayer, StackSeries
from bot.storage.stats import Period, PlayerStats, Ratio


def session(players: list[SessionPlayer], **changes: object) -> Session:
    values: dict[str, object] = dict(
        table_id=7, guild_id=1, channel_id=2, host_id=3, is_open=True, config={},
        started_at=1_700_000_000, reset_by=None, first_hand=1, hands=len(players), voided=0,
        players=tuple(players),
        series=StackSeries((0, 1), {p.user_id: (1_000, p.stack) for p in players}),
    )
    values.update(changes)
    return Session(**values)  # type: ignore[arg-type]


def test_a_huge_session_fits_one_message_and_the_csv_has_everyone() -> None:
    players = [SessionPlayer(10_000 + k, 0, 1_000, 500 * (k % 3), 0, 1_000 + k, True)
               for k in range(300)]
    names = {p.user_id: f"Player with a rather long name number {k}" for k, p in
             enumerate(players)}
    report = ledger_report(session(players), names, "en", table_name="#poker")
    assert len(report.text) <= MESSAGE_LIMIT
    shown = report.text.count(": bought in")
    assert 0 < shown < 300
    assert t("ledger.more", count=300 - shown) in report.text
    assert report.text.endswith(t("ledger.total", total="-" + f"{sum(-p.net for p in players):,}"))
    rows = list(csv.DictReader(io.StringIO(report.csv.decode("utf-8-sig"))))
    assert len(rows) == 300 and rows[0]["player"] == names[10_000]
    assert len(report.chart.series) == 300  # the chart counts the ones its legend leaves out


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_a_name_that_starts_like_a_formula_is_text_in_the_csv(start: str) -> None:
    name = f"{start}cmd|' /C calc'!A0"
    assert csv_cell(name) == "'" + name
    report = ledger_report(session([SessionPlayer(5, 0, 100, 0, 0, 100, True)]), {5: name},
                           "en", table_name="#t")
    (row,) = csv.DictReader(io.StringIO(report.csv.decode("utf-8-sig")))
    assert row["player"] == "'" + name
    assert csv_cell("Zoë =1+1") == "Zoë =1+1"  # only the start of a cell matters


def test_names_in_the_message_carry_no_markdown_or_mention() -> None:
    name = "**big** __win__ @here <@123456789012345678> [link](http://x)"
    report = ledger_report(session([SessionPlayer(5, 0, 100, 0, 0, 100, True)]), {5: name},
                           "en", table_name="#t")
    line = report.text.split("\n")[2]
    assert line.startswith("\\*\\*big\\*\\* \\_\\_win\\_\\_ @\u200bhere <@\u200b1234")
    assert "\\[link](" in line  # an escaped bracket: no masked link
    assert report.chart.series[0].name == name  # drawn as typed: images render no markdown


def test_a_player_without_a_stored_name_is_named_by_number() -> None:
    report = ledger_report(session([SessionPlayer(5, 0, 100, 0, 0, 100, True)]), {}, "en",
                           table_name="#t")
    assert t("player.unknown", id=5) in report.text


def test_stored_names_survive_a_damaged_config() -> None:
    assert stored_names({"names": {"12": "ann", "x": "bad", "13": 7}}) == {12: "ann"}
    assert stored_names({"names": ["ann"]}) == {} == stored_names(None)


def test_a_reset_session_says_so_and_shows_what_was_carried() -> None:
    carried = SessionPlayer(5, 800, 0, 0, 0, 900, True)
    report = ledger_report(session([carried], reset_by=3, first_hand=12), {5: "ann"}, "en",
                           table_name="#t", intro="intro")
    lines = report.text.split("\n")
    assert lines[0] == "intro"
    assert "since the host reset it" in lines[1] and "(from hand #12)" in lines[1]
    assert lines[3] == "ann: 800 carried over, stack 900 · net **+100**"


def test_every_percentage_shows_its_count() -> None:
    assert ratio(Ratio(1, 3), "en") == "33.3% (1/3)"
    assert ratio(Ratio(0, 0), "en") == t("stats.ratio_none")
    found = PlayerStats(1, 2, 10, 4, -250, 900, Ratio(6, 10), Ratio(3, 10), Ratio(1, 2),
                        Ratio(2, 5), Ratio(1, 2), tracked=6, period=Period.WEEK,
                        net_series=((1_700_000_000, -50), (1_700_086_400, -250)))
    report = stats_report(found, "<@2>", "Ann", "en")
    assert report.text.split("\n") == [
        "**<@2>** · Last 7 days",
        "10 hands, 4 won · net -250 · biggest pot 900",
        "VPIP 60.0% (6/10) · PFR 30.0% (3/10) · 3-bet 50.0% (1/2)",
        "Went to showdown 40.0% (2/5) · won at showdown 50.0% (1/2)",
        t("stats.untracked", tracked=6),
    ]
    chart = report.chart
    assert chart.net and chart.series[0].values == (0, -50, -250)
    assert chart.subtitle == "Last 7 days · 2 hands · 2023-11-14 to 2023-11-15"


def test_chart_words_come_from_the_catalog() -> None:
    labels = chart_labels("en-US")
    assert labels.no_data == t("chart.no_data") and labels.thousands_separator == ","
