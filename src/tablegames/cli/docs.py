"""``tablegames docs``: the per-game tables of ``docs/protocol.md`` and ``docs/games.md``, generated from the
game registry (issue 23, "docs that cannot forget a game").

Each table is a marked region of its page::

    <!-- generated: NAME (tablegames docs --write) -->
    ...
    <!-- end generated -->

``tablegames docs`` (or ``python -m tablegames.cli.docs``) says which regions are stale (exit 1), ``--write``
rewrites them; ``tests/test_docs.py`` fails while one is stale. Every game of
:data:`tablegames.rules.registry.DEFINITIONS` is listed, in its order; a game registered only for a while
(``registry.registered``, the tests' fifth game) is not.

>>> refresh("a\\n<!-- generated: x -->\\nold\\n<!-- end generated -->\\nb\\n", {"x": "new\\n"})
'a\\n<!-- generated: x (tablegames docs --write) -->\\nnew\\n<!-- end generated -->\\nb\\n'
>>> money(100), money(150), money(500_000)
('$1', '$1.50', '$5,000')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import typer

from tablegames.rules import registry
from tablegames.rules.definition import Decision, GameDefinition, Wager

COMMAND = "tablegames docs --write"
REGION = re.compile(
    r"^<!-- generated: (?P<name>[\w-]+)[^\n]*-->\n(?P<body>.*?)^<!-- end generated -->$", re.S | re.M
)


def money(cents: int) -> str:
    """Whole cents in dollars, as the pages write them: ``$1``, ``$1.50``, ``$5,000``."""
    dollars, rest = divmod(cents, 100)
    return f"${dollars:,}" + (f".{rest:02d}" if rest else "")


def code(text: str) -> str:
    return f"`{text}`"


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def games() -> tuple[GameDefinition, ...]:
    """The games the docs list: the registry's own (never one registered for a while)."""
    return registry.DEFINITIONS


# --- docs/protocol.md -------------------------------------------------------------------------------


def _wager_what(w: Wager) -> str:
    what = f"{'the main wager' if w.main else 'a side bet'}, {w.title}"
    if w.cost_multiple != 1:
        what += f": costs {w.cost_multiple}× the amount" + (f" ({w.unit})" if w.unit else "")
    if w.parts:
        what += "; settled by part (" + ", ".join(code(p) for p in w.parts) + ")"
    if w.companions:
        what += "; settled as " + " and ".join(code(n) for n in (w.name, *(n for n, _ in w.companions)))
    if w.feeds:
        what += "; feeds the meters"
    return what


def protocol_wagers() -> str:
    rows = []
    for d in games():
        rules = d.make_rules()
        for i, w in enumerate(d.wagers):
            fixed = w.fixed_cents(rules)
            amount = "chosen" if fixed is None else f"fixed: {fixed} cents ({money(fixed)})"
            needs = code(w.requires) if w.requires else ("–" if w.main else "nothing: may be placed alone")
            option = "–"
            if w.option is not None:
                choices = ", ".join(code(c) for c in w.option.choices)
                option = f'`options: {{"{w.name}": "<{w.option.name}>"}}`: {choices}'
            rows.append([code(d.key) if i == 0 else "", code(w.name), _wager_what(w), amount, needs, option])
    return table(["game", "wager", "what it is", "amount", "needs", "option"], rows)


def _action(x: Decision) -> str:
    if x.indexed:
        return f"`{x.name} <i>` ({x.label.replace('{n}', 'i + 1')}; `i` counts the cards from 0)"
    return f"{code(x.name)} ({x.label})"


def protocol_decisions() -> str:
    rows = [
        [code(d.key), ", ".join(_action(x) for x in d.decisions), code(d.default_action)] for d in games()
    ]
    return table(["game", "`act` actions", "the timeout plays"], rows)


def protocol_meters() -> str:
    rows = []
    for d in games():
        feeding = ", ".join(code(w.name) for w in d.wagers if w.feeds) or "–"
        for m in d.meters(d.make_rules()):
            share = f"{m.share.numerator}/{m.share.denominator}"
            big = "yes" if m.big else ""
            rows.append(
                [code(d.key), code(m.name), m.title or m.name, money(m.reset_cents), share, feeding, big]
            )
    head = ["game", "meter", "title", "reset", "share", "fed by", "big prize"]
    return table(head, rows) + "\n" + _no_meters()


def _no_meters() -> str:
    none = [d.title for d in games() if not d.meters(d.make_rules())]
    return ("No meters: " + ", ".join(none) + ".\n") if none else ""


def protocol_bonus() -> str:
    named = [f"{d.title}'s {d.neighbour_bonus}" for d in games() if d.neighbour_bonus]
    return "Games that pay one (`neighbour_bonus` in `GET /games`): " + (", ".join(named) or "none") + ".\n"


# --- docs/games.md ----------------------------------------------------------------------------------


def games_list() -> str:
    lines = [f"The {len(games())} games of the registry (`rules/registry.py`), in its order:", ""]
    for d in games():
        rules = d.make_rules()
        wagers = ", ".join(
            w.title + (f" ({money(f)} fixed)" if (f := w.fixed_cents(rules)) is not None else "")
            for w in d.wagers
        )
        extra = ""
        meters = d.meters(rules)
        if meters:
            extra += "; meters " + ", ".join(m.title or m.name for m in meters)
        if d.neighbour_bonus:
            extra += f"; the {d.neighbour_bonus}"
        lines.append(f"- **{d.title}** (`{d.key}`, {d.tagline}): {wagers}{extra}.")
    return "\n".join(lines) + "\n"


def games_rule_options() -> str:
    """Each game's named choices: its rule options, then the presets (pay tables, card values) they leave out."""
    rows = []
    for d in games():
        named = [(o.name, o.choices) for o in d.rule_options]
        named += [
            (p.name, p.choices) for p in d.parameters if p.kind == "preset" and p.name not in dict(named)
        ]
        rows += [[code(d.key), code(name), ", ".join(code(c) for c in choices)] for name, choices in named]
    return table(["game", "rule", "values (default first)"], rows)


def _you_type(x: Decision) -> str:
    if x.indexed:
        return f"the card counted from the left: `2`, `{x.name[0]}2`, `{x.name} 2`"
    return f"`{x.name[0]}` (or `{x.name}`)"


def games_prompts() -> str:
    rows = [
        [
            d.title,
            code(" / ".join((x.prompt or x.name).replace("{n}", "n") for x in d.decisions)),
            "; ".join(_you_type(x) for x in d.decisions),
        ]
        for d in games()
    ]
    return table(["game", "prompt", "you type"], rows)


def games_parameters() -> str:
    """Every parameter of every game, by its group: ``name=default`` (a preset by its name), and the rulings."""
    rows = []
    for d in games():
        rules = d.make_rules()
        groups: dict[str, list[str]] = {}
        rulings: dict[str, set[str]] = {}
        for p in d.parameters:
            entry = f"`{p.name}={p.value(rules)}`" if p.listed else f"`{p.name}` (preset)"
            groups.setdefault(p.group, []).append(entry)
            rulings.setdefault(p.group, set()).update({p.ruling} if p.ruling else set())
        for i, (group, entries) in enumerate(groups.items()):
            rows.append(
                [code(d.key) if i == 0 else "", group, ", ".join(entries), ", ".join(sorted(rulings[group]))]
            )
    return table(["game", "group", "parameters (`name=default`)", "rulings"], rows)


#: page (relative to the checkout) -> region name -> its text
REGIONS: Mapping[str, Mapping[str, Callable[[], str]]] = {
    "docs/protocol.md": {
        "wagers": protocol_wagers,
        "decisions": protocol_decisions,
        "meters": protocol_meters,
        "neighbour-bonus": protocol_bonus,
    },
    "docs/games.md": {
        "games": games_list,
        "rule-options": games_rule_options,
        "prompts": games_prompts,
        "parameters": games_parameters,
    },
}


def refresh(text: str, regions: Mapping[str, str]) -> str:
    """``text`` with the body of each marked region named in ``regions`` replaced (the others kept)."""

    def one(m: re.Match[str]) -> str:
        name = m.group("name")
        body = regions.get(name, m.group("body"))
        return f"<!-- generated: {name} ({COMMAND}) -->\n{body}<!-- end generated -->"

    return REGION.sub(one, text)


def analysis_schema() -> str:
    """``schemas/analysis.schema.json``: the JSON Schema of ``analyze --format json``, from its model."""
    from tablegames.analysis.result import analysis_schema_text  # (pydantic: only when the docs are made)

    return analysis_schema_text()


FILES: dict[str, Callable[[], str]] = {"schemas/analysis.schema.json": analysis_schema}
"""Whole files generated from the code (not marked regions of a page)."""


def expected(root: Path) -> dict[Path, str]:
    """Each page as it should read: its regions regenerated. A region missing from its page raises."""
    out: dict[Path, str] = {}
    for page, regions in REGIONS.items():
        path = root / page
        text = path.read_text(encoding="utf-8")
        found = {m.group("name") for m in REGION.finditer(text)}
        missing = sorted(set(regions) - found)
        if missing:
            raise ValueError(f"{page} has no marked region {', '.join(missing)}")
        out[path] = refresh(text, {name: make() for name, make in regions.items()})
    for page, make_file in FILES.items():
        out[root / page] = make_file()
    return out


def stale(root: Path) -> list[str]:
    """The pages whose generated regions differ from the registry's (empty: up to date)."""
    return [
        str(path.relative_to(root))
        for path, text in expected(root).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def write(root: Path) -> list[str]:
    """Rewrite the stale pages; returns them."""
    changed = stale(root)
    for path, text in expected(root).items():
        if str(path.relative_to(root)) in changed:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return changed


def default_root() -> Path:
    """The checkout this package runs from (src layout), else the current directory."""
    here = Path(__file__).resolve().parents[3]
    return here if (here / "docs" / "protocol.md").is_file() else Path.cwd()


def docs(
    write_: bool = typer.Option(False, "--write", help="rewrite the stale generated regions"),
    root: Path | None = typer.Option(None, "--root", help="the checkout (default: this package's)"),
) -> None:
    """The per-game tables of docs/protocol.md and docs/games.md, from the game registry, and
    schemas/analysis.schema.json, from the analysis's model: says which are stale (exit code 1), or rewrites
    them with --write."""
    base = root or default_root()
    try:
        changed = write(base) if write_ else stale(base)
    except (OSError, ValueError) as e:
        typer.echo(f"tablegames docs: {e}", err=True)
        raise typer.Exit(2) from None
    for page in changed:
        typer.echo(f"{'rewrote' if write_ else 'stale'}: {page}")
    if changed and not write_:
        typer.echo(f"run: {COMMAND}", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("docs")(docs)


if __name__ == "__main__":
    typer.run(docs)
