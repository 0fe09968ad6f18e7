"""Drives `memctl mcp` with the official MCP Python SDK, as an agent would.

Run by crates/memctl/tests/it/mcp.rs: python client.py MEMCTL STORE_DIR.
The environment (MEMCTL_*, HOME, the cache folder) is the test's, and the
current folder is the project's. The store holds one record,
`prefer-pytest`, when the session starts. Every failed check raises; the
last line printed on success is "mcp client: all checks passed".
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

AWS_KEY = "AKIAIOSFODNN7EXAMPLF"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def check(condition, what, detail=""):
    if not condition:
        raise AssertionError(f"{what}\n{detail}")
    print(f"ok: {what}")


async def call(session, name, arguments):
    """A tool's JSON answer and whether it is an error."""
    result = await session.call_tool(name, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    return json.loads(text), result.is_error, text


async def session_checks(session, memctl, store):
    init = await session.initialize()
    check(init.server_info.name == "memctl", "initialise names the server", init)

    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    check(
        sorted(tools) == ["context", "forget", "list", "remember", "search", "show"],
        "the six tools are listed",
        sorted(tools),
    )
    check(
        tools["forget"].input_schema["required"] == ["id", "revision", "read_hash"],
        "forget's schema requires the revision and the read_hash",
    )

    resources = (await session.list_resources()).resources
    uris = [str(r.uri) for r in resources]
    check("memctl://workspace/MEMORY.md" in uris, "MEMORY.md is a resource", uris)
    catalog = await session.read_resource("memctl://workspace/MEMORY.md")
    check("prefer-pytest" in catalog.contents[0].text, "MEMORY.md lists the record")

    answer, error, _ = await call(session, "search", {"query": "which test runner pytest"})
    check(not error and answer["results"][0]["id"] == "prefer-pytest", "search finds it", answer)
    revision = answer["results"][0]["revision"]

    answer, error, _ = await call(session, "show", {"ids": ["prefer-pytest"]})
    shown = answer["records"][0]
    check(not error and shown["revision"] == revision, "show gives the revision", answer)
    check("pytest" in shown["body"], "show gives the body", answer)

    answer, error, _ = await call(session, "list", {"type": "feedback"})
    ids = [r["id"] for r in answer["records"]]
    check(not error and ids == ["prefer-pytest"], "list filters by type", answer)

    await remember_checks(session, store)
    await bad_call_checks(session)
    await forget_checks(session, store)
    await disk_edit_checks(session, memctl, store)


async def remember_checks(session, store):
    candidate = {
        "name": "deploy-freeze",
        "type": "project",
        "description": "No deploys on Fridays",
        "body": "Production deploys stop on Fridays; the release train leaves on Thursday.",
    }
    answer, error, _ = await call(session, "remember", candidate)
    check(not error and answer["operation"] == "ADD", "remember adds", answer)
    text = (Path(store) / "deploy-freeze.md").read_text()
    check("source: inferred" in text, "an agent's record is source: inferred", text)

    answer, error, _ = await call(session, "remember", candidate)
    check(not error and answer["operation"] == "NOOP", "the same again is a NOOP", answer)

    changed = dict(candidate, body=candidate["body"] + " Hotfixes are the exception.")
    answer, error, _ = await call(session, "remember", dict(changed, expect_revision=7))
    check(error and answer["operation"] == "REFUSED", "a wrong expect_revision is refused", answer)
    answer, error, _ = await call(session, "remember", dict(changed, expect_revision=1))
    check(
        not error and answer["operation"] == "UPDATE" and answer["revision"] == 2,
        "an update at the right revision is saved",
        answer,
    )

    secret = dict(candidate, name="aws-key", body=f"The key is {AWS_KEY}.")
    answer, error, text = await call(session, "remember", secret)
    check(error and answer["operation"] == "REFUSED", "a secret is refused", answer)
    check(AWS_KEY not in text, "the refusal does not echo the secret", text)

    temporary = dict(candidate, name="tmp-note", body="For now, skip the flaky test.")
    answer, error, _ = await call(session, "remember", temporary)
    check(error and answer["operation"] == "REFUSED", "temporary text is refused", answer)

    answer, error, text = await call(session, "remember", dict(candidate, source="user"))
    check(error and "source" in answer["error"], "an agent may not claim source user", text)

    answer, error, _ = await call(session, "remember", dict(candidate, name="x\u001b[2Jy"))
    check(error and answer["operation"] == "REFUSED", "an escape in the name is refused", answer)


async def bad_call_checks(session):
    answer, error, text = await call(session, "search", {"query": "x", "limt": 3})
    check(error and '"limt"' in answer["error"], "an unknown argument is named", text)

    answer, error, text = await call(session, "show", {"ids": ["a\u0000b"]})
    check(error and "U+0000" in answer["error"], "a NUL in an id is refused", text)

    answer, error, text = await call(session, "show", {"ids": ["../../etc/passwd"]})
    check(
        error and "no record" in answer["not_found"][0]["error"] and answer["records"] == [],
        "an id with ../ finds nothing",
        text,
    )

    answer, error, text = await call(session, "search", {"query": "q " + GITHUB_TOKEN + " type:bogus"})
    check(error and GITHUB_TOKEN not in text, "a query error does not echo a secret", text)

    answer, error, text = await call(session, "remember", {"name": "big", "body": "a" * 10_000_000})
    check(error and "bytes" in answer["error"] and len(text) < 1000, "a 10 MB body is refused short", text[:300])

    answer, error, text = await call(session, "show", {"ids": ["\u009b31m" + "é" * 10]})
    check(error and "\u009b" not in text, "no raw C1 escape reaches the output", repr(text))

    try:
        await session.call_tool("frobnicate", {})
        raise AssertionError("an unknown tool was answered as a tool")
    except MCPError as e:
        check(e.error.code == -32602, f"an unknown tool is a -32602 protocol error ({e.error.message})")

    answer, error, _ = await call(session, "search", {"query": "pytest"})
    check(not error and answer["results"], "the server keeps running after bad calls", answer)


async def forget_checks(session, store):
    answer, error, text = await call(session, "forget", {"id": "deploy-freeze"})
    check(error and "revision" in answer["error"], "forget needs the revision", text)

    shown, _, _ = await call(session, "show", {"ids": ["deploy-freeze"]})
    read_hash = shown["records"][0]["read_hash"]
    answer, error, _ = await call(
        session, "forget", {"id": "deploy-freeze", "revision": 1, "read_hash": read_hash}
    )
    check(error and answer["operation"] == "REFUSED", "a stale revision is refused", answer)
    check((Path(store) / "deploy-freeze.md").exists(), "nothing was forgotten")

    answer, error, text = await call(
        session,
        "forget",
        {"id": "deploy-freeze", "revision": 2, "read_hash": read_hash, "reason": "key " + AWS_KEY},
    )
    check(error and AWS_KEY not in text, "a reason holding a secret is refused unechoed", text)

    answer, error, _ = await call(
        session,
        "forget",
        {"id": "deploy-freeze", "revision": 2, "read_hash": read_hash, "reason": "the freeze ended"},
    )
    check(not error and answer["operation"] == "FORGOTTEN", "forget at the read revision", answer)
    check(not (Path(store) / "deploy-freeze.md").exists(), "the file is gone")

    answer, error, _ = await call(
        session,
        "remember",
        {
            "name": "deploy-freeze",
            "type": "project",
            "description": "No deploys on Fridays",
            "body": "Production deploys stop on Fridays; the release train leaves on Thursday. Hotfixes are the exception.",
        },
    )
    check(error and answer["operation"] == "REFUSED", "a tombstone refuses it again", answer)


async def disk_edit_checks(session, memctl, store):
    watcher_running(memctl)
    record = Path(store) / "blue-cluster.md"
    record.write_text(
        "---\nname: blue-cluster\ntype: project\ndescription: Where staging runs\n---\n"
        "Staging runs on the zanzibar cluster in the blue region.\n"
    )
    answer, error, _ = await call(session, "search", {"query": "zanzibar"})
    ids = [r["id"] for r in answer["results"]]
    check(not error and ids == ["blue-cluster"], "a file written on disk is found at once", answer)

    pytest = Path(store) / "prefer-pytest.md"
    pytest.write_text(pytest.read_text().replace("pytest.", "pytest with the quokka plugin."))
    answer, error, _ = await call(session, "search", {"query": "quokka"})
    ids = [r["id"] for r in answer["results"]]
    check(ids == ["prefer-pytest"], "an edit on disk is found at once", answer)

    record.unlink()
    answer, error, _ = await call(session, "search", {"query": "zanzibar"})
    check(answer["results"] == [], "a file removed on disk is gone at once", answer)


def watcher_running(memctl):
    """`memctl status` in the same environment says a watcher is running."""
    deadline = time.monotonic() + 30
    while True:
        status = subprocess.run([memctl, "status"], capture_output=True, text=True)
        if "watcher: running" in status.stdout:
            print("ok: the server runs a watcher")
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"no watcher while the server runs:\n{status.stdout}{status.stderr}")
        time.sleep(0.2)


async def main():
    memctl, store = sys.argv[1], sys.argv[2]
    server = StdioServerParameters(command=memctl, args=["mcp"], env=dict(os.environ), cwd=os.getcwd())
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session_checks(session, memctl, store)
    print("mcp client: all checks passed")


if __name__ == "__main__":
    asyncio.run(main())
