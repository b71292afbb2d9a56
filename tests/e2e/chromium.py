"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol.

A small client on `websockets`: no browser download, no driver. It launches the
browser with a fresh profile, attaches to its page, and offers what the dashboard
tests need: navigate, evaluate, wait for a condition, type into a field, list the
requests the page made, and save a screenshot.
"""

import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def require_chromium() -> str:
    """The browser's path; skipped outside CI when it is missing, a failure in CI
    (.ci/run installs it)."""
    path = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if path is None:
        message = "needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


class Page:
    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30) -> Any:
        call_id = next(self._ids)
        self._ws.send(json.dumps({"id": call_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def navigate(self, url: str) -> None:
        """Requests recorded from here on are this page's."""
        self.events.clear()
        self.send("Page.navigate", {"url": url})

    def wait_for(self, expression: str, timeout: float = 30, what: str = "") -> Any:
        guarded = f"(() => {{ try {{ return ({expression}); }} catch (e) {{ return null; }} }})()"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(guarded)
            if value:
                return value
            time.sleep(0.1)
        state = self.evaluate("document.body ? document.body.dataset.state : 'no body'")
        pytest.fail(f"timed out after {timeout}s waiting for {what or expression} (state {state})")

    def type_into(self, selector: str, text: str) -> None:
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})

    def requested_urls(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(data["data"]))
        return path


def _debug_port(profile: Path, proc: subprocess.Popen[bytes], timeout: float = 30) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"chromium exited with {proc.returncode}")
        if marker.exists() and marker.read_text().strip():
            return int(marker.read_text().splitlines()[0])
        time.sleep(0.1)
    pytest.fail("chromium did not open its DevTools port")


@contextmanager
def chromium(width: int = 1440, height: int = 1100) -> Iterator[Page]:
    """A headless browser with one page, network events recorded; closed at the end."""
    binary = require_chromium()
    profile = Path(tempfile.mkdtemp(prefix="sediment-chromium-"))
    log = (profile.parent / f"{profile.name}.log").open("wb")
    proc = subprocess.Popen(
        [
            binary,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        port = _debug_port(profile, proc)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        target = next(t for t in targets if t["type"] == "page" and t["url"] == "about:blank")
        with connect(target["webSocketDebuggerUrl"], max_size=None, proxy=None) as ws:
            page = Page(ws)
            page.send("Page.enable")
            page.send("Network.enable")
            page.send("Runtime.enable")
            page.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            )
            yield page
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
