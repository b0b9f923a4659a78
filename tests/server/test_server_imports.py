"""Issue 23's structure checks of ``tablegames.server``: its modules import each other without a cycle, nothing
imports through the ``service`` module (a name is imported from where it is defined), and no class of the
server is more than one level deep in our own inheritance (the server *has* its parts)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

import tablegames
import tablegames.server

SRC = Path(tablegames.__file__).parent
SERVER = SRC / "server"
PACKAGE = "tablegames.server"

# The app wiring: the modules that build or hand out the whole server (create_app; ServerDep / staff_may).
MAY_IMPORT_SERVICE = {"tablegames.server.app", "tablegames.server.routes.deps"}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(SERVER.rglob("*.py"))}


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_level(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: its top level, inside ``if``/``try``/``with`` blocks too,
    but not in functions or classes, nor in ``if TYPE_CHECKING:`` blocks (type-only)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not is_type_checking(node.test):
                yield from module_level(node.body)
            yield from module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from module_level(block)
        elif isinstance(node, ast.With):
            yield from module_level(node.body)


def targets(node: ast.Import | ast.ImportFrom, importer: str) -> set[str]:
    """The modules an import statement names (``from package import module`` names the module)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    assert not node.level, f"{importer}: a relative import"  # (the server's imports are absolute)
    base = node.module or ""
    out = {base}
    for alias in node.names:
        if f"{base}.{alias.name}" in MODULES:
            out.add(f"{base}.{alias.name}")
    return out


def graph() -> dict[str, set[str]]:
    """Module -> the server modules it imports when it is imported."""
    out: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        for node in module_level(tree.body):
            edges |= {t for t in targets(node, name) if t in MODULES and t != name}
        out[name] = edges
    return out


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path (its first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_the_server_modules_imports() -> None:
    edges = graph()
    assert f"{PACKAGE}.runner" in edges[f"{PACKAGE}.service"]  # the server opens the tables' runners
    assert f"{PACKAGE}.transactions" in edges[f"{PACKAGE}.players"]
    assert f"{PACKAGE}.routes.deps" in edges[f"{PACKAGE}.routes.tables"]
    assert f"{PACKAGE}.routes.games" in edges[f"{PACKAGE}.app"]  # (from package import module)


def test_the_server_modules_import_each_other_without_a_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_nothing_imports_through_the_service_module() -> None:
    """Every name is imported from where it is defined: only the app wiring imports ``service`` (for
    :class:`~tablegames.server.service.Server` itself), anywhere in a module (functions and type-only imports
    included); the CLI needs it not."""
    importers = []
    for path in sorted(SRC.rglob("*.py")):
        name = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom) and f"{PACKAGE}.service" in targets_anywhere(
                node
            ):
                importers.append(name)
    assert importers, "the app wiring imports the server from service"
    assert set(importers) <= MAY_IMPORT_SERVICE, sorted(set(importers) - MAY_IMPORT_SERVICE)


def targets_anywhere(node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    base = node.module or ""
    return {base, *(f"{base}.{a.name}" for a in node.names)}


def test_the_service_module_reexports_nothing() -> None:
    """``service`` defines the server and nothing else is taken from it: no ``__all__`` of imported names."""
    import tablegames.server.service as service

    assert not hasattr(service, "__all__")
    defined = {
        name
        for name, value in vars(service).items()
        if inspect.isclass(value) and value.__module__ == service.__name__
    }
    assert defined == {"Server"}


def server_classes() -> Iterator[type]:
    for info in pkgutil.walk_packages(tablegames.server.__path__, f"{PACKAGE}."):
        if info.name.startswith(f"{PACKAGE}.migrations"):  # Alembic's scripts: run only by Alembic
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == info.name:
                yield value


def depth(cls: type) -> int:
    """How many of our own classes (``tablegames.*``) ``cls`` inherits from, directly or not."""
    return sum(1 for base in cls.__mro__[1:] if base.__module__.startswith("tablegames."))


def test_depth_counts_our_own_classes_only() -> None:
    class A:
        pass

    class B(A):
        pass

    class C(B, Exception):
        pass

    for cls in (A, B, C):
        cls.__module__ = "tablegames.server.example"
    assert (depth(A), depth(B), depth(C)) == (0, 1, 2)


def test_no_server_class_is_more_than_one_level_deep() -> None:
    """Behaviour is composed, not inherited. A response model that extends another's fields (the OpenAPI
    schema's ``allOf``: ``TableView`` is a ``TableOut`` with the view) is a schema, not a chain of behaviour:
    pydantic models are not counted."""
    deep = {
        f"{cls.__module__}.{cls.__qualname__}": depth(cls)
        for cls in server_classes()
        if depth(cls) > 1 and not issubclass(cls, BaseModel)
    }
    assert not deep, deep


def test_the_server_is_composed_of_its_services() -> None:
    from tablegames.server.players import PlayerService
    from tablegames.server.service import Server
    from tablegames.server.tables import TableService
    from tablegames.server.transactions import Transactions
    from tablegames.server.wallet import WalletService

    assert depth(Server) == 0
    server = Server("sqlite://")
    try:
        assert isinstance(server.players, PlayerService)
        assert isinstance(server.wallets, WalletService)
        assert isinstance(server.tables, TableService)
        # one unit of work, shared by every service
        assert isinstance(server.db, Transactions)
        assert server.players.db is server.wallets.db is server.tables.db is server.db
    finally:
        server.stop()
