"""What a game's simulation kernel adapter provides, so that the job, the strategies and the report are
generic: each game's adapter module (named by ``GameDefinition.kernel``) exposes one as ``KERNEL``.

A kernel adapter packs a job's kernel arguments from the rules and the wagers, calls its Numba kernel,
builds the strategy tables by calling a decision function on the game's typed decision contexts, names the
canonical hand keys of strategy files, and lays out the outcome counts of the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.engine.actions import Action
from tablegames.engine.events import Event, Settled

I64 = npt.NDArray[np.int64]
Decide = Callable[[Any], Action]
Block = Callable[[str, list[str], Sequence[int], int], None]
"""``block(name, labels, counts, per)``: one table of outcome frequencies of the report."""


@dataclass(frozen=True)
class StrategyTables:
    """A strategy as the kernel's decision tables, by name (a game's adapter names its own)."""

    arrays: Mapping[str, npt.NDArray[Any]] = field(default_factory=dict)

    def __getattr__(self, name: str) -> npt.NDArray[Any]:
        if name == "arrays":  # not set yet (unpickling)
            raise AttributeError(name)
        try:
            return self.arrays[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class KernelJob:
    """The game-specific part of a job: kernel arguments and the layout of its counts."""

    deal_cards: int  # cards of the deck a round can use
    wager_rows: tuple[str, ...]
    hist_size: int
    args: tuple[Any, ...]
    meter_row: int = -1  # the wager row a meter prize belongs to


class Kernel:
    """Base of the per-game kernel adapters."""

    detail_width: int = 0  # settlement detail columns per seat (``run_decks``)
    with_hits: bool = True  # the kernel records meter hits
    meter_row_name: str = ""  # the report's row of the meter prizes
    components: frozenset[str] = frozenset()  # report rows that are parts of another wager's return

    def prepare(self, rules: Any, wagers: Any, seats: int, strategy: str) -> KernelJob:
        raise NotImplementedError

    def kernel(self) -> Any:
        """The Numba kernel function."""
        raise NotImplementedError

    def strategy_tables(self, rules: Any, decide: Decide) -> StrategyTables:
        raise NotImplementedError

    def hand_key(self, context: Any) -> str:
        """The canonical key of a decision in strategy files."""
        raise NotImplementedError

    def file_action(self, text: str, context: Any) -> Action | None:
        """The action a strategy file names for ``context`` (None: not an action of this game)."""
        raise NotImplementedError

    def at_risk_units(self, name: str, units: int, hist: Sequence[int]) -> float:
        """Cents of wager row ``name`` still in action when settled (default: all of them)."""
        return units

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        """The report's outcome tables from ``hist``; ``counts[i]``: wagers of row i."""

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """The kernel's settlement detail (``[seats, detail_width]``, see ``run_decks``) of one round as the
        round engine settled it, from its history: what the equivalence tests compare, deck by deck."""
        raise NotImplementedError


def settled(history: Sequence[Event]) -> list[Settled]:
    return [e for e in history if isinstance(e, Settled)]
