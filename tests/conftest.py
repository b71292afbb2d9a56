"""Many tests open small stores in temporary directories; on a disk most of their time
goes to the engine's file syncs. Where the machine has a writable, memory-backed
/dev/shm, temporary directories (tempfile's and pytest's tmp_path) go there: the stores
behave the same, only the medium differs. SEDIMENT_TEST_TMPDIR overrides the choice."""

import os
import tempfile
from pathlib import Path

import pytest

MEMORY_BACKED = Path("/dev/shm")


def pytest_configure(config: pytest.Config) -> None:
    chosen = os.environ.get("SEDIMENT_TEST_TMPDIR")
    if chosen is None and MEMORY_BACKED.is_dir() and os.access(MEMORY_BACKED, os.W_OK):
        chosen = str(MEMORY_BACKED)
    if chosen:
        tempfile.tempdir = chosen
