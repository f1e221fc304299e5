"""What reached the fake's door: the bot's requests a second as Discord's global limit counts
them, by route, read from what the fake recorded (never from the bot's own counters).

    count = fake.door(since=mark)
    count.busiest            # counted requests in the busiest second (any one-second window)
    count.rate               # counted requests a second, first to last
    count.by_route.most_common(5)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .state import RecordedRequest

_TOKEN_AFTER = re.compile(r"/(interactions|webhooks)/(\d+)/[^/]+")
_ID = re.compile(r"/\d+(?=/|$)")


def route_template(method: str, path: str) -> str:
    """``POST /channels/{id}/messages``: ids and interaction tokens left out.

    >>> route_template("POST", "/interactions/12/aGk/callback")
    'POST /interactions/{id}/{token}/callback'
    >>> route_template("PATCH", "/channels/12/messages/34")
    'PATCH /channels/{id}/messages/{id}'
    """
    path = _TOKEN_AFTER.sub(lambda m: f"/{m[1]}/{m[2]}/{{token}}", path)
    return f"{method} {_ID.sub('/{id}', path)}"


@dataclass(frozen=True)
class DoorCount:
    """Requests that reached the door. ``counted``: on the bot's token (Discord's global
    limit counts them, refused ones included); ``free``: the others (interaction answers)."""

    counted: int
    free: int
    refused: int  # answered 429, for any limit
    busiest: int  # counted requests in the busiest one-second window
    seconds: float  # from the first counted request to the last
    by_route: Counter[str]  # counted requests by route template

    @property
    def rate(self) -> float:
        """Counted requests a second, over the time they took."""
        return self.counted / self.seconds if self.seconds > 0 else float(self.counted)


def busiest(times: Sequence[float], window: float = 1.0) -> int:
    """The most of ``times`` (seconds) inside any window of ``window`` seconds.

    >>> busiest([0.0, 0.5, 0.99, 1.0, 1.2])
    3
    """
    ordered = sorted(times)
    best = start = 0
    for end, at in enumerate(ordered):
        while at - ordered[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def door_count(requests: Sequence[RecordedRequest]) -> DoorCount:
    counted = [r for r in requests if r.counted]
    arrivals = [r.arrived for r in counted]
    return DoorCount(
        counted=len(counted),
        free=sum(1 for r in requests if not r.counted),
        refused=sum(1 for r in requests if r.status == 429),
        busiest=busiest(arrivals),
        seconds=max(arrivals) - min(arrivals) if arrivals else 0.0,
        by_route=Counter(route_template(r.method, r.path) for r in counted),
    )
