"""Shared fixtures for the renderer tests."""

from __future__ import annotations

import dataclasses

import pytest

from bot.render import samples
from bot.render.model import TableView


@pytest.fixture(scope="session")
def river() -> TableView:
    return samples.nine_seat_river()


@pytest.fixture(scope="session")
def showdown() -> TableView:
    return samples.showdown_split()


def replace_seat(view: TableView, index: int, **changes: object) -> TableView:
    seats = list(view.seats)
    seat = seats[index]
    assert seat is not None
    seats[index] = dataclasses.replace(seat, **changes)  # type: ignore[arg-type]
    return dataclasses.replace(view, seats=tuple(seats))
