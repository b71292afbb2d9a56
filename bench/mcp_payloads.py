"""What an agent pays for Sediment's MCP server: bytes of its answers and the wait for
`initialize`, measured on the real stdio server (`sediment mcp`, embedded, a store in
a temporary directory) spoken to in raw JSON-RPC lines, so every byte counted is a
byte on the wire.

    sediment-bench mcp                        # 3 runs; writes bench/results/mcp.json
    sediment-bench mcp --baseline ../old      # the same runs against another checkout too

Each run starts the server, times `initialize` from the spawn to its answer, lists the
tools (the size of the answer, and of each tool's entry), retains the shipped demo
conversation and recalls the demo questions (limit 8): the text content's characters
and the whole JSON-RPC answer's bytes, each against the characters of the memory texts
the answer shows (a demo text counts when the answer's text carries it). Then a few
calls the server refuses, to show how each tool error begins. With `--baseline
CHECKOUT`, the same server is run from that checkout (`PYTHONPATH`), in alternating
order with this one, so machine noise hits both alike. Sizes are deterministic; the
`initialize` time is reported as the median of the runs, with every run kept.
"""

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

DEMO = Path(__file__).resolve().parents[1] / "sediment" / "data" / "demo.jsonl"
QUESTIONS = ("Where does Maya live?", "What does Maya drink?", "What does Maya do?", "Paris")
REFUSED: dict[str, dict[str, Any]] = {
    "recall": {"query": "   "},
    "inspect": {"memory_id": "zzzz"},
    "retain": {"items": []},
    "feedback": {"memory_id": "zzzz", "vote": "meh"},
}
BANK = "maya"


def demo_items() -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in DEMO.read_text().splitlines() if x.strip()]
    unique = {(r["text"], r["occurred_at"]): r for r in rows}.values()
    return [{k: v for k, v in r.items() if k != "bank_id"} for r in unique]


class StdioServer:
    """`sediment mcp --bank maya` from `checkout` (this one by default), one JSON-RPC
    line out, one line back."""

    def __init__(
        self, data_dir: Path, checkout: Path | None, env: dict[str, str] | None = None
    ) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEDIMENT_")} | (env or {})
        env |= {"SEDIMENT_DATA_DIR": str(data_dir), "SEDIMENT_LOG_LEVEL": "WARNING"}
        if checkout is not None:
            env["PYTHONPATH"] = str(checkout)
        self.started = time.perf_counter()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "sediment.cli", "mcp", "--bank", BANK],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=checkout,
            text=True,
        )
        self._next = 0

    @property
    def _io(self) -> tuple[IO[str], IO[str]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def send(self, method: str, params: dict[str, Any] | None = None) -> str:
        """The answer's line, as the server wrote it (without the newline)."""
        self._next += 1
        stdin, stdout = self._io
        message = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params or {}}
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError(f"sediment mcp closed its stdout during {method}")
            if json.loads(line).get("id") == self._next:
                return line.rstrip("\n")

    def notify(self, method: str) -> None:
        stdin, _ = self._io
        stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        stdin.flush()

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        line = self.send("tools/call", {"name": tool, "arguments": arguments})
        return line, json.loads(line)["result"]

    def close(self) -> None:
        stdin, _ = self._io
        stdin.close()
        try:
            self._proc.wait(30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def initialize(server: StdioServer) -> float:
    """Milliseconds from the spawn to the answer to `initialize`."""
    server.send(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "sediment-bench", "version": "0"},
        },
    )
    took = (time.perf_counter() - server.started) * 1000
    server.notify("notifications/initialized")
    return took


def shown_memory_chars(text: str, memories: list[str]) -> int:
    """The characters of the demo texts an answer's text shows, one per line at most."""
    total = 0
    for line in text.splitlines():
        carried = [m for m in memories if m in line]
        total += max((len(m) for m in carried), default=0)
    return total


def text_content(result: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []))


def one_run(checkout: Path | None) -> dict[str, Any]:
    items = demo_items()
    memories = sorted({i["text"] for i in items})
    with tempfile.TemporaryDirectory(prefix="sediment-mcp-bench-") as tmp:
        server = StdioServer(Path(tmp) / "data", checkout)
        try:
            init_ms = initialize(server)
            listed = server.send("tools/list")
            tools = json.loads(listed)["result"]["tools"]
            server.call("retain", {"items": items})
            recalls = []
            for question in QUESTIONS:
                line, result = server.call("recall", {"query": question, "limit": 8})
                text = text_content(result)
                shown = shown_memory_chars(text, memories)
                recalls.append(
                    {
                        "query": question,
                        "lines": len(text.splitlines()),
                        "text_chars": len(text),
                        "answer_bytes": len(line.encode()),
                        "memory_chars": shown,
                        "text_ratio": round(len(text) / shown, 3) if shown else None,
                        "answer_ratio": round(len(line.encode()) / shown, 3) if shown else None,
                        "structured": "structuredContent" in result,
                        "text": text,
                    }
                )
            errors = {}
            for tool, arguments in REFUSED.items():
                _, result = server.call(tool, arguments)
                errors[tool] = text_content(result)[:80] if result.get("isError") else None
        finally:
            server.close()
    return {
        "initialize_ms": round(init_ms, 1),
        "tools_list_bytes": len(listed.encode()),
        "tool_bytes": {t["name"]: len(json.dumps(t, separators=(",", ":"))) for t in tools},
        "recalls": recalls,
        "errors": errors,
    }


def code_of(checkout: Path | None) -> str:
    """ "this code", or the other checkout's commit (its path says nothing to a reader)."""
    if checkout is None:
        return "this code"
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return f"commit {done.stdout.strip()}" if done.returncode == 0 else "another checkout"


def run_payloads(
    runs: int, baseline: Path | None, say: Callable[[str], None] = print
) -> dict[str, Any]:
    sides: dict[str, Path | None] = {"here": None}
    if baseline is not None:
        sides["baseline"] = baseline.resolve()
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    load_start, started = list(os.getloadavg()), time.perf_counter()
    for r in range(runs):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for name in order:
            results[name].append(one_run(sides[name]))
            say(f"run {r + 1}/{runs} {name}: initialize {results[name][-1]['initialize_ms']} ms")
    report: dict[str, Any] = {
        "benchmark": "mcp_payloads",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "settings": {"runs": runs, "questions": list(QUESTIONS), "limit": 8},
        "load_average": {
            "start": [round(x, 2) for x in load_start],
            "end": [round(x, 2) for x in os.getloadavg()],
        },
        "wall_time_s": round(time.perf_counter() - started, 1),
        "sides": {},
    }
    for name, side_runs in results.items():
        last = side_runs[-1]
        report["sides"][name] = {
            "checkout": code_of(sides[name]),
            "initialize_ms_median": statistics.median(x["initialize_ms"] for x in side_runs),
            "initialize_ms": [x["initialize_ms"] for x in side_runs],
            **{k: v for k, v in last.items() if k != "initialize_ms"},
        }
    return report


def summary(report: dict[str, Any]) -> list[str]:
    lines = []
    for name, side in report["sides"].items():
        lines.append(f"{name} ({side['checkout']}):")
        lines.append(
            f"  initialize {side['initialize_ms_median']:.0f} ms (median of "
            f"{', '.join(f'{x:.0f}' for x in side['initialize_ms'])})"
        )
        biggest = max(side["tool_bytes"], key=side["tool_bytes"].get)
        lines.append(
            f"  tools/list {side['tools_list_bytes']} B; largest tool {biggest} "
            f"{side['tool_bytes'][biggest]} B"
        )
        for r in side["recalls"]:
            lines.append(
                f"  recall {r['query']!r}: {r['lines']} lines, text {r['text_chars']} chars, "
                f"answer {r['answer_bytes']} B, memory text {r['memory_chars']} chars; "
                f"text x{r['text_ratio']}, answer x{r['answer_ratio']}"
            )
        for tool, message in side["errors"].items():
            lines.append(f"  {tool} refused: {message!r}")
    return lines


def mcp_section(report: dict[str, Any], source: str) -> list[str]:
    """The `mcp` section of docs/benchmarks.md."""
    m, la = report["machine"], report["load_average"]
    lines = [
        "## MCP payloads and start (`mcp`)",
        "",
        f"Source `{source}`, run {report['date']}, {m['cpu_count']} CPUs, {m['platform']}, "
        f"Python {m['python']}. Load average at start {la['start']}, at end {la['end']}; "
        f"wall time {report['wall_time_s']} s.",
        "",
        "`sediment mcp --bank maya` over stdio, spoken to in raw JSON-RPC lines: "
        "`initialize` from the spawn to its answer (median of "
        f"{report['settings']['runs']} runs, sides alternating), the `tools/list` answer, "
        "and recalls of the demo conversation (limit 8): the text content's characters "
        "and the whole answer's bytes against the characters of the memory texts shown.",
        "",
        "| side | initialize ms (runs) | tools/list bytes | largest tool | "
        "recall text / memory text | whole answer / memory text |",
        "| --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for name, side in report["sides"].items():
        biggest = max(side["tool_bytes"], key=side["tool_bytes"].get)
        shown = [r for r in side["recalls"] if r["memory_chars"]]
        text = max(r["text_ratio"] for r in shown) if shown else None
        whole = max(r["answer_ratio"] for r in shown) if shown else None
        runs = ", ".join(f"{x:.0f}" for x in side["initialize_ms"])
        lines.append(
            f"| {name} ({side['checkout']}) | {side['initialize_ms_median']:.0f} ({runs}) | "
            f"{side['tools_list_bytes']} | {biggest} {side['tool_bytes'][biggest]} | "
            f"{text} | {whole} |"
        )
    lines += ["", "Ratios are the largest over the questions. How each side refuses:", ""]
    for name, side in report["sides"].items():
        said = "; ".join(f"{tool}: `{msg}`" for tool, msg in side["errors"].items())
        lines.append(f"- {name}: {said}")
    lines.append("")
    return lines
