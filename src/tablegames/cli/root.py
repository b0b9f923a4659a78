"""The ``tablegames`` Typer app: its root options and the commands of the modules asked for
(:func:`tablegames.cli.main` builds it with the one module a command line needs)."""

from __future__ import annotations

import importlib
import re
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from tablegames.cli import MODULES


def _print_version(value: bool) -> None:
    if value:
        from tablegames.identity import git_commit, version

        commit = git_commit()
        typer.echo(f"tablegames {version()}" + (f" (commit {commit})" if commit else ""))
        raise typer.Exit()


def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="print the package version and exit"
        ),
    ] = False,
) -> None:
    """Casino table card games: play them, prove their math, simulate them fast."""


def reflow(text: str | None) -> str | None:
    """A help text's paragraphs with the source's line breaks taken out (the terminal wraps them at its own
    width); a paragraph marked ``\\b`` and lines that start a list item or an indented example are kept.

    >>> reflow("Checks that one\\nand two.\\n\\nEach:\\n- one\\n- two")
    'Checks that one and two.\\n\\nEach:\\n- one\\n- two'
    """
    if not text:
        return text
    paragraphs = []
    for paragraph in text.split("\n\n"):
        if paragraph.startswith("\b"):
            paragraphs.append(paragraph)
            continue
        paragraphs.append(re.sub(r"\n(?![ \t]|[-*] |\d+[.)] )", " ", paragraph))
    return "\n\n".join(paragraphs)


def _tidy(command: Any) -> None:
    """Every command's and option's help reflowed (:func:`reflow`), and no type written beside a flag (Typer
    writes ``<bool>`` as if it took a value), the help option's included."""
    command.help = reflow(command.help)
    for param in command.params:
        param.help = reflow(getattr(param, "help", None))
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    get_help_option = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)


class _Tidy(TyperGroup):
    """The root group: every command under it tidied once it is built (:func:`_tidy`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _tidy(self)


def build_app(modules: tuple[str, ...] = MODULES) -> typer.Typer:
    """A Typer app with the commands of ``modules`` (default: every command)."""
    built = typer.Typer(
        name="tablegames",
        help="Casino table card games: play them, prove their math, simulate them fast.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        cls=_Tidy,
    )
    built.callback()(_root)
    for name in modules:
        importlib.import_module(f"tablegames.cli.{name}").register(built)
    return built
