"""Hole cards by direct message. A DM may fail (closed DMs are common); the game never waits
on one: each is sent from its own task and its outcome reported back."""

from __future__ import annotations

import logging
from enum import Enum

import discord

from bot.errors import DM_CLOSED
from bot.render import HoleCardsView, Labels, render_hole_cards
from bot.runtime.messenger import image_file
from bot.runtime.rendering import render

log = logging.getLogger(__name__)


class Delivery(Enum):
    SENT = "sent"
    CLOSED = "closed"  # the user does not accept DMs from the bot (50007)
    FAILED = "failed"  # Discord refused for another reason; already logged


async def send_hole_cards(
    client: discord.Client, user_id: int, text: str, view: HoleCardsView, labels: Labels
) -> Delivery:
    """DM one player his cards, as an image with alt text and as text."""
    image = await render(render_hole_cards, view, labels)
    try:
        channel = await client.create_dm(discord.Object(id=user_id))
        await channel.send(text, file=image_file(image))
    except discord.Forbidden as exc:
        if exc.code == DM_CLOSED:
            return Delivery.CLOSED
        log.warning("could not DM user %d: %s", user_id, exc.text)
        return Delivery.FAILED
    except discord.HTTPException as exc:
        log.warning("could not DM user %d: %s", user_id, exc.status)
        return Delivery.FAILED
    return Delivery.SENT
