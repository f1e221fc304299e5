"""Rendering off the event loop, with the renderer's one-time warm-up done first and once.

The first image of a process loads fonts and card art (a second or two). If the first table
image and the first hole-card DMs all started cold at once, each worker thread would load the
same assets while fighting over the GIL; so every render goes through :func:`render`, which
runs the warm-up once (the others wait for it), and the bot starts the warm-up at start-up.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from bot.render import warm_up

log = logging.getLogger(__name__)

T = TypeVar("T")

_lock = threading.Lock()
_warm = False


def ensure_warm() -> None:
    """Warm the renderer up, once per process (thread-safe; returns at once afterwards)."""
    global _warm
    if _warm:
        return
    with _lock:
        if _warm:
            return
        started = time.perf_counter()
        warm_up()
        _warm = True
        log.info("renderer warmed up in %.2fs", time.perf_counter() - started)


def _warm_then(function: Callable[..., T], *args: object) -> T:
    ensure_warm()
    return function(*args)


async def render(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` in a worker thread, after the warm-up."""
    return await asyncio.to_thread(_warm_then, function, *args)
