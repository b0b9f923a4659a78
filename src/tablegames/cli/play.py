"""``tablegames play GAME``: the terminal game. The person plays seat 1, bots play the other seats.

Units: every amount a person types (``--bankroll``, ``--bet``, wagers at the prompts) is in **dollars**,
e.g. ``5``, ``5.50`` or ``$1,000``, converted exactly to integer cents; an amount finer than a cent is refused.

Each round: the person's wagers (the main wager defaults to the last one; side bets default to the last
choice), the bots' wagers, the deal, then every decision in seat order (the bots' shown as they happen, the
person's at a prompt listing the legal actions, ``h`` for a hint, ``q`` to quit), the dealer's play and the
result of every wager. Everything drawn while a round is in progress comes from ``Round.view(1)`` and the
history as seat 1 may see it; all hands are shown once the round is settled.

>>> parse_dollars("5"), parse_dollars("$1,000.50"), parse_dollars("0.07")
(500, 100050, 7)
>>> parse_dollars("1.234")
Traceback (most recent call last):
...
tablegames.cli.play.AmountError: 1.234 is not a whole number of cents
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import typer

from tablegames.cli.common import games_help

if TYPE_CHECKING:
    from rich.console import Console

    from tablegames.engine import Action, Advisor, Round, Table

YOU = 1
DEFAULT_BANKROLL = "1000"
DEFAULT_BET = "5"
QUIT_WORDS = frozenset({"q", "quit", "exit"})
PAYS_WORDS = frozenset({"pays", "paytable", "rules"})  # at any prompt: the table's pay tables and rules
NONE_WORDS = frozenset({"0", "n", "no", "none", "-"})
YES_WORDS = frozenset({"y", "yes"})


class AmountError(ValueError):
    """Typed text that is not an amount of dollars in whole cents."""


class Quit(Exception):
    """The person asked to stop: ``q``, end of input (Ctrl-D) or Ctrl-C."""


_AMOUNT = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)$")


def parse_dollars(text: str) -> int:
    """Dollars as typed (``5``, ``5.50``, ``$1,000``) -> integer cents, exactly (no float on the way)."""
    raw = text.strip()
    cleaned = raw.replace("$", "", 1).replace(",", "").replace("_", "").strip()
    if cleaned.startswith("-$"):
        cleaned = "-" + cleaned[2:]
    if not _AMOUNT.match(cleaned):
        raise AmountError(f"{raw!r} is not an amount of dollars (e.g. 5 or 12.50)")
    try:
        cents = Decimal(cleaned) * 100
    except InvalidOperation:  # pragma: no cover - the pattern admits only plain decimals
        raise AmountError(f"{raw!r} is not an amount of dollars") from None
    if cents != cents.to_integral_value():
        raise AmountError(f"{raw} is not a whole number of cents")
    return int(cents)


def parse_seed(text: str) -> int | str:
    """``--seed 7`` is the integer 7; any other text is used as a string seed."""
    t = text.strip()
    return int(t) if re.fullmatch(r"-?\d+", t) else t


def exact_advisor(rnd: Round, seat: int) -> Advisor | None:
    """Exact expected values of every action from the analysis layer's optimal strategy (R-… rulings as
    analysed by ``tablegames analyze``); ``None`` (the documented rule of thumb) if it is not available."""
    try:
        from tablegames.analysis.advice import advisor

        return advisor(rnd, seat)
    except (ImportError, ValueError, OverflowError):
        return None


# --- the game loop -------------------------------------------------------------------------------


class TerminalGame:
    """Rounds at one table, the person at seat ``you``, bots elsewhere, on a Rich console.

    ``read(prompt)`` returns one line typed by the person (raising ``EOFError`` at the end of input);
    by default it reads the terminal with ``Console.input``.
    """

    def __init__(
        self,
        table: Table,
        console: Console,
        default_bet: int,
        read: Callable[[str], str] | None = None,
        you: int = YOU,
    ) -> None:
        if table.bankrolls is None:
            raise ValueError("the terminal game needs a table with bankrolls")
        self.table = table
        self.console = console
        self.you = you
        self.bankrolls: dict[int, int] = table.bankrolls
        self.start = dict(self.bankrolls)
        self.default_bet = default_bet
        self.last_main = default_bet
        self.last_side: dict[str, int | None] = {}
        self.last_flip: str | None = None
        self.rounds_played = 0
        self.quitting = False
        self.hinted = False
        self._read = read if read is not None else self._terminal_read

    # --- input -----------------------------------------------------------------------------------

    def _terminal_read(self, prompt: str) -> str:
        return self.console.input(prompt, markup=False, emoji=False)

    def ask(self, prompt: str) -> str:
        """One line from the person; ``q``/EOF/Ctrl-C raise :class:`Quit`; ``pays`` shows the pay tables and asks
        again."""
        while True:
            try:
                text = self._read(prompt)
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                raise Quit from None
            text = text.strip()
            if text.lower() in QUIT_WORDS:
                raise Quit
            if text.lower() not in PAYS_WORDS:
                return text
            self.show_rule_card()

    def show_rule_card(self) -> None:
        from tablegames.cli.render import rule_card_view
        from tablegames.rules.rulecard import rule_card

        self.say(rule_card_view(rule_card(self.table.definition, self.table.rules)))

    def say(self, *objects: Any, style: str | None = None) -> None:
        self.console.print(*objects, style=style, highlight=False)

    def refuse(self, message: str) -> None:
        from rich.markup import escape

        self.say(f"[bold red]✗[/] {escape(message)}")

    # --- running ---------------------------------------------------------------------------------

    def run(self) -> None:
        """Play rounds until the person quits or cannot afford a wager, then print the summary."""
        from tablegames.engine import Phase

        rules = self.table.rules
        self.say(
            f"[bold]{self.table.definition.title}[/] · {self.table.seats} seat(s): you are seat {self.you}"
            + {1: "", 2: ", a bot at seat 2"}.get(self.table.seats, f", bots at seats 2-{self.table.seats}")
            + f" · rules: {self.table.definition.short_rules(rules.describe())}"
        )
        self.say(
            f"Random source: {self.table.source!r}. Type pays at any prompt for the pay tables and rules, "
            "q (or Ctrl-D) to quit."
        )
        try:
            while True:
                if not self.can_afford(self.you):
                    self.say("You cannot afford another wager.", style="bold")
                    break
                self.play_round()
                if self.quitting:
                    break
        except (Quit, KeyboardInterrupt):
            self.console.print()
        rnd = self.table.current
        if rnd is not None and rnd.phase == Phase.BETTING:
            # Nothing was dealt: the wagers placed so far go back to their seats.
            for seat in rnd.seats.values():
                self.bankrolls[seat.seat] += seat.staked
        self.summary()

    def can_afford(self, seat: int) -> bool:
        return self.bankrolls[seat] >= self.table.definition.main_wager.cost_multiple

    def play_round(self) -> None:
        from tablegames.cli.render import meters_text, money
        from tablegames.engine import Bot

        rnd = self.table.new_round()
        self.console.rule(f"Round {rnd.round_no}")
        meters = f" · meters: {meters_text(self.table.game, self.table.meters)}" if self.table.meters else ""
        self.say(f"Your balance {money(self.bankrolls[self.you])}{meters}")
        self.place_your_wagers(rnd)
        self.place_bot_wagers(rnd)
        start = len(rnd.history)
        rnd.deal()
        self.show_table(rnd)
        shown = self.stream(rnd, start)  # e.g. a Final Count third card the dealer must turn at once
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            if seat == self.you and not self.quitting:
                if len(rnd.history) > shown:
                    shown = self.stream(rnd, shown)
                    self.show_table(rnd)
                try:
                    self.decide(rnd)
                except Quit:
                    self.quitting = True
                    self.say("Quitting: the bot strategy finishes your wagers on the table.", style="bold")
            else:
                action = Bot(exact_advisor(rnd, seat)).choose(rnd, seat)
                rnd.act(seat, action, by="bot")
        self.stream(rnd, shown)
        self.rounds_played += 1
        self.show_results(rnd)

    # --- wagers ----------------------------------------------------------------------------------

    def place_your_wagers(self, rnd: Round) -> None:
        from tablegames.cli.render import money

        main = rnd.main_wager()
        head = self.table.definition.main_wager
        if head.cost_multiple > 1:
            prompt = f"Wager on {head.unit} (costs {head.cost_multiple}×) [{money(self.last_main)}]: "
        else:
            prompt = f"Main wager [{money(self.last_main)}]: "
        cents = self.ask_amount(rnd, prompt, main, self.last_main)
        rnd.place_wager(self.you, main, cents)
        self.last_main = cents
        for spec in rnd.wager_specs():
            if spec.main:
                continue
            if spec.fixed_cents is not None:
                self.ask_fixed(rnd, spec.name, spec.fixed_cents)
            elif spec.needs_option:
                self.ask_option(rnd, spec.name)
            else:
                self.ask_side(rnd, spec.name)

    def ask_amount(self, rnd: Round, prompt: str, wager: str, default: int | None) -> int:
        """Read a wager amount until the engine accepts it (``check_wager``: nothing is placed here)."""
        while True:
            cents = self._checked(rnd, wager, self.ask(prompt), default)
            if cents is not None:
                return cents

    def ask_side(self, rnd: Round, wager: str) -> None:
        from tablegames.cli.render import money, wager_title

        last = self.last_side.get(wager)
        shown = money(last) if last else "none"
        prompt = f"{wager_title(self.table.game, wager)} wager (0 for none) [{shown}]: "
        while True:
            text = self.ask(prompt)
            if (text == "" and not last) or text.lower() in NONE_WORDS:
                self.last_side[wager] = None
                return
            cents = self._checked(rnd, wager, text, last)
            if cents is not None:
                rnd.place_wager(self.you, wager, cents)
                self.last_side[wager] = cents
                return

    def _checked(
        self, rnd: Round, wager: str, text: str, default: int | None, option: str | None = None
    ) -> int | None:
        """The amount typed (or the default on Enter) if the engine would accept the wager, else None after
        saying why (the engine's message; nothing is placed)."""
        from tablegames.engine import IllegalAction

        try:
            cents = default if text == "" and default else parse_dollars(text)
            assert cents is not None
            rnd.check_wager(self.you, wager, cents, option)
        except AmountError as exc:
            self.refuse(str(exc))
            return None
        except IllegalAction as exc:
            self.refuse(self.wager_message(exc, rnd, wager, cents))
            return None
        return cents

    def wager_message(self, exc: Exception, rnd: Round, wager: str, cents: int) -> str:
        """The engine's message: in dollars already, with the balance and the cost (issue 24)."""
        return str(exc)

    def ask_fixed(self, rnd: Round, wager: str, cents: int) -> None:
        from tablegames.cli.render import money, wager_title
        from tablegames.engine import IllegalAction

        last = self.last_side.get(wager) is not None
        prompt = (
            f"{wager_title(self.table.game, wager)} wager of {money(cents)}? (y/n) [{'y' if last else 'n'}]: "
        )
        while True:
            text = self.ask(prompt).lower()
            yes = last if text == "" else text in YES_WORDS
            if not yes and text not in ("", *NONE_WORDS):
                self.refuse(f"answer y or n, not {text!r}")
                continue
            if not yes:
                self.last_side[wager] = None
                return
            try:
                rnd.place_wager(self.you, wager, cents)
            except IllegalAction as exc:
                self.refuse(self.wager_message(exc, rnd, wager, cents))
                self.last_side[wager] = None
                return
            self.last_side[wager] = cents
            return

    def ask_option(self, rnd: Round, wager: str) -> None:
        """A wager placed with an option (the Flip Card outcome): its amount, then the option."""
        from tablegames.cli.render import money
        from tablegames.engine import IllegalAction

        spec = self.table.definition.wager(wager)
        assert spec is not None and spec.option is not None
        choice = spec.option
        last = self.last_side.get(wager)
        shown = money(last) if last else "none"
        while True:
            text = self.ask(f"{spec.title} wager (0 for none) [{shown}]: ")
            if (text == "" and not last) or text.lower() in NONE_WORDS:
                self.last_side[wager] = None
                return
            cents = self._checked(rnd, wager, text, last, choice.default)
            if cents is not None:
                break
        default = self.last_flip
        prompt = (
            f"{spec.title} {choice.name}: {choice.prompt or ', '.join(choice.choices)}"
            + (f" [{default}]" if default else "")
            + ": "
        )
        aliases = dict(choice.aliases)
        while True:
            text = self.ask(prompt).lower()
            option = aliases.get(text, text)
            if option == "" and default:
                option = default
            try:
                rnd.check_wager(self.you, wager, cents, option or None)
            except IllegalAction as exc:
                self.refuse(str(exc))
                continue
            rnd.place_wager(self.you, wager, cents, option)
            self.last_side[wager] = cents
            self.last_flip = option
            return

    def place_bot_wagers(self, rnd: Round) -> None:
        """Bots wager ``--bet`` on the main wager and take the fixed jackpot wager, while they can afford it."""
        from tablegames.engine import IllegalAction

        for seat in range(1, self.table.seats + 1):
            if seat == self.you:
                continue
            try:
                rnd.place_wager(seat, rnd.main_wager(), self.default_bet)
            except IllegalAction:
                self.say(f"Seat {seat} (bot) sits out this round: balance too low.", style="dim")
                continue
            for spec in rnd.wager_specs():
                if spec.fixed_cents is not None:
                    with contextlib.suppress(IllegalAction):
                        rnd.place_wager(seat, spec.name, spec.fixed_cents)

    # --- decisions -------------------------------------------------------------------------------

    def prompt_for(self, rnd: Round) -> str:
        legal = rnd.legal_actions(self.you)
        offered = []
        for d in self.table.definition.decisions:
            n = sum(1 for a in legal if a.name == d.name)
            if n:
                offered.append(d.prompt.format(n=n) or d.name)
        stage = rnd.view(self.you).get("stage")  # a game of several decision stages names them
        head = f"Bet {stage}: " if stage is not None else ""
        return f"{head}{' / '.join(offered)}   (h hint, q quit) > "

    def to_action(self, text: str) -> Action | str:
        """The person's shortcut -> an engine action (cards numbered from 1); anything else as typed."""
        from tablegames.engine import Action

        t = text.lower()
        decisions = self.table.definition.decisions
        short = {d.name[0]: d.name for d in decisions if not d.indexed}
        if t in short:
            return Action(short[t])
        indexed = next((d.name for d in decisions if d.indexed), None)
        m = re.fullmatch(rf"(?:{indexed[0]}|{indexed})?\s*(-?\d+)", t) if indexed else None
        if m and indexed:
            return Action(indexed, int(m.group(1)) - 1)
        return text

    def person_message(self, message: str) -> str:
        """An engine message with card indexes as the person counts them (from 1)."""
        return re.sub(r"discard (-?\d+)", lambda m: f"discard {int(m.group(1)) + 1}", message)

    def decide(self, rnd: Round) -> None:
        from tablegames.engine import IllegalAction

        prompt = self.prompt_for(rnd)
        while True:
            text = self.ask(prompt)
            if text.lower() in ("h", "hint", "?"):
                self.show_hint(rnd)
                continue
            if not text:
                self.refuse("type one of the actions in the prompt (h for a hint, q to quit)")
                continue
            try:
                rnd.act(self.you, self.to_action(text))
            except IllegalAction as exc:
                self.refuse(self.person_message(str(exc)))
                continue
            return

    def show_hint(self, rnd: Round) -> None:
        from tablegames.cli.render import action_words
        from tablegames.engine import Bot

        if not self.hinted and getattr(self.table.definition.load_analyzer(), "slow", False):
            self.say("(working out the exact strategy: a few seconds for the first hint)", style="dim")
        self.hinted = True
        hint = Bot(exact_advisor(rnd, self.you)).hint(rnd, self.you)
        game = self.table.game
        best = self.person_message(str(hint.best))
        if hint.values is None:
            self.say(
                f"Hint: {best} ({action_words(game, str(hint.best))}; the documented strategy)",
                style="bold green",
            )
            return
        self.say(f"Hint: {best} (best by exact expected value, in units of one wager)", style="bold green")
        for action in sorted(hint.values, key=lambda a: -hint.values[a] if hint.values else 0):
            cost = hint.cost(action) or 0.0
            self.say(
                f"  {self.person_message(str(action)):<10} EV {float(hint.values[action]):+.4f}"
                + ("  (best)" if action == hint.best else f"  costs {cost:.4f} of a wager")
            )

    # --- output ----------------------------------------------------------------------------------

    def balances(self) -> dict[int, int]:
        return dict(sorted(self.bankrolls.items()))

    def show_table(self, rnd: Round) -> None:
        from tablegames.cli.render import table_view

        self.say(
            table_view(rnd.view(self.you), rnd.visible_history(self.you), self.balances(), self.table.rules)
        )

    def stream(self, rnd: Round, shown: int) -> int:
        """Print what happened since event ``shown`` (as seat ``you`` may see it); returns the new count."""
        from tablegames.cli.render import event_lines

        events = rnd.visible_history(self.you)
        wild = rnd.view(self.you).get("wild_cards") or ()
        for line in event_lines(self.table.game, events, shown, self.you, wild):
            self.say(line)
        return len(events)

    def show_results(self, rnd: Round) -> None:
        from tablegames.cli.render import results_view, table_view

        events = rnd.visible_history(self.you)  # settled: every card is visible now
        self.say(table_view(rnd.view(self.you), events, self.balances(), self.table.rules))
        self.say(results_view(self.table.game, events, self.balances(), self.you))

    def summary(self) -> None:
        from rich.table import Table as RichTable

        from tablegames.cli.render import meters_text, money, signed

        self.console.rule("Summary")
        you = self.you
        net = self.bankrolls[you] - self.start[you]
        self.say(f"Rounds played: {self.rounds_played}")
        self.say(f"Your net result: {signed(net)}")
        grid = RichTable.grid(padding=(0, 1))  # words and amounts in columns of their own (issue 24)
        for justify in ("left", "left", "right", "left", "right"):
            grid.add_column(justify=justify)
        for seat, balance in self.balances().items():
            name = f"Seat {seat} (you)" if seat == you else f"Seat {seat} (bot)"
            grid.add_row(name, " balance", money(balance), " net", signed(balance - self.start[seat]))
        self.say(grid)
        if self.table.meters:
            self.say("Jackpot meters: " + meters_text(self.table.game, self.table.meters))
        self.say(f"Final balance seat {you}: {money(self.bankrolls[you])}", style="bold")


# --- the command ---------------------------------------------------------------------------------


def play(
    game: str | None = typer.Argument(
        None, help=f"{games_help()} (optional with --game-file)", show_default=False
    ),
    seats: int = typer.Option(2, "--seats", "-n", help="seats at the table, 1-7: you at seat 1, bots after"),
    seed: str | None = typer.Option(
        None, "--seed", help="replay seed (same seed, same cards); default: live OS random"
    ),
    bankroll: str = typer.Option(
        DEFAULT_BANKROLL, "--bankroll", help="starting balance of every seat, in dollars"
    ),
    bet: str = typer.Option(
        DEFAULT_BET, "--bet", help="first default main wager and the bots' wager, in dollars"
    ),
    rule: list[str] | None = typer.Option(None, "--rule", help="a rule variant NAME=VALUE (repeatable)"),
    paytable: str | None = typer.Option(None, "--paytable", help="a pay-table preset name or TOML file"),
    game_file: str | None = typer.Option(
        None, "--game-file", help="a game file (TOML): the game and its complete rule set; --rule on top"
    ),
) -> None:
    """Play a game in the terminal: you at seat 1, bots at the other seats."""
    from rich.console import Console

    from tablegames.cli.common import fail, rule_set_line, rules_and_name
    from tablegames.engine import MAX_SEATS, Table
    from tablegames.randomness import LiveRandom, RandomSource, SeededRandom

    rules, name = rules_and_name(game, rule, paytable, game_file)
    if not 1 <= seats <= MAX_SEATS:
        fail(f"--seats must be 1-{MAX_SEATS}, got {seats}")
    try:
        bank = parse_dollars(bankroll)
        default_bet = parse_dollars(bet)
    except AmountError as exc:
        fail(str(exc))
    if bank <= 0:
        fail(f"--bankroll must be positive, got {bankroll}")
    if default_bet <= 0:
        fail(f"--bet must be positive, got {bet}")
    source: RandomSource = SeededRandom(parse_seed(seed)) if seed is not None else LiveRandom()
    table = Table(rules, seats=seats, source=source, bankrolls={s: bank for s in range(1, seats + 1)})
    console = Console(highlight=False)
    if name:
        console.print(rule_set_line(rules.game, name), style="bold")
    TerminalGame(table, console, default_bet).run()


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("play")(play)
