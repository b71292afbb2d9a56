"""The Makefile's documentation targets, read with `make -n` (what would run, nothing
run): `make docs` and `make docs-serve` install the package with the `docs` extra alone
(no torch, no dev tools), and only until a stamp in the venv says it is done."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dry_run(target: str, venv: Path) -> str:
    if shutil.which("make") is None:
        pytest.skip("needs make")
    proc = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k not in ("VENV", "DOCS_VENV")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("target", ["docs", "docs-serve"])
def test_the_docs_targets_install_the_docs_extra_alone(target: str, tmp_path: Path) -> None:
    planned = dry_run(target, tmp_path / "venv")
    installs = [line for line in planned.splitlines() if "pip install" in line]
    assert installs == [f"{tmp_path / 'venv'}/bin/pip install -q -e '.[docs]'"], planned
    assert "minilm" not in planned and "dev" not in planned.replace("--dev-addr", "")


@pytest.mark.parametrize("target", ["docs", "docs-serve"])
def test_an_installed_docs_venv_is_not_installed_again(target: str, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    stamp = venv / ".docs-installed"
    stamp.touch()
    newer = (ROOT / "pyproject.toml").stat().st_mtime + 1
    os.utime(stamp, (newer, newer))
    planned = dry_run(target, venv)
    assert "pip install" not in planned, planned
    assert "mkdocs" in planned
