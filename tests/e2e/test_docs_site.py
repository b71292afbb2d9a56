"""The documentation site builds with `mkdocs build --strict` (no broken link, no page
left out of the navigation, no reference that fails to render), offline; every
`sediment` command its shell examples run exists with the options they give; the HTTP
reference covers every route of the app; and every decision record has its four parts."""

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.unit.test_deploy import check_command

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *DOCS.rglob("*.md")])
SHELL = re.compile(r"```(?:bash|sh|console)\n(.*?)```", re.DOTALL)
ENV_PREFIX = re.compile(r"^(?:[A-Z_]+=\S+\s+)+")
SAMPLE_ID = "0b5e3c1a-96c4-5d5e-8f4e-3d9a1c7e2b10"  # stands for a `$MEMORY_ID` and the like
PARTS = ("## Context", "## Decision", "## Measurement", "## Consequences")


def test_the_site_builds_strict_and_offline(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "no_proxy": "*"}
    env.update({"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"})
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "reference" / "openapi.json").is_file()
    assert (tmp_path / "decisions" / "index.html").is_file()


def shell_commands(page: Path) -> list[list[str]]:
    """The `sediment ...` lines of a page's shell blocks, as argv (comments, `&` and
    leading VAR=value assignments dropped; continuations joined)."""
    found = []
    for block in SHELL.findall(page.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            line = ENV_PREFIX.sub("", line.split(" #", 1)[0].strip()).removesuffix("&")
            if line.startswith("sediment "):
                argv = shlex.split(line)
                found.append([SAMPLE_ID if a.startswith("$") else a for a in argv])
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sediment_command_shown_exists(page: Path) -> None:
    for argv in shell_commands(page):
        try:
            check_command(argv)
        except Exception as exc:
            pytest.fail(f"{page.relative_to(ROOT)}: {shlex.join(argv)}: {exc}")


def test_the_shell_examples_are_found() -> None:
    shown = {argv[1] for page in PAGES for argv in shell_commands(page)}
    assert {"ingest", "recall", "serve", "worker", "forget", "export", "import"} <= shown


def hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_openapi", DOCS / "hooks" / "openapi.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_http_reference_renders_every_route_and_model() -> None:
    openapi = hook()
    schema = openapi.openapi_schema()
    page = openapi.render(schema)
    for path, item in schema["paths"].items():
        for method in item:
            assert f"### `{method.upper()} {path}`" in page
    for name in schema["components"]["schemas"]:
        assert f"### {name} {{ #{openapi.anchor(name)} }}" in page
    assert "/v1/banks/{bank_id}/recall" in schema["paths"]


def test_every_decision_record_has_its_four_parts() -> None:
    records = sorted((DOCS / "decisions").glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert len(records) >= 30
    index = (DOCS / "decisions" / "index.md").read_text(encoding="utf-8")
    for record in records:
        text = record.read_text(encoding="utf-8")
        assert text.startswith("# "), record.name
        positions = [text.find(f"\n{part}\n") for part in PARTS]
        assert -1 not in positions and positions == sorted(positions), record.name
        assert f"({record.name})" in index, f"{record.name} is not in the index"
