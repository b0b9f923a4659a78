"""The chaos soak (issue 20): ``tablegames loadtest --servers N --chaos``. While the players play, random faults hit
the load test's own server processes (never anything else): SIGKILL of one process (or of two at once when at
least three are up), started again after 1-4 s under the same name and port, and SIGSTOP of one process for 1-6 s
(longer than a lease: its tables are taken over and its late writes fenced), then SIGCONT. About one fault every
``cfg.chaos_every`` seconds (exponential gaps, from ``cfg.seed``), at least one process always serving, none in
the last ``cfg.chaos_quiet`` seconds of the play; at the end every process is running again. The books are then
checked per wallet and per round (``audit.check_money``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Coroutine
from dataclasses import asdict, dataclass
from typing import Any

from tablegames.loadtest.cluster import Cluster, Node
from tablegames.loadtest.config import LoadConfig, Stats

KILL_DOWN = (1.0, 4.0)  # seconds a killed process stays down before it is started again
PAUSE = (1.0, 6.0)  # seconds a process stays stopped


@dataclass
class Fault:
    """One fault: when (seconds into the play), what, which processes, for how long."""

    at: float
    kind: str  # kill, double-kill, pause
    nodes: tuple[str, ...]
    seconds: float
    healed_at: float | None = None  # when the processes were running again (seconds into the play)


class Chaos:
    """Injects the faults of one soak into ``cluster`` (see the module doc); :meth:`run` until the quiet end,
    then :meth:`heal` brings every process back."""

    def __init__(self, cluster: Cluster, cfg: LoadConfig, stats: Stats) -> None:
        self.cluster = cluster
        self.cfg = cfg
        self.stats = stats
        self.rng = random.Random(cfg.seed * 7919 + 20)
        self.faults: list[Fault] = []
        self._busy: set[str] = set()  # nodes down or stopped now (or being started again)
        self._healing: set[asyncio.Task[None]] = set()
        self._t0 = 0.0

    def _now(self) -> float:
        return round(time.monotonic() - self._t0, 2)

    def _serving(self) -> list[Node]:
        return [n for n in self.cluster.nodes if n.name not in self._busy and n.alive]

    async def run(self, t0: float) -> None:
        """Faults from ``t0`` (the start of the play) until ``chaos_quiet`` seconds before its end."""
        self._t0 = t0
        until = t0 + self.cfg.duration - self.cfg.chaos_quiet
        while True:
            gap = self.rng.expovariate(1.0 / self.cfg.chaos_every)
            if time.monotonic() + gap >= until:
                return
            await asyncio.sleep(gap)
            serving = self._serving()
            if len(serving) < 2:  # at least one process keeps serving
                continue
            roll = self.rng.random()
            if roll < 0.2 and len(serving) >= 3:
                victims = self.rng.sample(serving, 2)
                await self._kill(victims, "double-kill")
            elif roll < 0.6:
                await self._kill([self.rng.choice(serving)], "kill")
            else:
                await self._pause(self.rng.choice(serving))

    async def _kill(self, victims: list[Node], kind: str) -> None:
        down = self.rng.uniform(*KILL_DOWN)
        fault = Fault(self._now(), kind, tuple(n.name for n in victims), round(down, 2))
        self._record(fault)
        for node in victims:
            self._busy.add(node.name)
            await asyncio.to_thread(self.cluster.kill, node.name)
        self._heal_later(self._restart(victims, down, fault))

    async def _restart(self, victims: list[Node], after: float, fault: Fault) -> None:
        await asyncio.sleep(after)
        for node in victims:
            await asyncio.to_thread(self.cluster.restart, node.name)
            self._busy.discard(node.name)
        fault.healed_at = self._now()
        self._record(fault, update=True)

    async def _pause(self, node: Node) -> None:
        stopped = self.rng.uniform(*PAUSE)
        fault = Fault(self._now(), "pause", (node.name,), round(stopped, 2))
        self._record(fault)
        self._busy.add(node.name)
        self.cluster.pause(node.name)
        self._heal_later(self._resume(node, stopped, fault))

    async def _resume(self, node: Node, after: float, fault: Fault) -> None:
        await asyncio.sleep(after)
        self.cluster.resume(node.name)
        self._busy.discard(node.name)
        fault.healed_at = self._now()
        self._record(fault, update=True)

    def _heal_later(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._healing.add(task)
        task.add_done_callback(self._healing.discard)

    def _record(self, fault: Fault, update: bool = False) -> None:
        if not update:
            self.faults.append(fault)
        self.stats.faults = [asdict(f) for f in self.faults]

    async def heal(self) -> None:
        """(The end of the faults.) Wait for the pending restarts and resumes; every process runs again."""
        if self._healing:
            await asyncio.gather(*list(self._healing), return_exceptions=True)
        for node in self.cluster.nodes:  # (a cancelled heal) nothing is left stopped or down
            if node.state == "stopped":
                self.cluster.resume(node.name)
            elif node.state == "killed":
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.cluster.restart, node.name)
        self._busy.clear()
