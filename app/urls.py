"""Every path failref serves or links to, spelled once.

Routes are declared with these patterns; pages build their links through the router
(`url_for`, root path included), and what has no request to ask (the MCP tools, the CLI,
the JSON stored at load time) uses the builders below.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

API_PREFIX = "/api/"
API_V1 = "/api/v1"
MCP_PATH = "/mcp"
STATIC_PATH = "/static"
HEALTH_PATHS = frozenset({"/healthz", "/readyz"})

REFERENCE_PAGE_PREFIX = "/r/"
REFERENCE_PAGE = REFERENCE_PAGE_PREFIX + "{reference_id}"
REFERENCE_FEEDBACK = REFERENCE_PAGE + "/feedback"
REFERENCE_OUTCOME = REFERENCE_PAGE + "/outcome"
REFERENCE_EDIT = REFERENCE_PAGE + "/edit"
REFERENCE_HISTORY = REFERENCE_PAGE + "/history"
REFERENCE_REVISION = REFERENCE_HISTORY + "/{revision_id}"
REFERENCE_RESTORE = REFERENCE_PAGE + "/restore/{revision_id}"
REFERENCE_RETIRE = REFERENCE_PAGE + "/retire"
ADMIN_CONFLICTS = "/admin/conflicts"
ADMIN_GAPS = "/admin/gaps"
ADMIN_GAP_DISMISS = ADMIN_GAPS + "/{gap_id}/dismiss"
KEPT_RESULT = "/results/{token}"
# Under API_V1.
API_REFERENCES = "/references"
API_REFERENCE = API_REFERENCES + "/{reference_id}"
API_REFERENCE_PREFIX = API_V1 + API_REFERENCES + "/"
API_REFERENCE_LIST = API_V1 + API_REFERENCES


def reference_path(reference_id: str) -> str:
    """The site path of a reference's page, for answers built without a request."""
    return REFERENCE_PAGE.format(reference_id=reference_id)


def reference_list_path(query: Mapping[str, str | None]) -> str:
    """The API path of a list of references with the non-empty values of `query`, for
    answers built without a request."""
    values = {key: value for key, value in query.items() if value}
    return f"{API_REFERENCE_LIST}?{urlencode(values)}" if values else API_REFERENCE_LIST


def reference_id_in_path(href: str) -> str | None:
    """The reference id a site link like `/r/other-id` names, if it is one."""
    return (
        href.removeprefix(REFERENCE_PAGE_PREFIX) if href.startswith(REFERENCE_PAGE_PREFIX) else None
    )


def answers_json(path: str) -> bool:
    """API, health and MCP paths always answer JSON, errors included; pages answer HTML."""
    return path.startswith(API_PREFIX) or path in HEALTH_PATHS or path == MCP_PATH
