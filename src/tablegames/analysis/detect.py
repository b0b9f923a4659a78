"""Catching advantage play (issue 27): every decision scored against the cards the player should not have seen.

**Scoring.** A game's :class:`Scorer` for one exposure scenario of its ``protect`` list takes a decision at a
live (or replayed) engine round: the exact value of each legal action under the legal information (the exact
advisor), the exact value of each under the exposure (the hidden cards as they lie), and ``p``: the exact
probability, over the hidden cards the player could not see, that the chosen action is the informed player's
choice (:class:`DecisionScore`). A decision is *evidence* when the chosen action is a mistake under the legal
information (it gives up expected value) but the informed player's choice under the exposure.

**The test** (one per player and scenario). Under the null hypothesis (an honest player, with or without random
mistakes), the player's action depends on the legal information only, and the hidden cards are, given that
information and everything before the round, uniformly distributed over the cards the player has not seen
(R-0.1: a complete shuffle before every round). Only the first mistake of a hand updates a test (a hand's
decisions may share the hidden cards). So at every *mistake* the indicator "the hidden cards support
it" is exactly Bernoulli(``p``) given the past, whatever the player's mistakes are: random mistakes are not
evidence, only mistakes that keep agreeing with the hidden cards are. Decisions that are not mistakes carry no
evidence and leave the test unchanged.

For each ``lam`` of :data:`LAMBDAS` the product over the player's mistakes of ``(p + lam (1 - p)) / p`` when
supported, ``1 - lam`` when not, is a nonnegative martingale of mean 1 under the null (a likelihood ratio
against the alternative "supported with probability ``p + lam (1 - p)``"); their average ``M`` is one too. By
Ville's inequality P(M ever reaches 1/a) <= a, however many hands are played and whenever one looks, so
flagging at ``M >= scenarios / alpha`` has a false-positive rate of at most ``alpha`` per player-test after the
Bonferroni correction over the scenarios tested (the convention: conservative, never exceeded; the null
distribution of each step is exact, the bound on the whole sequence is Ville's).

>>> t = SequentialTest(alpha=1e-6, scenarios=1)
>>> for _ in range(12):
...     t.update(Fraction(1, 4), True, hand=1)
>>> t.flagged, round(t.log_evidence, 2) > round(t.log_threshold, 2)
(True, True)
>>> honest = SequentialTest(alpha=1e-6, scenarios=1)
>>> for k in range(200):
...     honest.update(Fraction(1, 4), k % 4 == 0, hand=k)
>>> honest.flagged
False
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Protocol

from tablegames.engine import Action, Round
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError

DEFAULT_ALPHA = 1e-6
LAMBDAS = (0.5, 0.8, 0.95, 0.99)
"""The alternatives mixed by the test: an informed mistake is supported with probability ``p + lam (1 - p)``."""
_MISSES = [math.log(1 - lam) for lam in LAMBDAS]
"""Each martingale's log step at an unsupported mistake."""
_STEPS: dict[float, list[float]] = {}
"""Each martingale's log step at a supported mistake, by ``p`` (the same floats as computed afresh)."""


@dataclass(frozen=True)
class DecisionScore:
    """One decision scored under one scenario (values per unit of the main wager)."""

    action: Action
    legal: Mapping[Action, Fraction | float]  # each legal action's exact value under the legal information
    exposed: Mapping[Action, Fraction | float]  # ... under the exposure, the hidden cards as they lie
    legal_best: Action
    informed_best: Action
    support: Mapping[Action, Fraction]  # P(each action is the informed choice) over the hidden cards

    @property
    def p(self) -> Fraction:
        """The null probability that the chosen action is the informed choice."""
        return self.support.get(self.action, Fraction(0))

    def chose(self, action: Action) -> DecisionScore:
        """The same decision with another action chosen."""
        return replace(self, action=action)

    @property
    def cost(self) -> float:
        """What the chosen action gives up under the legal information (0: not a mistake)."""
        return float(self.legal[self.legal_best] - self.legal[self.action])

    @property
    def mistake(self) -> bool:
        return self.legal[self.action] < self.legal[self.legal_best]

    @property
    def supported(self) -> bool:
        """The chosen action is what the informed player does."""
        return self.action == self.informed_best

    @property
    def gain(self) -> float:
        """What the chosen action gains under the exposure over the legally best one."""
        return float(self.exposed[self.action] - self.exposed[self.legal_best])

    @property
    def evidence(self) -> bool:
        """A mistake under the legal information that is right under the exposure."""
        return self.mistake and self.supported


class Scorer(Protocol):
    """Scores ``seat``'s decision ``action`` at ``rnd`` (the round just before the action) for one scenario."""

    scenario: str

    def score(self, rnd: Round, seat: int, action: Action) -> DecisionScore: ...

    def score_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> DecisionScore:
        """A recorded decision from the dealt cards by owner (``"seat N"``, ``"dealer"``), in deal order, and
        the seat's earlier actions in the round."""
        ...

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool:
        """Whether the recorded decision is a mistake under the legal information (fast: most are not, and
        they need no exposure)."""
        ...

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """A key of what :meth:`mistake_dealt` reads: equal keys, equal answers (the offline path caches by it;
        the same for every scenario of the game)."""
        ...

    def score_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """A key of what :meth:`score_dealt` reads under this scenario: equal keys, equal scores."""
        ...


class PairScorer(Protocol):
    """Collusion (``share=K``): :class:`Scorer`'s methods with the seat whose cards the player is suspected to
    see (``partner``): the exposure is the partner's cards, ``p`` is over the partner's possible hands given
    the player's own information. A caller scores only decisions taken before the partner's first decision of
    the round (a public decision tells about the partner's cards: ``p`` would not be the null's)."""

    scenario: str

    def score(self, rnd: Round, seat: int, action: Action, *, partner: int) -> DecisionScore: ...

    def score_dealt(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> DecisionScore: ...

    def score_key(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> Hashable: ...

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool: ...

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable: ...


@dataclass
class SequentialTest:
    """The test of one player under one scenario (see the module): a mixture of likelihood-ratio martingales,
    flagged once it reaches ``scenarios / alpha``."""

    alpha: float = DEFAULT_ALPHA
    scenarios: int = 1
    logs: list[float] = field(default_factory=lambda: [0.0] * len(LAMBDAS))
    hands: int = 0
    mistakes: int = 0
    supported: int = 0
    flagged_at: int | None = None
    evidence: list[Any] = field(default_factory=list)
    _hand: Any = field(default=None, repr=False)
    _updated: bool = field(default=False, repr=False)

    @property
    def log_threshold(self) -> float:
        return math.log(self.scenarios / self.alpha)

    @property
    def log_evidence(self) -> float:
        """log M: the log of the mean of the martingales."""
        top = max(self.logs)
        return top + math.log(sum(math.exp(x - top) for x in self.logs) / len(self.logs))

    @property
    def flagged(self) -> bool:
        return self.flagged_at is not None

    def count_hand(self) -> None:
        self.hands += 1

    def update(self, p: Fraction | float, supported: bool, hand: Any = None) -> None:
        """One mistake: supported by the hidden cards or not, ``p`` the null probability that it is."""
        self.mistakes += 1
        pf = float(p)
        if pf <= 0.0 or pf >= 1.0:
            return  # certain under the null either way: no information
        if supported:
            self.supported += 1
            if len(self.evidence) < 50:
                self.evidence.append(hand)
            step = _STEPS.get(pf)
            if step is None:
                if len(_STEPS) >= 100_000:
                    _STEPS.clear()
                step = _STEPS[pf] = [math.log((pf + lam * (1 - pf)) / pf) for lam in LAMBDAS]
        else:
            step = _MISSES
        self.logs = [x + d for x, d in zip(self.logs, step, strict=True)]
        # log M <= the largest log (a mean of terms exp(x - top) <= 1, in floating point too): below the
        # threshold, it need not be computed
        threshold = self.log_threshold
        if self.flagged_at is None and max(self.logs) >= threshold and self.log_evidence >= threshold:
            self.flagged_at = self.hands

    def enter(self, hand: Any) -> None:
        """A decision of ``hand``: a new hand is counted (a decision known not to be a mistake needs no
        more: it leaves the test unchanged)."""
        if hand is None or hand != self._hand:
            self.count_hand()
            self._hand, self._updated = hand, False

    def enter_many(self, n: int, hand: Any) -> None:
        """``n`` new hands entered with no mistake (as many :meth:`enter` calls, each of a hand other than the
        one before), the last of them ``hand``."""
        if n:
            self.hands += n
            self._hand, self._updated = hand, False

    def observe(self, score: DecisionScore, hand: Any = None) -> None:
        """One decision of the player in ``hand`` (a round id): a new hand is counted; the first mistake of a
        hand updates the test, later ones in the same hand do not (a hand's decisions may share the hidden
        cards, and an earlier supported mistake tells about them: the step would not be Bernoulli(p) given the
        past). ``hand`` None: every decision is its own hand."""
        self.observe_values(score.mistake, score.p, score.supported, hand)

    def observe_values(self, mistake: bool, p: Fraction | float, supported: bool, hand: Any = None) -> None:
        """:meth:`observe` from a score's ``mistake``, ``p`` and ``supported`` (the offline path caches them)."""
        self.enter(hand)
        if mistake and not self._updated:
            self._updated = hand is not None
            self.update(p, supported, hand)


class LegalMistakes:
    """A pair scorer's mistake check: a mistake under the legal information does not depend on the partner,
    so it is the game's own scorer's (``legal``, set by the pair scorer)."""

    legal: Any

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool:
        return bool(self.legal.mistake_dealt(dealt, seat, action, prior))

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        key: Hashable = self.legal.mistake_key(dealt, seat, action, prior)
        return key


class Lazy(Mapping[Action, Fraction]):
    """A support computed when first read (most decisions are not mistakes and need no ``p``)."""

    def __init__(self, make: Callable[[], dict[Action, Fraction]]) -> None:
        self._make = make
        self._value: dict[Action, Fraction] | None = None

    def _get(self) -> dict[Action, Fraction]:
        if self._value is None:
            self._value = self._make()
        return self._value

    def __getitem__(self, key: Action) -> Fraction:
        return self._get()[key]

    def __iter__(self) -> Iterator[Action]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def _scorer_module(key: str) -> str:
    """A game's scorer is its analyzer's own part ``analysis/<stem>_detect.py`` (a game's files name it)."""
    return f"tablegames.analysis.{key.replace('-', '_')}_detect"


_SCORERS = {
    d.key: _scorer_module(d.key)
    for d in registry.DEFINITIONS
    if importlib.util.find_spec(_scorer_module(d.key)) is not None
}
COVERED = tuple(_SCORERS)
"""The games whose decisions are scored (the others' scenarios are left to do, docs/detection.md)."""


def scenarios(rules: GameRules) -> list[str]:
    """The scenarios this game's decisions can be scored under."""
    module = _module(rules)
    return [] if module is None else list(module.SCENARIOS)


def _module(rules: GameRules) -> Any:
    name = _SCORERS.get(registry.of(rules).key)
    return None if name is None else importlib.import_module(name)


def scorer(rules: GameRules, scenario: str) -> Scorer:
    """The scorer of a game's scenario (RuleError when the game or scenario has none yet)."""
    module = _module(rules)
    if module is None:
        raise RuleError(f"{rules.game} has no detection scorer yet (covered: {', '.join(_SCORERS)})")
    if scenario not in module.SCENARIOS:
        raise RuleError(
            f"unknown scenario {scenario!r} for {rules.game}; choose {', '.join(module.SCENARIOS)}"
        )
    found: Scorer = module.scorer(rules, scenario)
    return found


def pair_scenarios(rules: GameRules) -> list[str]:
    """The collusion scenarios (``share=K``) this game's decisions can be scored under (its detect module's
    ``PAIR_SCENARIOS``)."""
    module = _module(rules)
    return [] if module is None else list(getattr(module, "PAIR_SCENARIOS", ()))


def pair_scorer(rules: GameRules, scenario: str) -> PairScorer:
    """The pair scorer of a game's collusion scenario (RuleError when it has none)."""
    names = pair_scenarios(rules)
    if scenario not in names:
        raise RuleError(
            f"no collusion scorer {scenario!r} for {rules.game} (has: {', '.join(names) or 'none'})"
        )
    found: PairScorer = _module(rules).pair_scorer(rules, scenario)
    return found
