"""Drives `memctl mcp` as a full face with the official MCP Python SDK:
typed tools, structured output, annotations, the context tool, show of
several ids, and what an agent may forget.

Run by crates/memctl/tests/it/mcp_face.rs: python face.py MEMCTL SCENARIO
STORE_DIR. Each scenario is one Rust test, which prepares the store first
(see there for what it holds). Every failed check raises; the last line
printed on success is "mcp face: SCENARIO passed".
"""

import asyncio
import json
import os
import sys
from pathlib import Path

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

AWS_KEY = "AKIAIOSFODNN7EXAMPLF"


def check(condition, what, detail=""):
    if not condition:
        raise AssertionError(f"{what}\n{detail}")
    print(f"ok: {what}")


class Face:
    """A session, the tools as listed, and every answer checked against its
    tool's outputSchema (the SDK checks successful answers itself; this
    checks refusals too, and that the text block says the same)."""

    def __init__(self, session):
        self.session = session
        self.tools = {}

    async def start(self):
        await self.session.initialize()
        self.tools = {tool.name: tool for tool in (await self.session.list_tools()).tools}

    async def call(self, name, arguments):
        """The structured answer (or the error's JSON), whether it is an
        error, and the text block."""
        result = await self.session.call_tool(name, arguments)
        text = "".join(block.text for block in result.content if block.type == "text")
        structured = result.structured_content
        if structured is not None:
            jsonschema.validate(structured, self.tools[name].output_schema)
            if name != "context":
                check(json.loads(text) == structured, f"{name}: the text block is the structured answer")
            return structured, result.is_error, text
        check(result.is_error, f"{name}: only an error has no structured content", text)
        return json.loads(text), True, text


async def agreement(face, store):
    """Every property tools/list gives is read by its handler with a typed
    check, every required one is required, nothing else is accepted."""
    for name, tool in face.tools.items():
        schema = tool.input_schema
        properties = schema["properties"]
        required = schema.get("required", [])
        check(schema.get("additionalProperties") is False, f"{name}: no other argument is accepted")

        full = {prop: sample(spec) for prop, spec in properties.items()}
        answer, error, text = await face.call(name, full)
        check(not argument_error(answer, error), f"{name}: every listed property is accepted", text)

        for prop in required:
            partial = {k: v for k, v in full.items() if k != prop}
            answer, error, text = await face.call(name, partial)
            check(
                error and answer.get("error") == f'argument "{prop}" is required',
                f"{name}: {prop} is required",
                text,
            )

        for prop in properties:
            answer, error, text = await face.call(name, dict(full, **{prop: {"an": "object"}}))
            check(
                error and answer.get("error", "").startswith(f'argument "{prop}"'),
                f"{name}: {prop} is checked by its handler",
                text,
            )

        answer, error, text = await face.call(name, dict(full, unlisted=1))
        check(
            error and answer.get("error") == 'unknown argument "unlisted"',
            f"{name}: an unlisted argument is refused",
            text,
        )


def sample(spec):
    """A valid value for a property, from its schema alone."""
    kinds = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    kind = next(k for k in kinds if k != "null")
    if kind == "string":
        if "enum" in spec:
            return next(v for v in spec["enum"] if v is not None)
        if "pattern" in spec:
            return "0" * 64
        return "zanzibar"
    if kind == "integer":
        return spec.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "array":
        return ["zanzibar"]
    raise AssertionError(f"no sample for {spec}")


def argument_error(answer, error):
    message = answer.get("error", "") if error else ""
    return message.startswith("argument ") or message.startswith("unknown argument")


async def structured(face, store):
    """Annotations, outputSchema, structuredContent (refusals included)."""
    names = ["search", "show", "list", "context", "remember", "forget"]
    check(list(face.tools) == names, "the six tools, in order", list(face.tools))
    for name, tool in face.tools.items():
        a = tool.annotations
        check(
            a is not None
            and a.title
            and tool.title == a.title
            and None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
            and a.open_world_hint is False,
            f"{name}: complete annotations",
            a,
        )
        check(tool.output_schema and tool.output_schema["type"] == "object", f"{name}: an outputSchema")
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    for name in ("search", "show", "list", "context"):
        check(face.tools[name].annotations.read_only_hint, f"{name} only reads")
    check(face.tools["forget"].annotations.destructive_hint, "forget is destructive")

    answer, error, _ = await face.call("search", {"query": "zanzibar"})
    check(not error and answer["results"][0]["id"] == "blue-cluster", "search answers in structure", answer)
    answer, error, _ = await face.call("list", {})
    check(not error and answer["records"], "list answers in structure", answer)
    candidate = {"name": "tmp-note", "type": "project", "description": "d", "body": "For now, skip it."}
    answer, error, _ = await face.call("remember", candidate)
    check(error and answer["operation"] == "REFUSED", "a refusal is structured and valid", answer)
    candidate = {"name": "release-day", "type": "project", "description": "Releases leave on Thursday",
                 "body": "The release train leaves on Thursday."}
    answer, error, _ = await face.call("remember", candidate)
    check(not error and answer["operation"] == "ADD", "an ADD is structured", answer)
    answer, error, _ = await face.call("remember", candidate)
    check(not error and answer["operation"] == "NOOP", "a NOOP is structured", answer)

    try:
        await face.session.call_tool("frobnicate", {})
        raise AssertionError("an unknown tool was answered as a tool")
    except MCPError as e:
        check(e.error.code == -32602 and "frobnicate" in e.error.message,
              "an unknown tool is a -32602 protocol error", e.error.message)
    try:
        await face.session.call_tool(AWS_KEY, {})
        raise AssertionError("an unknown tool was answered as a tool")
    except MCPError as e:
        check(AWS_KEY not in e.error.message, "an unknown tool's name is not echoed if a secret", e.error.message)


async def show_several(face, store):
    answer, error, text = await face.call("show", {"ids": ["blue-cluster", "no-such-record", "prefer-pytest"]})
    ids = [r["id"] for r in answer["records"]]
    check(not error and ids == ["blue-cluster", "prefer-pytest"], "show reads several ids in order", text)
    check([n["id"] for n in answer["not_found"]] == ['"no-such-record"'], "a missing id is named", text)
    check("search and list" in answer["not_found"][0]["hint"], "with a hint for an agent", text)
    check(all(len(r["read_hash"]) == 64 for r in answer["records"]), "each with its read_hash", text)
    answer, error, text = await face.call("show", {"ids": ["nothing-here"]})
    check(error and answer["records"] == [] and answer["not_found"], "none found is a tool error", text)
    answer, error, text = await face.call("show", {"id": "blue-cluster"})
    check(error and answer["error"] == 'unknown argument "id"' and "ids" in answer["hint"],
          "the one-id form is gone, and the hint says so", text)


async def expired(face, store):
    answer, error, text = await face.call("search", {"query": "quokka freeze"})
    rows = {r["id"]: r["expired"] for r in answer["results"]}
    check(rows.get("quokka-freeze") is True, "search marks an expired record", text)
    answer, error, text = await face.call("search", {"query": "zanzibar"})
    check(answer["results"][0]["expired"] is False, "and a current one as current", text)
    answer, _, text = await face.call("list", {})
    rows = {r["id"]: r["expired"] for r in answer["records"]}
    check(rows["quokka-freeze"] is True and rows["blue-cluster"] is False, "list marks it", text)
    answer, _, text = await face.call("show", {"ids": ["quokka-freeze"]})
    check(answer["records"][0]["expired"] is True, "show marks it", text)
    answer, error, text = await face.call("context", {"prompt": "is the quokka freeze still on?"})
    check(not error and answer["records"] == [], "context never recalls it", text)
    check(text == "No memory is relevant to this prompt.", "and says nothing is relevant", text)


async def context(face, store):
    prompt = "where does staging run on the zanzibar cluster?"
    answer, error, text = await face.call("context", {"prompt": prompt})
    ids = [r["id"] for r in answer["records"]]
    check(not error and ids == ["blue-cluster"], "context recalls the relevant record", text)
    check(text.startswith("Recalled memory (memctl).") and answer["policy"] in text,
          "wrapped in the policy", text)
    check('<memory-record scope="workspace" id="blue-cluster"' in text, "as the hook renders it", text)
    check("> Staging runs on the zanzibar cluster" in text, "its text quoted as data", text)
    check(answer["catalogues"] == [], "no MEMORY.md but at a session's start", answer)

    answer, error, text = await face.call("context", {"prompt": prompt})
    check(answer["records"] == [], "a record is recalled once a session", text)

    answer, error, text = await face.call("context", {"prompt": "rename this variable to count"})
    check(answer["records"] == [] and text == "No memory is relevant to this prompt.",
          "nothing recalled for an unrelated prompt", text)

    answer, error, text = await face.call("context", {"prompt": "where is the wombat deploy key kept?"})
    check([r["id"] for r in answer["records"]] == ["wombat-key"], "a record holding a secret is recalled", text)
    check(AWS_KEY not in text and AWS_KEY not in json.dumps(answer), "but never its secret", text)
    check("looks like it holds a secret" in answer["records"][0]["content"], "a note says why", text)

    answer, error, text = await face.call("context", {"prompt": prompt, "session_start": True})
    check([r["id"] for r in answer["records"]] == ["blue-cluster"], "a new session recalls it again", text)
    check([c["scope"] for c in answer["catalogues"]] == ["workspace"], "with MEMORY.md", answer)
    check("<memory-catalogue" in text, "rendered as the hook renders it", text)

    answer, error, text = await face.call("context", {"prompt": "x", "max": 21})
    check(error and "from 1 to 20" in answer["error"], "max is bounded", text)


async def forget_after_hand_edit(face, store):
    answer, _, _ = await face.call("show", {"ids": ["deploy-freeze"]})
    read = answer["records"][0]
    check(read["revision"] == 1, "the agent read revision 1", read)
    path = Path(store) / "deploy-freeze.md"
    path.write_text(path.read_text() + "Hotfixes still ship on Fridays.\n")
    call = {"id": "deploy-freeze", "revision": 1, "read_hash": read["read_hash"]}
    answer, error, text = await face.call("forget", call)
    check(error and answer["operation"] == "REFUSED", "a hand edit that kept the revision stops the forget", text)
    check("changed since you read it" in answer["reason"] and "show it again" in answer["hint"], "saying why", text)
    check(path.exists() and "Hotfixes" in path.read_text(), "the hand-added fact is kept")

    answer, _, _ = await face.call("show", {"ids": ["deploy-freeze"]})
    again = answer["records"][0]
    check(again["revision"] == 1 and again["read_hash"] != read["read_hash"], "showing it again gives the new hash")
    answer, error, text = await face.call("forget", dict(call, read_hash=again["read_hash"]))
    check(not error and answer["operation"] == "FORGOTTEN", "forgotten once read as it is", text)
    check(not path.exists(), "the file is gone")


async def forget_user_record(face, store):
    for record in ("prefer-pytest", "hand-written"):
        answer, _, _ = await face.call("show", {"ids": [record]})
        read = answer["records"][0]
        check(read["source"] == "user", f"{record} is the user's", read)
        answer, error, text = await face.call(
            "forget", {"id": record, "revision": read["revision"], "read_hash": read["read_hash"]}
        )
        check(error and answer["operation"] == "REFUSED", f"an agent may not forget {record}", text)
        check("ask the user" in answer["hint"] and f"memctl forget {record}" in answer["hint"],
              "the hint says to ask the user, who uses the CLI", text)
        check((Path(store) / f"{record}.md").exists(), f"{record} is kept")


SCENARIOS = {
    "agreement": agreement,
    "structured": structured,
    "show_several": show_several,
    "expired": expired,
    "context": context,
    "forget_after_hand_edit": forget_after_hand_edit,
    "forget_user_record": forget_user_record,
}


async def main():
    memctl, scenario, store = sys.argv[1], sys.argv[2], sys.argv[3]
    server = StdioServerParameters(command=memctl, args=["mcp"], env=dict(os.environ), cwd=os.getcwd())
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            face = Face(session)
            await face.start()
            await SCENARIOS[scenario](face, store)
    print(f"mcp face: {scenario} passed")


if __name__ == "__main__":
    asyncio.run(main())
