"""The MCP server as an MCP client uses it, through the SDK's own client: `sediment mcp`
over stdio (embedded, a store in a temporary directory), and streamable HTTP at /mcp
of a real `sediment serve` in standalone mode (its worker consuming from real Redis)."""

import json
import os
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import httpx
import pytest
import redis
from mcp import MCPError

from bench.mcp_payloads import demo_items
from sediment import store_owner
from sediment.api.keys import digest
from tests.e2e.cli import sediment
from tests.e2e.mcp_session import McpSession, Row, answer_text, http, notes, rows, stdio
from tests.e2e.test_http import Server, eventually, running
from tests.helpers import redis_url

REDIS_URL = redis_url(14)
TOKEN = "mcp-e2e-token"
READER_SECRET = "people-reader-secret"
TOOLS = {"retain", "recall", "inspect", "feedback", "forget", "stats", "banks"}
BOSTON = {
    "text": "Alice lives in Boston.",
    "key": "alice.city",
    "occurred_at": "2024-01-01T09:00:00Z",
}
SEATTLE = {
    "text": "Alice moved to Seattle.",
    "key": "alice.city",
    "occurred_at": "2024-06-01T09:00:00Z",
}
WHERE = "Where does Alice live?"


def recalled(session: McpSession, **arguments: object) -> list[Row]:
    """A recall that must succeed: the results its text lists."""
    result = session.call("recall", **arguments)
    assert not result.is_error, result.content
    return rows(result)


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    """`sediment mcp --bank notes --all-banks`: one process for the module, like a
    desktop agent's; `notes` is the default and calls may name other banks."""
    tmp = Path(tmp_path_factory.mktemp("mcp-stdio"))
    with McpSession(lambda: stdio(tmp, "--bank", "notes", "--all-banks")) as session:
        yield session


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = redis.Redis.from_url(REDIS_URL)
    try:
        db.ping()
    except redis.ConnectionError:
        pytest.fail("the MCP e2e tests need Redis on 127.0.0.1:6379 (.ci/run starts it)")
    db.flushdb()
    tmp = tmp_path_factory.mktemp("mcp-http")
    keys = tmp / "keys.json"
    reader = {"name": "people-reader", "banks": ["people"], "scopes": ["read"]}
    keys.write_text(json.dumps([{**reader, "sha256": digest(READER_SECRET)}]))
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": REDIS_URL,
        "SEDIMENT_QUEUE": f"sediment-mcp-{uuid.uuid4().hex[:8]}",
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_API_KEYS_FILE": str(keys),
    }
    env.pop("SEDIMENT_MCP_BANK", None)
    with running(env, tmp) as srv:
        yield srv
    db.flushdb()


@pytest.fixture(scope="module")
def remote(server: Server) -> Iterator[McpSession]:
    with McpSession(partial(http, server.url + "/mcp", TOKEN)) as session:
        yield session


def test_stdio_lists_typed_documented_tools(local: McpSession) -> None:
    tools = {t.name: t for t in local.tools()}
    assert set(tools) == TOOLS
    assert all(t.description and t.input_schema["type"] == "object" for t in tools.values())
    recall = tools["recall"].input_schema["properties"]
    assert (recall["limit"]["minimum"], recall["limit"]["maximum"]) == (1, 100)
    assert recall["query"]["minLength"] == 1 and "bank" not in tools["recall"].input_schema.get(
        "required", []
    )
    assert all(t.output_schema is None for t in tools.values())
    assert tools["retain"].input_schema["properties"]["items"]["minItems"] == 1
    assert tools["recall"].annotations and tools["recall"].annotations.read_only_hint


def test_stdio_update_then_recall_returns_the_new_state(local: McpSession) -> None:
    """Embedded: each retain is consolidated before the call returns."""
    first = local.ok("retain", items=[BOSTON])
    assert first["status"] == "consolidated" and first["bank"] == "notes"
    local.ok("retain", items=[SEATTLE])
    now = recalled(local, query=WHERE)
    assert "Seattle" in now[0].text and not any("Boston" in r.text for r in now)
    history = local.ok("recall", query=WHERE, history=True, explain=True)
    states = {r["text"]: r["state"] for r in history["results"]}
    assert states[BOSTON["text"]] == "superseded" and history["explain"]
    view = local.ok("inspect", memory_id=now[0].id)
    assert [s["text"] for s in view["edges"]["supersedes"]] == [BOSTON["text"]]


DEMO_QUESTIONS = ("Where does Maya live?", "What does Maya drink?", "What does Maya do?")


def test_stdio_recall_is_compact_one_line_per_result(local: McpSession) -> None:
    """The text content an agent reads is one line per result (id, date, score, text)
    and at most 1.5 times the characters of the memory texts it shows; there is no
    structured content unless `explain` asks for the detail (scores, components,
    timings). Sizes, not times: they are the same on any machine."""
    local.ok("retain", items=demo_items(), bank="maya")
    for question in DEMO_QUESTIONS:
        result = local.call("recall", query=question, bank="maya", limit=8)
        assert not result.is_error and result.structured_content is None
        [block] = result.content
        text = block.text  # type: ignore[union-attr]
        found = rows(result)
        assert found and len(text.splitlines()) == len(found), text
        memory_chars = sum(len(r.text) for r in found)
        assert len(text) <= 1.5 * memory_chars, (text, memory_chars)
    first = found[0]
    assert text.startswith(f"{first.id} {first.date} ") and first.score > 0
    explained = local.ok("recall", query="Maya", bank="maya", limit=2, explain=True)
    assert explained["timings"] and explained["explain"]
    assert "score" in explained["results"][0] and "components" in explained["results"][0]
    assert "null" not in json.dumps(explained)


QUICKSTART = [
    {"text": "Alice lives in Boston.", "occurred_at": "2024-01-10T09:00:00Z"},
    {"text": "Alice moved to Seattle.", "occurred_at": "2024-06-01T09:00:00Z"},
    {"text": "Alice drinks her coffee black.", "occurred_at": "2024-06-02T09:00:00Z"},
]
ROW = len("d1978c 2024-06-01 .76 \n")
"""What a row adds to its memory's text: id, date, score and a newline."""


def test_stdio_recall_of_short_memories_is_their_text_and_the_rows_alone(
    local: McpSession,
) -> None:
    """The README quickstart's memories are short (26 characters on average): the text
    is the rows, each adding its id, date and score to the memory text, and no note of
    results left out while some are shown. (1.5 times their texts cannot hold here:
    half of a 26-character text is 13 characters, fewer than a row's id, date and
    score take.)"""
    local.ok("retain", items=[{**i, "entities": ["Alice"]} for i in QUICKSTART], bank="quick")
    for question in ("Where does Alice live?", "coffee"):
        result = local.call("recall", query=question, bank="quick")
        text = answer_text(result)
        found = rows(result)
        assert found and notes(result) == [], text
        memory_chars = sum(len(r.text) for r in found)
        assert len(text) <= memory_chars + ROW * len(found), text


def test_stdio_tool_list_is_sized_for_an_agent(local: McpSession) -> None:
    """`tools/list` goes to the model with every conversation: at most 8 KB, as the
    server writes it (JSON without spaces), with no output schemas and no `$defs`."""
    tools = local.tools()
    listed = json.dumps(
        {"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]},
        separators=(",", ":"),
    )
    assert len(listed.encode()) <= 8 * 1024, len(listed)
    assert (
        "$defs" not in listed
        and "outputSchema" not in listed
        and '"title":"' not in (json.dumps([t.input_schema for t in tools], separators=(",", ":")))
    )


def test_every_tool_error_says_error_first(local: McpSession) -> None:
    for tool, arguments in (
        ("recall", {"query": "   "}),
        ("recall", {"query": "Alice", "limit": 0}),
        ("inspect", {"memory_id": "zzzz"}),
        ("inspect", {"memory_id": str(uuid.UUID(int=7))}),
        ("retain", {"items": []}),
        ("feedback", {"memory_id": "zzzz", "vote": "meh"}),
        ("no-such-tool", {}),
    ):
        message = local.error(tool, **arguments)
        assert message.startswith("error: ") and "Error executing" not in message, message


def test_stdio_recall_leaves_out_unrelated_results_unless_asked_for(local: McpSession) -> None:
    """Nothing in bank `paris-free` is about Paris: the answer says nothing was found
    and how many results it left out; `all` or a `min_score` shows them, scored."""
    items = [{"text": "Nadia grows tomatoes."}, {"text": "Nadia repairs old radios."}]
    local.ok("retain", items=items, bank="paris-free")
    ruled = local.call("recall", query="Paris", bank="paris-free")
    assert not ruled.is_error and rows(ruled) == []
    assert notes(ruled) == [
        "nothing found in bank paris-free",
        "2 results without topical evidence left out (all: true shows them)",
    ]
    every = local.call("recall", query="Paris", bank="paris-free", all=True)
    assert {r.text for r in rows(every)} == {i["text"] for i in items}
    assert notes(every) == ["low confidence: no result is close to the query in meaning"]
    floor = local.call("recall", query="Paris", bank="paris-free", min_score=1e-6)
    assert rows(floor) == rows(every)
    found = rows(local.call("recall", query="What does Nadia grow?", bank="paris-free"))
    assert found[0].text == "Nadia grows tomatoes."


def test_stdio_retain_says_what_happened_and_inspect_takes_the_short_id(
    local: McpSession,
) -> None:
    home = {
        "text": "Ravi lives in Pune.",
        "key": "ravi.city",
        "occurred_at": "2024-01-01T09:00:00Z",
    }
    moved = {
        "text": "Ravi moved to Goa.",
        "key": "ravi.city",
        "occurred_at": "2024-05-01T09:00:00Z",
    }
    first = local.ok("retain", items=[home], bank="ravi")
    [said] = first["outcomes"]
    assert said.startswith("stored ")
    old = said.split()[1]
    second = local.ok("retain", items=[moved], bank="ravi")
    assert f"superseded {old}" in second["outcomes"][0]
    result = local.call("inspect", memory_id=old, bank="ravi")
    assert not result.is_error
    words = result.content[0].text  # type: ignore[union-attr]
    assert "superseded" in words and "why:" in words and "Ravi lives in Pune." in words
    assert "slot_keys" not in json.dumps(result.structured_content)
    raw = local.ok("inspect", memory_id=old, bank="ravi", raw=True)
    assert "slot_keys" in raw["memory"]
    assert "ambiguous" not in local.error("inspect", memory_id="zzzz", bank="ravi")


def test_stdio_retains_many_items_once_each(local: McpSession) -> None:
    items = [
        {"text": "Carol plays the oboe.", "occurred_at": "2024-02-01T09:00:00Z"},
        {"text": "Carol's oboe is from 1962.", "occurred_at": "2024-02-02T09:00:00Z"},
    ]
    first = local.ok("retain", items=items, bank="music")
    again = local.ok("retain", items=items, bank="music")
    assert first["event_ids"] == again["event_ids"] and len(set(first["event_ids"])) == 2
    assert local.ok("stats", bank="music")["memories"] == 2
    assert "music" in local.ok("banks")["banks"]


def test_stdio_bank_isolation(local: McpSession) -> None:
    local.ok("retain", items=[{"text": "Bob likes green tea."}], bank="bank-a")
    found = recalled(local, query="Bob tea", bank="bank-a")
    assert [r.text for r in found] == ["Bob likes green tea."]
    other = recalled(local, query="Bob tea", bank="bank-b", all=True)
    assert not any("Bob" in r.text for r in other)
    hidden = local.error("inspect", memory_id=found[0].id, bank="bank-b")
    assert "no memory" in hidden and "bank-b" in hidden


def test_stdio_bank_pins_the_server(tmp_path: Path) -> None:
    """`sediment mcp --bank notes` serves `notes` only: naming another bank is a tool
    error, and `banks` lists no other."""
    with McpSession(lambda: stdio(tmp_path, "--bank", "notes")) as pinned:
        pinned.ok("retain", items=[{"text": "Gus keeps a diary."}])
        for tool, arguments in (
            ("recall", {"query": "Gus"}),
            ("retain", {"items": [{"text": "Gus moved."}]}),
            ("forget", {"tags": ["x"]}),
            ("stats", {}),
        ):
            message = pinned.error(tool, bank="other", **arguments)
            assert "bank 'other' is not served here" in message and "--all-banks" in message
        assert pinned.ok("banks") == {"banks": ["notes"], "default_bank": "notes"}
        assert [r.text for r in recalled(pinned, query="Gus diary")] == ["Gus keeps a diary."]


def test_a_store_held_elsewhere_is_a_tool_error_until_it_is_free(tmp_path: Path) -> None:
    """`sediment mcp` answers `initialize` before it opens the store: on a store another
    process holds, each call says who holds it, and the first call after it is freed
    is served."""
    data = tmp_path / "data"
    data.mkdir()
    store_owner.acquire(data)
    try:
        with McpSession(lambda: stdio(tmp_path, "--bank", "notes")) as session:
            assert {t.name for t in session.tools()} == TOOLS
            message = session.error("recall", query="Alice")
            assert message.startswith("error: cannot serve recall: "), message
            assert "is in use by" in message and "--url" in message
            store_owner.release(data)
            assert session.ok("retain", items=[BOSTON])["status"] == "consolidated"
    finally:
        store_owner.release(data)


def test_stdio_feedback_is_counted(local: McpSession) -> None:
    local.ok("retain", items=[{"text": "Dan's locker code is 4411."}], bank="votes")
    shown = recalled(local, query="Dan locker code", bank="votes")[0]
    vote = local.ok("feedback", memory_id=shown.id, vote="up", bank="votes")
    assert vote["status"] == "counted"
    view = local.ok("inspect", memory_id=shown.id, bank="votes")
    assert view["memory"]["votes_up"] == 1


@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("recall", {"query": ""}, ["query", "at least 1 character"]),
        ("recall", {"query": "Alice", "limit": 0}, ["limit", "greater than or equal to 1"]),
        ("recall", {"query": "Alice", "bank": "no spaces!"}, ["bank", "pattern"]),
        ("recall", {"query": "   "}, ["query", "blank"]),
        ("retain", {"items": []}, ["items", "at least 1 item"]),
        ("retain", {"items": [{"text": "x", "occurred_at": "2024-01-01T09:00:00"}]}, ["timezone"]),
        ("retain", {"items": [{"text": "ok"}, {"text": " "}]}, ["items.1.text", "blank"]),
        ("inspect", {"memory_id": "not-a-uuid"}, ["memory_id"]),
        ("inspect", {"memory_id": str(uuid.UUID(int=7))}, ["no memory", "bank notes"]),
        ("feedback", {"memory_id": str(uuid.UUID(int=7)), "vote": "meh"}, ["vote"]),
    ],
)
def test_stdio_bad_calls_are_tool_errors(
    local: McpSession, tool: str, arguments: dict[str, object], words: list[str]
) -> None:
    message = local.error(tool, **arguments)
    for word in words:
        assert word in message, message
    assert local.ok("banks")["default_bank"] == "notes"


def test_http_token_is_enforced_on_mcp(server: Server) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN}):
        r = httpx.post(server.url + "/mcp", json=hello, headers=headers)
        assert r.status_code == 401, r.text
        assert r.json()["error"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
    with (
        pytest.raises(ExceptionGroup) as refused,
        McpSession(partial(http, server.url + "/mcp", None)),
    ):
        pass
    assert refused.group_contains(MCPError)


def test_http_lists_tools(remote: McpSession) -> None:
    assert {t.name for t in remote.tools()} == TOOLS


def test_http_update_then_recall_returns_the_new_state(remote: McpSession) -> None:
    """Standalone: retains are queued; the serve process's worker consolidates them."""
    assert remote.ok("retain", items=[BOSTON], bank="people")["status"] == "queued"
    remote.ok("retain", items=[SEATTLE], bank="people")

    def settled() -> list[Row] | None:
        now = recalled(remote, query=WHERE, bank="people")
        return now if len(now) == 1 and "Seattle" in now[0].text else None

    now = eventually(settled, "the update to be consolidated")
    view = remote.ok("inspect", memory_id=now[0].id, bank="people")
    assert [s["text"] for s in view["edges"]["supersedes"]] == [BOSTON["text"]]
    assert remote.ok("stats", bank="people")["superseded"] == 1


def test_http_bank_isolation(remote: McpSession) -> None:
    remote.ok("retain", items=[{"text": "Erin keeps bees."}], bank="bees")
    eventually(lambda: recalled(remote, query="Erin bees", bank="bees"), "Erin's bees")
    other = recalled(remote, query="Erin bees", bank="wasps", all=True)
    assert not any("Erin" in r.text for r in other)


@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("recall", {"query": "Alice"}, ["no bank given", "SEDIMENT_MCP_BANK"]),
        ("recall", {"query": "", "bank": "people"}, ["query"]),
        ("recall", {"query": "Alice", "bank": "people", "limit": 0}, ["limit"]),
        ("recall", {"query": "Alice", "bank": "bad/bank"}, ["bank", "pattern"]),
    ],
)
def test_http_bad_calls_are_tool_errors(
    remote: McpSession, tool: str, arguments: dict[str, object], words: list[str]
) -> None:
    message = remote.error(tool, **arguments)
    for word in words:
        assert word in message, message
    assert remote.ok("banks")["default_bank"] is None


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        (["--bank", "a b"], {}, "--bank 'a b' is not a bank id"),
        ([], {"SEDIMENT_MCP_BANK": "a/b"}, "invalid setting SEDIMENT_MCP_BANK"),
    ],
)
def test_a_bad_default_bank_stops_sediment_mcp_at_start(
    tmp_path: Path, args: list[str], env: dict[str, str], words: str
) -> None:
    run = sediment(tmp_path, "mcp", *args, env=env, check=False)
    assert run.returncode == 2 and words in run.stderr, run.stderr
    assert run.stdout == ""


def test_http_changes_are_audited_under_the_caller(remote: McpSession) -> None:
    """The token's MCP calls are recorded as `token`'s, the caller the API names."""
    remote.ok("retain", items=[{"text": "Finn sails on Sundays."}], bank="audited")
    db = redis.Redis.from_url(REDIS_URL)
    [(_, fields)] = db.xrange("sediment:audit:audited")
    entry = json.loads(fields[b"entry"])
    assert (entry["actor"], entry["action"], entry["counts"]) == ("token", "retain", {"events": 1})
    assert "Finn" not in json.dumps(entry)


def test_http_a_read_key_for_one_bank_works_on_mcp(server: Server) -> None:
    """The SDK's client with a key scoped to bank `people` and `read`: it sees the read
    tools only, recalls its bank, and a retain is a tool error naming the scope."""
    with McpSession(partial(http, server.url + "/mcp", READER_SECRET)) as reader:
        assert {t.name for t in reader.tools()} == {"recall", "inspect", "stats", "banks"}
        assert not reader.call("recall", query=WHERE, bank="people").is_error
        refused = reader.error("retain", items=[BOSTON], bank="people")
        assert "lacks the 'write' scope that retain needs" in refused
        assert "does not open bank 'other'" in reader.error("recall", query="x", bank="other")


def test_http_recall_waits_for_its_own_writes(remote: McpSession) -> None:
    """Retains over /mcp are queued; recall's `wait_for` reads them once consolidated."""
    queued = remote.ok("retain", items=[{"text": "Ines paints murals."}], bank="ryw-mcp")
    assert queued["status"] == "queued"
    found = remote.call(
        "recall",
        query="Ines murals",
        bank="ryw-mcp",
        wait_for=queued["event_ids"],
        wait_timeout_s=30,
    )
    assert [r.text for r in rows(found)] == ["Ines paints murals."] and notes(found) == []
