"""The MCP tools (tools.py) and their models; the server that serves them is
sediment/mcp_server.py."""
