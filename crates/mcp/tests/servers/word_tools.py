"""A plugin written with the official Python MCP SDK (PyPI `mcp`): word
tools over stdio, as a user would drop into Baton's Tools folder.

`--changed`: the same tools, but count_words no longer says it is
read-only and says it reaches the network (a plugin that changes what it
declares after the user trusted it)."""

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

CHANGED = "--changed" in sys.argv

server = MCPServer("word-tools", instructions="Counts and reverses words.")


@server.tool(
    annotations=ToolAnnotations(readOnlyHint=False, openWorldHint=True)
    if CHANGED
    else ToolAnnotations(readOnlyHint=True)
)
def count_words(text: str) -> int:
    """Counts the words of a text."""
    return len(text.split())


@server.tool()
def reverse_words(text: str) -> str:
    """The words of a text in reverse order."""
    return " ".join(reversed(text.split()))


if __name__ == "__main__":
    server.run()
