"""The docstring examples of the engine and the bot run as tests, so they stay true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bot
import engine

# Modules whose import starts something (a command-line entry point).
SKIP = {"bot.__main__", "bot.render.__main__", "engine.phh.__main__"}


def _modules() -> list[str]:
    names = []
    for package in (engine, bot):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name not in SKIP:
                names.append(info.name)
    return sorted(names)


MODULES = _modules()


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_engine_has_examples_to_run() -> None:
    attempted = sum(
        doctest.testmod(importlib.import_module(name), verbose=False).attempted
        for name in MODULES
        if name.startswith("engine")
    )
    assert attempted >= 30
