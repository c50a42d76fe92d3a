"""A real uvicorn server in its own process, for tests that need a socket and an RSS.

    python serve_app.py DATABASE_URL REFERENCES_DIR [MAX_BODY_BYTES]

Binds a free port of 127.0.0.1 itself (no race for the port) and prints it as the first
line of stdout once the app has started; stops on SIGTERM.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import uvicorn

from failref.config import Settings
from failref.web.factory import create_app


class AnnouncingServer(uvicorn.Server):
    """Prints the port once start-up (the app's lifespan) has finished."""

    port = 0

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        print(self.port, flush=True)


def main() -> None:
    database_url, references_dir, *rest = sys.argv[1:]
    settings = Settings(database_url=database_url, references_dir=Path(references_dir))
    if rest:
        settings = settings.model_copy(update={"max_body_bytes": int(rest[0])})
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        create_app(settings), log_level="warning", lifespan="on", access_log=False, ws="none"
    )
    server = AnnouncingServer(config)
    server.port = sock.getsockname()[1]
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
