"""The property tests open and delete hundreds of small stores, each in a temporary
directory of its own (removed at once); on a disk most of their time goes to the
engine's file syncs. Where the machine has a writable, memory-backed /dev/shm those
directories go there: the stores behave the same, only the medium differs.
SEDIMENT_TEST_TMPDIR chooses another place. Only these tests: pytest's own tmp_path
directories are kept after a run, and the whole suite's would fill memory."""

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

MEMORY_BACKED = Path("/dev/shm")


def chosen_tmpdir() -> str | None:
    chosen = os.environ.get("SEDIMENT_TEST_TMPDIR")
    if chosen is None and MEMORY_BACKED.is_dir() and os.access(MEMORY_BACKED, os.W_OK):
        chosen = str(MEMORY_BACKED)
    return chosen


@pytest.fixture(autouse=True)
def _stores_in_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    tmp_path_factory.getbasetemp()  # pytest's own directories stay where they were
    chosen, before = chosen_tmpdir(), tempfile.tempdir
    if chosen:
        tempfile.tempdir = chosen
    try:
        yield
    finally:
        tempfile.tempdir = before
