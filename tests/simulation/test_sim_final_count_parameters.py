"""Final Count's kernel settles exactly as the round engine at random valid rule sets (issue 15): card values,
the tie rule and the two wins' pays are the kernel's arguments, not its constants."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablegames.rules.final_count import RANK_NAMES
from tablegames.simulation.job import Wagers

from .sim_helpers import random_decks, stacked
from .test_sim_equivalence import check


@st.composite
def rule_sets(draw: st.DrawFn) -> dict[str, str]:
    ranks = draw(st.lists(st.sampled_from(RANK_NAMES), max_size=4, unique=True))
    options = {f"value.{r}": str(draw(st.integers(0, 13))) for r in ranks}
    options["tie"] = draw(st.sampled_from(["push", "win", "lose"]))
    options["win-pays"] = str(draw(st.integers(0, 5)))
    options["dealer-bust-pays"] = str(draw(st.integers(0, 5)))
    return options


# Stacked decks that reach every category at three seats: a tie, a higher and a lower total against an even
# dealer, and an odd dealer total.
STACKED = [
    stacked(3, {1: "6c 6d 2h", 2: "Kc 4d 3h", 3: "2c 2d 9h"}, dealer="5c 5d 2s"),
    stacked(3, {1: "Kd Qd 2c", 2: "3c 4c 5s", 3: "Ac Ad Ah"}, dealer="9c 8d 4s"),
    stacked(3, {1: "7c 7d 7h", 2: "Jc 3d 3s", 3: "Tc Td 2d"}, dealer="Ks Qs 9s"),
]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=rule_sets(), seats=st.sampled_from([1, 3]), strategy=st.sampled_from(["basic", "optimal"]))
def test_kernel_settles_as_the_engine_at_random_rule_sets(
    options: dict[str, str], seats: int, strategy: str
) -> None:
    decks = random_decks(60, f"fc-params-{sorted(options.items())}-{seats}")
    if seats == 3:
        decks += STACKED
    detail, _ = check("final-count", options, seats, Wagers(500), decks, strategy)
    assert detail.shape == (len(decks), seats, 2)
