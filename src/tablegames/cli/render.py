"""Rich rendering for the terminal game: cards, seats, wagers, meters, event lines and results.

Everything here draws from what one seat may see: a ``Round.view(seat)`` dict and the round's
``visible_history(seat)`` (hidden cards arrive as ``None`` and are drawn as a card back ``[##]``).

>>> money(123456), money(-5), signed(250), signed(-250), signed(0)
('$1,234.56', '-$0.05', '+$2.50', '-$2.50', '$0.00')
>>> card_text("Ah").plain, card_text(None).plain
('[A♥]', '[##]')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from tablegames.cards import parse_card
from tablegames.cli.felts import felt_of
from tablegames.rules import registry
from tablegames.rules.flow import COMMUNITY
from tablegames.rules.rulecard import RuleCard

BACK = "[##]"
RED = "bold red"
BLACK = "bold"
WILD = "bold magenta"


def wager_title(game: str, wager: str) -> str:
    """A wager's title at ``game`` (its definition's; wager names are a game's own: two games have a ``main``).

    >>> game = registry.DEFINITIONS[0]
    >>> wager_title(game.key, game.wagers[-1].name) == game.wagers[-1].title, wager_title(game.key, "nothing")
    (True, 'nothing')
    """
    spec = registry.get(game).wager(wager)
    return spec.title if spec is not None else wager


def meter_title(game: str, meter: str) -> str:
    """A jackpot meter's title at ``game`` (its definition's), or its name."""
    definition = registry.get(game)
    titles = {m.name: m.title for m in definition.meters(definition.make_rules()) if m.title}
    return titles.get(meter, meter)


# --- money ---------------------------------------------------------------------------------------


def money(cents: int) -> str:
    """Cents as dollars, e.g. ``$1,234.50`` (negative: ``-$5.00``)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def signed(cents: int) -> str:
    """A net amount with its sign: ``+$5.00``, ``-$5.00``, ``$0.00``."""
    return ("+" if cents > 0 else "") + money(cents)


# --- cards ---------------------------------------------------------------------------------------


def card_text(card: str | None, wild: Collection[str] = ()) -> Text:
    """One card as ``[A♥]`` (red suits in red; a wild card, as the view lists them, marked ``*``), or a back
    ``[##]``."""
    if card is None:
        return Text(BACK, style="dim")
    c = parse_card(card)
    label = c.pretty
    style = RED if c.suit.is_red else BLACK
    if card in wild:
        return Text.assemble("[", (label, style), ("*", WILD), "]")
    return Text.assemble("[", (label, style), "]")


def cards_text(cards: Sequence[str | None], wild: Collection[str] = ()) -> Text:
    return Text(" ").join(card_text(c, wild) for c in cards) if cards else Text("-", style="dim")


# --- hands ---------------------------------------------------------------------------------------


def hand_label(view: Mapping[str, Any], seat: int) -> str:
    """What a seat's hand is, as far as the viewer of ``view`` may see it ('' if nothing can be said): the
    view's ``hands`` (the game definition's ``describe_hand`` of the visible cards)."""
    return str(view.get("hands", {}).get(str(seat), {}).get("description", ""))


def pretty_hand(name: str) -> str:
    """Engine hand keys (``tens-or-better``) as words (``tens or better``)."""
    return name.replace("-", " ")


# --- the table -----------------------------------------------------------------------------------


def bets_words(title: str, parts: Sequence[str]) -> str:
    """A wager of several equal bets in words, by the bets still meant (issue 24: ``bets 2 $``).

    >>> bets_words("bets", ["1", "2", "$"]), bets_words("bets", ["1"]), bets_words("bets", ["2", "$"])
    ('Bets 1, 2 and $', 'Bet 1', 'Bets 2 and $')
    """
    if not parts:
        return title
    name = title[:1].upper() + title[1:]
    if len(parts) == 1:
        return f"{name[:-1] if name.endswith('s') else name} {parts[0]}"
    return f"{name} {', '.join(parts[:-1])} and {parts[-1]}"


def wager_words(game: str, wager: str, part: str = "") -> str:
    """A settled wager's name: its title, and the bets of a multi-bet wager it settles (``part``)."""
    title = wager_title(game, wager)
    words = bets_words(title, part.split()) if part.strip() else title
    return words[:1].upper() + words[1:]  # a column of names: "Main", "Play", "Bet 1"


def wagers_text(game: str, seat: Mapping[str, Any], pulled: set[str]) -> str:
    """A seat's wagers, e.g. ``Bets 1, 2 and $ × $5.00 · 3-Card Bonus $1.00``."""
    wagers: Mapping[str, int] = seat["wagers"]
    options: Mapping[str, str] = seat["options"]
    definition = registry.get(game)
    parts: list[str] = []
    for name, amount in wagers.items():
        spec = definition.wager(name)
        if spec is not None and spec.parts:  # a wager of several equal bets: the ones still up
            up = [b for b in spec.parts if f"{name} {b}" not in pulled]
            parts.append(f"{bets_words(spec.title, up)} × {money(amount)}")
        elif spec is not None and spec.option is not None:
            parts.append(f"{spec.title} {money(amount)} on {options.get(name, '?')}")
        else:
            parts.append(f"{(spec.short or spec.title) if spec is not None else name} {money(amount)}")
    return " · ".join(parts) if parts else "sitting out"


def meters_text(game: str, meters: Mapping[str, int]) -> str:
    return " · ".join(f"{meter_title(game, k)} {money(v)}" for k, v in meters.items())


def pulled_bets(events: Sequence[Mapping[str, Any]]) -> dict[int, set[str]]:
    """Bets pulled so far (the parts of a multi-bet wager, as ``"<wager> <part>"``), by seat (from the visible
    history)."""
    out: dict[int, set[str]] = {}
    for e in events:
        if e["type"] == "settled" and e["outcome"] == "pulled":
            out.setdefault(e["seat"], set()).update(f"{e['wager']} {p}" for p in e.get("part", "").split())
    return out


def hand_results(events: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Evaluated hands made public (owner -> hand)."""
    return {e["owner"]: e["hand"] for e in events if e["type"] == "hand"}


def table_view(
    view: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    balances: Mapping[int, int],
    rules: Any,
    you: int = 1,
) -> RenderableType:
    """The table as ``you`` sees it: dealer / community / Flip Card, every seat's cards, hand and wagers,
    the meters. One line per place (name, cards, what the hand is), the seat's wagers on the line below."""
    game = view["game"]
    settled = view["phase"] == "settled"
    hands = hand_results(events) if settled else {}
    pulled = pulled_bets(events)
    felt = felt_of(game)
    wild = frozenset(view.get("wild_cards") or ())
    rows: list[tuple[Text, Text, str, Text | None]] = [
        (Text(name, style="bold"), cards_text(cards, wild), note, None)
        for name, cards, note in felt.top_rows(view, hands, rules, settled)
    ]
    for seat in view["seats"]:
        n = seat["seat"]
        name = Text(f"Seat {n} {'you' if n == you else 'bot'}", style="bold cyan" if n == you else "")
        if not seat["wagers"]:
            rows.append((name, Text("-", style="dim"), f"sitting out · balance {money(balances[n])}", None))
            continue
        label = hands.get(f"seat {n}")
        hand = felt.final_hand(label) if label is not None else hand_label(view, n)
        if seat["out"]:
            hand = f"{hand}, out" if hand else "out"
        wagers = Text(wagers_text(game, seat, pulled.get(n, set())), style="dim")
        rows.append((name, cards_text(seat["cards"], wild), hand, wagers))
    name_w = max(r[0].cell_len for r in rows) + 2
    cards_w = max(r[1].cell_len for r in rows) + 2
    lines: list[RenderableType] = []
    for name, cards, note, wager_line in rows:
        line = Text.assemble(name, " " * (name_w - name.cell_len), cards)
        if note:
            line.append(" " * (cards_w - cards.cell_len))
            line.append(note, style="italic")
        lines.append(line)
        if wager_line is not None:
            lines.append(Text.assemble(" " * name_w, wager_line))
    if view["meters"]:
        lines.append(Text("Meters: " + meters_text(game, view["meters"]), style="yellow"))
    return Group(*lines)


# --- events as they happen -----------------------------------------------------------------------


def action_words(game: str, action: str) -> str:
    """An engine action as a person reads it (discard indexes counted from 1)."""
    parts = action.split()
    decision = registry.get(game).decision(parts[0])
    if decision is None:
        return action
    if decision.indexed and len(parts) == 2:
        return decision.label.format(n=int(parts[1]) + 1)
    return decision.label if len(parts) == 1 else action


def second_person(words: str) -> str:
    """A decision's words, written for a seat (``stands``, ``discards card 2 and draws``), said to "you".

    >>> second_person("discards card 2 and draws"), second_person("lets bet 1 ride"), second_person("passes")
    ('discard card 2 and draw', 'let bet 1 ride', 'pass')
    """
    out = words.split(" ")
    for i, word in enumerate(out):
        if i == 0 or out[i - 1] == "and":
            out[i] = word[:-2] if word.endswith("sses") else word[:-1] if word.endswith("s") else word
    return " ".join(out)


def event_lines(
    game: str, events: Sequence[Mapping[str, Any]], start: int = 0, you: int = 1, wild: Collection[str] = ()
) -> list[Text]:
    """One line per notable event from ``events[start:]``, in play order: decisions, community cards, turned
    cards, busts, the dealer's play.

    ``events`` is the round's history redacted for ``you`` (``visible_history``); seats' own final reveals
    and settlements are left to :func:`results_view`.
    """
    felt = felt_of(game)
    lines: list[Text] = []
    pending_discard: str | None = None
    stage = 1 + sum(1 for e in events[:start] if e["type"] == "cards_revealed" and e["owner"] == COMMUNITY)
    for e in events[start:]:
        kind = e["type"]
        if kind == "action":
            words = felt.action_words(e["action"], stage) or action_words(game, e["action"])
            if e["seat"] == you:  # "You stand", "Seat 2 (bot) stands"
                words = second_person(words)
            lines.append(Text(f"{_who(e['seat'], you)} {words}"))
        elif kind == "cards_revealed" and e["owner"] == COMMUNITY:
            stage += 1
            lines.append(Text.assemble("Community card: ", cards_text(e["cards"], wild)))
        elif kind == "cards_revealed" and e["owner"] == "dealer":
            lines.append(Text.assemble(felt.dealer_reveal, cards_text(e["cards"], wild)))
        elif (
            kind == "cards_revealed"
            and e["owner"].startswith("seat")
            and (reveal := felt.seat_reveal(_who(int(e["owner"].split()[1]), you))) is not None
        ):
            lines.append(Text.assemble(reveal, cards_text(e["cards"], wild)))
        elif kind == "card_discarded" and e["owner"] == "dealer":
            pending_discard = e["card"]
        elif kind == "card_dealt" and e["to"] == "dealer" and pending_discard is not None:
            lines.append(
                Text.assemble(
                    "Dealer discards ",
                    card_text(pending_discard, wild),
                    " and draws ",
                    card_text(e["card"], wild),
                )
            )
            pending_discard = None
        elif kind == "hand" and e["owner"] == "dealer":
            lines.append(Text(f"Dealer: {felt.dealer_hand(e['hand'])}", style="bold"))
        elif kind == "settled" and e["outcome"] == "bust":
            bust = "bust" if e["seat"] == you else "busts"  # "You bust", "Seat 2 (bot) busts" (issue 24)
            lines.append(Text(f"{_who(e['seat'], you)} {bust}: {e['detail']}", style="red"))
        elif kind == "settled" and felt.early_loss(e):
            lose = "lose" if e["seat"] == you else "loses"
            lines.append(Text(f"{_who(e['seat'], you)} {lose} at once: {e['detail']}", style="red"))
    return lines


def _who(seat: int, you: int) -> str:
    return "You" if seat == you else f"Seat {seat} (bot)"


# --- results -------------------------------------------------------------------------------------


def results_view(
    game: str,
    events: Sequence[Mapping[str, Any]],
    balances: Mapping[int, int],
    you: int = 1,
) -> RenderableType:
    """Every wager's result per seat, jackpot hits, neighbour bonuses (``GameDefinition.neighbour_bonus``),
    each seat's round net and balance."""
    table = RichTable(title="Results", title_justify="left", box=None, padding=(0, 1), show_edge=False)
    for col, justify in (
        ("seat", "left"),
        ("wager", "left"),
        ("staked", "right"),
        ("paid", "right"),
        ("net", "right"),
        ("result", "left"),
    ):
        table.add_column(col, justify=justify, no_wrap=col != "result")  # type: ignore[arg-type]
    felt = felt_of(game)
    rows = sorted((e for e in events if e["type"] in ("settled", "envy_paid")), key=lambda e: int(e["seat"]))
    for e in rows:
        if e["type"] == "settled":
            net = e["returned"] - e["staked"]
            result = e["outcome"].replace("-", " ")  # a hyphenated outcome name, in words
            detail = pretty_hand(e["detail"]) if e["detail"] else ""
            detail = felt.result_detail(e, events, detail)
            if e["meter"] is not None:  # the wager took a meter (its JackpotHit)
                detail += f" - hits the {meter_title(game, e['meter'])} meter"
            style = "green" if net > 0 else "red" if net < 0 and result != "pulled" else ""
            table.add_row(
                _seat_name(e["seat"], you),
                wager_words(game, e["wager"], e.get("part", "")),
                money(e["staked"]),
                money(e["returned"]),
                Text(signed(net), style=style),
                # not "lose: lose" nor "fold: folded": the detail alone when it says the outcome again
                detail if detail.startswith(result) else f"{result}: {detail}" if detail else result,
            )
        elif e["type"] == "envy_paid":
            table.add_row(
                _seat_name(e["seat"], you),
                registry.get(game).neighbour_bonus or "Bonus",
                money(0),
                money(e["amount"]),
                Text(signed(e["amount"]), style="green"),
                f"seat {e['from_seat']} made a {pretty_hand(e['hand'])}",
            )
    nets: dict[int, int] = {}
    for e in events:
        if e["type"] == "round_ended":
            nets = {int(k): v for k, v in e["net_by_seat"].items()}
    # words and amounts in columns of their own: a balance reaching $1,000 moves no word (issue 24)
    totals = RichTable.grid(padding=(0, 1))
    for justify in ("left", "left", "right", "left", "right"):
        totals.add_column(justify=justify)  # type: ignore[arg-type]
    for seat, balance in balances.items():
        net = nets.get(seat)
        totals.add_row(
            _seat_name(seat, you),
            " round",
            signed(net) if net is not None else "-",
            " balance",
            money(balance),
        )
    return Group(table, Text(""), totals)


def _seat_name(seat: int, you: int) -> str:
    return f"{seat} (you)" if seat == you else str(seat)


def rule_card_view(card: RuleCard) -> RenderableType:
    """A table's pay tables and rules (``rules.rulecard``) as small tables side by side, then the summary."""
    from rich.columns import Columns

    tables = []
    for section in card.sections:
        t = RichTable(title=section.title, title_justify="left", show_header=False, box=None, pad_edge=False)
        t.add_column(overflow="fold")
        t.add_column(justify="right", no_wrap=True)
        for row in section.rows:
            t.add_row(row.label, row.value)
        tables.append(t)
    head = Text.assemble((card.title, "bold"), ": pay tables and rules")
    return Group(
        head, Columns(tables, padding=(1, 3)), Text(card.summary[:1].upper() + card.summary[1:] + ".")
    )
