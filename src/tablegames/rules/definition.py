"""What a game is, as data: the :class:`GameDefinition` each rules module declares once.

Every layer reads a game from its definition (looked up in :mod:`tablegames.rules.registry`) instead of
switching on the game's name: its rules type and variant options, its wagers (main or side, fixed or free
amount, cost multiple, option choices, the wager a side bet requires), its meters, its decisions and their
labels, the timeout default, the rule of thumb, how to describe a hand (and count it), its flow (the steps of
a round, :mod:`tablegames.rules.flow`, which the engine's one generic round runs), and, by import path (this
layer must not import the layers above), the exact analyzer, the simulation kernel adapter and the felt layout.

>>> m = Meter("mega", 5_000_000, Fraction(1, 10), "Mega")
>>> m.contribution(100)
10
>>> Meter("bad", -1, Fraction(0))
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: meter bad: reset must be >= 0 cents
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from tablegames.rules.common import RuleError, cents_for_share

if TYPE_CHECKING:
    from tablegames.rules.flow import GameFlow
    from tablegames.rules.parameters import Parameter


class GameRules(Protocol):
    """What every game's rules object (the frozen ``*Rules`` dataclass of its rules module) offers: its game's
    key, and its options as ``--rule`` text. The rest is the game's own; its definition knows the type."""

    @property
    def game(self) -> str: ...

    def describe(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class Meter:
    """A jackpot meter: its name, reset value, the share of every feeding wager added to it, and its title.

    The one meter type of every layer (rules, engine, simulation): a table's current values are plain
    ``{name: cents}`` dicts beside it.
    """

    name: str
    reset_cents: int
    share: Fraction
    title: str = ""
    #: the game's big prize (a page draws it larger); a drawing hint, not part of the meter's value
    big: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if self.reset_cents < 0:
            raise RuleError(f"meter {self.name}: reset must be >= 0 cents")
        if not 0 <= self.share < 1:
            raise RuleError(f"meter {self.name}: share must be in [0, 1)")

    def contribution(self, wager_cents: int) -> int:
        """Whole cents a wager of ``wager_cents`` adds to the meter (rounded down)."""
        return cents_for_share(wager_cents, self.share)


@dataclass(frozen=True)
class RuleOption:
    """One ``--rule NAME=VALUE`` variant: its name, its choices (the first is the default) and what it does."""

    name: str
    choices: tuple[str, ...]
    help: str = ""

    @property
    def default(self) -> str:
        return self.choices[0]


@dataclass(frozen=True)
class WagerOption:
    """The option a wager is placed with (the Flip Card outcome): named choices, and the parser that turns a
    text into its canonical form or raises a :class:`RuleError` naming the problem."""

    name: str
    choices: tuple[str, ...]
    parse: Callable[[str], str]
    help: str = ""
    default: str = ""  # what a simulation plays when none is named
    prompt: str = ""  # the choices as a terminal prompt offers them, with their shortcuts
    aliases: tuple[tuple[str, str], ...] = ()  # shortcut -> choice


@dataclass(frozen=True)
class Wager:
    """A wager a seat may place.

    ``cost_multiple``: the amount is taken this many times from the balance (Let It Ride's three equal bets);
    ``fixed``: the fixed amount in cents, from the rules (None: the player chooses it); ``requires``: the wager
    a side bet needs first (None for the main wager); ``feeds``: the meters this wager contributes to.
    """

    name: str
    title: str
    main: bool = False
    cost_multiple: int = 1
    fixed: Callable[[Any], int] | None = None
    option: WagerOption | None = None
    requires: str | None = None
    feeds: bool = False
    unit: str = ""  # what one amount of a multi-bet wager is, in words ("each of bets 1, 2 and $")
    parts: tuple[str, ...] = ()  # the equal bets a multi-bet wager is made of, settled with ``part=``
    #: (name, title) of each equal stake set aside with this wager and settled under its own name (Three
    #: Card Poker's Play beside the Ante, R-TCP-2): drawn as a part of the wager, up once the view says so
    companions: tuple[tuple[str, str], ...] = ()
    short: str = ""  # a shorter title where room is tight (the terminal's wager line); "": the title

    def fixed_cents(self, rules: Any) -> int | None:
        return None if self.fixed is None else self.fixed(rules)

    def cost(self, amount_cents: int) -> int:
        return self.cost_multiple * amount_cents


@dataclass(frozen=True)
class Decision:
    """A decision a seat can take: the action name, whether it takes a card index, and its label (a person's
    words; ``{n}`` is the card counted from 1)."""

    name: str
    label: str
    indexed: bool = False
    prompt: str = ""  # how a terminal prompt offers it, its shortcut in brackets ("[r]ide")
    cautious: bool = False  # preferred on an exact tie of expected value (pull / stand / don't draw)


class DecisionContext:
    """Base of the typed decision contexts (one frozen dataclass per game): what a bot or a hint may know
    of one seat's decision. ``game`` is the key of the game it belongs to."""

    game: ClassVar[str] = ""


@dataclass(frozen=True)
class GameDefinition:
    """One game, declared once in its rules module and registered in :mod:`tablegames.rules.registry`."""

    key: str
    title: str
    tagline: str
    rules_type: Any  # the frozen ``*Rules`` dataclass, with ``from_options(options, paytable)``
    rule_options: tuple[RuleOption, ...]  # the choice parameters, as GET /games and --help list them
    paytables: tuple[str, ...]  # named ``--paytable`` presets (besides a TOML file)
    wagers: tuple[Wager, ...]
    meters: Callable[[Any], tuple[Meter, ...]]  # rules -> the table's meters
    decisions: tuple[Decision, ...]
    default_action: str  # what the server's timeout plays for a seat that does not decide
    context_type: type[DecisionContext]
    rule_of_thumb: Callable[[Any], str]  # decision context -> action text (the documented strategy)
    describe_hand: Callable[[Any, Sequence[int | None]], str]  # rules, cards (None: unseen) -> words or ""
    flow: Callable[[Any], GameFlow]  # rules -> the game's steps for one round (``rules.flow.GameFlow``)
    analyzer: str | None = None  # "module:attr" of the exact analyzer (an ``analysis.api.Analyzer``)
    protection: str | None = (
        None  # "module:attr" of the exposure scenarios (an ``analysis.protect.GameProtection``)
    )
    kernel: str | None = None  # "module:attr" of the simulation kernel adapter
    felt: str | None = None  # the page's felt layout module, under ``server/static/js`` (may not exist yet)
    terminal: str | None = None  # "module:attr" of the terminal's felt (``cli.felts.TerminalFelt``)
    hand_total: Callable[[Any, Sequence[int | None]], int | None] | None = None  # rules, cards -> a count
    parameters: tuple[Parameter, ...] = ()  # every number and choice of the rules (rules.parameters)
    # decision context, action -> a key; among actions of exactly equal value and caution the one of the
    # highest key is taken (One Eyed Flush: which card to discard). None: the lower card index.
    tie_break: Callable[[Any, Any], tuple[int, ...]] | None = None
    rulings: Mapping[str, str] = field(default_factory=dict)  # the game's RULES.md rulings: id -> text
    #: the title of a neighbour bonus: a payment to a seat for another seat's hand (engine event
    #: ``envy_paid``, an older name). None: the game pays none
    neighbour_bonus: str | None = None

    def __post_init__(self) -> None:
        mains = [w for w in self.wagers if w.main]
        if len(mains) != 1:
            raise RuleError(f"{self.key}: a game has exactly one main wager, got {len(mains)}")
        names = {w.name for w in self.wagers}
        for w in self.wagers:
            if w.requires is not None and w.requires not in names:
                raise RuleError(f"{self.key}: the {w.name} wager requires unknown wager {w.requires!r}")
        if self.default_action not in {d.name for d in self.decisions}:
            raise RuleError(f"{self.key}: the default action {self.default_action!r} is not a decision")

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def main_wager(self) -> Wager:
        return next(w for w in self.wagers if w.main)

    def wager(self, name: str) -> Wager | None:
        return next((w for w in self.wagers if w.name == name), None)

    def decision(self, name: str) -> Decision | None:
        return next((d for d in self.decisions if d.name == name), None)

    @property
    def side_bets(self) -> tuple[Wager, ...]:
        return tuple(w for w in self.wagers if not w.main)

    def make_rules(self, options: Mapping[str, str] | None = None, paytable: str | None = None) -> Any:
        return self.rules_type.from_options(options, paytable)

    def parameter(self, name: str) -> Parameter:
        """The parameter called ``name``; a RuleError listing the known ones otherwise."""
        from tablegames.rules.parameters import find

        return find(self.parameters, name)

    def rule_set(self, rules: Any) -> dict[str, str]:
        """The complete rule set of ``rules``: every listed parameter's value as text (what a game file and
        a table's record hold); ``make_rules(rule_set(r)) == r``."""
        from tablegames.rules.parameters import describe_values

        return describe_values(self.parameters, rules)

    def changes(self, values: Mapping[str, str]) -> dict[str, str]:
        """The entries of a rule set (``rule_set`` text) that differ from RULES.md's defaults: what a short
        title shows ("" for the default rules)."""
        base = self.rule_set(self.make_rules())
        return {k: v for k, v in values.items() if base.get(k) != v}

    def short_rules(self, values: Mapping[str, str]) -> str:
        """``"value.K=3, tie=win"``, or ``"RULES.md rules"`` when nothing differs from the defaults."""
        changed = self.changes(values)
        return ", ".join(f"{k}={v}" for k, v in changed.items()) or "RULES.md rules"

    def new_flow(self, rules: Any) -> GameFlow:
        """The game's steps for one new round at a table with these rules."""
        return self.flow(rules)

    def total(self, rules: Any, cards: Sequence[int | None]) -> int | None:
        """The game's count of ``cards`` (None: the game has none, or no card is seen)."""
        return None if self.hand_total is None else self.hand_total(rules, cards)

    def load_analyzer(self) -> Any:
        """The exact analyzer, or None when the game has none."""
        return None if self.analyzer is None else load(self.analyzer)

    def load_protection(self) -> Any:
        """The game-protection scenarios, or None when the game has none."""
        return None if self.protection is None else load(self.protection)

    def load_kernel(self) -> Any:
        """The simulation kernel adapter, or None when the game has none."""
        return None if self.kernel is None else load(self.kernel)


def load(path: str) -> Any:
    """The object at ``"package.module:attr"`` (an import path kept as text by the rules layer)."""
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


class UnknownGameError(RuleError):
    """A game key that is not registered; the message lists the known games."""

    code = "unknown_game"

    def __init__(self, key: object, known: Sequence[str]) -> None:
        self.key = key
        self.known = tuple(known)
        super().__init__(f"unknown game {key!r}; choose {', '.join(self.known)}")
