"""What a results page says of its link: where it is, until when it lasts, and whether the
page shows the paste as sent (to its paster, just after pasting) or as kept (redacted)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from fastapi import Request, Response

from ...services.kept_results import FRESH_S, Fresh, expires_on
from ..templating import page_path

# The cookie that tells a result's paster from others: its value is the result's owner
# secret, and it is sent only to that result's path.
OWNER_COOKIE = "failref_paste"
# A token as `secrets.token_urlsafe(16)` writes it: anything else is no kept result.
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{22}")
# While a paste is on its way to storage, its "being kept" page reloads this often.
WAITING_RELOAD_S = 2


@dataclass(frozen=True, slots=True)
class KeptLink:
    """A kept result's link as its page shows it."""

    path: str
    url: str
    expires: dt.date
    as_sent: bool  # the paster's own view, from the paste as sent, before redaction


def kept_link(request: Request, token: str, created_at: dt.datetime, as_sent: bool) -> KeptLink:
    """The link of the result kept under `token`."""
    path = page_path(request, "kept_result", token=token)
    url = str(request.url_for("kept_result", token=token))
    retention = dt.timedelta(days=request.app.state.settings.result_retention_days)
    return KeptLink(path, url, expires_on(created_at, retention), as_sent)


def set_owner(response: Response, request: Request, fresh: Fresh) -> None:
    """Give the paster the cookie that shows them their result as sent, for its path only."""
    response.set_cookie(
        OWNER_COOKIE,
        fresh.owner,
        max_age=int(FRESH_S),
        path=page_path(request, "kept_result", token=fresh.token),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )
