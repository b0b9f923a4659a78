"""Three Card Poker's ``dealer-1`` detection harness in arrays (``tablegames detect simulate --method kernel``):
each player's hands drawn as arrays (the own three cards and the dealer's first card of a shuffled deck, as at a
table), decided and scored by the same exposure tables as the engine's scorer
(:func:`~tablegames.analysis.three_card_poker_detect.class_table`): fast enough for ten thousand players. Tested
to give the engine's decisions (tests/analysis/test_detect.py)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from tablegames.analysis import detect
from tablegames.analysis.detect_simulate import Progress
from tablegames.rules import GameRules


def dealer_1(
    rules: GameRules,
    scenario: str,
    players: int,
    cheaters: int,
    hands: int,
    read_rate: float,
    noise: float,
    seed: int,
    alpha: float,
    m: int,
    progress: Progress | None,
    cheater_noise: float = 0.0,
) -> list[int | None]:
    """Three Card Poker ``dealer-1`` in arrays (see the module), a block of players at a time. A decision's
    random mistake (the other action) is one uniform draw per player and hand against the player's rate:
    ``noise`` for the honest, ``cheater_noise`` for the cheaters (0: the same draws and play as without it)."""
    from tablegames.analysis import three_card_poker as tcpa
    from tablegames.analysis.three_card_poker_detect import PERMS, class_table, hand_perm
    from tablegames.rules.three_card_poker import ThreeCardPokerRules

    assert isinstance(rules, ThreeCardPokerRules)
    t = tcpa._hands()
    plays_table, p_play = class_table(rules)
    strategy = tcpa.optimal_strategy(rules)
    fair = strategy.plays
    tie = strategy.play_sum == -tcpa.DEALER_HANDS  # equal legal values: neither action is a mistake
    perm_of = hand_perm()
    binom = np.array([[math.comb(c, j + 1) for c in range(52)] for j in range(3)], dtype=np.int64)
    lams = np.array(detect.LAMBDAS)
    threshold = math.log(m / alpha)
    rng = np.random.default_rng(seed)
    out: list[int | None] = []
    block = max(1, 200_000 // hands)
    for first in range(0, players, block):
        n = min(block, players - first)
        cards = _four_distinct(rng, (n, hands))
        mine = np.sort(cards[..., :3], axis=-1)
        i = binom[0][mine[..., 0]] + binom[1][mine[..., 1]] + binom[2][mine[..., 2]]
        c = cards[..., 3]
        cls = t.cls[i]
        seen = (c >> 2) * 4 + PERMS[perm_of[i], c & 3]
        informed = plays_table[cls, seen]
        legal = fair[i]
        cheat = (np.arange(first, first + n) < cheaters)[:, None]
        reads = rng.random((n, hands)) < read_rate
        slips = rng.random((n, hands)) < np.where(cheat, cheater_noise, noise)
        act = np.where(cheat, np.where(reads, informed, legal), legal) ^ slips
        mistake = (act != legal) & ~tie[i]
        supported = act == informed
        p = np.where(act, p_play[cls], 1.0 - p_play[cls])
        informative = mistake & (p > 0) & (p < 1)
        logs = []
        for lam in lams:
            up = np.log((p + lam * (1 - p)) / np.where(p > 0, p, 1.0))
            step = np.where(informative, np.where(supported, up, math.log(1 - lam)), 0.0)
            logs.append(np.cumsum(step, axis=1))
        stacked = np.stack(logs)
        top = stacked.max(axis=0)
        mix = top + np.log(np.exp(stacked - top).mean(axis=0))
        crossed = mix >= threshold
        first_cross = np.where(crossed.any(axis=1), crossed.argmax(axis=1) + 1, -1)
        out.extend(None if h < 0 else int(h) for h in first_cross.tolist())
        if progress is not None:
            progress((first + n) * hands, players * hands)
    return out


def _four_distinct(rng: np.random.Generator, shape: tuple[int, int]) -> npt.NDArray[np.int64]:
    """Four distinct cards per cell, uniformly (the first four cards of a shuffled deck, in order)."""
    cards = rng.integers(0, 52, size=(*shape, 4))
    while True:
        c = cards
        dup = (
            (c[..., 0] == c[..., 1])
            | (c[..., 0] == c[..., 2])
            | (c[..., 1] == c[..., 2])
            | (c[..., 3] == c[..., 0])
            | (c[..., 3] == c[..., 1])
            | (c[..., 3] == c[..., 2])
        )
        if not dup.any():
            return cards
        cards[dup] = rng.integers(0, 52, size=(int(dup.sum()), 4))


KERNELS = {"dealer-1": dealer_1}
