"""Where serve hosts the worker: at most N recalls at once, and consolidation first.

One gate serves every way in to recall in a serve process: `POST .../recall` (the
`RecallSlots` middleware in sediment/serve.py) and the MCP `recall` tool at /mcp
(sediment/mcp_server.py). A recall that bypassed it would take the interpreter from
the worker as if the gate were not there.
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

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        async with self._slots:
            await self._after_consolidation()
            yield

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
