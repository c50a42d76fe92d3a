"""Remove secrets and personal data from pasted text before anything of it is stored.

Logs carry tokens, keys, passwords, e-mail addresses, IPs and host names. Only redacted
text reaches the database (the gaps list); the rules run most specific first so that a
key inside a URL is caught by the key rule, not half-caught by the URL rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable

SECRET = "<secret>"  # noqa: S105 (the placeholder that replaces secrets)


def _sub(pattern: str, replacement: str, flags: int = 0) -> Callable[[str], str]:
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.sub(replacement, text)


def _keep_name(pattern: str, flags: int = re.IGNORECASE) -> Callable[[str], str]:
    """Replace the value after a `name=`/`name:` but keep the name, which helps matching."""
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.sub(lambda m: m.group("name") + SECRET, text)


# Each rule is small and named for what it removes; order matters (see module docstring).
RULES: tuple[tuple[str, Callable[[str], str]], ...] = (
    (
        "pem block",
        _sub(
            r"-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE)[A-Z ]*-----"
            r"[\s\S]*?(?:-----END [A-Z0-9 ]*-----|$)",
            SECRET,
        ),
    ),
    (
        "authorization header",
        _keep_name(
            r"(?P<name>\b(?:authorization|proxy-authorization)\s*[:=]\s*)[^\s\"',]+(?:\s+[^\s\"',]+)?"
        ),
    ),
    ("bearer token", _keep_name(r"(?P<name>\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}")),
    ("jwt", _sub(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}", SECRET)),
    (
        "github token",
        _sub(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})", SECRET),
    ),
    ("slack token", _sub(r"\bxox[abposr]-[A-Za-z0-9-]{10,}", SECRET)),
    ("aws access key", _sub(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b", SECRET)),
    ("openai-style key", _sub(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}", SECRET)),
    ("hugging face token", _sub(r"\bhf_[A-Za-z0-9]{30,}", SECRET)),
    ("google api key", _sub(r"\bAIza[0-9A-Za-z_-]{35}\b", SECRET)),
    (
        "url credentials",
        _sub(r"(?P<scheme>\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", r"\g<scheme><secret>@"),
    ),
    (
        "named secret",
        _keep_name(
            r"(?P<name>\b[\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|"
            r"private[_-]?key|credential|auth)[\w.-]*[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]+"
        ),
    ),
    ("email", _sub(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b", "<email>")),
    (
        "long random string",
        _sub(
            r"\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Za-z])[A-Za-z0-9+/_-]{40,}={0,2}",
            SECRET,
        ),
    ),
    ("ipv4", _sub(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b", "<ip>")),
    ("ipv6", _sub(r"\b(?:[0-9a-fA-F]{1,4}:){3,7}[0-9a-fA-F]{1,4}\b", "<ip>")),
    (
        "host name",
        _sub(
            r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ai|dev|internal|"
            r"local|lan|cloud|corp|cluster|svc|edu|gov|us|uk|de|cn)\b",
            "<host>",
            re.IGNORECASE,
        ),
    ),
)


def redact(text: str) -> str:
    """`text` with every secret, e-mail address, IP address and host name replaced."""
    for _, rule in RULES:
        text = rule(text)
    return text
