"""Reading the operator's endpoint of a running bot (``bot.health``): plain HTTP on 127.0.0.1,
as Prometheus and an orchestrator's probes read it."""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.client import PokerBot

# Every label name a metric may carry: none names a user, server, table or hand.
ALLOWED_LABELS = frozenset(
    {
        "shard",
        "kind",
        "method",
        "route",
        "status",
        "scope",
        "change",
        "reason",
        "le",
        "implementation",
        "major",
        "minor",
        "patchlevel",
        "version",
    }
)


async def get(bot: PokerBot, path: str) -> tuple[int, str]:
    """The status and text of ``GET path`` on the bot's endpoint."""
    assert bot.ops is not None, "the bot runs without its endpoint"
    url = f"http://127.0.0.1:{bot.ops.port}{path}"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    """Every sample of an exposition: (name, labels) -> value."""
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def total(found: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when there is none)."""
    want = set(labels.items())
    return sum(value for (n, have), value in found.items() if n == name and want <= have)


async def scrape(bot: PokerBot) -> Samples:
    status, text = await get(bot, "/metrics")
    assert status == 200, text
    return samples(text)


def label_names(found: Mapping[tuple[str, frozenset[tuple[str, str]]], float]) -> set[str]:
    return {name for (_, labels) in found for name, _ in labels}
