"""Every command's ``--help`` reads as prose at any width: the source's line breaks inside a paragraph are not
kept (Typer's rich help kept them, so a sentence broke mid-line at 80 columns), and a flag shows no value type
(Typer wrote ``<bool>`` beside ``--help`` and every other flag, as if it took a value)."""

from __future__ import annotations

from collections.abc import Iterator

from typer.main import get_command
from typer.testing import CliRunner

import tablegames.cli as cli


def _paths(command: object, path: list[str]) -> Iterator[list[str]]:
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _paths(sub, [*path, name])


def test_no_help_page_writes_a_type_beside_a_flag() -> None:
    runner = CliRunner()
    paths = list(_paths(get_command(cli.app), []))
    assert len(paths) > 30  # every command and group
    for path in paths:
        out = runner.invoke(cli.app, [*path, "--help"], env={"COLUMNS": "100"}).output
        assert "--help" in out and "Show this message and exit." in out, path
        assert "<bool>" not in out, (path, out)
    # options that take a value still show its type
    out = runner.invoke(cli.app, ["simulate", "--help"], env={"COLUMNS": "100"}).output
    assert "<int>" in out


def test_a_paragraph_is_wrapped_at_the_terminal_not_where_the_source_broke_it() -> None:
    runner = CliRunner()
    for columns in ("80", "120"):
        out = runner.invoke(cli.app, ["verify", "--help"], env={"COLUMNS": columns}).output
        # the source breaks the line after "when the record": the terminal wraps the sentence as a whole
        lines = [line.strip() for line in out.splitlines()]
        assert not any(line.endswith("(when the record") for line in lines), out
        text = " ".join(lines)
        assert "the players' seeds (when the record lists them) were all committed" in text, out


def test_the_meter_option_lists_every_games_meters() -> None:
    """``--meter`` names the meters (it said "see the error for a wrong one"), every game's, from the registry."""
    from tablegames.rules import registry

    out = CliRunner().invoke(cli.app, ["analyze", "--help"], env={"COLUMNS": "200"}).output
    text = " ".join(line.strip(" │") for line in out.splitlines())
    for d in registry.DEFINITIONS:
        names = [m.name for m in d.meters(d.make_rules())]
        if names:
            assert f"{d.key}: {', '.join(names)}" in text, text
    assert "see the error" not in text
