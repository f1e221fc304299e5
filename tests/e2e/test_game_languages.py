"""Each player in his own language, the channel in the server's (issue 12).

Three players at one table over the fake Discord: Mei's client speaks Traditional Chinese, Wei's
Simplified Chinese, Tom's English. Mei owns the server and sets its language to zh-TW. Every
reply each of them gets and every DM is in his own language; the table, its image and the
results are in the server's; a change of the setting reaches the running table at its next
message; a player who switches his client's language gets his next cards in the new one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bot.storage import locales
from engine.cards import parse_cards
from engine.hand import deck_from_cards
from tests.e2e.game_kit import Game, button_id, settled, until
from tests.e2e.harness import World
from tests.fakediscord import FakeGuild, FakeMessage, FakeUser
from tests.fakediscord.state import COMMAND_SIZE_LIMIT, command_size

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def world() -> World:
    mei = FakeUser("mei", locale="zh-TW")  # the server's owner: she manages it
    wei = FakeUser("wei", locale="zh-CN")
    tom = FakeUser("tom", locale="en-US")
    # The server's own locale is English: only the setting makes its channel Chinese.
    guild = FakeGuild.create("牌室", channels=["poker", "lobby"], members=[mei, wei, tom])
    return World(alice=mei, bob=wei, carol=tom, guild=guild)


def red_cards_deck() -> tuple[int, ...]:
    """Everyone holds hearts and diamonds, so each DM's alt text names 紅心 / 红心 / hearts."""
    holes = [parse_cards(cards) for cards in ("AhKd", "QhJd", "9h8d")]
    return deck_from_cards(3, holes, parse_cards("2c 5s 7c Tc 3s"))


def _is_result(number: int, title: str) -> object:
    return lambda m: m.content.startswith(title.format(hand=number))


async def _dm(game: Game, user: FakeUser, number: int, after: int) -> FakeMessage:
    return await game.fake.wait_for_message(
        lambda m: f" {number} " in m.content or f"#{number} " in m.content,
        channel=user, after=after, kinds=("create",), timeout=20,
    )


async def _play_checking_and_calling(game: Game, number: int) -> dict[int, list[str]]:
    """Hand ``number`` to its end by /check and /call; each player's private answers."""
    answers: dict[int, list[str]] = {}
    while True:
        hand = game.hand
        if hand is None or game.live_table().table.hand_number != number:
            return answers
        user = game.to_act()
        if user is None:
            await until(lambda: game.to_act() or game.hand is None
                        or game.live_table().table.hand_number != number, timeout=10)
            continue
        legal = hand.legal()
        assert legal is not None
        reply = await game.slash(user, "check" if legal.can_check else "call")
        assert reply.ephemeral, reply
        answers.setdefault(user.id, []).append(reply.content)


async def test_each_player_reads_his_language_and_the_channel_the_servers(game: Game) -> None:
    mei, wei, tom = game.world.alice, game.world.bob, game.world.carol
    fake = game.fake

    # The manager chooses Traditional Chinese for the server's channels; she reads it in hers.
    settings = await game.slash(mei, "chips", "settings", language="zh-TW")
    assert settings.ephemeral and "這個伺服器的牌桌使用繁體中文。" in settings.content

    # Replies: each in the language of the client that asked, amounts with separators.
    created = await game.slash(mei, "poker", "create", small_blind=50, big_blind=100)
    assert created.content.startswith("牌桌開好了：德州撲克，盲注 50/100，買入 2,000 到 10,000。")
    joined = {}
    for user in (mei, wei, tom):
        joined[user.id] = (await game.slash(user, "poker", "join", buy_in=2500)).content
    assert joined[mei.id] == "你坐在 1 號座位，帶了 2,500 籌碼。"
    assert joined[wei.id] == "你坐在 2 号座位，带了 2,500 筹码。"
    assert joined[tom.id] == "You sit in seat 3 with 2,500 chips."
    refused = await game.slash(wei, "poker", "join", buy_in=0)
    assert refused.ephemeral and refused.content == "买入金额必须大于零。"
    refused = await game.slash(tom, "call")
    assert refused.ephemeral and refused.content == "No hand is being played right now."

    # Hole cards by DM, each in his own language, image and alt text included.
    game.deck.push(red_cards_deck())
    mark = fake.mark()
    assert (await game.slash(mei, "poker", "start")).content == "開始發牌了。"
    await game.wait_hand(1)
    dms = {user.id: await _dm(game, user, 1, mark) for user in (mei, wei, tom)}
    assert dms[mei.id].content.startswith("第 1 手 · 你的底牌：")
    assert dms[wei.id].content.startswith("第 1 手 · 你的底牌：")
    assert dms[tom.id].content.startswith("Hand #1 · Your cards:")
    alts = {uid: dm.attachment("cards.png").description or "" for uid, dm in dms.items()}
    assert alts[mei.id].startswith("你的底牌：") and re.search("紅心|方塊", alts[mei.id])
    assert alts[wei.id].startswith("你的底牌：") and re.search("红心|方块", alts[wei.id])
    assert "紅心" not in alts[wei.id] and "方塊" not in alts[wei.id]
    assert re.match(r"Your cards: \w+ of (hearts|diamonds)", alts[tom.id])

    # The channel speaks the server's language: text, image and alt text.
    table = await game.table_message()
    await until(lambda: "輪到 <@" in fake.message(table).content or None, timeout=20)
    current = fake.message(table)
    assert current.content.startswith("**德州撲克** · 第 1 手 · 盲注 50/100")
    assert "輪到 <@" in current.content
    image_alt = current.attachment("table.png").description or ""
    assert image_alt.startswith("撲克牌桌，第 1 手，翻牌前。盲注 50/100。")
    labels = {spec["label"] for row in current.components for spec in row["components"]}
    assert {"棄牌", "我的底牌", "過牌/棄牌"} <= labels

    # "My cards": a private view in the presser's own language, whatever the channel's.
    for user, words in ((wei, "红心|方块"), (tom, "of (hearts|diamonds)")):
        press = await fake.click(user, current, button_id(current, "cards"))
        mine = await settled(press)
        assert mine.ephemeral
        assert mine.content.startswith("Your cards:" if user is tom else "你的底牌：")
        assert re.search(words, mine.attachments[0].description or "")

    # The host pauses: this hand plays out, the next waits while the languages change.
    paused = await game.slash(mei, "poker", "pause")
    assert paused.content == "牌桌已暫停：在 /poker resume 之前不會發新的一手。"
    # Acknowledgements: "check" is 過牌 in Taipei, 让牌 in Shanghai.
    answers = await _play_checking_and_calling(game, 1)
    assert any(a == "你過牌了。" for a in answers[mei.id]), answers
    assert any(a == "你让牌了。" for a in answers[wei.id]), answers
    assert any(a == "You checked." for a in answers[tom.id]), answers
    for answer in answers[mei.id] + answers[wei.id]:
        assert re.fullmatch(r"你(過牌了|让牌了|跟注 [\d,]+)。", answer), answer
    result = await fake.wait_for_message(_is_result(1, "**第 {hand} 手：結果**"),  # type: ignore[arg-type]
                                         channel=game.channel, kinds=("create",), timeout=20)
    assert "贏得" in result.content and "/history verify hand:1" in result.content
    assert (result.attachment("table.png").description or "").startswith("撲克牌桌，第 1 手")

    # Each player's client language is kept for his DMs.
    stored = await locales.user_locales(game.db, [mei.id, wei.id, tom.id])
    assert stored == {mei.id: "zh-TW", wei.id: "zh-CN", tom.id: "en-US"}

    # The manager switches the server to English: the running table follows at its next
    # message; the players' DMs keep their own languages, and Tom, whose client now speaks
    # Traditional Chinese, gets his next cards in it.
    back = await fake.slash(tom, game.channel, "chips", subcommand="balance", locale="zh-TW")
    assert (await back.response()).content.startswith("你有 ")
    mark = fake.mark()
    switched = await game.slash(mei, "chips", "settings", language="en")
    assert "這個伺服器的牌桌使用英文（English）。" in switched.content
    await until(lambda: "table is paused" in fake.message(table).content or None, timeout=20)
    assert (await game.slash(mei, "poker", "resume")).content == "牌桌繼續進行。"
    await game.wait_hand(2)
    hand_two = await fake.wait_for_message(
        lambda m: m.content.startswith("**Texas Hold'em** · Hand #2"),
        channel=game.channel, after=mark, timeout=20,
    )
    assert (hand_two.attachment("table.png").description or "").startswith("Poker table, Hand #2")
    dms = {user.id: await _dm(game, user, 2, mark) for user in (mei, wei, tom)}
    assert dms[mei.id].content.startswith("第 2 手 · 你的底牌：")
    assert dms[wei.id].content.startswith("第 2 手 · 你的底牌：")
    assert dms[tom.id].content.startswith("第 2 手 · 你的底牌：")
    await _play_checking_and_calling(game, 2)
    await fake.wait_for_message(_is_result(2, "**Hand #{hand}: result**"),  # type: ignore[arg-type]
                                channel=game.channel, kinds=("create",), timeout=20)


async def test_auto_follows_the_servers_preferred_locale(game: Game) -> None:
    mei, tom = game.world.alice, game.world.carol
    game.world.guild.locale = "zh-CN"  # the server's preferred locale, sent with every command
    created = await game.slash(tom, "poker", "create")
    assert created.content.startswith("Table open:")  # Tom reads English...
    table = await game.table_message()
    assert fake_content(game, table).startswith("**德州扑克**")  # ...the channel the server's
    settings = await game.slash(mei, "chips", "settings")
    assert "目前是簡體中文（简体中文）" in settings.content


def fake_content(game: Game, message: FakeMessage) -> str:
    return game.fake.message(message).content


async def test_rules_in_the_readers_language(game: Game) -> None:
    mei, wei, tom = game.world.alice, game.world.bob, game.world.carol
    ranks = await game.slash(mei, "poker", "rules", topic="hand_ranks")
    assert ranks.ephemeral and "同花順" in ranks.content and "兩對" in ranks.content
    ranks = await game.slash(wei, "poker", "rules", topic="hand_ranks")
    assert "同花顺" in ranks.content and "两对" in ranks.content
    showdown = await game.slash(tom, "poker", "rules", topic="showdown")
    assert showdown.content.startswith("**Showdown order**")
    overview = await game.slash(wei, "poker", "rules")
    assert "docs/rules.zh-CN.md" in overview.content
    for topic in ("hand_ranks", "blinds", "side_pots", "short_all_in", "showdown"):
        for user in (mei, wei, tom):
            reply = await game.slash(user, "poker", "rules", topic=topic)
            assert reply.ephemeral and 100 < len(reply.content) <= 2000
    odd = await game.slash(tom, "poker", "rules", topic="bluffing")
    assert odd.content == "That value isn't valid for topic."


def _nodes(node: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    here = f"{path}/{node.get('name')}"
    yield here, node
    for choice in node.get("choices") or []:
        yield f"{here}={choice['value']}", choice
    for option in node.get("options") or []:
        yield from _nodes(option, here)


async def test_the_command_picker_speaks_each_users_language(game: Game) -> None:
    """The synced payload: every description and choice name in zh-TW and zh-CN, names in
    English for everyone, each command within Discord's 4,000 characters."""
    commands = [c for scope in game.fake.commands.values() for c in scope]
    assert {c["name"] for c in commands} >= {"poker", "chips", "fold", "check", "raise"}
    described = chosen = 0
    for command in commands:
        for where, node in _nodes(command):
            assert not node.get("name_localizations") or "value" in node, where
            if "value" in node:  # a choice: its name is what the user reads
                localized = node.get("name_localizations") or {}
                assert set(localized) == {"zh-TW", "zh-CN"}, where
                chosen += 1
                continue
            localized = node.get("description_localizations") or {}
            assert set(localized) == {"zh-TW", "zh-CN"}, (where, localized)
            assert localized["zh-TW"] != node["description"], where
            assert re.search(r"[\u4e00-\u9fff]", localized["zh-CN"]), where
            described += 1
        assert command_size(command) <= COMMAND_SIZE_LIMIT, command["name"]
    assert described > 60 and chosen >= 15
    poker = next(c for c in commands if c["name"] == "poker")
    create = next(o for o in poker["options"] if o["name"] == "create")
    assert create["description_localizations"] == {
        "zh-TW": "在這個頻道開一張現金桌（你就是桌主）",
        "zh-CN": "在这个频道开一张现金桌（你就是桌主）",
    }
    check = next(c for c in commands if c["name"] == "check")
    assert check["description_localizations"] == {"zh-TW": "過牌", "zh-CN": "让牌"}
