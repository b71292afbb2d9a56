"""Running the `sediment` CLI as a user does: a subprocess in a temporary directory."""

import os
import subprocess
import sys
from pathlib import Path


def sediment(
    tmp: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Embedded mode with its store under `tmp`; `env` overrides (the embedder, say)."""
    full_env = {
        **os.environ,
        "SEDIMENT_DATA_DIR": str(tmp / "data"),
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_LOG_FORMAT": "json",
        **(env or {}),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "sediment.cli", *args],
        cwd=tmp,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"sediment {args} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc
