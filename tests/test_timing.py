"""The tests' deadlines stretch with the load, within a cap."""

from __future__ import annotations

import os

import pytest

from tests import timing


@pytest.mark.parametrize(("load", "cores", "stretch"), [
    (0.3, 2, 1.0),  # a free machine: the deadline as written
    (4.0, 2, 2.0),  # the suite beside two busy loops on two cores
    (40.0, 2, timing.MOST),  # never past the cap
])
def test_a_deadline_grows_with_the_load_per_core(
    monkeypatch: pytest.MonkeyPatch, load: float, cores: int, stretch: float
) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert timing.scaled(5.0) == pytest.approx(5.0 * stretch)


def test_without_a_load_average_the_deadline_is_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> tuple[float, float, float]:
        raise OSError("no load average here")

    monkeypatch.setattr(os, "getloadavg", missing)
    assert timing.scaled(5.0) == 5.0
