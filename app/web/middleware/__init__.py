"""Pure ASGI middleware: body limit, security headers, fast reads of reference JSON, and the
gzip settings."""
