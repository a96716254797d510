"""`baton mcp` as the official Python MCP SDK (PyPI `mcp`) uses it: over
stdio and over streamable HTTP, with the workspace sandbox, an API key of
its own door, and tools that act for the user run only once the user
accepts them through the client (MCP elicitation) or `--allow-acting`.

Usage: mcp_client.py BATON WORKSPACE CONFIG_DIR DATA_DIR HOME
Prints one line per check; exits non-zero on the first failure.
"""

import asyncio
import http.server
import os
import subprocess
import sys
import threading

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

BATON, WORKSPACE, CONFIG, DATA, HOME = sys.argv[1:6]
ENV = {
    "HOME": HOME,
    "PATH": os.environ["PATH"],
    "BATON_CONFIG_DIR": CONFIG,
    "BATON_DATA_DIR": DATA,
    "BATON_WORKSPACE": WORKSPACE,
}


def text(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def use(session: ClientSession, label: str):
    await session.initialize()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    for name in ("read_text_file", "write_text_file", "set_cell_value", "navigate"):
        assert name in tools, f"{name} missing: {sorted(tools)}"
    assert tools["read_text_file"].annotations.read_only_hint is True
    assert tools["write_text_file"].annotations.read_only_hint is False
    assert tools["send_email"].annotations.open_world_hint is True
    print(f"{label}: {len(tools)} tools listed")

    note = f"/from-{label}.md"
    wrote = await session.call_tool("write_text_file", {"path": note, "text": f"# {label}\n"})
    assert not wrote.is_error, text(wrote)
    read = await session.call_tool("read_text_file", {"path": note})
    assert not read.is_error and f"# {label}" in text(read), text(read)
    with open(os.path.join(WORKSPACE, note.lstrip("/"))) as f:
        assert f.read() == f"# {label}\n"
    print(f"{label}: wrote and read {note} in the workspace")

    escape = await session.call_tool("read_text_file", {"path": "../../etc/passwd"})
    assert escape.is_error and "climbs above the workspace root" in text(escape), text(escape)
    wrong = await session.call_tool("read_text_file", {"path": 7, "offset": "x"})
    assert wrong.is_error and "read_text_file" in text(wrong), text(wrong)
    unknown = await session.call_tool("read_txt_file", {"path": "/x"})
    assert unknown.is_error and "did you mean `read_text_file`" in text(unknown), text(unknown)
    print(f"{label}: escapes, bad arguments and unknown tools are refused in words")


async def over_stdio():
    params = StdioServerParameters(command=BATON, args=["mcp"], env=ENV)
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as session:
            await use(session, "stdio")


def start_http(*extra, env=None):
    proc = subprocess.Popen(
        [BATON, "mcp", "--http", "0", *extra],
        env=env or ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().strip()
    assert url.endswith("/mcp"), (url, proc.stderr.read() if proc.poll() is not None else "")
    return proc, url


async def over_http():
    # Without a key, only when asked.
    refused = subprocess.run([BATON, "mcp", "--http", "0"], env=ENV, capture_output=True, text=True)
    assert refused.returncode != 0 and "--no-auth" in refused.stderr, refused.stderr
    proc, url = start_http("--no-auth")
    try:
        async with streamable_http_client(url) as (r, w):
            async with ClientSession(r, w) as session:
                await use(session, "http")
        # A web page open in the user's browser cannot call the tools.
        async with create_mcp_http_client(headers={"Origin": "https://evil.example"}) as page:
            refused = await page.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 403 and "Origin" in refused.text, (refused.status_code, refused.text)
        # Nor can a page whose own name was re-pointed at 127.0.0.1 (DNS
        # rebinding): the browser still names the page's site as the Host.
        port = url.split(":")[2].split("/")[0]
        async with create_mcp_http_client(headers={"Host": f"rebind.example:{port}"}) as page:
            refused = await page.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 403 and "not this computer" in refused.text, (refused.status_code, refused.text)
        print("http: a web page's request is refused (its Origin, or its name re-pointed here)")
    finally:
        proc.terminate()
        proc.wait(10)


def make_key(door, name):
    return subprocess.run(
        [BATON, door, "keys", "add", name], env=ENV, capture_output=True, text=True, check=True
    ).stdout.strip()


async def with_a_key():
    api_key = make_key("serve", "api-only")
    key = make_key("mcp", "mcp-test")
    proc, url = start_http("--host", "0.0.0.0", "--host-name", "baton.test")
    port = url.split(":")[2].split("/")[0]
    try:
        async with create_mcp_http_client() as bare:
            refused = await bare.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 401 and "API key" in refused.text, refused.text
        # The HTTP API's key does not open the MCP door.
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {api_key}"}) as other:
            refused = await other.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 401, (refused.status_code, refused.text)
        headers = {"Authorization": f"Bearer {key}"}
        async with create_mcp_http_client(headers=headers) as client:
            async with streamable_http_client(url, http_client=client) as (r, w):
                async with ClientSession(r, w) as session:
                    await session.initialize()
                    tools = (await session.list_tools()).tools
                    assert any(t.name == "list_directory" for t in tools)
        # With the key: a re-pointed name is still refused; the name the
        # server was started with, and any address, are answered.
        rebound = dict(headers, Host=f"rebind.example:{port}")
        async with create_mcp_http_client(headers=rebound) as page:
            refused = await page.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 403 and "--host-name" in refused.text, (refused.status_code, refused.text)
        for host in (f"baton.test:{port}", f"10.1.2.3:{port}"):
            async with create_mcp_http_client(headers=dict(headers, Host=host)) as client:
                async with streamable_http_client(url, http_client=client) as (r, w):
                    async with ClientSession(r, w) as session:
                        await session.initialize()
                        assert (await session.list_tools()).tools, host
        print("key: refused without the key and with the HTTP API's, served with its own; a re-pointed name refused, the configured name and addresses answered")
    finally:
        proc.terminate()
        proc.wait(10)


class Sink(http.server.BaseHTTPRequestHandler):
    """Where `post_note` sends its note: what arrives is what left."""

    received = []

    def do_POST(self):
        Sink.received.append(self.rfile.read(int(self.headers["Content-Length"])).decode())
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_):
        pass


async def post_note(url, sink, text, elicitation=None):
    async with streamable_http_client(url) as (r, w):
        async with ClientSession(r, w, elicitation_callback=elicitation) as session:
            await session.initialize()
            return await session.call_tool("post_note", {"url": sink, "text": text})


async def acting_asks_the_user():
    server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sink = f"http://127.0.0.1:{server.server_port}/notes"
    env = dict(ENV, BATON_DIAGNOSTIC_TOOLS="1")
    proc, url = start_http("--no-auth", env=env)
    asked = []

    def answer(action, allow=None):
        async def callback(context, params):
            asked.append(params.message)
            content = None if allow is None else {"allow": allow}
            return types.ElicitResult(action=action, content=content)

        return callback

    try:
        res = await post_note(url, sink, "no way to ask")
        assert res.is_error and "cannot ask the user" in text(res), text(res)
        res = await post_note(url, sink, "declined", answer("decline"))
        assert res.is_error and "did not allow" in text(res), text(res)
        res = await post_note(url, sink, "unticked", answer("accept", False))
        assert res.is_error and "did not allow" in text(res), text(res)
        assert Sink.received == [], Sink.received
        res = await post_note(url, sink, "allowed", answer("accept", True))
        assert not res.is_error, text(res)
        assert Sink.received == ["allowed"], Sink.received
        assert sink in asked[-1] and "allowed" in asked[-1], asked
        # Reading needs nobody's word.
        listed = await list_root(url)
        assert not listed.is_error, text(listed)
        print("acting: an action runs only once the user accepts it in the client")
    finally:
        proc.terminate()
        proc.wait(10)
    proc, url = start_http("--no-auth", "--allow-acting", env=env)
    try:
        res = await post_note(url, sink, "trusted")
        assert not res.is_error and Sink.received[-1] == "trusted", (text(res), Sink.received)
        print("acting: --allow-acting runs it without asking")
    finally:
        proc.terminate()
        proc.wait(10)
        server.shutdown()


async def list_root(url):
    async with streamable_http_client(url) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            return await session.call_tool("list_directory", {"path": "/"})


async def main():
    await over_stdio()
    await over_http()
    await acting_asks_the_user()
    await with_a_key()


asyncio.run(main())
