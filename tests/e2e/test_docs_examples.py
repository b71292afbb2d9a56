"""The README's quickstart, run as a reader runs it: in one empty directory, embedded,
each block in order (the CLI, Python in-process, the HTTP block pasted whole into one
shell, which starts `sediment serve` and sends curl requests, the Python client, MCP
over HTTP and over stdio), and what it prints compared with what the
README says it prints. The site's quickstart page is the same text (a snippet of the
README), so neither can go stale.

The recall page's `explain` example is produced the same way, from the demo data, with
the recall's clock fixed (recency, and so the scores, move with the day one asks).

`python -m tests.e2e.test_docs_examples --write` runs the examples and writes what they
print into the README's output blocks and the recall page's example."""

import dataclasses
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from contracts.recall import RecallRequest
from sediment.bootstrap import bootstrap
from sediment.demo import run_demo
from sediment.recall_defaults import surface_default
from sediment.settings import Settings
from tests.e2e.mcp_session import McpSession, http, rows
from tests.e2e.test_http import free_port
from tests.unit.test_deploy import check_command

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
COLUMNS = "96"
BLOCK = re.compile(r"<!-- check: ([a-z-]+) -->\n```[a-z]*\n(.*?)```", re.DOTALL)
TOOLS = re.compile(r"The tools are (.*?)\.\n", re.DOTALL)
FIRST_RESULT = re.compile(r"recall's first result is\s+`([^`]+)`")
DOCS_PORT = "8000"
RECALL_PAGE = ROOT / "docs" / "recall.md"
EXPLAIN_CLOCK = datetime(2024, 7, 1, 12, tzinfo=UTC)


def blocks(text: str) -> dict[str, str]:
    """The README's checked blocks by name: `<!-- check: NAME -->` before a fence."""
    found = {name: body for name, body in BLOCK.findall(text)}
    assert len(found) == len(BLOCK.findall(text)), "two checked blocks share a name"
    return found


def user_env(**extra: str) -> dict[str, str]:
    """A reader's shell: the venv's commands on PATH, no SEDIMENT_ setting of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEDIMENT_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return {**env, "COLUMNS": COLUMNS, **extra}


def shell(tmp: Path, script: str) -> str:
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
    return trimmed(proc.stdout)


def python(tmp: Path, code: str, name: str) -> str:
    (tmp / name).write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, name], cwd=tmp, env=user_env(), capture_output=True, text=True
    )
    assert proc.returncode == 0, f"{code}\n{proc.stdout}\n{proc.stderr}"
    return trimmed(proc.stdout)


def trimmed(out: str) -> str:
    return "\n".join(line.rstrip() for line in out.strip("\n").splitlines()) + "\n"


def commands(script: str) -> list[list[str]]:
    """Each line of a shell block as argv (backslash continuations joined)."""
    return [shlex.split(line) for line in script.replace("\\\n", " ").splitlines() if line]


@dataclass
class Run:
    """What each example printed, by the name of its README output block."""

    printed: dict[str, str] = field(default_factory=dict)
    recalled_first: str = ""
    recall_pending: int = -1
    tools: set[str] = field(default_factory=set)
    stdio_answer: list[str] = field(default_factory=list)


@contextmanager
def pasted(tmp: Path, script: str) -> Iterator[tuple[str, str]]:
    """The HTTP block pasted into a shell as one block: one bash process runs it whole
    (`-e`: a curl that cannot connect fails it), its `sediment serve &` on a free port
    in place of 8000, left running for the blocks that follow, as in the reader's shell.
    Yields what the block printed and the server's URL; at the end the server (the
    block's process group) is stopped."""
    first = script.splitlines()[0]
    assert first == f"sediment serve --port {DOCS_PORT} &", first
    check_command(shlex.split(first)[:-1])
    port = str(free_port())
    script = script.replace(f"localhost:{DOCS_PORT}/", f"localhost:{port}/")
    script = script.replace(f"--port {DOCS_PORT}", f"--port {port}")
    out, err = tmp / "curl.out", tmp / "curl.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=tmp,
            env=user_env(),
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
    try:
        try:
            code = proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the HTTP block did not finish in 120 s\n{err.read_text()}")
        assert code == 0, f"the HTTP block exited {code}\n{out.read_text()}\n{err.read_text()}"
        yield out.read_text(encoding="utf-8"), f"http://127.0.0.1:{port}"
    finally:
        stop_group(proc.pid)


def stop_group(pgid: int, timeout: float = 60) -> None:
    """SIGTERM to the block's process group (its `serve`), then wait until it is gone."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.killpg(pgid, signal.SIGKILL)


def run_quickstart(tmp: Path, text: str) -> Run:
    examples, run = blocks(text), Run()
    run.printed["cli-output"] = shell(tmp, examples["cli"])
    run.printed["python-output"] = python(tmp, examples["python"], "in_process.py")
    with pasted(tmp, examples["curl"]) as (printed, url):
        retained, recalled = trimmed(printed).splitlines()
        run.printed["curl-output"] = retained + "\n"
        answer = json.loads(recalled)
        run.recalled_first = answer["results"][0]["text"] if answer["results"] else ""
        run.recall_pending = answer["pending"]
        client = examples["client"].replace("http://127.0.0.1:8000", url)
        run.printed["client-output"] = python(tmp, client, "client.py")
        with McpSession(lambda: http(url + "/mcp", None)) as remote:
            run.tools = {t.name for t in remote.tools()}
    run.stdio_answer = stdio_recall(tmp, json.loads(examples["mcp"]))
    return run


def stdio_recall(tmp: Path, config: dict[str, Any]) -> list[str]:
    """The MCP client's entry as written (its data directory moved under `tmp`): the
    command parses as the CLI's, and its `recall` tool answers from the store."""
    from mcp import Client, StdioServerParameters

    entry = config["mcpServers"]["sediment"]
    assert entry["command"] == "sediment"
    check_command(["sediment", *entry["args"]])
    env = {**user_env(), **entry["env"], "SEDIMENT_DATA_DIR": str(tmp / ".sediment")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "sediment.cli", *entry["args"]], env=env, cwd=tmp
    )
    with McpSession(lambda: Client(params)) as local:
        answer = local.call("recall", query="Where does Bob work?", limit=1)
    assert not answer.is_error, answer.content
    return [r.text for r in rows(answer)]


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Run, str]]:
    text = README.read_text(encoding="utf-8")
    yield run_quickstart(tmp_path_factory.mktemp("quickstart"), text), text


@pytest.mark.parametrize("name", ["cli-output", "python-output", "curl-output", "client-output"])
def test_the_readme_shows_what_its_example_prints(quickstart: tuple[Run, str], name: str) -> None:
    run, text = quickstart
    assert blocks(text)[name] == run.printed[name], (
        f"README block {name!r} is stale; `python -m tests.e2e.test_docs_examples --write`"
    )


def test_the_curl_recall_finds_what_the_readme_says(quickstart: tuple[Run, str]) -> None:
    """The block's recall waits for the retained event: its first result is the new
    fact, with nothing pending, the first time it is asked."""
    run, text = quickstart
    said = FIRST_RESULT.search(text)
    assert said is not None and said.group(1) == run.recalled_first
    assert run.recall_pending == 0


def test_the_mcp_tools_are_the_ones_named(quickstart: tuple[Run, str]) -> None:
    run, text = quickstart
    named = TOOLS.search(text)
    assert named is not None
    assert set(re.findall(r"`(\w+)`", named.group(1))) == run.tools


def test_the_mcp_client_entry_starts_a_server_that_recalls(quickstart: tuple[Run, str]) -> None:
    run, _ = quickstart
    assert run.stdio_answer == ["Bob works at Globex."]


def explain_example(tmp: Path, page: str) -> str:
    """The page's curl request, recalled in-process over the demo data with the HTTP
    route's defaults (`surface_default`): the response as the page shows it (one result
    of two)."""
    [argv] = [a for a in commands(blocks_any(page, "explain-request")) if a[0] == "curl"]
    request = RecallRequest.model_validate_json(argv[argv.index("-d") + 1])
    settings = Settings(mode="embedded", data_dir=tmp / "demo", embedder="static")
    run_demo(settings, None, Console(file=io.StringIO()))
    rt = bootstrap(settings)
    try:
        pipeline = dataclasses.replace(rt.recall_pipeline, clock=lambda: EXPLAIN_CLOCK)
        response = pipeline.recall("demo", surface_default(request))
    finally:
        rt.close()
    body = json.loads(response.wire())
    body["results"] = body["results"][:1]
    return json.dumps(body, indent=2) + "\n"


def blocks_any(text: str, name: str) -> str:
    return blocks(text)[name]


def without_ms(example: str) -> Any:
    """The example less what varies between runs: the milliseconds."""
    body = json.loads(example)
    body["timings"] = sorted(body["timings"])
    for stage in body["explain"]:
        stage["ms"] = 0
    return body


def test_the_recall_page_shows_what_its_request_answers(tmp_path: Path) -> None:
    page = RECALL_PAGE.read_text(encoding="utf-8")
    shown = blocks(page)["explain"]
    assert without_ms(shown) == without_ms(explain_example(tmp_path, page)), (
        "docs/recall.md's explain example is stale; "
        "`python -m tests.e2e.test_docs_examples --write`"
    )


def replace_blocks(text: str, printed: dict[str, str]) -> str:
    for name, new in printed.items():
        old = blocks(text)[name]
        at = text.index(old, text.index(f"<!-- check: {name} -->"))
        text = text[:at] + new + text[at + len(old) :]
    return text


def write(tmp: Path) -> None:
    text = README.read_text(encoding="utf-8")
    (tmp / "quickstart").mkdir()
    run = run_quickstart(tmp / "quickstart", text)
    README.write_text(replace_blocks(text, run.printed), encoding="utf-8")
    page = RECALL_PAGE.read_text(encoding="utf-8")
    example = explain_example(tmp, page)
    RECALL_PAGE.write_text(replace_blocks(page, {"explain": example}), encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    assert sys.argv[1:] == ["--write"], "usage: python -m tests.e2e.test_docs_examples --write"
    with tempfile.TemporaryDirectory() as scratch:
        write(Path(scratch))
