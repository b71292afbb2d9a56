"""What the CLI's client mode reads back from a server whose worker handles writes
later (sediment/remote.py): how many queued retains its worker stored, an event it
handled without storing counted as embedded mode counts it (a skipped duplicate), and
how many memories a forget by ids removed, an observation's id not among them."""

import uuid
from types import SimpleNamespace

from contracts.memory import derive_memory_id
from sediment import remote
from sediment.client import NotFound

BANK = "notes"


class Server:
    """Holds memories by id; each look at the bank's status lets its worker handle the
    next queued event (storing its memory, or not: it had been forgotten)."""

    def __init__(self, queue: list[tuple[uuid.UUID, bool]], kinds: dict[uuid.UUID, str]) -> None:
        self.queue = queue
        self.kinds = kinds

    def memory(self, memory_id: uuid.UUID, *, bank: str) -> SimpleNamespace:
        if memory_id not in self.kinds:
            raise NotFound(f"no memory {memory_id} in bank {bank}", 404)
        return SimpleNamespace(memory=SimpleNamespace(kind=self.kinds[memory_id]))

    def status(self, *, bank: str) -> SimpleNamespace:
        if self.queue:
            event_id, stores = self.queue.pop(0)
            if stores:
                self.kinds[derive_memory_id(bank, event_id)] = "world"
        return SimpleNamespace(pending=len(self.queue))


def no_sleep(seconds: float) -> None:
    return None


def test_queued_retains_count_what_the_worker_stored() -> None:
    kept, forgotten = uuid.uuid4(), uuid.uuid4()
    server = Server([(kept, True), (forgotten, False)], {})
    advanced: list[int] = []
    count = remote.stored(
        server,  # type: ignore[arg-type]
        [(BANK, [kept, forgotten])],
        lambda: advanced.append(1),
        sleep=no_sleep,
    )
    assert count == 1 and len(advanced) == 2


def test_a_worker_that_handles_nothing_in_time_is_not_waited_for() -> None:
    stuck = uuid.uuid4()
    server = Server([(uuid.uuid4(), True), (stuck, True)], {})
    server.status = lambda *, bank: SimpleNamespace(pending=2)  # type: ignore[method-assign]
    assert remote.stored(server, [(BANK, [stuck])], wait_s=0, sleep=no_sleep) is None  # type: ignore[arg-type]


def test_a_forget_by_ids_counts_the_memories_gone_not_an_observation() -> None:
    gone, observation, staying = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    server = Server([], {observation: "observation", staying: "world"})
    ids = [gone, observation, gone]
    assert remote.forgotten(server, BANK, ids, sleep=no_sleep) == 1  # type: ignore[arg-type]
    late = remote.forgotten(server, BANK, [staying], wait_s=0, sleep=no_sleep)  # type: ignore[arg-type]
    assert late is None
