"""One process per local store, and the next process told who that is.

An embedded store (qdrant-edge, or qdrant-client's local mode) admits one process: the
engine locks its files, and a second process died deep inside the engine with a long
traceback (`Can't init WAL: Kind(WouldBlock)`). So the process that opens a local
store first takes an advisory lock (`flock`) on `<data_dir>/owner.json` and writes its
pid and command there. The next process finds the lock taken, reads who holds it and
stops with one line saying so and what to do instead. The file alone proves nothing
(a killed owner leaves it behind): the live lock does, and the kernel drops it with
its process, so a stale file never blocks anyone.

Within one process the lock is counted, not taken twice: `flock` locks belong to an
open file, so a second open of the same directory by the same process would refuse
itself.
"""

import fcntl
import json
import os
import socket
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Final

OWNER_FILE: Final = "owner.json"
CLIENT_MODE: Final = frozenset(
    f"sediment {name}"
    for name in (
        "retain",
        "recall",
        "inspect",
        "ingest",
        "forget",
        "banks",
        "stats",
        "audit",
        "export",
        "last-recall",
        "mcp",
    )
)
"""The commands that take `--url` (sediment/remote.py): refused, they are told to add
it; the other `sediment` commands work on the data directory itself, so they are told
to stop its owner instead."""


@dataclass(frozen=True)
class Owner:
    """Who holds a data directory, as its own file says."""

    pid: int | None
    command: str
    host: str = ""
    since: str = ""
    url: str = ""
    """Where it serves the HTTP API (`sediment serve` says so once it knows)."""

    def describe(self) -> str:
        where = f" on {self.host}" if self.host and self.host != socket.gethostname() else ""
        pid = f"pid {self.pid}" if self.pid is not None else "pid unknown"
        since = f", since {self.since}" if self.since else ""
        return f"`{self.command}` ({pid}{where}{since})"


class StoreOwnedError(RuntimeError):
    """A local store another process has open: one line naming that process (when it
    is known) and what to do instead: go through it (`--url`, for the commands that
    take it), or, for a `sediment` command that has no client mode, stop it first.
    `command`: the refused one (default: this process's, `this_command`)."""

    def __init__(self, data_dir: Path, owner: Owner | None, command: str | None = None) -> None:
        self.data_dir = data_dir
        self.owner = owner
        holder = owner.describe() if owner is not None else "another process"
        url = owner.url if owner is not None and owner.url else "http://HOST:PORT"
        command = command or this_command()
        distributed = (
            "(several processes on one store need a Qdrant server: "
            "SEDIMENT_MODE=distributed with SEDIMENT_QDRANT_URL)"
        )
        if command.startswith("sediment ") and command not in CLIENT_MODE:
            super().__init__(
                f"the data directory {data_dir} is in use by {holder}: an embedded store "
                f"admits one process, and `{command}` has no --url to go through it (it "
                f"works on the data directory itself). Stop it and run this again {distributed}"
            )
            return
        super().__init__(
            f"the data directory {data_dir} is in use by {holder}: an embedded store "
            f"admits one process. Go through it instead: add --url {url} to this command "
            "(or set SEDIMENT_URL), or use its HTTP API or MCP endpoint; or stop it and "
            f"run this again {distributed}"
        )


def this_command(argv: list[str] | None = None) -> str:
    """`sediment <subcommand>` for the CLI, else the program's name; never the other
    arguments (a query or a key may be among them)."""
    args = sys.argv if argv is None else argv
    program = Path(args[0]).name if args else "python"
    sub = next((a for a in args[1:] if not a.startswith("-")), None)
    if program in ("sediment", "cli.py", "__main__.py") and sub is not None:
        return f"sediment {sub}"
    return program


@dataclass
class _Held:
    handle: IO[str]
    count: int


_held: dict[Path, _Held] = {}
_guard = threading.Lock()


def read_owner(data_dir: Path) -> Owner | None:
    """What the owner file says, or None when it says nothing readable."""
    try:
        data = json.loads((data_dir / OWNER_FILE).read_text(encoding="utf-8"))
        pid = data.get("pid")
        return Owner(
            pid if isinstance(pid, int) else None,
            str(data.get("command") or "a process"),
            str(data.get("host") or ""),
            str(data.get("since") or ""),
            str(data.get("url") or ""),
        )
    except (OSError, ValueError, AttributeError):
        return None


def acquire(data_dir: Path) -> None:
    """Take `data_dir` for this process, or raise `StoreOwnedError` naming the process
    that has it. The directory must exist."""
    key = data_dir.resolve()
    with _guard:
        held = _held.get(key)
        if held is not None:
            held.count += 1
            return
        handle = (key / OWNER_FILE).open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StoreOwnedError(data_dir, read_owner(key)) from None
        handle.seek(0)
        handle.truncate()
        since = datetime.now(UTC).replace(microsecond=0).isoformat()
        owner = {
            "pid": os.getpid(),
            "command": this_command(),
            "host": socket.gethostname(),
            "since": since,
        }
        handle.write(json.dumps(owner) + "\n")
        handle.flush()
        _held[key] = _Held(handle, 1)


def announce(data_dir: Path, url: str) -> None:
    """Add where this process serves its HTTP API to the owner file it holds, so a
    refused command can say which `--url` reaches it; nothing when it holds none."""
    key = data_dir.resolve()
    with _guard:
        held = _held.get(key)
        if held is None:
            return
        held.handle.seek(0)
        try:
            owner = json.loads(held.handle.read() or "{}")
        except ValueError:
            owner = {}
        owner["url"] = url
        held.handle.seek(0)
        held.handle.truncate()
        held.handle.write(json.dumps(owner) + "\n")
        held.handle.flush()


def release(data_dir: Path) -> None:
    """Give `data_dir` back once every taker in this process has; the file is emptied
    so it never names a process that is gone."""
    key = data_dir.resolve()
    with _guard:
        held = _held.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count > 0:
            return
        del _held[key]
        held.handle.seek(0)
        held.handle.truncate()
        fcntl.flock(held.handle.fileno(), fcntl.LOCK_UN)
        held.handle.close()
