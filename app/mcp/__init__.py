"""The MCP front end: the tools and the descriptions a model reads, over the same services
as the JSON API. Transports: stdio with its drain here (`stdio.py`), streamable HTTP in
`app.web.mcp_endpoint`."""
