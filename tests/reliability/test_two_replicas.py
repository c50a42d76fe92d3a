"""Two `failref serve` processes on one PostgreSQL database, each with its own copy of the
references folder (the database is the store of record): 32 clients on /api/v1/match get no
error; 4 x 25 racing saves spread over both have exactly one winner per base version, lose
nothing acknowledged, leave both serving one ETag and write no file; a replica killed with
SIGKILL in the middle of a save leaves the other serving, and catches up when it is
started again."""

from __future__ import annotations

import http.client
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from databases import POSTGRESQL_ONLY
from servers import LOOPBACK, answers, free_port, serve_command, serve_env, wait_for
from sqlmodel import Session, col, select

from failref.config import Settings
from failref.services.library import open_library
from failref.store.db import make_engine
from failref.store.editors import add_editor
from failref.store.models import RevisionRow

PATH = "/api/v1/references/stuck-rank"
CLIENTS = 32
MATCHES_EACH = 4
SAVERS = 4
SAVES_EACH = 25
WAIT_S = 60.0
MATCH = b'{"log": "[Rank 3] Watchdog caught collective operation timeout"}'


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


class Replica:
    """One `failref serve` process on its own port and its own copy of the folder, as a
    replica's image carries one; `port` answers /readyz once it has started."""

    def __init__(self, settings: Settings, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        env = serve_env(
            settings,
            folder,
            FAILREF_STORE="database",
            FAILREF_RATE_LIMIT_PER_MINUTE="1000000",
            FAILREF_RELOAD_INTERVAL_S="2",
        )
        command = serve_command(self.port)
        self.process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        wait_for(self.ready, "the replica to become ready", WAIT_S)

    def ready(self) -> bool:
        assert self.process.poll() is None, "the replica exited while starting"
        return answers(self.port, "/readyz")

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(LOOPBACK, self.port, timeout=WAIT_S)

    def etag(self) -> str:
        connection = self.connect()
        connection.request("GET", PATH)
        response = connection.getresponse()
        response.read()
        connection.close()
        return response.getheader("etag") or ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=WAIT_S)


def replica_folder(settings: Settings, name: str) -> Path:
    folder = settings.references_dir.parent / name
    if not folder.exists():
        shutil.copytree(settings.references_dir, folder)
    return folder


@pytest.fixture
def replicas(settings: Settings) -> Iterator[list[Replica]]:
    # Migrated and loaded once, as a deploy's first replica.
    open_library(settings.model_copy(update={"store": "database"})).close()
    started = [Replica(settings, replica_folder(settings, f"replica-{n}")) for n in (0, 1)]
    before = [folder_bytes(replica.folder) for replica in started]
    yield started
    for replica in started:
        replica.stop()
    assert [folder_bytes(replica.folder) for replica in started] == before  # no file written


@pytest.fixture
def token(settings: Settings) -> str:
    engine = make_engine(settings)
    with Session(engine) as session:
        token = add_editor(session, "ann")
    engine.dispose()
    return token


def put(replica: Replica, token: str, text: str, etag: str) -> tuple[int, str]:
    connection = replica.connect()
    headers = {"content-type": "text/markdown", "authorization": f"Bearer {token}"}
    connection.request("PUT", PATH, body=text.encode(), headers={**headers, "if-match": etag})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, response.getheader("etag") or ""


def retitled(settings: Settings, title: str) -> str:
    text = (settings.references_dir / "stuck-rank.md").read_text()
    head, _, rest = text.partition("3. **")
    _, _, tail = rest.partition(".**")
    return f"{head}3. **{title}.**{tail}"


def same_etag(replicas: list[Replica]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if len({replica.etag() for replica in replicas}) == 1:
            return True
        time.sleep(0.05)
    return False


def newest_revision_hash(settings: Settings) -> str:
    engine = make_engine(settings)
    with Session(engine) as session:
        query = select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank")
        newest = session.exec(query.order_by(col(RevisionRow.id).desc())).first()
    engine.dispose()
    assert newest is not None
    return newest.content_hash


def revision_hashes(settings: Settings) -> set[str]:
    engine = make_engine(settings)
    with Session(engine) as session:
        rows = session.exec(select(RevisionRow).where(RevisionRow.reference_id == "stuck-rank"))
        hashes = {row.content_hash for row in rows}
    engine.dispose()
    return hashes


@POSTGRESQL_ONLY
def test_32_clients_over_two_replicas_get_no_error(replicas: list[Replica]) -> None:
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def client(replica: Replica) -> None:
        connection = replica.connect()
        for _ in range(MATCHES_EACH):
            connection.request(
                "POST", "/api/v1/match", body=MATCH, headers={"content-type": "application/json"}
            )
            response = connection.getresponse()
            response.read()
            with lock:
                statuses[response.status] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(replicas[n % 2],)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert statuses == {200: CLIENTS * MATCHES_EACH}


@POSTGRESQL_ONLY
def test_racing_saves_over_two_replicas_have_one_winner_per_base(
    settings: Settings, replicas: list[Replica], token: str
) -> None:
    outcomes: list[tuple[str, int, str]] = []
    lock = threading.Lock()

    def saver(number: int) -> None:
        replica = replicas[number % 2]
        for attempt in range(SAVES_EACH):
            base = replica.etag()
            status, etag = put(replica, token, retitled(settings, f"S{number}-{attempt}"), base)
            with lock:
                outcomes.append((base, status, etag))

    threads = [threading.Thread(target=saver, args=(n,)) for n in range(SAVERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert len(outcomes) == SAVERS * SAVES_EACH
    assert {status for _, status, _ in outcomes} <= {200, 412}
    winners = Counter(base for base, status, _ in outcomes if status == 200)
    assert winners
    assert set(winners.values()) == {1}
    acknowledged = {etag.strip('"') for _, status, etag in outcomes if status == 200}
    assert acknowledged <= revision_hashes(settings)
    assert same_etag(replicas)
    assert replicas[0].etag().strip('"') == newest_revision_hash(settings)


@POSTGRESQL_ONLY
def test_a_replica_killed_mid_save_leaves_the_other_serving_and_catches_up(
    settings: Settings, replicas: list[Replica], token: str
) -> None:
    doomed, survivor = replicas
    base = doomed.etag()
    connection = doomed.connect()
    headers = {"content-type": "text/markdown", "authorization": f"Bearer {token}"}
    body = retitled(settings, "Killed mid-save").encode()
    connection.request("PUT", PATH, body=body, headers={**headers, "if-match": base})
    doomed.process.send_signal(signal.SIGKILL)
    doomed.stop()
    connection.close()

    # 412 while the survivor has not yet caught up with a killed save that got as far as
    # the rename or the commit; it saves once it has.
    deadline = time.monotonic() + WAIT_S
    status, saved = put(survivor, token, retitled(settings, "Saved by the survivor"), base)
    while status == 412 and time.monotonic() < deadline:
        time.sleep(0.1)
        text = retitled(settings, "Saved by the survivor")
        status, saved = put(survivor, token, text, survivor.etag())
    assert status == 200
    assert saved.strip('"') in revision_hashes(settings)
    replicas[0] = Replica(settings, doomed.folder)  # the restart (stopped by the fixture)
    assert same_etag(replicas)
    assert replicas[0].etag() == saved
