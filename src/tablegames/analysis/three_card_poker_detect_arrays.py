"""Three Card Poker's decisions checked in arrays for ``tablegames detect --database`` (issue 27): which are
mistakes under the legal information (play with a hand whose play value is below the lost Ante, or fold one
above it, R-TCP-2), by the strategy's table indexed by the hand's colex index, as
:meth:`~tablegames.analysis.three_card_poker_detect.ThreeCardPokerScorer.mistake_dealt` reads it (tested
equal on every hand and action). The mistakes themselves are scored by the scorers (few: they are cached)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.detect_chunk import Decisions
from tablegames.analysis.three_card_poker_detect import ThreeCardPokerScorer
from tablegames.rules.three_card_poker import FOLD, PLAY

BoolArray = npt.NDArray[np.bool_]


def mistakes(scorer: ThreeCardPokerScorer, d: Decisions) -> tuple[BoolArray, BoolArray]:
    """Which decisions are read here (three distinct cards dealt to the seat, play or fold), and which of
    them are mistakes; the others go to the scorer one by one."""
    play = np.asarray([a == PLAY for a in d.actions] or [False], dtype=np.bool_)[d.action]
    fold = np.asarray([a == FOLD for a in d.actions] or [False], dtype=np.bool_)[d.action]
    hand = np.sort(d.cards[:, :3] if d.cards.shape[1] >= 3 else np.full((len(d.seat), 3), -1), axis=1)
    a, b, c = hand[:, 0], hand[:, 1], hand[:, 2]
    ok = (d.count == 3) & (a >= 0) & (a < b) & (b < c) & (c < 52) & (play | fold)
    i = np.where(ok, a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6, 0)  # colex_of
    value = scorer.strategy.play_sum[i]
    mistake = np.where(play, value < -tcpa.DEALER_HANDS, value > -tcpa.DEALER_HANDS)
    return ok, ok & mistake
