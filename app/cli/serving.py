"""Run the app under uvicorn: one process, or several that share the port evenly.

uvicorn's own `--workers` lets every worker accept from one shared socket; a burst of
keep-alive connections is then often accepted by whichever worker wakes first, and the
others sit idle (bench/bench_api.py measured 1.0x with two workers). Here each worker
binds its own socket with SO_REUSEPORT, so the kernel spreads connections across them.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import sys
from types import FrameType
from typing import Any

import uvicorn

from app.cli.logs import logging_config

logger = logging.getLogger(__name__)
APP = "app.web.factory:create_app"


def uvicorn_options(access_log: bool) -> dict[str, Any]:
    """What every uvicorn process runs with."""
    return {
        "factory": True,
        "proxy_headers": True,
        "log_config": logging_config(),
        "access_log": access_log,
    }


def serve(host: str, port: int, workers: int, reload: bool, *, access_log: bool = True) -> None:
    """Serve until interrupted: in this process, or in `workers` processes."""
    options = uvicorn_options(access_log)
    if reload or workers == 1:
        uvicorn.run(APP, host=host, port=port, reload=reload, **options)
        return
    if not hasattr(socket, "SO_REUSEPORT"):
        uvicorn.run(APP, host=host, port=port, workers=workers, **options)
        return
    _supervise(host, port, workers, access_log)


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A listening socket that other processes may bind to the same address too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _worker(host: str, port: int, access_log: bool) -> None:
    config = uvicorn.Config(APP, **uvicorn_options(access_log))
    uvicorn.Server(config).run(sockets=[reuse_port_socket(host, port)])


def _supervise(host: str, port: int, workers: int, access_log: bool) -> None:
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_worker, args=(host, port, access_log), name=f"failref-worker-{n}")
        for n in range(workers)
    ]
    for process in processes:
        process.start()

    def stop(signum: int, _frame: FrameType | None) -> None:
        for process in processes:
            if process.is_alive():
                process.terminate()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for process in processes:
        process.join()
    failed = [p.name for p in processes if p.exitcode not in (0, -signal.SIGTERM)]
    if failed:
        logger.error("workers ended with an error: %s", ", ".join(failed))
        sys.exit(1)
