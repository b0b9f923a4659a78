"""The math report's front matter and reference parts (issue 22): the title page with its document control,
the program's identity and the PDF footer, the definitions of the figures, the rules with each cited ruling's
text and the rule set's differences from the standard game, the strategy chart as a table, the glossary of
rulings. Markdown lines, as :mod:`tablegames.analysis.report` lays the document out."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tablegames.analysis.charts import order_columns
from tablegames.analysis.common import Analysis
from tablegames.analysis.render import _md_table
from tablegames.analysis.submission import Submission
from tablegames.rules import registry, rulings

METER_NOTE = (
    "A meter-paid wager's house edge, hold and break-even meter are of the wager alone, the meter at the "
    "value stated: they leave out the share of every wager added to the meter (the meter contribution, "
    "returned to players as future prizes) and any neighbour bonus paid to other players."
)


def identity_rows(sub: Submission, full: bool = False) -> list[tuple[str, str]]:
    """The program and rule set that produced the report (``Submission.software``), as table rows."""
    sw = sub.software
    if not sw:
        return []
    commit = sw.get("commit") or "none (not run from a git checkout)"
    if sw.get("dirty"):
        commit += " (with uncommitted changes)"
    rows = [
        ("program", f"{sw.get('package', 'tablegames')} {sw.get('version')}"),
        ("git commit", f"`{commit}`" if sw.get("commit") else commit),
        ("SHA-256 of the program's source", f"`{sw.get('source_sha256')}`"),
        ("SHA-256 of the rule set", f"`{sw.get('rules_sha256')}`"),
    ]
    if sw.get("game_file"):
        rows.append(("game file", f"`{sw['game_file']}`, SHA-256 `{sw.get('game_file_sha256')}`"))
    if full:
        rows.append(("SHA-256 of analysis.json", f"`{sub.analysis_sha256}`"))
    return rows


def footer_lines(sub: Submission) -> list[str]:
    """Every PDF page's footer: the document, the program and the digests."""
    sw = sub.software
    head = f"{sub.title}: mathematical analysis, {sub.rule_set_name or 'standard rules'}, revision {sub.revision}"
    if not sw:
        return [head]
    commit = f", commit {sw['commit'][:12]}" if sw.get("commit") else ""
    return [
        f"{head}; tablegames {sw.get('version')}{commit}",
        f"source SHA-256 {sw.get('source_sha256')}",
        f"rules SHA-256  {sw.get('rules_sha256')}",
    ]


def title_page(sub: Submission) -> list[str]:
    """The title page: the document's title and its document control."""
    rows = [
        ("title", f"{sub.title}: mathematical analysis"),
        ("game", f"{sub.title} (`{sub.game}`)"),
        ("rule set", sub.rule_set_name or "the standard rules (every rule at its default)"),
        ("revision", sub.revision),
        ("date", sub.date),
        *identity_rows(sub),
        ("verification", f"**{sub.verdict}**"),
    ]
    failed = [v for v in sub.verification if not v.passes(sub.z_limit)]
    if sub.verification:
        verdict = (
            f"**Verification: {sub.verdict}**: {len(sub.verification) - len(failed)} of {len(sub.verification)} "
            f"exact figures agree with {sub.verify_rounds:,} simulated rounds within |z| < {sub.z_limit:g}"
        )
        verdict += (
            "; outside it: " + "; ".join(f"{v.label} (z = {v.z:+.2f})" for v in failed) + " (section 12)."
            if failed
            else " (section 12)."
        )
    else:
        verdict = f"**Verification: {sub.verdict}** ({sub.verify_note or 'no simulation'})."
    return [
        f"# {sub.title}: mathematical analysis for a test lab",
        "",
        "### Document control",
        "",
        _md_table(("item", "value"), rows),
        "",
        verdict,
        "",
    ]


DEFINITIONS: tuple[tuple[str, str], ...] = (
    ("house edge", "the expected loss per initial wager (per unit of the main wager's first stake)"),
    ("element of risk", "the expected loss per average total amount wagered in a round (W)"),
    ("hit frequency", "the probability that the wager returns anything (the main wager: that it wins)"),
    ("standard deviation σ", "of the net result of one round, in units of the initial wager"),
    ("volatility index (VI)", "1.6449 × σ, the common definition (z of a two-sided 90% range)"),
    (
        "hold",
        "the house's win ÷ the handle (the total wagered) after n rounds; in the long run the element "
        "of risk",
    ),
    (
        "win per hour",
        "rounds an hour (the pace model of section 7) × players × the average bet × the house edge",
    ),
    ("break-even meter", "the meter value at which a meter-paid wager's house edge is exactly 0"),
    (
        "meter-paid wager",
        "its house edge, hold and break-even are of the wager alone: they leave out the "
        "meter contribution (the share of each wager added to the meter) and any neighbour bonus",
    ),
    (
        "z",
        "(simulated − exact) ÷ the simulation's standard error; a verification row passes when |z| is "
        "below the stated limit",
    ),
)
"""What every figure of the report means (section 1)."""


def rule_set_words(sub: Submission) -> str:
    changed = registry.get(sub.game).changes(sub.rules)
    name = sub.rule_set_name or "the standard rules"
    return f"{name}: {len(changed)} rule(s) differ from the standard game (section 2)"


def rule_value(parameter: Any, text: str) -> str:
    """A rule's value as a reader reads it: dollars for money, percent for a share, "X to 1" for odds."""
    if parameter.kind == "money" and text.lstrip("-").isdigit():
        cents = int(text)
        return f"${cents // 100:,}" + (f".{cents % 100:02d}" if cents % 100 else "")
    if parameter.kind == "fraction":
        try:
            return f"{100 * float(Fraction(text)):g}%"
        except (ValueError, ZeroDivisionError):
            return text
    if parameter.kind == "odds":
        return "loses" if not text.lstrip("-").isdigit() else f"{text} to 1"
    return text


def rules_section(sub: Submission) -> list[str]:
    """The rules in prose, each cited ruling's text quoted where first cited, the assumptions, and the
    rules that differ from the standard game."""
    from tablegames.analysis.common import ASSUMPTIONS

    definition = registry.get(sub.game)
    texts = rulings.texts(definition)
    p = [
        "## 2. Rules",
        "",
        "The rules of this rule set in prose; the text of each ruling cited (R-…, the project's rule book) "
        "follows where it is first cited, as it reads for the standard game (the glossary at the end lists "
        "them all).",
        "",
    ]
    quoted: set[str] = set()
    for line in sub.rules_summary or ["(no rules summary for this game)"]:
        p.append(f"- {line}")
        for rid in rulings.cited(line):
            if rid in texts and rid not in quoted:
                p.append(f"> **{rid}** {texts[rid]}")
                quoted.add(rid)
    p += ["", "Assumptions of every exact figure:", ""]
    p += [f"- {line}" for line in ASSUMPTIONS]
    p += ["", "### How this rule set differs from the standard game", ""]
    standard = definition.rule_set(definition.make_rules())
    changed = definition.changes(sub.rules)
    if not changed:
        p += ["It does not: every rule is the standard game's.", ""]
        return p
    rows = []
    for name, value in changed.items():
        param = definition.parameter(name)
        rows.append(
            (
                f"`{name}`",
                param.help,
                rule_value(param, standard.get(name, "")),
                rule_value(param, value),
                param.ruling or "",
            )
        )
    p += [_md_table(("rule", "what it is", "standard game", "this rule set", "ruling"), rows), ""]
    return p


def chart_codes(values: set[str]) -> dict[str, str]:
    """Short codes for a chart's actions (the initials of their words; digits kept), unique.

    >>> chart_codes({"stand", "discard highest", "discard 8", "draw"})
    {'discard 8': 'D8', 'discard highest': 'DH', 'draw': 'D', 'stand': 'S'}
    """
    out: dict[str, str] = {}
    for v in sorted(values):
        code = "".join(w if w.isdigit() else w[0].upper() for w in v.split()) or "?"
        base, k = code, 2
        while code in out.values():
            code, k = f"{base}{k}", k + 1
        out[v] = code
    return out


def strategy_table(a: Analysis) -> list[str]:
    """The decision chart as a table of short codes with their legend (it splits across pages and stays
    legible at print size), when the game has one."""
    chart = a.strategy.get("chart")
    if not isinstance(chart, dict) or not chart:
        return []
    cols = order_columns({c for row in chart.values() for c in row})
    codes = chart_codes({str(v).rstrip("*") for row in chart.values() for v in row.values()})

    def cell(v: Any) -> str:
        text = str(v)
        return codes[text.rstrip("*")] + ("*" if text.endswith("*") else "")

    rows = [[str(k), *(cell(row[c]) if c in row else "" for c in cols)] for k, row in chart.items()]
    legend = "; ".join(f"**{code}** = {v}" for v, code in codes.items())
    return [
        "The optimal decision for every hand (rows) and what the player sees of the dealer (columns). "
        f"{legend}; * = it depends on the exact cards (the strategy above says how).",
        "",
        _md_table(["hand", *cols], rows),
        "",
    ]


def glossary(sub: Submission, text: str) -> list[str]:
    """Every ruling the document cites, by id, with its text."""
    texts = rulings.texts(registry.get(sub.game))
    found = [r for r in rulings.cited(text) if r in texts]
    for rid in found:  # (and what their own texts cite: names R-OEF-7)
        found += [r for r in rulings.cited(texts[rid]) if r in texts and r not in found]
    ids = sorted(found, key=rulings.sort_key)
    if not ids:
        return []
    rows = [(rid, texts[rid]) for rid in ids]
    return ["## Glossary of rulings", "", _md_table(("ruling", "text"), rows), ""]
