"""A plugin written with the official Python MCP SDK (PyPI `mcp`): word
tools over stdio, as a user would drop into Baton's Tools folder."""

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("word-tools", instructions="Counts and reverses words.")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def count_words(text: str) -> int:
    """Counts the words of a text."""
    return len(text.split())


@server.tool()
def reverse_words(text: str) -> str:
    """The words of a text in reverse order."""
    return " ".join(reversed(text.split()))


if __name__ == "__main__":
    server.run()
