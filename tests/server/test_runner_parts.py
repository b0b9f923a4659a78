"""Issue 23: the table runner is composed of parts, not an inheritance chain.

- No class of ``tablegames.server`` is more than one level deep in our own inheritance, and the runner's parts
  inherit from none of our classes.
- Every method of every part declares the thread it runs on (:mod:`tablegames.server.threads`), and a
  coroutine runs on the loop.
- No part stubs a method for another to implement (``raise NotImplementedError``).
- The runner holds its parts as attributes, and they share one state and one another.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tablegames.server
from server_harness import Harness
from tablegames.server.inbox import Inbox
from tablegames.server.protocol import Protocol
from tablegames.server.push import Pusher, Timers
from tablegames.server.recovery import Recovery
from tablegames.server.runner import TableRunner
from tablegames.server.settle import Settler
from tablegames.server.state import TableState
from tablegames.server.steps import RoundSteps
from tablegames.server.store import StepStore
from tablegames.server.threads import on_any, on_loop, on_worker, thread_of

# the runner's parts, by the attribute the runner holds each in
PARTS: dict[str, type] = {
    "state": TableState,
    "inbox": Inbox,
    "timers": Timers,
    "pusher": Pusher,
    "store": StepStore,
    "settler": Settler,
    "steps": RoundSteps,
    "protocol": Protocol,
    "recovery": Recovery,
}
CLASSES = [*PARTS.values(), TableRunner]


def ours(cls: type) -> list[type]:
    return [base for base in cls.__mro__[1:] if base.__module__.startswith("tablegames.")]


def methods(cls: type) -> dict[str, Any]:
    """The functions ``cls`` defines (static and class methods' functions too; not properties, not dunders)."""
    out = {}
    for name, value in vars(cls).items():
        if name.startswith("__") and name.endswith("__"):
            continue
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if inspect.isfunction(value):
            out[name] = value
    return out


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_part_inherits_from_none_of_our_classes(cls: type) -> None:
    assert ours(cls) == []


def test_no_server_class_is_more_than_one_level_deep_in_our_inheritance() -> None:
    """Every module of the server, runner parts included (no exemption); pydantic models aside (a response
    model extending another's fields is a schema: tests/server/test_server_imports.py)."""
    from pydantic import BaseModel
    from test_server_imports import depth, server_classes

    deep = {
        f"{cls.__module__}.{cls.__qualname__}": [b.__qualname__ for b in ours(cls)]
        for cls in server_classes()
        if depth(cls) > 1 and not issubclass(cls, BaseModel)
    }
    assert not deep, deep


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_method_of_a_part_declares_its_thread(cls: type) -> None:
    undeclared = [name for name, fn in methods(cls).items() if thread_of(fn) is None]
    assert not undeclared, f"{cls.__name__}: {undeclared} (mark each with on_loop, on_worker or on_any)"
    public = [name for name in methods(cls) if not name.startswith("_")]
    assert public, cls.__name__


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_coroutine_runs_on_the_loop(cls: type) -> None:
    wrong = [
        name
        for name, fn in methods(cls).items()
        if inspect.iscoroutinefunction(fn) and thread_of(fn) != "loop"
    ]
    assert not wrong, wrong


def test_the_markers_return_the_function_itself() -> None:
    """No wrapper: a marked method costs nothing per call."""

    def f() -> None:
        pass

    for mark, thread in ((on_loop, "loop"), (on_worker, "worker"), (on_any, "any")):
        assert mark(f) is f and thread_of(f) == thread


def test_no_server_method_is_a_stub_for_another_class() -> None:
    stubs = []
    for path in sorted(Path(tablegames.server.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = [
                    b
                    for b in node.body
                    if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))
                ]
                if (
                    len(body) == 1
                    and isinstance(body[0], ast.Raise)
                    and "NotImplementedError" in ast.unparse(body[0])
                ):
                    stubs.append(f"{path.name}:{node.lineno} {node.name}")
    assert not stubs, stubs


def test_the_runner_holds_its_parts_and_they_share_one_state(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    table_id = h.table("let-it-ride", seats=2)
    runner = h.server.runners[table_id]
    for attribute, cls in PARTS.items():
        assert isinstance(getattr(runner, attribute), cls), attribute
    state = runner.state
    for attribute in PARTS:
        part = getattr(runner, attribute)
        if attribute != "state" and hasattr(part, "state"):
            assert part.state is state, attribute
        # a part's own parts are the runner's (one of each per table)
        for name in PARTS:
            if name != attribute and hasattr(part, name):
                assert getattr(part, name) is getattr(runner, name), f"{attribute}.{name}"
    assert state.table_id == table_id and runner.engine is state.engine
