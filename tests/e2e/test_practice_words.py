"""A practice table speaks of play chips, never of wallets, in every language: its join, leave,
rebuy, kick and close replies, its table message and the notice of its closing. The words come
from the kind of table (``TableKind.words``), so a cash table still speaks of wallets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.i18n import t
from bot.runtime.cash import PracticeTable
from bot.runtime.kinds import CASH, PRACTICE
from tests.e2e.game_kit import Game

pytestmark = pytest.mark.timeout(120)

LOCALES = Path(__file__).resolve().parents[2] / "bot" / "locales"
WALLET = {"en": "wallet", "zh-TW": "錢包", "zh-CN": "钱包"}
PLAY_CHIPS = {"en": "play chips", "zh-TW": "練習籌碼", "zh-CN": "练习筹码"}
# What a practice reply may say of wallets: that none is touched.
NO_WALLET = {"en": ("never reach a wallet", "no wallet", "reach no wallet"),
             "zh-TW": ("不會進任何錢包", "不會進錢包", "沒有任何錢包", "不動錢包"),
             "zh-CN": ("不会进任何钱包", "不会进钱包", "没有任何钱包", "不动钱包")}


def speaks_of_play_chips(text: str, locale: str) -> bool:
    """The text names play chips, and a wallet only to say none is touched."""
    rest = text.lower()
    for words in NO_WALLET[locale]:
        rest = rest.replace(words, "")
    return PLAY_CHIPS[locale] in text.lower() and WALLET[locale] not in rest


@pytest.mark.parametrize("locale", ["en", "zh-TW", "zh-CN"])
def test_each_word_a_practice_table_says_its_own_way_speaks_of_play_chips(locale: str) -> None:
    catalog = json.loads((LOCALES / f"{locale}.json").read_text(encoding="utf-8"))
    assert PRACTICE.words and not CASH.words
    for key, own in PRACTICE.words.items():
        assert speaks_of_play_chips(catalog[own], locale), (key, catalog[own])
        assert PRACTICE.word(key) == own and CASH.word(key) == key
    assert speaks_of_play_chips(catalog["table.practice"], locale)


@pytest.mark.parametrize("locale", ["en", "zh-TW", "zh-CN"])
async def test_a_practice_tables_replies_speak_of_play_chips(game: Game, locale: str) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    fake = game.fake

    async def said(who: object, name: str, subcommand: str, **options: object) -> str:
        handle = await fake.slash(who, game.channel, name, subcommand=subcommand,  # type: ignore[arg-type]
                                  options=options, locale=locale)
        reply = await handle.response()
        assert reply.ephemeral, reply
        return reply.content

    await game.ok(alice, "poker", "practice", bots=2, blinds="5/10", stack=1000)
    table = game.live_table()
    assert isinstance(table, PracticeTable)
    message = await game.table_message()
    assert t("table.practice", "en") in message.content  # the channel speaks the server's
    for user in (bob, carol):
        joined = await said(user, "poker", "join")
        assert speaks_of_play_chips(joined, locale), joined
    left = await said(bob, "poker", "leave")  # now, or when his hand ends
    assert speaks_of_play_chips(left, locale), left
    kicked = await said(alice, "poker", "kick", user=carol.id)
    if table.table.player(carol.id) is None:  # removed at once (not in a hand)
        assert speaks_of_play_chips(kicked, locale), kicked
    closed = await said(alice, "poker", "close")
    assert speaks_of_play_chips(closed, locale), closed
    public = [m.content for m in fake.messages_in(game.channel) if not m.ephemeral]
    assert all(speaks_of_play_chips(line, "en") for line in public
               if WALLET["en"] in line.lower()), public
    assert any(PLAY_CHIPS["en"] in line for line in public)
