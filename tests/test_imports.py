"""The import contract: ``cogs -> bot -> engine``, and the layers inside ``bot``.

Every ``import`` in the package (at module level or inside functions, type-checking ones
included) is read from the source and checked against the layers below; a module may import
its own layer and the ones beneath it, never one above. The engine stays pure: no Discord, no
database, no drawing. Storage and rendering know nothing of each other.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "bot", "cogs")

# Lowest first. A module belongs to the first layer whose pattern matches its dotted name.
LAYERS: tuple[tuple[str, str], ...] = (
    ("engine", r"engine(\..+)?"),
    (
        "base",
        r"bot(\.(settings|i18n|locales|fonts|errors|amounts|invite|metrics|health|logs)(\..+)?)?",
    ),
    ("storage", r"bot\.storage(\..+)?"),
    ("render", r"bot\.render(\..+)?"),
    ("presenter", r"bot\.(presenter|replay)"),
    ("runtime", r"bot\.runtime(\..+)?"),
    ("interaction", r"bot\.(guards|interact|ui|leagues)"),
    ("client", r"bot\.client"),
    ("entry", r"bot\.(__main__|demo)"),
    ("cogs", r"cogs(\..+)?"),
)
# Layers at the same height that must not know each other.
INDEPENDENT = {frozenset({"storage", "render"})}
# What the engine may never import (it is pure: no I/O, no Discord, no drawing).
ENGINE_FORBIDDEN = ("bot", "cogs", "discord", "aiosqlite", "PIL", "sqlite3", "asyncio")


def layer_of(module: str) -> tuple[int, str] | None:
    for height, (name, pattern) in enumerate(LAYERS):
        if re.fullmatch(pattern, module):
            return height, name
    return None


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool) -> Iterator[str]:
    """Every module a source imports, relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base)
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            yield target
            # ``from bot import storage`` imports the submodule bot.storage.
            for alias in node.names:
                yield f"{target}.{alias.name}"


def violations(sources: Iterable[tuple[str, str, bool]]) -> list[str]:
    """The contract's breaches among ``(module, source, is_package)``."""
    found: list[str] = []
    known = {module for module, _, _ in sources}
    for module, source, is_package in sources:
        mine = layer_of(module)
        if mine is None:
            found.append(f"{module}: in no layer")
            continue
        for target in imports_of(source, module, is_package):
            if mine[1] == "engine" and target.split(".")[0] in ENGINE_FORBIDDEN:
                found.append(f"{module} imports {target}: the engine is pure")
                continue
            if target not in known:
                continue  # a name, not a module, or outside the project
            theirs = layer_of(target)
            if theirs is None:
                continue
            if theirs[0] > mine[0] or frozenset({mine[1], theirs[1]}) in INDEPENDENT:
                found.append(f"{module} ({mine[1]}) imports {target} ({theirs[1]})")
    return found


def project_sources(root: Path = REPO) -> list[tuple[str, str, bool]]:
    return [
        (module_name(path, root), path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
    ]


def test_the_project_keeps_its_import_contract() -> None:
    sources = project_sources()
    assert len(sources) > 60
    assert violations(sources) == []


def test_every_module_has_a_layer() -> None:
    unplaced = [module for module, _, _ in project_sources() if layer_of(module) is None]
    assert unplaced == []


def test_a_wrong_import_is_caught() -> None:
    """The checker itself: each kind of breach is reported (and an allowed import is not)."""
    sources = [(module, source, package) for module, source, package in project_sources()]

    def with_line(module: str, line: str) -> list[tuple[str, str, bool]]:
        return [
            (m, (source + "\n" + line + "\n") if m == module else source, p)
            for m, source, p in sources
        ]

    assert violations(with_line("engine.cards", "import bot.client")) == [
        "engine.cards imports bot.client: the engine is pure"
    ]
    assert violations(with_line("engine.hand", "import discord")) == [
        "engine.hand imports discord: the engine is pure"
    ]
    assert violations(with_line("bot.storage.db", "from bot.runtime import manager")) == [
        "bot.storage.db (storage) imports bot.runtime (runtime)",
        "bot.storage.db (storage) imports bot.runtime.manager (runtime)",
    ]
    assert violations(with_line("bot.render.table", "from bot.storage import ledger")) == [
        "bot.render.table (render) imports bot.storage (storage)",
        "bot.render.table (render) imports bot.storage.ledger (storage)",
    ]
    assert violations(with_line("bot.presenter", "from cogs import poker")) == [
        "bot.presenter (presenter) imports cogs (cogs)",
        "bot.presenter (presenter) imports cogs.poker (cogs)",
    ]
    assert violations(with_line("bot.runtime.cash", "from ..client import PokerBot")) == [
        "bot.runtime.cash (runtime) imports bot.client (client)"
    ]
    assert violations(with_line("cogs.poker", "from bot.storage import hands")) == []


def dependencies(sources: Iterable[tuple[str, str, bool]]) -> dict[str, set[str]]:
    """Module -> project modules it imports (``from pkg import mod`` counts as ``pkg.mod``)."""
    known = {module for module, _, _ in sources}
    graph: dict[str, set[str]] = {}
    for module, source, is_package in sources:
        targets = set()
        for node in ast.walk(ast.parse(source)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                package = module if is_package else module.rpartition(".")[0]
                if node.level:
                    parts = package.split(".")
                    prefix = ".".join(parts[: len(parts) - node.level + 1])
                    base = f"{prefix}.{node.module}" if node.module else prefix
                else:
                    base = node.module or ""
                submodules = [f"{base}.{alias.name}" for alias in node.names]
                names = [name for name in submodules if name in known] or [base]
            targets.update(name for name in names if name in known and name != module)
        graph[module] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle (each found once, from its smallest module name)."""
    found: list[list[str]] = []

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                found.append([*path, start])
            elif nxt > start and nxt not in path:
                walk(start, nxt, [*path, nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return found


def test_no_module_imports_itself_round_about() -> None:
    """No import cycle: each module can be read knowing only what it imports."""
    assert cycles(dependencies(project_sources())) == []


def test_a_cycle_is_caught() -> None:
    graph = dependencies(project_sources())
    graph["bot.runtime.cash"] = graph["bot.runtime.cash"] | {"bot.runtime.manager"}
    assert ["bot.runtime.cash", "bot.runtime.manager", "bot.runtime.cash"] in cycles(graph)
