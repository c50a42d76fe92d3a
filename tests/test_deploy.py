"""compose.yaml and deploy/nginx.conf: PostgreSQL, two replicas checked on /readyz, the
database URL from the environment, and a proxy that sends to both replicas. (No container
engine runs here; this reads the files as compose and nginx would.)"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import pytest
import yaml
from paths import ROOT

COMPOSE = ROOT / "compose.yaml"
NGINX = ROOT / "deploy" / "nginx.conf"
REPLICAS = ("app-1", "app-2")


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    compose = yaml.safe_load(COMPOSE.read_text())
    found: dict[str, Any] = compose["services"]
    return found


def test_compose_has_postgres_two_replicas_and_a_proxy(services: dict[str, Any]) -> None:
    assert set(services) == {"postgres", *REPLICAS, "proxy"}
    assert services["postgres"]["image"].startswith("postgres:")
    assert set(services["proxy"]["depends_on"]) == set(REPLICAS)


@pytest.mark.parametrize("name", REPLICAS)
def test_each_replica_is_checked_on_readyz_and_reads_the_url_from_the_environment(
    services: dict[str, Any], name: str
) -> None:
    replica = services[name]
    assert "/readyz" in replica["healthcheck"]["test"][-1]
    url = replica["environment"]["FAILREF_DATABASE_URL"]
    assert url.startswith("${FAILREF_DATABASE_URL:-postgresql://")
    assert "${FAILREF_DB_PASSWORD" in url
    assert replica["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert replica["environment"]["FAILREF_WORKERS"] == str(len(REPLICAS))


def test_the_proxy_sends_to_every_replica_on_the_served_port() -> None:
    upstreams = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", NGINX.read_text(), re.MULTILINE)
    assert sorted(upstreams) == [(name, "8000") for name in REPLICAS]


def test_the_replicas_trust_forwarded_addresses_only_from_the_compose_network() -> None:
    """Issue 35, item 3: with "*" uvicorn reads the first X-Forwarded-For entry, which the
    client writes; the proxy's network is trusted, and nothing else."""
    compose = yaml.safe_load(COMPOSE.read_text())
    [subnet] = [entry["subnet"] for entry in compose["networks"]["default"]["ipam"]["config"]]
    for name in REPLICAS:
        trusted = compose["services"][name]["environment"]["FORWARDED_ALLOW_IPS"]
        assert trusted != "*"
        assert ipaddress.ip_network(trusted) == ipaddress.ip_network(subnet)


@pytest.mark.parametrize(
    "directive",
    [
        "client_header_timeout 10s;",
        "client_body_timeout 30s;",
        "send_timeout 30s;",
        "limit_req zone=per_client",
        "limit_conn client_connections",
        "proxy_set_header X-Forwarded-For $remote_addr;",
    ],
)
def test_the_proxy_sets_the_edge_policy_the_security_doc_asks_for(directive: str) -> None:
    """Issue 35, item 8 (what a request shows is in test_deploy_proxy.py)."""
    assert directive in NGINX.read_text()
