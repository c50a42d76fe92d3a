"""Run the app under uvicorn: one process, or several that share the port evenly.

uvicorn's own `--workers` lets every worker accept from one shared socket; a burst of
keep-alive connections is then often accepted by whichever worker wakes first, and the
others sit idle (bench/bench_api.py measured 1.0x with two workers). Here each worker
binds its own socket with SO_REUSEPORT, so the kernel spreads connections across them.
"""

from __future__ import annotations

import logging
import logging.config
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import os
import resource
import signal
import socket
import sys
import threading
import time
from types import FrameType
from typing import Any

import uvicorn

from ..config import Settings
from ..errors import Unavailable
from .allocator import fix_mmap_threshold
from .logs import logging_config
from .protocol import ConnectionPolicy, timed_protocol

logger = logging.getLogger(__name__)
APP = "failref.web.factory:create_app"
# An idle keep-alive connection is closed after this (uvicorn's default, stated).
KEEP_ALIVE_S = 5
# Concurrent connections a worker takes: enough for a team, well under the descriptors.
MIN_CONNECTIONS = 16
MAX_CONNECTIONS = 1000
# How often a worker checks that its supervisor is still there.
ORPHAN_CHECK_S = 1.0
# A worker that dies sooner than this after starting counts as a quick death.
QUICK_DEATH_S = 10.0
# A slot whose worker died quickly waits before its next start: BACKOFF_S, doubled for
# each quick death in a row, at most MAX_BACKOFF_S (a worker killed for memory every few
# seconds is not restarted into the same flood at once).
BACKOFF_S = 0.5
MAX_BACKOFF_S = 60.0
# More quick deaths in a row than this, in every slot, with no worker alive, is a crash
# loop (a broken database URL, say): nothing is serving, so the supervisor stops with an
# error. While any worker serves, the others are restarted for ever, with back-off.
MAX_QUICK_DEATHS = 5


def uvicorn_options(access_log: bool) -> dict[str, Any]:
    """What every uvicorn process runs with: deadlines for slow headers, bodies and readers,
    a cap on one address's connections, and a cap on all concurrent connections that leaves
    file descriptors for the database, the reference files and the watcher (past it,
    uvicorn answers 503 at once)."""
    settings = Settings()
    limit = connection_limit()
    return {
        "factory": True,
        "proxy_headers": True,
        "log_config": logging_config(),
        "access_log": access_log,
        "http": timed_protocol(ConnectionPolicy.of(settings, limit)),
        "limit_concurrency": limit,
        "timeout_keep_alive": KEEP_ALIVE_S,
    }


def connection_limit() -> int:
    """Half the process's open-file limit, between MIN_CONNECTIONS and MAX_CONNECTIONS."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, soft // 2))


def serve(host: str, port: int, workers: int, reload: bool, *, access_log: bool = True) -> None:
    """Serve until interrupted: in this process, or in `workers` processes."""
    options = uvicorn_options(access_log)
    if reload or workers == 1:
        fix_mmap_threshold()  # before the request threads start: see allocator.py
        uvicorn.run(APP, host=host, port=port, reload=reload, **options)
        return
    if not hasattr(socket, "SO_REUSEPORT"):
        uvicorn.run(APP, host=host, port=port, workers=workers, **options)
        return
    ensure_port_free(host, port)
    os.environ["FAILREF_WORKERS"] = str(workers)  # the workers divide the rate limit
    Supervisor(host, port, workers, access_log).run()


def ensure_port_free(host: str, port: int) -> None:
    """Refuse a port some other process listens on. Workers share theirs with SO_REUSEPORT,
    which would let a second instance (another database, another version) take half of the
    requests without a word; a bind without the option fails while anyone holds the port,
    so a probe tells."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # SO_REUSEADDR passes a port left in TIME_WAIT by the last run, never a listener.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise Unavailable(f"{host}:{port} is in use ({error.strerror}); not serving") from None


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A socket bound to the address, which other processes may bind to too, and not yet
    listening: uvicorn listens once the app has started. The kernel sends a new connection
    to any listening socket of the port, so a worker still loading (about 2-3 s) would hold
    its share waiting, and reset them all if it died loading; eight workers killed 2 s apart
    left /healthz 38 of 111 polls, 152 of 253 listening late (bench/bench_faults.py)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _worker(host: str, port: int, access_log: bool, supervisor_pid: int) -> None:
    logging.config.dictConfig(logging_config())
    fix_mmap_threshold()
    _stop_when_orphaned(supervisor_pid)
    config = uvicorn.Config(APP, **uvicorn_options(access_log))
    uvicorn.Server(config).run(sockets=[reuse_port_socket(host, port)])


def _stop_when_orphaned(supervisor_pid: int) -> None:
    """A worker whose supervisor died (kill -9) shuts down rather than serve on alone."""

    def watch() -> None:
        while os.getppid() == supervisor_pid:
            time.sleep(ORPHAN_CHECK_S)
        logger.warning("the supervisor is gone; this worker stops")
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="failref-orphan-watch", daemon=True).start()


class Restarts:
    """When each slot's next worker starts after a death, and when deaths are a crash loop:
    per slot, quick deaths in a row double its wait; a worker that lived long resets it."""

    def __init__(self, slots: int) -> None:
        self.quick_deaths = [0] * slots

    def died(self, slot: int, lived_s: float) -> float:
        """Seconds to wait before starting the slot's next worker."""
        self.quick_deaths[slot] = self.quick_deaths[slot] + 1 if lived_s < QUICK_DEATH_S else 0
        if not self.quick_deaths[slot]:
            return 0.0
        doublings = min(self.quick_deaths[slot] - 1, 32)  # 2.0 ** 1024 would overflow
        return min(MAX_BACKOFF_S, BACKOFF_S * 2.0**doublings)

    def crash_loop(self, alive: int) -> bool:
        """No worker alive, and every slot past MAX_QUICK_DEATHS quick deaths in a row."""
        return alive == 0 and all(count > MAX_QUICK_DEATHS for count in self.quick_deaths)


class Supervisor:
    """Starts the workers, logs and replaces one that dies (after a back-off when it died
    soon after starting), and stops them all on SIGTERM or SIGINT. A worker's death never
    stops the others; only a crash loop with no worker left stops the supervisor, with an
    error."""

    def __init__(self, host: str, port: int, workers: int, access_log: bool) -> None:
        self.args = (host, port, access_log, os.getpid())
        self.context = multiprocessing.get_context("spawn")
        self.processes: dict[int, multiprocessing.process.BaseProcess] = {}
        self.started_at: dict[int, float] = {}
        self.due: dict[int, float] = {}  # slots waiting to start, and when
        self.restarts = Restarts(workers)
        self.crashed = False
        self.stopping = False
        self.count = workers

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        for slot in range(self.count):
            self._start(slot)
        while not self.stopping:
            running = {
                process.sentinel: slot
                for slot, process in self.processes.items()
                if slot not in self.due
            }
            wait_s = min([1.0, *(at - time.monotonic() for at in self.due.values())])
            for ready in multiprocessing.connection.wait(list(running), timeout=max(0, wait_s)):
                self._replace(running[ready])  # type: ignore[index]
            for slot, at in list(self.due.items()):
                if at <= time.monotonic() and not self.stopping:
                    del self.due[slot]
                    self._start(slot)
        for process in self.processes.values():
            process.join()
        failed = [p.name for p in self.processes.values() if p.exitcode not in (0, -signal.SIGTERM)]
        if self.crashed:
            logger.error("workers ended with an error: crash loop")
            sys.exit(1)
        if failed:
            logger.error("workers ended with an error: %s", ", ".join(failed))
            sys.exit(1)

    def _start(self, slot: int) -> None:
        process = self.context.Process(
            target=_worker, args=self.args, name=f"failref-worker-{slot}"
        )
        process.start()
        self.processes[slot] = process
        self.started_at[slot] = time.monotonic()

    def _replace(self, slot: int) -> None:
        process = self.processes[slot]
        process.join()
        if self.stopping:
            return
        lived_s = time.monotonic() - self.started_at[slot]
        wait_s = self.restarts.died(slot, lived_s)
        alive = sum(p.is_alive() for p in self.processes.values())
        logger.error(
            "worker %s (pid %s) died with exit code %s after %.0f s; starting another in %.1f s",
            process.name,
            process.pid,
            process.exitcode,
            lived_s,
            wait_s,
        )
        self.due[slot] = time.monotonic() + wait_s
        if self.restarts.crash_loop(alive):
            self.crashed = True
            self._stop(signal.SIGTERM, None)

    def _stop(self, _signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        for process in self.processes.values():
            if process.is_alive():
                process.terminate()
