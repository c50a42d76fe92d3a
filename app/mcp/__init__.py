"""The MCP front end: the tools and the descriptions a model reads, over the same services
as the JSON API. Transports live with their servers (`failref mcp`, `app.web.mcp_endpoint`)."""
