"""Where serve hosts the worker: at most N recalls at once, and consolidation first.

One gate serves every way in to recall in a serve process: `POST .../recall`
(sediment/api/routes.py) and the MCP `recall` tool at /mcp (sediment/mcp_tools/
tools.py) both take their turn through the API's deps (`ApiDeps.recall_turn`). A
recall that bypassed it would take the interpreter from the worker as if the gate
were not there. A recall with `wait_for` waits for its events first and takes its
turn only then (sediment/recall_waits.py): a slot is held while recall computes,
never while it waits.

Why: where serve hosts the worker, its consolidation thread competes with the API's
threads for one interpreter lock, and each busy thread gets about an equal share.
With 20 recalls running at once the worker got about a twentieth of it; with two
slots, about a fifth (py-spy, lock holders only), and under a closed loop of recall
clients retains still became visible only after tens of seconds. Recall is CPU-bound,
so more slots than cores add queueing inside the interpreter, not throughput. Waiting
for the batch gives it the interpreter nearly alone: recall takes what consolidation
leaves, and a recall waits at most the gate's bound however far behind the worker is.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from worker.busy import Busy


class RecallGate:
    """At most `slots` recalls at once; the others wait their turn in the event loop,
    holding no thread. And, with `busy`, consolidation first: a recall that gets its
    slot while the hosted worker runs a batch waits for the batch to end, at most
    `yield_s`. Used from the serve's one event loop."""

    def __init__(self, slots: int, busy: Busy | None = None, yield_s: float = 0.0) -> None:
        self._slots = asyncio.Semaphore(slots)
        self._busy = busy if yield_s > 0 else None
        self._yield_s = yield_s
        self._idle: asyncio.Event | None = None
        self._held = 0

    @property
    def held(self) -> int:
        """Slots taken now (by recalls waiting for a batch to end, or computing)."""
        return self._held

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        async with self._slots:
            self._held += 1
            try:
                await self._after_consolidation()
                yield
            finally:
                self._held -= 1

    async def _after_consolidation(self) -> None:
        if self._busy is None:
            return
        idle = self._idle_event(self._busy)
        if not idle.is_set():
            with suppress(TimeoutError):
                await asyncio.wait_for(idle.wait(), self._yield_s)

    def _idle_event(self, busy: Busy) -> asyncio.Event:
        """Set while no batch runs; the worker's thread flips it through the loop."""
        if self._idle is None:
            loop = asyncio.get_running_loop()
            idle = asyncio.Event()

            def heard(now_busy: bool) -> None:
                with suppress(RuntimeError):  # the loop has closed: serve is stopping
                    loop.call_soon_threadsafe(idle.clear if now_busy else idle.set)

            busy.listen(heard)
            if not busy.busy:
                idle.set()
            self._idle = idle
        return self._idle
