"""Exact analysis of Three Card Poker (RULES.md §4): play or fold, the Ante/Play return, Pair Plus.

Every player hand (22,100) meets every dealer hand of the 49 cards left (18,424 each): 407,170,400 equally
likely deals, card removal included. Once per process, for each player hand up to suits (1,755 classes) the
dealer hands of the 49 cards left are counted by strength (the rules' own ranking,
:func:`~tablegames.rules.three_card_poker.strength_of`; no parameter changes it). How the dealer hands end
against a player hand (the dealer does not qualify, or qualifies and is beaten, tied or better) is then read
from those counts for any ``qualifier`` (the one structural parameter) in a few array operations, and every
payout (``ante-pays``, ``play-pays``, ``no-qualify-*``, ``ties``, the Ante Bonus and Pair Plus tables) is
re-solved from the same counts: a changed rule set is solved in milliseconds.

House edge is per unit of Ante with the Ante Bonus included, element of risk per average Ante plus Play
(R-TCP-7); Pair Plus stands on its own.

>>> from tablegames.cards import parse_cards
>>> s = optimal_strategy(ThreeCardPokerRules())
>>> s.best(parse_cards("Qh 6d 4c")), s.best(parse_cards("Qh 6d 3c"))
('play', 'fold')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations, product
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis.common import (
    Analysis,
    Analyzer,
    ExampleSpec,
    Outcome,
    PaySchedule,
    SideBet,
    VerifyTarget,
    colex_index,
    colex_of,
    stacked_deck,
)
from tablegames.cards import parse_cards
from tablegames.rules.common import RuleError, enum_key, outcome_of
from tablegames.rules.flow import Action
from tablegames.rules.three_card_poker import (
    ANTE,
    PAID_HANDS,
    PAIR_PLUS,
    PLAY_WAGER,
    QUALIFIER,
    TcpDecision,
    TcpHand,
    ThreeCardPokerRules,
    ante_outcome,
    strength_of,
    tcp_hand_of,
)

IntArray = npt.NDArray[np.int64]
HANDS = comb(52, 3)
DEALER_HANDS = comb(49, 3)
DEALS = HANDS * DEALER_HANDS
RESULTS = ("dealer does not qualify", "win", "push", "lose")


@dataclass(frozen=True, eq=False)
class _Hands:
    """Every three-card hand in colex order, with nothing that depends on the rules' parameters: its cards,
    strength (:func:`~tablegames.rules.three_card_poker.strength_of`), hand, ranks and suitedness, card mask;
    and the hands up to suit relabelling (``cls``: each hand's class, ``rep``/``weight``: each class's colex
    representative and size) with, per class, how many dealer hands of the 49 cards left have each distinct
    strength (``hist[class, k]``, ``values[k]`` the k-th strength, ``sidx`` each hand's k)."""

    cards: IntArray  # [HANDS, 3] increasing
    strength: IntArray  # [HANDS]
    hand: IntArray  # [HANDS] TcpHand value
    ranks: IntArray  # [HANDS, 3] ranks high to low
    flush: npt.NDArray[np.bool_]  # [HANDS]
    masks: npt.NDArray[np.uint64]  # [HANDS]
    cls: IntArray  # [HANDS]
    rep: IntArray  # [classes]
    weight: IntArray  # [classes]
    values: IntArray  # [K] the distinct strengths, increasing
    sidx: IntArray  # [HANDS] index into values
    hist: IntArray  # [classes, K]
    cum: IntArray  # [classes, K + 1]: dealer hands weaker than values[k]


def _pattern_tables() -> tuple[IntArray, IntArray]:
    """Strength and hand by ``flush * 13**3 + (r0 * 13 + r1) * 13 + r2`` (rank indices 0..12), from the
    rules' own functions."""
    st = np.zeros(2 * 13**3, dtype=np.int64)
    hd = np.zeros(2 * 13**3, dtype=np.int64)
    for r0, r1, r2 in product(range(13), repeat=3):
        ranks = [r0 + 2, r1 + 2, r2 + 2]
        for f in (0, 1) if len({r0, r1, r2}) == 3 else (0,):
            i = f * 13**3 + (r0 * 13 + r1) * 13 + r2
            st[i] = strength_of(ranks, bool(f))
            hd[i] = int(tcp_hand_of(ranks, bool(f)))
    return st, hd


@lru_cache(maxsize=1)
def _hands() -> _Hands:
    h = np.array(list(combinations(range(52), 3)), dtype=np.int64)
    h = h[np.lexsort((h[:, 0], h[:, 1], h[:, 2]))]  # colex order: row i is the hand of colex index i
    rank, suit = h >> 2, h & 3
    flush = (suit[:, 0] == suit[:, 1]) & (suit[:, 1] == suit[:, 2])
    st_t, hd_t = _pattern_tables()
    key = flush.astype(np.int64) * 13**3 + (rank[:, 0] * 13 + rank[:, 1]) * 13 + rank[:, 2]
    st, hand = st_t[key], hd_t[key]
    masks = (np.uint64(1) << h.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    canon = np.full(HANDS, HANDS, dtype=np.int64)
    for perm in permutations(range(4)):
        relabelled = np.sort(rank * 4 + np.array(perm, dtype=np.int64)[suit], axis=1)
        canon = np.minimum(canon, colex_index(relabelled))
    rep, cls, weight = np.unique(canon, return_inverse=True, return_counts=True)
    values, sidx = np.unique(st, return_inverse=True)
    hist = np.zeros((len(rep), len(values)), dtype=np.int64)
    for j, i in enumerate(rep.tolist()):
        hist[j] = np.bincount(sidx[(masks & masks[i]) == 0], minlength=len(values))
    cum = np.concatenate([np.zeros((len(rep), 1), dtype=np.int64), np.cumsum(hist, axis=1)], axis=1)
    ranks = -np.sort(-(rank + 2), axis=1)
    return _Hands(h, st, hand, ranks, flush, masks, cls, rep, weight, values, sidx, hist, cum)


@dataclass(frozen=True, eq=False)
class _Counts:
    """Per player hand (colex order of its three cards): its strength, its hand, and how many dealer hands of
    the 49 cards left end in each of :data:`RESULTS` against it, for one qualifier."""

    strength: IntArray  # [HANDS]
    hand: IntArray  # [HANDS] TcpHand value
    ranks: IntArray  # [HANDS, 3] ranks high to low
    flush: npt.NDArray[np.bool_]  # [HANDS]
    results: IntArray  # [HANDS, 4]


@lru_cache(maxsize=16)
def _counts(qualifier: int = QUALIFIER) -> _Counts:
    """The counts for dealers qualifying from strength ``qualifier`` (the only structural parameter): from
    the class histograms, a few array operations (no dealer hand is enumerated again)."""
    t = _hands()
    qk = int(np.searchsorted(t.values, qualifier, side="left"))  # dealer strengths below qk do not qualify
    s = t.sidx[t.rep]
    rows = np.arange(len(t.rep))
    nq = t.cum[:, qk]
    win = t.cum[rows, np.maximum(s, qk)] - nq
    tie = np.where(s >= qk, t.hist[rows, s], 0)
    lose = DEALER_HANDS - nq - win - tie
    results = np.stack([nq, win, tie, lose], axis=1)[t.cls]
    return _Counts(t.strength, t.hand, t.ranks, t.flush, results)


def _rules_counts(rules: ThreeCardPokerRules) -> _Counts:
    return _counts(rules.qualifying_strength)


def _odds_array(paytable: Any) -> IntArray:
    """Odds by TcpHand value; -1 where the hand loses."""
    out = np.full(len(TcpHand), -1, dtype=np.int64)
    for h in TcpHand:
        odds = paytable.odds(h)
        if odds is not None:
            out[int(h)] = odds
    return out


@dataclass(frozen=True, eq=False)
class ThreeCardPokerStrategy:
    """Play or fold for every hand, with the exact EV of both (per unit of Ante, Ante Bonus included)."""

    rules: ThreeCardPokerRules
    play_sum: IntArray = field(repr=False)  # [HANDS]: EV of playing x DEALER_HANDS
    plays: npt.NDArray[np.bool_] = field(repr=False)  # [HANDS]

    def options(self, cards: Sequence[int]) -> dict[str, Fraction]:
        i = colex_of(cards)
        return {"play": Fraction(int(self.play_sum[i]), DEALER_HANDS), "fold": Fraction(-1)}

    def best(self, cards: Sequence[int]) -> str:
        return "play" if self.plays[colex_of(cards)] else "fold"


def _bonus(rules: ThreeCardPokerRules, c: _Counts | _Hands) -> IntArray:
    """The Ante Bonus "X to 1" of every hand (0 where none)."""
    odds = _odds_array(rules.ante_bonus)[c.hand]
    return np.where(odds > 0, odds, 0)


def _result_values(rules: ThreeCardPokerRules) -> IntArray:
    """The net of a played Ante and Play (units of the Ante) by result (R-TCP-4, the rules' payouts)."""
    return np.array([a + p for a, p in rules.result_odds], dtype=np.int64)


@lru_cache(maxsize=8)
def optimal_strategy(rules: ThreeCardPokerRules) -> ThreeCardPokerStrategy:
    c = _rules_counts(rules)
    play = c.results @ _result_values(rules) + _bonus(rules, c) * DEALER_HANDS
    plays = play > -DEALER_HANDS  # cautious: fold on an exact tie
    return ThreeCardPokerStrategy(rules, play, plays)


def _rank_text(ranks: Sequence[int]) -> str:
    return "-".join("??23456789TJQKA"[r] for r in ranks)


def _strategy_summary(rules: ThreeCardPokerRules, s: ThreeCardPokerStrategy) -> list[str]:
    c = _hands()
    order = np.argsort(c.strength, kind="stable")
    played = s.plays[order]
    first = int(np.argmax(played))
    lines: list[str] = []
    if played[first:].all() and not played[:first].any():
        weakest = order[first]
        lines.append(f"Play {_rank_text(c.ranks[weakest])} or better, fold the rest.")
    else:
        lines.append("The play/fold choice depends on the exact cards (see the table).")
    folded = int(np.count_nonzero(~s.plays))
    lines.append(f"Fold {folded:,} of {HANDS:,} hands ({folded / HANDS:.4%}).")
    return lines


@lru_cache(maxsize=1)
def _hand_counts() -> tuple[int, ...]:
    return tuple(int(n) for n in np.bincount(_hands().hand, minlength=len(TcpHand)))


def _pair_plus(rules: ThreeCardPokerRules) -> SideBet:
    odds = _odds_array(rules.pair_plus)
    outcomes = []
    for h in sorted(TcpHand, reverse=True):
        n = _hand_counts()[int(h)]
        o = int(odds[int(h)])
        outcomes.append(Outcome(enum_key(h), n, Fraction(o if o >= 0 else -1)))
    return SideBet("pair-plus", HANDS, outcomes, notes=[f"pay table {rules.pair_plus.name} (R-TCP-6)"])


def analyze(rules: ThreeCardPokerRules, full_strategy: bool = False) -> Analysis:
    c = _rules_counts(rules)
    s = optimal_strategy(rules)
    bonus = _bonus(rules, c)
    folds = int(np.count_nonzero(~s.plays)) * DEALER_HANDS
    outcomes: list[Outcome] = [Outcome("fold", folds, Fraction(-1), category="fold")]  # R-TCP-2
    base = _result_values(rules).tolist()
    labels = [rules.result_name(k) for k in range(len(RESULTS))]
    for h in sorted(TcpHand, reverse=True):
        sel = s.plays & (c.hand == int(h))
        if not sel.any():
            continue
        b = int(bonus[np.argmax(sel)])
        for k, label in enumerate(labels):
            n = int(c.results[sel, k].sum())
            if n:
                name = f"play {enum_key(h)}: {label}" + (f" + ante bonus {b} to 1" if b else "")
                # the category: the engine's outcome of the Ante (the dealer not qualifying, R-TCP-4, or by
                # what it returns, its Ante Bonus included, R-TCP-5): the rules' ante_outcome
                ante = ante_outcome(k, 1, 1 + rules.result_odds[k][0] + b)
                outcomes.append(Outcome(name, n, Fraction(base[k] + b), wagered=Fraction(2), category=ante))
    played = int(np.count_nonzero(s.plays))
    analysis = Analysis(
        game=rules.game,
        rules=dict(rules.describe()),
        total=DEALS,
        outcomes=outcomes,
        average_wager=Fraction(HANDS + played, HANDS),
    )
    ev = Fraction(int(np.where(s.plays, s.play_sum, -DEALER_HANDS).sum()), DEALS)
    if ev != analysis.expected_value:
        raise AssertionError("return table does not sum to the strategy's expected value")
    ante_bonus = Fraction(int((bonus * s.plays).sum()), HANDS)
    analysis.strategy_summary = _strategy_summary(rules, s)
    strategy: dict[str, Any] = {"p_play": float(Fraction(played, HANDS))}
    if full_strategy:
        strategy["table"] = _strategy_table(s)
    analysis.strategy = strategy
    analysis.side_bets["pair-plus"] = _pair_plus(rules)
    analysis.extra["ante_bonus"] = {
        "paytable": rules.ante_bonus.name,
        "expected_value_per_ante": float(ante_bonus),
        "expected_value_per_ante_exact": str(ante_bonus),
    }
    analysis.notes.append(
        "House edge per unit of Ante, Ante Bonus included (R-TCP-7); element of risk per average Ante + Play."
    )
    return analysis


def _strategy_table(s: ThreeCardPokerStrategy) -> list[dict[str, Any]]:
    """Every hand by ranks and suitedness: the exact EV of play (averaged over its suit patterns, with the
    lowest and highest) and of fold, and the best choice."""
    c = _hands()
    groups: dict[tuple[tuple[int, ...], bool], list[int]] = {}
    for i in range(HANDS):
        groups.setdefault((tuple(int(r) for r in c.ranks[i]), bool(c.flush[i])), []).append(i)
    rows = []
    for (ranks, suited), idx in sorted(groups.items(), key=lambda kv: -int(c.strength[kv[1][0]])):
        evs = [Fraction(int(s.play_sum[i]), DEALER_HANDS) for i in idx]
        mean = sum(evs, Fraction(0)) / len(evs)
        rows.append(
            {
                "hand": _rank_text(ranks) + (" suited" if suited else ""),
                "combinations": len(idx),
                "play": round(float(mean), 6),
                "play_min": round(float(min(evs)), 6),
                "play_max": round(float(max(evs)), 6),
                "fold": -1.0,
                "best": "play"
                if all(s.plays[i] for i in idx)
                else ("fold" if not any(s.plays[i] for i in idx) else "depends"),
            }
        )
    return rows


def _chart(s: ThreeCardPokerStrategy) -> dict[str, dict[str, str]]:
    """High-card hands (every other hand plays): highest card -> second card -> "P" (play whatever the third
    card), "F" (fold), or "n+" (play from a third card of rank n); "*" when suits change the choice."""
    c = _hands()
    high = (c.hand == int(TcpHand.HIGH_CARD)) | (c.hand == int(TcpHand.FLUSH))
    sel = np.flatnonzero(high & ~c.flush)
    key = (c.ranks[sel, 0] * 16 + c.ranks[sel, 1]) * 16 + c.ranks[sel, 2]
    n_play = np.bincount(key, weights=s.plays[sel], minlength=16**3)
    n_all = np.bincount(key, minlength=16**3)
    votes: dict[tuple[int, int, int], list[int]] = {
        (k >> 8, (k >> 4) & 15, k & 15): [int(n_all[k] - n_play[k]), int(n_play[k])]
        for k in np.flatnonzero(n_all).tolist()
    }
    chart: dict[str, dict[str, str]] = {}
    letters = "??23456789TJQKA"
    for hi in range(14, 4, -1):
        row: dict[str, str] = {}
        for mid in range(hi - 1, 2, -1):
            lows = [lo for lo in range(2, mid) if (hi, mid, lo) in votes]
            if not lows:
                continue
            play = [lo for lo in lows if votes[(hi, mid, lo)][1] > votes[(hi, mid, lo)][0]]
            mixed = any(all(votes[(hi, mid, lo)]) for lo in lows)
            if len(play) == len(lows):
                code = "P"
            elif not play:
                code = "F"
            else:
                code = f"{letters[min(play)]}+"
            row[letters[mid]] = code + ("*" if mixed else "")
        if row:
            chart[letters[hi]] = row
    return chart


def _showdown_summary(rules: ThreeCardPokerRules) -> str:
    """R-TCP-4 in words, with the rules' qualifier and payouts."""

    def pays(odds: int) -> str:
        return {-1: "loses", 0: "pushes"}.get(odds, f"pays {odds} to 1")

    (nqa, nqp), (wa, wp), (ta, _tp), _lose = rules.result_odds
    qualifier = {"none": "always qualifies", "pair": "qualifies with a pair or better"}.get(
        rules.qualifier.value, f"qualifies with {rules.qualifier.value.replace('-', ' ')} or better"
    )
    not_qualifying = (
        f" Not qualifying: the Ante {pays(nqa)}, the Play {pays(nqp)}." if rules.qualifying_strength else ""
    )
    return (
        f"The dealer {qualifier}.{not_qualifying} Qualifying: the higher hand wins (the Ante {pays(wa)}, the "
        f"Play {pays(wp)}), an equal hand {'pushes' if ta == 0 else 'loses'} both (R-TCP-4)."
    )


def _outcome(odds: int, bonus: int = 0) -> str:
    """A wager's outcome as the engine names it: a win when it returns more than its stake (the Ante Bonus
    included), a push when the showdown gave its stake back, otherwise a loss."""
    return "win" if odds + bonus > 0 else ("push" if odds == 0 else "lose")


VERB = {"win": "wins", "push": "pushes", "lose": "loses"}


def _example(
    rules: ThreeCardPokerRules,
    theme: str,
    seat: str,
    dealer: str,
    wagers: tuple[tuple[str, int, str | None], ...],
) -> ExampleSpec:
    """A worked example whose title and expected outcomes come from the rules (any qualifier and payouts):
    the analysis' strategy plays or folds, R-TCP-4..6 settle (the report checks them against the engine)."""
    t = _hands()
    mine, theirs = parse_cards(seat), parse_cards(dealer)
    i = colex_of(mine)
    hand = TcpHand(int(t.hand[i]))
    d_hand = TcpHand(int(t.hand[colex_of(theirs)]))
    expect: dict[str, str] = {}
    words: list[str] = []
    if any(w == ANTE for w, _, _ in wagers):
        if not optimal_strategy(rules).plays[i]:
            expect |= {ANTE: "fold", PLAY_WAGER: "returned"}
            words.append("folds: the Ante is lost, the Play given back")
        else:
            res = rules.result(int(t.strength[i]), int(t.strength[colex_of(theirs)]))
            a, p = rules.result_odds[res]
            bonus = rules.ante_bonus.odds(hand) or 0
            expect |= {ANTE: ante_outcome(res, 1, 1 + a + bonus), PLAY_WAGER: _outcome(p)}
            extra = f" (with the Ante Bonus {bonus} to 1)" if bonus else ""
            words.append(
                f"plays, {rules.result_name(res)}: the Ante {VERB[outcome_of(1, 1 + a + bonus)]}{extra}, "
                f"the Play {VERB[expect[PLAY_WAGER]]}"
            )
    if any(w == PAIR_PLUS for w, _, _ in wagers):
        odds = rules.pair_plus.odds(hand)
        expect[PAIR_PLUS] = "win" if odds is not None else "lose"
        words.append("Pair Plus " + ("loses" if odds is None else f"pays {odds} to 1"))
    title = (
        f"{theme}: {seat} ({enum_key(hand).replace('-', ' ')}) against the dealer's {dealer} "
        f"({enum_key(d_hand).replace('-', ' ')}); " + "; ".join(words)
    )
    return ExampleSpec(title, stacked_deck(mine, theirs), wagers, expect)


class ThreeCardPokerAnalyzer(Analyzer):
    chart_axes = ("highest card (no pair, unsuited)", "second card")

    def analyze(
        self,
        rules: ThreeCardPokerRules,
        bet_cents: int | None,
        meters: Mapping[str, int],
        full_strategy: bool,
    ) -> Analysis:
        a = analyze(rules, full_strategy)
        a.strategy["chart"] = _chart(optimal_strategy(rules))
        return a

    def optimal_strategy(
        self, rules: ThreeCardPokerRules, bet_cents: int | None = None
    ) -> ThreeCardPokerStrategy:
        return optimal_strategy(rules)

    def advise(self, strategy: ThreeCardPokerStrategy, context: TcpDecision) -> dict[Action, Fraction]:
        return {Action(k): v for k, v in strategy.options(context.cards).items()}

    def tie_wagers(
        self, rules: ThreeCardPokerRules, bet_cents: int
    ) -> tuple[tuple[str, int, str | None], ...]:
        return ((ANTE, bet_cents, None), (PAIR_PLUS, bet_cents, None))

    def deal_value(
        self,
        rules: ThreeCardPokerRules,
        deck: Sequence[int],
        wagers: Sequence[tuple[str, int, str | None]],
        meters: Mapping[str, int] | None = None,
    ) -> dict[str, int]:
        """Heads-up: the seat's cards are the deck's 1st, 3rd and 5th, the dealer's the 2nd, 4th and 6th
        (R-0.2); valued by the analysis' hand tables, its strategy and the rules' payouts: the Ante (with the
        Play and the Ante Bonus, R-TCP-4/5) and Pair Plus (R-TCP-6)."""
        t = _hands()
        mine, dealer = colex_of(deck[0:6:2]), colex_of(deck[1:6:2])
        hand = int(t.hand[mine])
        out: dict[str, int] = {}
        for name, cents, _option in wagers:
            if name == ANTE:
                if not optimal_strategy(rules).plays[mine]:
                    out[name] = -cents  # folded: the Ante lost, the Play given back (R-TCP-2)
                    continue
                res = rules.result(int(t.strength[mine]), int(t.strength[dealer]))
                bonus = int(_bonus(rules, t)[mine])
                out[name] = cents * (int(_result_values(rules)[res]) + bonus)
            elif name == PAIR_PLUS:
                odds = int(_odds_array(rules.pair_plus)[hand])
                out[name] = cents * (odds if odds >= 0 else -1)
        return out

    def rules_summary(self, rules: ThreeCardPokerRules) -> list[str]:
        return [
            "One 52-card deck, shuffled before every round (R-0.1); one to seven players (R-0.2).",
            "Before the deal a player places the Ante, the Pair Plus, or both; Pair Plus may be played alone. "
            "Each player and the dealer get three cards face down (R-TCP-1).",
            "A player with an Ante, having seen only their own three cards, folds (the Ante is lost) or plays by "
            "placing a Play wager equal to the Ante (R-TCP-2). Here the Play is set aside beside the Ante when "
            "it is placed and given back on a fold.",
            "Hands, best first: straight flush, three of a kind, straight, flush, pair, high card; A-K-Q is the "
            "highest straight, A-2-3 the lowest; suits never break ties (R-TCP-3).",
            _showdown_summary(rules),
            "The Ante Bonus is paid on the Ante of a player who played, whatever the dealer holds (R-TCP-5); "
            "Pair Plus pays on the player's three cards, whatever the dealer holds, played or folded (R-TCP-6).",
        ]

    def pay_schedules(self, rules: ThreeCardPokerRules) -> list[PaySchedule]:
        def rows(table: Any) -> tuple[tuple[str, str], ...]:
            return tuple((enum_key(h).replace("-", " "), f"{o} to 1") for h, o in table.pays.items())

        def pays(odds: int) -> str:
            return {-1: "loses", 0: "pushes"}.get(odds, f"pays {odds} to 1")

        (nqa, nqp), (wa, wp), (ta, _tp), _lose = rules.result_odds
        return [
            PaySchedule(
                f"Ante and Play (R-TCP-4; the dealer qualifies with {rules.qualifier.value})",
                (
                    ("dealer does not qualify", f"Ante {pays(nqa)}, Play {pays(nqp)}"),
                    ("player's hand higher", f"Ante {pays(wa)}, Play {pays(wp)}"),
                    ("equal hands", "both push" if ta == 0 else "both lose"),
                    ("dealer's hand higher", "both lose"),
                    ("fold", "the Ante loses"),
                ),
            ),
            PaySchedule(f"Ante Bonus {rules.ante_bonus.name} (R-TCP-5)", rows(rules.ante_bonus)),
            PaySchedule(f"Pair Plus {rules.pair_plus.name} (R-TCP-6)", rows(rules.pair_plus)),
        ]

    def worked_examples(self, rules: ThreeCardPokerRules) -> list[ExampleSpec]:
        both = ((ANTE, 500, None), (PAIR_PLUS, 100, None))
        return [
            _example(rules, "A pair against a queen high", "Kh Kd 7c", "Qh 9d 8s", both),
            _example(rules, "A weak high card", "9h 6d 3c", "Ah Kd 8s", both),
            _example(rules, "The dealer's jack high", "Qh 7d 2c", "Jh 9d 8s", ((ANTE, 500, None),)),
            _example(rules, "An Ante Bonus hand against trips", "4h 5d 6c", "9h 9d 9s", both),
            _example(
                rules, "Pair Plus alone, no decision", "2h 7h 9h", "Ah Kd 8s", ((PAIR_PLUS, 100, None),)
            ),
        ]

    def verify_targets(self, a: Analysis, rules: ThreeCardPokerRules) -> list[VerifyTarget]:
        """The Ante's house edge and Pair Plus's (every category of the Ante: ``common.category_targets``)."""
        return [
            VerifyTarget("main wager house edge", "ante", a.house_edge),
            VerifyTarget(
                "Pair Plus house edge", "pair-plus", a.side_bets["pair-plus"].house_edge, ("pair-plus",)
            ),
        ]

    def tunable_hands(self, rules: ThreeCardPokerRules) -> list[str]:
        paid = sorted(PAID_HANDS, reverse=True)
        return [f"pair-plus:{enum_key(h)}" for h in paid] + [f"ante-bonus:{enum_key(h)}" for h in paid]

    def edge_function(
        self, rules: ThreeCardPokerRules, hand: str, bet_cents: int | None
    ) -> tuple[Callable[[int], Fraction], str]:
        key = hand.strip().lower().replace("_", "-")
        wager, _, name = key.partition(":")
        found = {enum_key(h): h for h in TcpHand}.get(name)
        if wager not in ("pair-plus", "ante-bonus") or found is None:
            raise RuleError(f"unknown hand {hand!r}; choose {', '.join(self.tunable_hands(rules))}")
        h = found
        if wager == "pair-plus":
            table = rules.pair_plus

            def pair_plus_edge(odds: int) -> Fraction:
                return _pair_plus(replace(rules, pair_plus=table.with_pay(h, odds))).house_edge

            return pair_plus_edge, "pair plus"
        bonus = rules.ante_bonus

        def ante_edge(odds: int) -> Fraction:
            return analyze(replace(rules, ante_bonus=bonus.with_pay(h, odds))).house_edge

        return ante_edge, "ante/play"


ANALYZER = ThreeCardPokerAnalyzer()
