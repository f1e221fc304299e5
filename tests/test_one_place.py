"""One thing, one place: no two concrete classes under ``bot/`` write out the same machinery.

Beside the import contract (``test_imports.py``) this reads every class of the package and, for
every pair of concrete classes, lists the same-named methods both write out in more than six
lines. Five or more such methods mean one class copied the other (as the tournament's tables once
copied the cash table's hand loop); the cure is a shared base whose hooks each class fills.

Hooks are what a shared base asks its subclasses to write, so a method that overrides one
declared by a base both classes share is the design working, not a copy: it is not counted.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LONG = 6  # a method of more lines than this is "written out"
MOST = 4  # shared long methods a pair of classes may have
PACKAGES = ("engine", "bot", "cogs")


@dataclass(frozen=True)
class ClassInfo:
    name: str
    where: str
    bases: tuple[str, ...]
    methods: dict[str, int]  # name -> lines
    protocol: bool


def classes(root: Path) -> dict[str, ClassInfo]:
    found: dict[str, ClassInfo] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = tuple(ast.unparse(b).split("[")[0].split(".")[-1] for b in node.bases)
            methods = {
                m.name: (m.end_lineno or m.lineno) - m.lineno + 1
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            info = ClassInfo(node.name, str(path.relative_to(root)), bases, methods,
                             "Protocol" in bases)
            found[f"{info.where}:{info.name}"] = info
    return found


def named(name: str, known: dict[str, ClassInfo]) -> list[ClassInfo]:
    return [c for c in known.values() if c.name == name]


def ancestors(info: ClassInfo, known: dict[str, ClassInfo]) -> list[ClassInfo]:
    out: list[ClassInfo] = []
    todo = list(info.bases)
    while todo:
        for base in named(todo.pop(), known):
            if base not in out:
                out.append(base)
                todo.extend(base.bases)
    return out


def shared_hooks(a: ClassInfo, b: ClassInfo, known: dict[str, ClassInfo]) -> set[str]:
    """Methods declared by a base both classes inherit: hooks they are meant to fill."""
    common = [c for c in ancestors(a, known) if c in ancestors(b, known)]
    return {m for c in common for m in c.methods}


def copies(known: dict[str, ClassInfo]) -> list[str]:
    """Pairs of concrete classes writing out ``MOST + 1`` or more same-named long methods."""
    concrete = [c for c in known.values() if not c.protocol]
    found = []
    for one, two in itertools.combinations(concrete, 2):
        hooks = shared_hooks(one, two, known)
        both = sorted(
            name for name in set(one.methods) & set(two.methods)
            if one.methods[name] > LONG and two.methods[name] > LONG
            and name not in hooks and name != "__init__"
        )
        if len(both) > MOST:
            found.append(f"{one.where}:{one.name} ~ {two.where}:{two.name}: {', '.join(both)}")
    return found


def test_no_two_classes_write_out_the_same_machinery() -> None:
    assert copies(classes(REPO / "bot")) == []


def test_the_live_tables_share_one_hand_loop() -> None:
    """Both kinds of table are the loop's owners, and neither writes out its decisions,
    its clock or its settling again."""
    known = classes(REPO / "bot")
    loop = known["runtime/table.py:LiveTable"].methods
    for owner in ("runtime/cash.py:CashTable", "runtime/tourney.py:TournamentTable"):
        assert "LiveTable" in known[owner].bases
        written = set(known[owner].methods)
        for shared in ("act", "preselect", "repost", "apply", "play_on",
                       "deal_now", "_finish_hand", "show_result", "_time_out", "_arm_clock",
                       "_settle_or_retry", "my_cards", "scene"):
            assert shared in loop
            assert shared not in written, f"{owner} writes out {shared} again"


def test_a_copied_class_is_caught(tmp_path: Path) -> None:
    """The check finds a copy: a class that writes out five long methods another has."""
    body = "\n".join(f"    def m{i}(self) -> int:\n" + "        x = 1\n" * 7 + "        return x\n"
                     for i in range(5))
    (tmp_path / "a.py").write_text(f"class One:\n{body}\n\nclass Two:\n{body}\n")
    (tmp_path / "b.py").write_text(
        f"class Base:\n{body}\n\nclass Three(Base):\n{body}\n\nclass Four(Base):\n{body}\n"
    )
    found = [line.split(": ")[0] for line in copies(classes(tmp_path))]
    assert any("One" in line and "Two" in line for line in found), found
    # Three and Four override the hooks their shared Base declares: not copies of each other.
    assert not any("Three" in line and "Four" in line for line in found), found


def test_the_docs_declare_the_kinds_of_table_as_the_code_does() -> None:
    """``docs/architecture.md`` shows each kind's differences from ``TableKind`` itself."""
    from bot.runtime.kinds import TABLE_KINDS, Extra

    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("<!-- table-kinds -->")[1].split("<!-- /table-kinds -->")[0]
    rows = [line for line in block.strip().splitlines()[2:]]
    expected = []
    for kind in TABLE_KINDS:
        extras = ", ".join(e.value for e in Extra if kind.allows(e)) or "none"
        lost = ("pauses the table" if kind.pauses_without_channel
                else "plays on, players told by DM")
        expected.append(f"| {kind.name} | {extras} | {kind.away} | {lost} |")
    assert rows == expected


def reaches_into(source: str, module: str) -> list[str]:
    """Private names a module uses that another module owns.

    A name is the module's own when the module defines or assigns it (a class, a function, a
    method, an attribute it stores, an argument); any other ``x._name``, or an import of
    ``_name`` from the project, reaches into another module's insides.
    """
    tree = ast.parse(source)
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
            found += [f"{module}:{node.lineno} imports {a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.endswith("__")]
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") \
                or node.attr.endswith("__") or node.attr in own:
            continue
        holder = node.value
        if isinstance(holder, ast.Name) and holder.id in ("self", "cls"):
            continue
        if isinstance(holder, ast.Call) and ast.unparse(holder.func) == "super":
            continue
        found.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_module_reaches_into_another_modules_private_names() -> None:
    """No module calls another's private methods or reads its private state (the tournament's
    tables once called their cash parent's ``_store`` and the hall read ``live_table._voices``)."""
    found = [line for package in PACKAGES
             for path in sorted((REPO / package).rglob("*.py"))
             for line in reaches_into(path.read_text(encoding="utf-8"),
                                      str(path.relative_to(REPO)))]
    assert found == []


def test_reaching_into_another_module_is_caught() -> None:
    planted = (
        "from bot.render.table import _draw\n"
        "class Hall:\n"
        "    def __init__(self, live_table):\n"
        "        self._runner = live_table\n"
        "    def voices(self):\n"
        "        return self._runner._voices, self._own()\n"
        "    def _own(self):\n"
        "        return super()._own()\n"
    )
    assert reaches_into(planted, "hall.py") == ["hall.py:1 imports _draw",
                                                "hall.py:6 self._runner._voices"]


def limit_constants(root: Path) -> dict[str, list[str]]:
    """Module-level ``MAX_*`` and ``MIN_*`` names and the modules that assign them."""
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                targets = (node.targets if isinstance(node, ast.Assign)
                           else [node.target] if isinstance(node, ast.AnnAssign) else [])
                for target in targets:
                    if isinstance(target, ast.Name) and target.id.startswith(("MAX_", "MIN_")):
                        found.setdefault(target.id, []).append(str(path.relative_to(root)))
    return found


def test_each_limit_is_defined_once() -> None:
    """A limit has one name in one module; everyone else imports it (``MAX_CHIPS`` was once
    10**15 in the hand and 10**12 in the limits, and two ``MAX_SEATS`` meant 10 and 23)."""
    twice = {name: where for name, where in limit_constants(REPO).items() if len(where) > 1}
    assert twice == {}


def test_the_databases_checks_are_the_codes_limits() -> None:
    """Every bound a migration's CHECK puts on a column is the constant the code checks that
    column against, on both backends, so a value the code accepts is never refused by the
    database (or the other way round)."""
    import re

    from bot.storage.economy import MAX_COOLDOWN, MAX_IDLE_CLOSE, MAX_TABLES
    from bot.storage.errors import MAX_BALANCE
    from bot.storage.leagues import MAX_LEAGUE_NAME
    from bot.storage.leases import MAX_OWNER
    from bot.storage.locales import MAX_LOCALE
    from bot.storage.tables import MAX_STATE
    from bot.storage.tournaments import MAX_NAME, MAX_TABLE_NO
    from engine.league import MAX_POINTS_TEXT
    from engine.limits import MAX_CHIPS, MAX_SEATS, MAX_TOURNAMENT_PLAYERS

    expected = {
        "balance": MAX_BALANCE, "buy_in": MAX_CHIPS, "daily_amount": MAX_CHIPS,
        "starting_balance": MAX_CHIPS, "house_loss_cap": MAX_CHIPS,
        "daily_cooldown": MAX_COOLDOWN, "idle_close": MAX_IDLE_CLOSE, "locale": MAX_LOCALE,
        "max_players": MAX_TOURNAMENT_PLAYERS, "max_seats": MAX_SEATS,
        "max_tables": MAX_TABLES, "max_tables_per_host": MAX_TABLES, "name": MAX_NAME,
        "owner": MAX_OWNER, "state": MAX_STATE, "table_no": MAX_TABLE_NO,
        "points": MAX_POINTS_TEXT, "title": MAX_LEAGUE_NAME,
    }
    bound = re.compile(r"(?:COALESCE)?\(?(\w+)(?:, -?\d+)?\)? BETWEEN -?\d+ AND (\d+)")
    seen: dict[tuple[str, str], int] = {}
    for path in sorted((REPO / "bot" / "storage" / "migrations").rglob("*.sql")):
        for column, top in bound.findall(path.read_text(encoding="utf-8")):
            seen[(path.parent.name, column)] = int(top)
            assert int(top) == expected.get(column), (path.name, column, top)
    assert {column for _, column in seen} == set(expected)
    assert {backend for backend, _ in seen} == {"sqlite", "postgresql"}


def _defined_in(node: ast.ClassDef) -> set[str]:
    """The names a class owns: its methods, class attributes, and what its methods store on
    ``self``."""
    own: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(item.name)
        elif isinstance(item, ast.Assign):
            own.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            own.add(item.target.id)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) \
                and isinstance(sub.value, ast.Name) and sub.value.id == "self":
            own.add(sub.attr)
    return own


def _hooks_of(node: ast.ClassDef) -> set[str]:
    """The hooks a class declares (abstract methods and ``@hook`` ones): an owner fills them
    and the loop calls them, so using one is the seam working."""
    return {
        item.name for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(ast.unparse(d).split(".")[-1] in ("abstractmethod", "hook")
                for d in item.decorator_list)
    }


def inherited_private_uses(root: Path) -> list[str]:
    """Where a class uses a private member (``self._name``) that only a base class of another
    module defines: the seam between a shared base and its owners runs through the base's
    public API and the hooks an owner fills, never through the base's insides."""
    modules: dict[str, dict[str, ast.ClassDef]] = {}
    imported: dict[str, dict[str, tuple[str, str]]] = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules[module] = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        imported[module] = {
            alias.asname or alias.name: (node.module or "", alias.name)
            for node in tree.body if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }

    def resolve(module: str, name: str) -> tuple[str, ast.ClassDef] | None:
        if name in modules.get(module, {}):
            return module, modules[module][name]
        source = imported.get(module, {}).get(name)
        if source is not None and source[1] in modules.get(source[0], {}):
            return source[0], modules[source[0]][source[1]]
        return None

    found = []
    for module, declared in modules.items():
        for node in declared.values():
            own = _defined_in(node)
            foreign: set[str] = set()
            todo = [(module, ast.unparse(b).split("[")[0].split(".")[-1]) for b in node.bases]
            while todo:
                base = resolve(*todo.pop())
                if base is None:
                    continue
                where, base_node = base
                if where != module:
                    foreign |= {n for n in _defined_in(base_node)
                                if n.startswith("_") and n not in _hooks_of(base_node)}
                todo += [(where, ast.unparse(b).split("[")[0].split(".")[-1])
                         for b in base_node.bases]
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                        and sub.value.id == "self" and sub.attr in foreign \
                        and sub.attr not in own and not sub.attr.endswith("__"):
                    found.append(f"{module}:{sub.lineno} {node.name} uses self.{sub.attr}")
    return found


def test_no_class_uses_a_private_member_of_a_base_it_does_not_own() -> None:
    """An owner of the hand loop fills its hooks and calls its owner API (``OWNER_API``):
    it never calls the loop's internals, which the loop may change at will."""
    found = inherited_private_uses(REPO / "bot")
    assert [line for line in found if line.startswith("bot.runtime")] == []


def test_a_private_member_used_across_the_seam_is_caught(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "base.py").write_text(
        "class Loop:\n"
        "    def _settle(self):\n        pass\n"
        "    def _hook(self):\n        pass\n"
    )
    (package / "owner.py").write_text(
        "from pkg.base import Loop\n"
        "class Owner(Loop):\n"
        "    def _hook(self):\n        self._settle()\n"
        "    def run(self):\n        self._hook()\n"
    )
    assert inherited_private_uses(package) == ["pkg.owner:4 Owner uses self._settle"]


def test_the_hooks_of_the_loop_are_declared_as_the_code_declares_them() -> None:
    """The contract's docstring and ``docs/architecture.md`` list the loop's hooks in their
    tiers: the required ones are exactly its abstract methods, the optional ones exactly the
    methods the contract marks as hooks (the owner API is named in ``OWNER_API`` and exists)."""
    from bot.runtime import contract
    from bot.runtime import table as loop

    required = set(loop.LiveTable.__abstractmethods__)
    optional = {
        name for name, value in vars(contract.TableContract).items()
        if getattr(getattr(value, "fget", value), contract.HOOK_MARK, False)
    }
    expected = sorted([("required", n) for n in required] + [("optional", n) for n in optional])
    for text in (contract.__doc__ or "",
                 (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")):
        rows = [line.split() for line in text.splitlines()
                if line.startswith(("required ", "optional ", "| required ", "| optional "))]
        listed = sorted((r[0].strip("|") or r[1], next(w for w in r if w.startswith("`"))
                         .strip("`")) for r in rows)
        assert listed == expected
    assert all(callable(getattr(loop.LiveTable, name)) for name in loop.OWNER_API)
