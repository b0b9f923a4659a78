"""Tune several parameters of a rule set at once to a target house edge (issue 15), generic over the registry.

The parameters come from the game's definition (``GameDefinition.parameters``): payouts (``odds``), amounts
(``money``) and whole numbers (``int``) are searched, choices and structural whole numbers (``bust-limit``)
are enumerated over their (bounded) range. The search:

1. every combination of the enumerated values is solved exactly (while there are at most
   ``max_combinations`` of them; beyond that the widest structural numbers are searched like payouts);
2. from the ``beam`` combinations closest to the target, the exact sensitivity of the edge to each searched
   parameter is measured by finite differences (one re-solve per parameter, exact Fractions), and a linear
   model proposes whole-number changes of one, two, three or all of them that bring the edge to the target;
3. each proposal that keeps the pay tables monotone in hand rank (``Parameter.rank`` within one ``group``:
   a higher hand never pays less than a lower one that paid no more before), the bounds and the constraints
   is re-solved exactly (the optimal strategy changes with the payouts) and corrected by its finest
   parameter (secant steps) until it stops getting closer;
4. a searched whole number with a narrow range (at most ``NARROW`` values: card values, thresholds, whose
   effect is far from linear) is then tried value by value from the three best candidates (coordinate
   descent, the other narrow numbers too), and the payouts searched again from there;
5. the candidates within ``tolerance`` of the target (0.05 point) come first, the smallest change first
   (the sum of |ln((new+1)/(old+1))| over the numbers changed, 1 for a choice), then the others by
   |edge - target|.

Constraints are ``NAME<=N``, ``NAME>=N``, ``NAME<N``, ``NAME>N``, ``NAME=N``, ``NAME!=N`` and the same
between two parameters (``A<=B``).

>>> from dataclasses import dataclass
>>> from tablegames.analysis.figures import Figures
>>> from tablegames.rules.parameters import integer
>>> @dataclass(frozen=True)
... class Toy:
...     pays: int = 1
>>> params = (integer("pays", "pays", 0, 50, "a win pays X to 1", structural=False),)
>>> def toy(r: Toy) -> Figures:  # the edge falls 3/100 a unit of payout
...     edge = Fraction(20, 100) - Fraction(3, 100) * r.pays
...     return Figures(edge, edge, Fraction(1, 3), 1.0)
>>> best = tune_parameters(Toy(), Fraction(5, 100), ["pays"], parameters=params, evaluate=toy).best
>>> best.rules.pays, best.figures.house_edge, best.changes
(5, Fraction(1, 20), {'pays': ('1', '5')})
>>> parse_constraint("pays<=4", params).holds(Toy(5))
False
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tablegames.analysis.figures import Evaluate, Figures, evaluator
from tablegames.rules import registry
from tablegames.rules.common import RuleError
from tablegames.rules.parameters import Parameter, describe_values, find

NUMERIC = ("int", "money", "odds")
MAX_VALUES = 200  # values of one enumerated parameter
NARROW = 32  # a searched whole number with at most this many values is also tried value by value
Progress = Callable[[int, int], None]  # (evaluations done, estimated total)


# --- constraints ------------------------------------------------------------------------------------------

_OP = re.compile(r"\s*(<=|>=|!=|==|<|>|=)\s*")


def number(p: Parameter, rules: Any) -> int | Fraction:
    """A numeric parameter's value (a losing pay-table entry counts as -1, below every payout)."""
    v = p.get(rules)
    return -1 if v is None else v


@dataclass(frozen=True)
class Constraint:
    """``left op right``: ``right`` is a parameter or a value (parsed by ``left``)."""

    text: str
    left: Parameter
    op: str
    right: Parameter | None = None
    value: Any = None

    def _side(self, p: Parameter, rules: Any) -> Any:
        return number(p, rules) if p.kind in (*NUMERIC, "fraction") else p.value(rules)

    def holds(self, rules: Any) -> bool:
        a = self._side(self.left, rules)
        if self.right is not None:
            b = self._side(self.right, rules)
        elif self.left.kind in (*NUMERIC, "fraction"):
            b = -1 if self.value is None else self.value
        else:
            b = self.value
        op = self.op
        if op in ("=", "=="):
            return bool(a == b)
        if op == "!=":
            return bool(a != b)
        return bool({"<=": a <= b, ">=": a >= b, "<": a < b, ">": a > b}[op])

    def bounds(self) -> tuple[int | None, int | None]:
        """(low, high) this constraint puts on ``left`` when ``right`` is a whole number."""
        if self.right is not None or not isinstance(self.value, int):
            return None, None
        v = self.value
        return {
            "<=": (None, v),
            "<": (None, v - 1),
            ">=": (v, None),
            ">": (v + 1, None),
            "=": (v, v),
            "==": (v, v),
        }.get(self.op, (None, None))


def parse_constraint(text: str, parameters: Sequence[Parameter]) -> Constraint:
    """``bust-limit<=16``, ``main.flush>=5``, ``main.straight<=main.flush``: a RuleError naming the problem."""
    parts = _OP.split(text.strip(), maxsplit=1)
    if len(parts) != 3 or not parts[0] or not parts[2]:
        raise RuleError(
            f"constraint {text!r} must look like NAME<=N, NAME>=N, NAME=N, NAME!=N or A<=B (also <, >)"
        )
    name, op, right = parts
    left = find(parameters, name)
    numeric = left.kind in (*NUMERIC, "fraction")
    if not numeric and op not in ("=", "==", "!="):
        raise RuleError(f"constraint {text!r}: {name} is a {left.kind}; only = and != apply to it")
    other = next((p for p in parameters if p.name == right), None)
    if other is not None:
        if (other.kind in (*NUMERIC, "fraction")) != numeric:
            raise RuleError(f"constraint {text!r}: {name} and {right} cannot be compared")
        return Constraint(text, left, op, right=other)
    value = left.parse(right)
    if not numeric and not isinstance(value, str):
        value = left.show(value)
    return Constraint(text, left, op, value=value)


# --- results ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A tuned rule set: its rules, figures, and the values changed from the starting rules (old, new)."""

    rules: Any
    figures: Figures
    changes: dict[str, tuple[str, str]]
    size: float = 0.0  # how far the rules moved: |ln((new+1)/(old+1))| a number, 1 a choice, summed

    def distance(self, target: Fraction) -> Fraction:
        return abs(self.figures.house_edge - target)

    def rank(self, target: Fraction, tolerance: Fraction) -> tuple[Any, ...]:
        """Within ``tolerance`` of the target, the smallest change first; beyond it, the nearest."""
        near = self.distance(target) <= tolerance
        return (not near, self.size if near else 0.0, self.distance(target), len(self.changes))


@dataclass
class TuneReport:
    target: Fraction
    base: Figures
    candidates: list[Candidate]
    solve: tuple[str, ...]
    constraints: tuple[str, ...]
    evaluations: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def best(self) -> Candidate:
        if not self.candidates:
            raise RuleError("no rule set satisfies the bounds and constraints")
        return self.candidates[0]


# --- the search -------------------------------------------------------------------------------------------


def _enumerable(p: Parameter) -> bool:
    return p.kind in ("choice", "preset") or (p.kind == "int" and p.structural)


def _searchable(p: Parameter) -> bool:
    return p.kind in NUMERIC


class _Tuner:
    def __init__(
        self,
        base: Any,
        parameters: Sequence[Parameter],
        evaluate: Evaluate,
        target: Fraction,
        constraints: Sequence[Constraint],
        progress: Progress | None,
    ) -> None:
        self.base, self.parameters, self.evaluate = base, tuple(parameters), evaluate
        self.target, self.constraints, self.progress = target, tuple(constraints), progress
        self.tolerance = Fraction(1, 2000)
        self.cache: dict[tuple[str, ...], Figures | None] = {}
        self.evaluations = 0
        self.estimate = 1
        self.pairs = self._monotone_pairs()

    def key(self, rules: Any) -> tuple[str, ...]:
        return tuple(describe_values(self.parameters, rules).values())

    def figures(self, rules: Any) -> Figures | None:
        """The exact figures of ``rules`` (None: rules the analysis refuses), cached."""
        k = self.key(rules)
        if k not in self.cache:
            try:
                self.cache[k] = self.evaluate(rules)
            except RuleError:
                self.cache[k] = None
            self.evaluations += 1
            self.estimate = max(self.estimate, self.evaluations)
            if self.progress is not None:
                self.progress(self.evaluations, self.estimate)
        return self.cache[k]

    def _monotone_pairs(self) -> list[tuple[Parameter, Parameter]]:
        """(lower hand, higher hand) entries of one pay table that are in order now and must stay so."""
        out = []
        odds = [p for p in self.parameters if p.kind == "odds"]
        for a, b in itertools.combinations(odds, 2):
            if a.group != b.group or a.rank == b.rank:
                continue
            lo, hi = (a, b) if a.rank < b.rank else (b, a)
            if number(lo, self.base) <= number(hi, self.base):
                out.append((lo, hi))
        return out

    def allowed(self, rules: Any) -> bool:
        return all(number(lo, rules) <= number(hi, rules) for lo, hi in self.pairs) and all(
            c.holds(rules) for c in self.constraints
        )

    def candidate(self, rules: Any, figures: Figures) -> Candidate:
        old = describe_values(self.parameters, self.base)
        new = describe_values(self.parameters, rules)
        kinds = {p.name: p.kind for p in self.parameters}
        changes = {k: (old[k], v) for k, v in new.items() if old.get(k) != v and kinds[k] != "text"}
        size = 0.0
        for p in self.parameters:
            if p.name not in changes:
                continue
            if p.kind in NUMERIC:
                a, b = (max(float(number(p, r)), 0.0) for r in (self.base, rules))
                size += abs(math.log((b + 1.0) / (a + 1.0)))
            else:
                size += 1.0
        return Candidate(rules, figures, changes, size)

    # --- searched parameters: sensitivity, a linear model, exact re-solves ----------------------------

    def domain(self, p: Parameter, start: Any) -> tuple[int, int]:
        lo = int(p.low) if p.low is not None else 0
        hi = int(p.high) if p.high is not None else 10**12
        if p.kind == "odds" and p.get(start) is None:
            lo = -1  # a losing entry may stay losing
        for c in self.constraints:
            if c.left is p:
                clo, chi = c.bounds()
                lo = lo if clo is None else max(lo, clo)
                hi = hi if chi is None else min(hi, chi)
        return lo, hi

    @staticmethod
    def put(p: Parameter, rules: Any, v: int) -> Any:
        return p.put(rules, None if p.kind == "odds" and v < 0 else v)

    def build(self, start: Any, params: Sequence[Parameter], values: Sequence[int]) -> Any | None:
        rules = start
        try:
            for p, v in zip(params, values, strict=True):
                rules = self.put(p, rules, v)
        except RuleError:
            return None
        return rules

    def search(self, start: Any, f0: Figures, params: Sequence[Parameter], proposals: int) -> list[Candidate]:
        x0 = [int(number(p, start)) for p in params]
        doms = [self.domain(p, start) for p in params]
        delta = self.target - f0.house_edge
        slopes: list[Fraction] = []
        for i, p in enumerate(params):
            lo, hi = doms[i]
            step = 1 if x0[i] + 1 <= hi else -1
            if not lo <= x0[i] + step <= hi:
                slopes.append(Fraction(0))
                continue
            moved = self.build(start, [p], [x0[i] + step])
            f = None if moved is None else self.figures(moved)
            slopes.append(Fraction(0) if f is None else (f.house_edge - f0.house_edge) / step)
        active = [i for i, g in enumerate(slopes) if g != 0]
        if not active or delta == 0:
            return []

        def clip(i: int, v: int) -> int:
            return min(max(v, doms[i][0]), doms[i][1])

        model: dict[tuple[int, ...], Fraction] = {}

        def propose(d: dict[int, int]) -> None:
            x = tuple(clip(i, x0[i] + d.get(i, 0)) for i in range(len(params)))
            if x != tuple(x0) and x not in model:
                model[x] = abs(delta - sum(slopes[i] * (x[i] - x0[i]) for i in range(len(params))))

        subsets = [s for k in (1, 2, 3) for s in itertools.combinations(active, k)]
        if len(active) > 3:
            subsets.append(tuple(active))
        for s in subsets:
            finest = min(s, key=lambda i: abs(slopes[i]))
            shares = {i: delta / (len(s) * slopes[i]) for i in s if i != finest}
            for d in (
                {i: round(v) for i, v in shares.items()},  # an equal share each
                {i: round(v) or (1 if v > 0 else -1) for i, v in shares.items()},  # one step each at least
            ):
                rest = (delta - sum(slopes[i] * v for i, v in d.items())) / slopes[finest]
                if any(v == 0 for v in d.values()):
                    continue  # a smaller subset covers it
                for v in {math.floor(rest), math.ceil(rest)}:
                    if v != 0:
                        propose({**d, finest: v})
        for s in subsets:  # filled in turn, coarse first or fine first, each up to its bound
            for order in (sorted(s, key=lambda i: -abs(slopes[i])), sorted(s, key=lambda i: abs(slopes[i]))):
                d, res = {}, delta
                for i in order[:-1]:
                    v = clip(i, x0[i] + math.trunc(res / slopes[i])) - x0[i]
                    d[i], res = v, res - slopes[i] * v
                last = order[-1]
                for v in {math.floor(res / slopes[last]), math.ceil(res / slopes[last])}:
                    propose({**d, last: v})
        for i, j in itertools.permutations(active, 2):  # a split between a coarse and a fine parameter
            if abs(slopes[i]) <= abs(slopes[j]):
                continue
            reach = math.floor(abs(delta / slopes[i]))
            sign = 1 if delta / slopes[i] > 0 else -1
            for di in sorted({round(reach * k / 6) for k in range(1, 7)} - {0}):
                rest = (delta - slopes[i] * sign * di) / slopes[j]
                for v in {math.floor(rest), math.ceil(rest)}:
                    propose({i: sign * di, j: v})
        ranked = []
        for x, err in model.items():
            rules = self.build(start, params, x)
            if rules is not None and self.allowed(rules):
                size = sum(
                    abs(math.log((max(a, 0) + 1) / (max(b, 0) + 1))) for a, b in zip(x, x0, strict=True)
                )
                near = err <= self.tolerance
                ranked.append((not near, size if near else 0.0, err, x))
        ranked.sort()
        self.estimate = self.evaluations + 3 * min(proposals, len(ranked))
        out = []
        for _, _, _, x in ranked[:proposals]:
            out += self.refine(start, params, list(x), x0, slopes, doms)
        return out

    def refine(
        self,
        start: Any,
        params: Sequence[Parameter],
        x: list[int],
        x0: list[int],
        slopes: list[Fraction],
        doms: list[tuple[int, int]],
    ) -> list[Candidate]:
        """The proposal ``x`` solved exactly, and where its correction got closer, the corrected one."""
        rules = self.build(start, params, x)
        fig = None if rules is None else self.figures(rules)
        if rules is None or fig is None:
            return []
        first = self.candidate(rules, fig)
        local = dict(enumerate(slopes))  # secant-updated slopes of the changed parameters
        for _ in range(5):
            err = fig.house_edge - self.target
            if err == 0:
                break
            moved = False
            changed = sorted(
                (i for i in range(len(x)) if x[i] != x0[i] and local[i] != 0), key=lambda i: abs(local[i])
            )
            for f in changed:  # the finest that can still move toward the target
                step = round(-err / local[f])
                nxt = min(max(x[f] + step, doms[f][0]), doms[f][1])
                if step == 0 and f == changed[0]:
                    break  # within the finest parameter's step of the target
                if nxt == x[f]:
                    continue  # at its bound: the next one takes over
                trial = [*x[:f], nxt, *x[f + 1 :]]
                r2 = self.build(start, params, trial)
                f2 = None if r2 is None or not self.allowed(r2) else self.figures(r2)
                if r2 is None or f2 is None:
                    continue
                if f2.house_edge != fig.house_edge:
                    local[f] = (f2.house_edge - fig.house_edge) / (nxt - x[f])
                if abs(f2.house_edge - self.target) < abs(err):
                    x, rules, fig, moved = trial, r2, f2, True
                    break
            if not moved:
                break
        last = self.candidate(rules, fig)
        return [first] if last.changes == first.changes else [first, last]

    def descend(self, start: Candidate, params: Sequence[Parameter], sweeps: int = 2) -> Candidate:
        """Coordinate descent from ``start``: each narrow whole number in turn tried at every value of its
        range (the others held), the nearest allowed rule set kept; for the structural numbers, whose effect
        on the edge is far from linear (card values, thresholds)."""
        best = start
        for _ in range(sweeps):
            improved = False
            for p in params:
                lo, hi = self.domain(p, self.base)
                self.estimate = self.evaluations + (hi - lo + 1)
                for v in range(lo, hi + 1):
                    try:
                        r = self.put(p, best.rules, v)
                    except RuleError:
                        continue
                    if not self.allowed(r):
                        continue
                    f = self.figures(r)
                    if f is not None and abs(f.house_edge - self.target) < best.distance(self.target):
                        best, improved = self.candidate(r, f), True
            if not improved:
                break
        return best


def _span(domain: tuple[int, int]) -> tuple[int, int]:
    return domain[0], domain[1] + 1


def _values(p: Parameter, tuner: _Tuner) -> list[Any] | None:
    """The values to enumerate (None: too many, search it instead)."""
    if p.kind in ("choice", "preset"):
        return list(p.choices)
    lo, hi = tuner.domain(p, tuner.base)
    return list(range(lo, hi + 1)) if hi - lo < MAX_VALUES else None


def tune_parameters(
    rules: Any,
    target: Fraction,
    solve: Sequence[str],
    constraints: Sequence[str] = (),
    *,
    top: int = 5,
    beam: int = 3,
    proposals: int = 8,
    max_combinations: int = 64,
    tolerance: Fraction = Fraction(1, 2000),
    wager: str | None = None,
    bet_cents: int | None = None,
    parameters: Sequence[Parameter] | None = None,
    evaluate: Evaluate | None = None,
    progress: Progress | None = None,
) -> TuneReport:
    """The ``top`` rule sets nearest ``target`` (house edge of the main wager, or of the side bet ``wager``)
    changing only the parameters named in ``solve``, within their bounds, the pay tables' order and
    ``constraints``: those within ``tolerance`` of the target first, the smallest change first among them,
    then the rest by distance. ``parameters`` and ``evaluate`` default to the game's definition and exact
    analysis."""
    params = tuple(registry.of(rules).parameters if parameters is None else parameters)
    if not solve:
        raise RuleError("name the parameters to solve for (--solve A,B,...)")
    chosen: list[Parameter] = []
    for name in solve:
        p = find(params, name.strip())
        if not (_searchable(p) or _enumerable(p)):
            raise RuleError(
                f"rule {p.name!r} is a {p.kind}; tune varies whole numbers, amounts, payouts and choices"
            )
        if p not in chosen:
            chosen.append(p)
    parsed = [parse_constraint(c, params) for c in constraints]
    if top < 1:
        raise RuleError("--top must be at least 1")
    tuner = _Tuner(rules, params, evaluate or evaluator(wager, bet_cents), target, parsed, progress)
    tuner.tolerance = tolerance
    base = tuner.evaluate(rules)  # errors in the request itself (an unknown wager) surface here
    tuner.cache[tuner.key(rules)] = base
    enumerated = [p for p in chosen if _enumerable(p)]
    searched = [p for p in chosen if not _enumerable(p)]
    values: dict[str, list[Any]] = {}
    notes = []
    for p in list(enumerated):
        found_values = _values(p, tuner)
        if found_values is None:
            enumerated.remove(p)
            searched.append(p)
            notes.append(f"{p.name} searched by sensitivity (more than {MAX_VALUES} values)")
        else:
            values[p.name] = found_values
    while math.prod(len(v) for v in values.values()) > max_combinations:
        wide = max(
            (p for p in enumerated if p.kind == "int"), key=lambda p: len(values[p.name]), default=None
        )
        if wide is None:
            raise RuleError(f"more than {max_combinations} combinations of choices: solve for fewer")
        enumerated.remove(wide)
        searched.append(wide)
        del values[wide.name]
        notes.append(
            f"{wide.name} searched by sensitivity (its range is too wide to enumerate with the rest)"
        )
    combos = list(itertools.product(*(values[p.name] for p in enumerated)))
    tuner.estimate = len(combos) + (beam * (len(searched) + 3 * proposals) if searched else 0)
    starts: list[tuple[Any, Figures]] = []
    found: list[Candidate] = []
    for combo in combos:
        try:
            r = rules
            for p, v in zip(enumerated, combo, strict=True):
                r = p.put(r, p.parse(v) if p.kind in ("choice", "preset") else v)
        except RuleError:
            continue
        f = tuner.figures(r)
        if f is None:
            continue
        starts.append((r, f))
        if tuner.allowed(r):
            found.append(tuner.candidate(r, f))
    if searched:
        starts.sort(key=lambda s: (not tuner.allowed(s[0]), abs(s[1].house_edge - target)))
        tuner.estimate = tuner.evaluations + min(beam, len(starts)) * (len(searched) + 3 * proposals)
        for r, f in starts[:beam]:
            found += tuner.search(r, f, searched, proposals)
        narrow = [
            p for p in chosen if p.kind == "int" and len(range(*_span(tuner.domain(p, rules)))) <= NARROW
        ]
        if any(p in searched for p in narrow):
            others = [p for p in searched if p not in narrow]
            for c in sorted(found, key=lambda c: (c.distance(target), len(c.changes)))[:3]:
                moved = tuner.descend(c, narrow)
                found.append(moved)
                if others:  # then the payouts again, from there
                    found += tuner.search(moved.rules, moved.figures, others, proposals)
    unique: dict[tuple[tuple[str, str], ...], Candidate] = {}
    for c in found:
        unique.setdefault(tuple(sorted((k, v[1]) for k, v in c.changes.items())), c)
    ranked = sorted(unique.values(), key=lambda c: c.rank(target, tolerance))
    return TuneReport(
        target,
        base,
        ranked[:top],
        tuple(p.name for p in chosen),
        tuple(constraints),
        tuner.evaluations,
        notes,
    )
