"""What ``/poker ledger``, ``/chips stats`` and the recap say (``bot.runtime.reports``), without
Discord: a huge session still fits one message and the CSV holds everyone, names cannot break
the message or the spreadsheet, every percentage carries its count, all-in EV and luck come with
their count of all-in hands, and who pays whom settles every net."""

from __future__ import annotations

import csv
import dataclasses
import io

import pytest

from bot.i18n import t
from bot.presenter import safe_text
from bot.render.charts import draw_chart
from bot.runtime.messenger import MESSAGE_LIMIT
from bot.runtime.reports import (
    FORMULA_STARTS,
    PotFacts,
    RecapFacts,
    RecapLine,
    SwingFacts,
    chart_labels,
    csv_cell,
    ledger_report,
    ratio,
    recap_dm,
    recap_text,
    settlement,
    stats_report,
    stored_names,
)
from bot.storage.sessions import Session, SessionPlayer, StackSeries
from bot.storage.stats import AllInFigures, Period, PlayerStats, Ratio
from engine.settlement import Transfer, settle


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


# --- all-in EV, settlement and the recap ------------------------------------------------------


def test_stats_give_net_all_in_ev_net_and_luck_with_the_count_of_all_in_hands() -> None:
    found = PlayerStats(1, 2, 10, 4, -250, 900, Ratio(6, 10), Ratio(3, 10), Ratio(1, 2),
                        Ratio(2, 5), Ratio(1, 2), tracked=10,
                        all_in=AllInFigures(10, -250, 8, -300, 3, -420),
                        tournament_all_in=AllInFigures(5, 1_500, 5, 1_500, 2, 700))
    lines = stats_report(found, "<@2>", "Ann", "en").text.split("\n")
    assert lines[4:] == [
        "All-in EV: net -300 · all-in EV net +120 · luck -420 (3 all-in hands)",
        t("stats.all_in_partial", counted=8, unknown=2),
        "Tournaments, in tournament chips: net +1,500 · all-in EV net +800 · luck +700"
        " (2 all-in hands)",
    ]
    unknown = PlayerStats(1, 2, 3, 1, 40, 90, Ratio(1, 3), Ratio(0, 3), Ratio(0, 0),
                          Ratio(0, 0), Ratio(0, 0), tracked=3,
                          all_in=AllInFigures(hands=3, net=40))
    assert stats_report(unknown, "<@2>", "Ann", "en").text.split("\n")[4:] == [
        t("stats.all_in_none", hands=3)]


def test_the_chart_draws_the_net_and_the_all_in_ev_net_with_a_gap_where_it_is_unknown() -> None:
    found = PlayerStats(1, 2, 3, 1, 60, 90, Ratio(1, 3), Ratio(0, 3), Ratio(0, 0),
                        Ratio(0, 0), Ratio(0, 0), tracked=3,
                        net_series=((1, 10), (2, -40), (3, 60)), ev_series=(None, -20, 0))
    chart = stats_report(found, "<@2>", "Ann", "en").chart
    assert [s.name for s in chart.series] == ["Net", "All-in EV net"]
    assert chart.series[0].values == (0, 10, -40, 60)
    assert chart.series[1].values == (None, None, -20, 0)
    image = draw_chart(chart, chart_labels("en"))
    alone = stats_report(dataclasses.replace(found, ev_series=(None, None, None)), "<@2>", "Ann",
                         "en").chart
    assert len(alone.series) == 1 and alone.series[0].name == "Ann"
    # Two lines take a legend under the plot; one line is named by the title.
    assert image.height > draw_chart(alone, chart_labels("en")).height


def settle_all(nets: dict[int, int], transfers: list[Transfer[int]]) -> dict[int, int]:
    left = dict(nets)
    for move in transfers:
        left[move.payer] += move.amount
        left[move.payee] -= move.amount
    return left


def test_the_ledger_csv_says_who_pays_whom_and_it_settles_every_net() -> None:
    players = [SessionPlayer(5, 0, 1_000, 0, 0, 1_700, True),
               SessionPlayer(6, 0, 1_000, 500, 0, 1_000, True),
               SessionPlayer(7, 0, 1_000, 0, 800, 0, False)]
    transfers = settlement(players)
    nets = {p.user_id: p.net for p in players}
    assert set(settle_all(nets, transfers).values()) == {0} and len(transfers) == 2
    report = ledger_report(session(players), {5: "=ann", 6: "bob", 7: "cy"}, "en",
                           table_name="#t", transfers=transfers)
    head, tail = report.csv.decode("utf-8-sig").split("\r\n\r\n")
    assert len(list(csv.DictReader(io.StringIO(head)))) == 3
    title, rows = tail.split("\r\n", 1)
    assert title == "settlement"
    written = list(csv.DictReader(io.StringIO(rows)))
    assert [(r["payer_id"], r["payee_id"], r["amount"]) for r in written] == [
        (str(m.payer), str(m.payee), str(m.amount)) for m in transfers]
    assert {r["payee"] for r in written} == {"'=ann"}  # a formula is text there too


def recap_facts(**changes: object) -> RecapFacts:
    lines = (RecapLine(5, 700, AllInFigures(4, 700, 4, 700, 2, 500)),
             RecapLine(6, -200, AllInFigures(4, -200, 4, -200, 1, -300)),
             RecapLine(7, -500, AllInFigures(4, -500, 4, -500, 1, -200)),
             RecapLine(8, 0, AllInFigures()))
    nets = {line.user_id: line.net for line in lines}
    values: dict[str, object] = dict(
        recap_id=12, channel_id=99, hands=4, lines=lines, first_hand=3, last_hand=6,
        pot=PotFacts(5, None, 1_400, (5,)),
        swing=SwingFacts(5, None, 5, 0.2, 1_400, -420, 700, 1_120),
        transfers=tuple(settle(nets)),
    )
    values.update(changes)
    return RecapFacts(**values)  # type: ignore[arg-type]


def test_the_recap_reads_results_all_in_ev_and_who_pays_whom() -> None:
    names = {5: "**ann**", 6: "bob", 7: "cy", 8: "dee"}
    text = recap_text(recap_facts(), names, "en")
    lines = text.split("\n")
    ann = safe_text("**ann**")
    assert ann.count("\\*") == 4  # no bold from a name
    assert lines[0] == "**Recap of the night** · <#99> · hands #3 to #6 · 4 played"
    assert lines[2] == f"1. {ann}: **+700** · all-in EV net +200 · luck +500 (2 all-in hands)"
    assert lines[5] == f"4. {safe_text('dee')}: **0** · no hand played"
    assert f"hand #5, 1,400 chips, to {ann}" in text
    assert "worth 20.0% of the 1,400 chips at stake (all-in EV net -420)" in text
    assert f"{safe_text('bob')} pays {ann} 200" in text
    assert text.endswith(t("recap.footer", id=12))
    assert set(settle_all({5: 700, 6: -200, 7: -500, 8: 0},
                          list(recap_facts().transfers or ())).values()) == {0}
    even = recap_text(recap_facts(transfers=()), names, "en")
    assert t("recap.settled") in even


def test_each_player_reads_his_own_figures_and_transfers_in_his_language() -> None:
    facts = recap_facts()
    names = {5: "ann", 6: "bob", 7: "cy", 8: "dee"}
    ann = recap_dm(facts, names, 5, "en")
    assert ann is not None and ann.startswith("Your night at <#99> (recap #12): net +700")
    assert f"{safe_text('bob')} pays you 200." in ann and f"{safe_text('cy')} pays you 500." in ann
    bob = recap_dm(facts, names, 6, "zh-TW")
    assert bob is not None and f"你付給 {safe_text('ann')} 200。" in bob
    assert recap_dm(facts, names, 8, "en") == (
        "Your night at <#99> (recap #12): net 0 · no hand played.\n" + t("recap.dm_even"))
    assert recap_dm(facts, names, 9, "en") is None
