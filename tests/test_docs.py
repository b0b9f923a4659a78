"""The documentation stays usable: a README for a newcomer under 12 KB whose set-up section shows exactly the two
commands a fresh machine needs (`make run`, `make test`, both real Makefile targets, the second the one CI runs),
and every relative link in README.md and docs/*.md pointing at a file (and heading) that exists; the per-game
tables of docs/protocol.md and docs/games.md as the registry generates them (`tablegames docs --write`), every
registered game in them and no game registered for a while; docs/rules.md equal to ../shared/RULES.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablegames.rules import registry

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

#: ``[text](target)`` outside code; images too. Reference-style links are not used in this project.
LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans (links are not links in there)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    return [m.group("target") for m in LINK.finditer(prose(text))]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for line in text.splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            name, n = base, 1
            while name in found:  # GitHub numbers repeated headings: name, name-1, name-2 ...
                name, n = f"{base}-{n}", n + 1
            found.add(name)
    return found


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``page`` whose file, or heading in that file, does not exist."""
    bad = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto: ... are not checked here
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            bad.append(f"{target} (no file {dest.relative_to(root) if dest.is_relative_to(root) else dest})")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target} (no heading #{anchor} in {dest.name})")
    return bad


def section(text: str, title: str) -> str:
    """The body of the ``## title`` section, up to the next heading of level 2 or less."""
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^#{{1,2}} |\Z)", text, re.S | re.M)
    assert m, f"README.md has no '## {title}' section"
    return m.group(1)


def commands(block_text: str) -> list[str]:
    """The shell commands of the fenced blocks in ``block_text``: comments and continuation comments dropped."""
    out = []
    for block in re.findall(r"^```(?:sh|bash|shell)?\n(.*?)^```", block_text, re.S | re.M):
        for line in block.splitlines():
            cmd = line.split("#", 1)[0].strip()
            if cmd:
                out.append(cmd)
    return out


def test_readme_is_under_12_kb() -> None:
    size = len(README.read_bytes())
    assert 2000 < size < 12 * 1024, f"README.md is {size} bytes; keep it under 12 KB (move detail to docs/)"


def test_setup_section_has_exactly_make_run_and_make_test() -> None:
    setup = section(README.read_text(encoding="utf-8"), "Set-up on a fresh machine")
    assert commands(setup) == ["make run", "make test"]


def test_setup_commands_are_makefile_targets_and_ci_runs_make_test() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("run", "test"):
        assert re.search(rf"^{target}:", makefile, re.M), f"the Makefile has no '{target}' target"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    makes = [line.split("#")[0].strip() for line in ci.splitlines() if line.startswith("make")]
    assert makes == ["make test"]


def test_docs_pages_exist_and_the_readme_links_each() -> None:
    names = {p.name for p in DOCS}
    expected = {"README.md", "games.md", "analysis.md", "simulation.md", "server.md", "protocol.md"}
    expected |= {"operations.md", "randomness.md", "compliance-gli19.md", "performance.md"}
    assert expected <= names
    readme_links = set(links(README.read_text(encoding="utf-8")))
    index_links = set(links((ROOT / "docs" / "README.md").read_text(encoding="utf-8")))
    for name in sorted(names - {"README.md"}):
        assert f"docs/{name}" in {t.partition("#")[0] for t in readme_links} or name in index_links, name


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_slug_is_githubs_anchor() -> None:
    assert slug("Table server under load") == "table-server-under-load"
    assert slug("Exact analysis: analyze, tune, report") == "exact-analysis-analyze-tune-report"
    assert slug("Round recall (`GET /rounds/{id}`)") == "round-recall-get-roundsid"
    assert slug("Client → server") == "client--server"


def test_the_link_check_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-heading) [web](https://example.com/x) `[code](nowhere.md)`\n"
        "```\n[fenced](nowhere.md)\n```\n[gone](missing.md) [no heading](there.md#nope) [self](#nope)\n",
        encoding="utf-8",
    )
    bad = broken_links(page, root=tmp_path)
    assert [b.split(" ")[0] for b in bad] == ["missing.md", "there.md#nope", "#nope"]


SHARED_RULES = ROOT.parent / "shared" / "RULES.md"


@pytest.mark.skipif(not SHARED_RULES.is_file(), reason="no ../shared/RULES.md next to the checkout")
def test_docs_rules_md_is_shared_rules_md() -> None:
    """docs/rules.md carries RULES.md's text into the repository (a fresh clone's links and the files citing
    R- ids resolve); it must stay equal to ../shared/RULES.md. Refresh: cp ../shared/RULES.md docs/rules.md"""
    ours = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert ours == SHARED_RULES.read_text(encoding="utf-8"), "cp ../shared/RULES.md docs/rules.md"


def test_docs_rules_md_holds_every_ruling_id_the_code_cites() -> None:
    """Every R- id cited in src/ is a ruling of docs/rules.md (a wrong or missing copy fails here)."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    cited: set[str] = set()
    for path in (ROOT / "src").rglob("*.py"):
        cited |= set(re.findall(r"\bR-(?:[A-Z]+-)?\d+\b", path.read_text(encoding="utf-8")))
    defined = set(re.findall(r"\bR-(?:[A-Z]+-)?\d+\b", text))
    assert cited and cited <= defined, sorted(cited - defined)


# --- the per-game tables generated from the registry (issue 23) ------------------------------------------


def test_the_generated_tables_are_up_to_date() -> None:
    """docs/protocol.md's and docs/games.md's per-game tables are the registry's, as generated now."""
    from tablegames.cli import docs

    assert docs.stale(ROOT) == [], f"stale generated tables; refresh them: {docs.COMMAND}"


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_every_registered_game_is_in_every_per_game_table(definition: registry.GameDefinition) -> None:
    from tablegames.cli import docs

    for page, regions in docs.REGIONS.items():
        bodies = {m.group("name"): m.group("body") for m in docs.REGION.finditer((ROOT / page).read_text())}
        for name in regions:
            if name in {"meters", "neighbour-bonus"}:  # only the games that have one
                continue
            assert definition.key in bodies[name] or definition.title in bodies[name], (page, name)


def test_the_protocol_tables_know_three_card_poker() -> None:
    """What the hand-written tables got wrong (issue 23): Three Card Poker's play/fold, its timeout fold, and a
    side bet (Pair Plus) that needs no main wager."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert "| `three-card-poker` | `play` (plays), `fold` (folds) | `fold` |" in text
    assert re.search(r"\| `pair-plus` \|[^\n]*\| nothing: may be placed alone \|", text)
    assert "Side bets\nneed the main wager" not in text and "Side bets need the main wager" not in text


def test_a_game_registered_for_a_while_does_not_leak_into_the_docs() -> None:
    """A game registered only while a block runs (tests/fifth_game's) changes no generated table."""
    from dataclasses import replace

    from tablegames.cli import docs

    before = docs.expected(ROOT)
    fifth = replace(registry.DEFINITIONS[-1], key="fifth-test-game", title="Fifth Test Game")
    with registry.registered(fifth):
        during = docs.expected(ROOT)
    assert during == before
    assert not any("fifth-test-game" in t or "Fifth Test Game" in t for t in during.values())


def test_the_check_finds_a_stale_table_and_write_refreshes_it(tmp_path: Path) -> None:
    """A page whose table lost a game is stale; ``tablegames docs`` says so (exit 1, naming the command) and
    ``--write`` brings it back."""
    from typer.testing import CliRunner

    from tablegames.cli import app, docs

    for page in [*docs.REGIONS, *docs.FILES]:  # the pages, and the generated files (the analysis schema)
        (tmp_path / page).parent.mkdir(exist_ok=True)
        (tmp_path / page).write_text((ROOT / page).read_text(encoding="utf-8"), encoding="utf-8")
    protocol = tmp_path / "docs" / "protocol.md"
    text = protocol.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `three-card-poker` | `play`"))
    protocol.write_text(text.replace(row + "\n", ""), encoding="utf-8")
    assert docs.stale(tmp_path) == ["docs/protocol.md"]
    res = CliRunner().invoke(app, ["docs", "--root", str(tmp_path)])
    assert res.exit_code == 1 and "stale: docs/protocol.md" in res.output and docs.COMMAND in res.output
    res = CliRunner().invoke(app, ["docs", "--root", str(tmp_path), "--write"])
    assert res.exit_code == 0 and "rewrote: docs/protocol.md" in res.output
    assert protocol.read_text(encoding="utf-8") == text and docs.stale(tmp_path) == []


def test_a_page_without_its_region_is_refused(tmp_path: Path) -> None:
    from tablegames.cli import docs

    (tmp_path / "docs").mkdir()
    for page in docs.REGIONS:
        (tmp_path / page).write_text("# nothing marked\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has no marked region"):
        docs.stale(tmp_path)
