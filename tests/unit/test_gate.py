"""`Gate`: shared holders together, an exclusive one alone; re-entered by its holders."""

import threading

import pytest

from readmodel.stores.gate import Gate


def test_shared_holders_hold_it_together_and_an_exclusive_one_waits_for_them() -> None:
    gate = Gate()
    order: list[str] = []
    held, release = threading.Event(), threading.Event()

    def reader() -> None:
        with gate.shared():
            held.set()
            release.wait(5)
            order.append("read done")

    def swapper() -> None:
        with gate.exclusive():
            order.append("swapped")

    r = threading.Thread(target=reader)
    r.start()
    held.wait(5)
    with gate.shared():  # another shared holder gets in at once
        order.append("second reader")
    s = threading.Thread(target=swapper)
    s.start()
    s.join(0.2)
    assert s.is_alive()  # waits for the first reader
    release.set()
    r.join(5)
    s.join(5)
    assert order == ["second reader", "read done", "swapped"]


def test_a_waiting_exclusive_holder_stops_new_shared_ones_but_not_reentry() -> None:
    gate = Gate()
    entered, release = threading.Event(), threading.Event()
    later: list[str] = []

    def holder() -> None:
        with gate.shared():
            entered.set()
            release.wait(5)
            with gate.shared():  # re-entry never waits, even with a swap waiting
                later.append("re-entered")

    def newcomer() -> None:
        with gate.shared():
            later.append("newcomer")

    h = threading.Thread(target=holder)
    h.start()
    entered.wait(5)
    waiting = threading.Thread(target=_swap_once, args=(gate, later))
    waiting.start()
    n = threading.Thread(target=newcomer)
    while not gate._waiting:
        threading.Event().wait(0.01)
    n.start()
    n.join(0.2)
    assert n.is_alive()  # behind the waiting swap
    release.set()
    for t in (h, waiting, n):
        t.join(5)
    assert later == ["re-entered", "swapped", "newcomer"]


def _swap_once(gate: Gate, out: list[str]) -> None:
    with gate.exclusive():
        out.append("swapped")


def test_the_exclusive_holder_may_read_and_a_shared_one_may_not_upgrade() -> None:
    gate = Gate()
    with gate.exclusive(), gate.shared(), gate.exclusive():
        pass
    with gate.shared(), pytest.raises(RuntimeError, match="cannot take it exclusive"):
        gate.exclusive().__enter__()
