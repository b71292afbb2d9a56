"""A rebuild cut short is recorded in the store, refused by every process that opens it
but `sediment rebuild`, and finished by running the rebuild again (worker/rebuild.py)."""

from pathlib import Path

import pytest

from contracts.memory import State
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, Rebuilding
from readmodel.stores.edge import EdgeStore
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from tests.helpers import edge_consolidator, event, mid
from worker import rebuild
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.consolidation.layout import LAYOUT
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.rebuild import InterruptedRebuildError, check_rebuild, finishing_command, rebuild_banks

EMB = HashEmbedder()
"""The embedder `SEDIMENT_EMBEDDER=hash` makes, so a runtime opens the same store."""


class Killed(Exception):
    """Stands for the process dying where it is raised."""


def _states(cons: Consolidator, bank: str) -> dict[str, State]:
    return {p.record.text: p.record.state for p in cons.store.scroll(Filter(bank, kinds=RAW_KINDS))}


def _cut_short(cons: Consolidator, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rebuild of every bank that dies replaying its first batch."""

    def dies(*_: object) -> None:
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(rebuild, "consolidate_points", dies)
        with pytest.raises(Killed):
            rebuild_banks(None, cons, layout=LAYOUT)


def test_a_rebuild_cut_short_is_refused_on_open_and_finished_by_running_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "data" / "store"
    cons = edge_consolidator(root, EMB)
    porto, lisbon = (
        event("Ana lives in Porto.", 0, bank="b"),
        event("Ana lives in Lisbon.", 3, bank="b"),
    )
    consolidate([porto, lisbon], cons)
    assert _states(cons, "b")["Ana lives in Porto."] == State.SUPERSEDED
    cons.store.mark_layout(LAYOUT)
    _cut_short(cons, monkeypatch)
    # What the rebuild left: the old address marked current, nothing else to see.
    assert _states(cons, "b")["Ana lives in Porto."] == State.CURRENT
    assert cons.store.rebuilding() == Rebuilding(("b",), every_bank=True)
    with pytest.raises(InterruptedRebuildError, match=r"run `sediment rebuild --all` to finish"):
        check_rebuild(cons.store, "here")
    cons.store.close()

    settings = Settings(
        _env_file=None, mode="embedded", data_dir=tmp_path / "data", embedder="hash"
    )  # type: ignore[call-arg]
    refused = bootstrap(settings)
    with pytest.raises(InterruptedRebuildError) as caught:
        _ = refused.store
    assert caught.value.command == "sediment rebuild --all"
    assert f"in the store at {tmp_path / 'data'} was interrupted" in str(caught.value)
    refused.close()

    finishing = bootstrap(settings, finishes_rebuild=True)
    try:
        assert rebuild_banks(None, finishing.consolidator, layout=LAYOUT) == 2
        assert finishing.store.rebuilding() is None
    finally:
        finishing.close()
    store = EdgeStore(root)
    store.ensure_schema(EMB.dimension)
    check_rebuild(store, "here")
    states = {p.record.id: p.record.state for p in store.scroll(Filter("b", kinds=RAW_KINDS))}
    assert states == {mid(porto): State.SUPERSEDED, mid(lisbon): State.CURRENT}
    store.close()


def test_the_marker_survives_a_reopen_and_names_the_bank_rebuilt(tmp_path: Path) -> None:
    store = EdgeStore(tmp_path / "s")
    store.ensure_schema(64)
    assert store.rebuilding() is None
    store.mark_rebuilding(Rebuilding(("team-7",)))
    store.close()
    again = EdgeStore(tmp_path / "s")
    found = again.rebuilding()
    assert found == Rebuilding(("team-7",))
    assert finishing_command(found) == "sediment rebuild --bank team-7"
    with pytest.raises(InterruptedRebuildError, match=r"a rebuild of bank team-7 .*--bank team-7"):
        check_rebuild(again, "here")
    again.mark_rebuilding(None)
    check_rebuild(again, "here")
    again.close()


def test_a_rebuild_of_one_bank_leaves_no_marker_and_the_layout_alone(tmp_path: Path) -> None:
    cons = edge_consolidator(tmp_path / "s", EMB)
    consolidate([event("Ana lives in Porto.", 0, bank="b")], cons)
    cons.store.mark_layout(LAYOUT - 1)
    assert rebuild_banks(["b"], cons, layout=LAYOUT) == 1
    assert cons.store.rebuilding() is None and cons.store.layout() == LAYOUT - 1
