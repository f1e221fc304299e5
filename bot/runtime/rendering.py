"""Rendering off the event loop, with the renderer's one-time warm-up done first and once.

The first image of a process loads fonts and card art (a second or two). If the first table
image and the first hole-card DMs all started cold at once, each worker thread would load the
same assets while fighting over the GIL; so every render goes through :func:`render`, which
runs the warm-up once (the others wait for it), and the bot starts the warm-up at start-up.

Renders run on one dedicated thread rather than the default pool: drawing holds the GIL most of
the time, so more threads add no throughput, only contention with the event loop and the
SQLite thread (the e2e bench measured p99 1.4 s with the pool against 0.4 s with one thread
under stress) and a malloc arena each (about 20 MB of RSS with 100 tables).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from bot.render import warm_up

log = logging.getLogger(__name__)

T = TypeVar("T")

_lock = threading.Lock()
_warm = False
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render")
# Renders asked for and not finished, and how long one takes (smoothed): after a restart a
# thousand table images queue here, and a press should not wait behind them (``backlog``).
_pending = 0
_seconds = 0.01


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
    global _seconds
    ensure_warm()
    started = time.perf_counter()
    result = function(*args)
    _seconds = 0.9 * _seconds + 0.1 * (time.perf_counter() - started)
    return result


async def render(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` on the render thread, after the warm-up."""
    global _pending
    loop = asyncio.get_running_loop()
    _pending += 1
    try:
        return await loop.run_in_executor(_executor, _warm_then, function, *args)
    finally:
        _pending -= 1


def backlog() -> float:
    """About how long a render asked for now would wait for those before it (seconds)."""
    return _pending * _seconds


async def prepare() -> None:
    """Warm the renderer up on the render thread (the bot starts this at start-up)."""
    await asyncio.get_running_loop().run_in_executor(_executor, ensure_warm)
