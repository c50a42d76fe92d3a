"""Pure ASGI middleware: body limit, security headers, and fast reads of reference JSON."""
