"""Remove secrets and personal data from pasted text before anything of it is stored.

Logs carry tokens, keys, passwords, e-mail addresses, IPs and host names. Only redacted
text reaches the database (the gaps list); the rules run most specific first so that a
key inside a URL is caught by the key rule, not half-caught by the URL rule.

Every pattern runs in time linear in the text: a match may only start where a run of the
characters it is made of starts (a look-behind, not `\b`, which holds again after every
`.` or `-` inside a run), and a scan over such a run is possessive or bounded, so no
position of a long run is scanned again from each of its words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator

SECRET = "<secret>"  # noqa: S105 (the placeholder that replaces secrets)
MIN_ENTROPY_BITS = 3.5  # per character: keys sit above it, words and paths well below


def _sub(pattern: str, replacement: str, flags: int = 0) -> Callable[[str], str]:
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.sub(replacement, text)


def _lines_kept(pattern: str) -> Callable[[str], str]:
    """Replace each match with SECRET and as many line ends as it spanned: a redacted log
    keeps its line numbers."""
    compiled = re.compile(pattern)
    return lambda text: compiled.sub(lambda found: SECRET + "\n" * found[0].count("\n"), text)


def _keep_name(
    pattern: str, replacement: str = SECRET, flags: int = re.IGNORECASE
) -> Callable[[str], str]:
    """Replace what follows a header or keyword but keep the name, which helps matching."""
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.sub(lambda m: m.group("name") + replacement, text)


# `GITHUB_TOKEN=...`, `password: ...`, `api_key = '...'`: the name ends in a secret word.
_NAMED = re.compile(
    r"(?P<name>(?<![\w.-])[\w.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|"
    r"access[_-]?key|private[_-]?key|credentials?)[\"']?\s*+[:=]\s*+[\"']?)"
    r"(?P<value>[^\s\"',;&]++)",
    re.IGNORECASE,
)
# Values that are counts (`max_tokens=11240`) or code (`tokenizer.eos_token`), not secrets;
# a password-like name gets no such benefit of the doubt.
_NOT_SECRET = re.compile(r"^(?:[\d.,]+|[a-z_][a-z_]*(?:\.[a-z_][a-z_]*)+|<\w+>)[)`\]]*$")
_ALWAYS_SECRET = re.compile(r"pass|pwd|secret|credential", re.IGNORECASE)


def _unless_code(pattern: re.Pattern[str]) -> Callable[[str], str]:
    """Replace the value after a secret-looking name (`pattern`'s groups `name` and
    `value`), unless the value is a count or code and the name not password-like."""

    def replace(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        if _NOT_SECRET.match(value) and not _ALWAYS_SECRET.search(name):
            return match.group(0)
        return name + SECRET

    return lambda text: pattern.sub(replace, text)


# No "/" inside: paths and URLs are long mixed strings too, but split at every slash.
_CANDIDATE = re.compile(r"[A-Za-z0-9+_-]{32,}={0,2}")
# An AWS secret access key: exactly 40 characters of base64 that may hold `/` and `+`
# (`wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`); a path has more slashes or other characters.
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9][A-Za-z0-9/+]{39}(?![A-Za-z0-9/+=])")
MAX_SLASHES_IN_KEY = 3


def _aws_secret(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        value = match.group(0)
        keyish = value.count("/") <= MAX_SLASHES_IN_KEY and _looks_random(value)
        return SECRET if keyish else value

    return _AWS_SECRET.sub(replace, text)


def _random_strings(text: str) -> str:
    """Replace long mixed-case strings with the entropy of a key (base64, tokens)."""
    return _CANDIDATE.sub(lambda m: SECRET if _looks_random(m.group(0)) else m.group(0), text)


def _looks_random(value: str) -> bool:
    """Upper case, lower case and digits together, with the entropy of a key."""
    kinds = (str.isupper, str.islower, str.isdigit)
    mixed = all(any(kind(c) for c in value) for kind in kinds)
    return mixed and _entropy(value) >= MIN_ENTROPY_BITS


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# A block to its END line (a key is a few kilobytes: the search for the END is bounded,
# so a header in a long log never takes the log with it), or, with no END, the rest of its
# line and the base64 lines under it.
PEM_MAX_CHARS = 16_384
_PEM = (
    r"-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE)[A-Z ]*-----"
    rf"(?:[\s\S]{{0,{PEM_MAX_CHARS}}}?-----END [A-Z0-9 ]*-----"
    r"|[^\n]*+(?:\n[A-Za-z0-9+/=]{16,}+[ \t]*+)*+)"
)
_AUTH_HEADER = r"(?P<name>\b(?:proxy-)?authorization\s*[:=]\s*)[^\s\"',]+(?:[ \t]+[^\s\"',]+)?"
_JWT = r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"
# A scheme is at most a few dozen characters (`postgresql+psycopg2`): bounded, so a long
# dotted run costs a bounded scan from each of its words.
_URL_CREDENTIALS = r"(?P<scheme>\b[a-z][a-z0-9+.-]{0,31}+://)[^/\s:@]*+:[^/\s@]++@"
_EMAIL = r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]++@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"
# Suffixes of public and private names: generic, common country codes, cluster-internal.
HOST_SUFFIXES = (
    *("com", "net", "org", "io", "ai", "dev", "app", "co", "me", "info", "biz", "xyz"),
    *("tech", "cloud", "online", "site", "edu", "gov", "mil", "int", "us", "uk", "de"),
    *("cn", "jp", "kr", "tw", "sg", "hk", "in", "fr", "nl", "eu", "ch", "se", "no"),
    *("fi", "dk", "it", "es", "pl", "ru", "br", "ca", "au", "nz", "il", "ie", "at"),
    *("internal", "local", "lan", "corp", "cluster", "svc", "home", "localdomain"),
)
# A host starts where no label does: not after a letter, digit or `-`, nor after `x.`
# (inside a dotted name), so each dotted or hyphenated run is scanned from its start only
# (from every `-` of `a-a-…a.` it would be quadratic).
_HOST = (
    r"(?<![a-z0-9-])(?<![a-z0-9]\.)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
    rf"(?:{'|'.join(HOST_SUFFIXES)})\b"
)

# `export AWS_SECRET_ACCESS_KEY wJalr...`: an environment-style name (capitals and
# underscores) holding a secret word, then spaces, then the value. Capitals only, so prose
# ("the token is wrong") keeps its words.
_SPACED_NAME = (
    r"(?P<name>(?<![\w.-])[A-Z0-9_]*?(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|"
    r"PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*+\s++)[^\s\"',;&]{6,}+"
)
# Command-line flags that take a password: `--password X`, `redis-cli -a X`,
# `sshpass -p X`, `mysql -pX`; and any flag whose name ends in a secret word (`--token X`,
# `--api_key X`, `--wandb_key X`, `--hf-token=X`), unless its value is a count or code.
_FLAG = r"(?P<name>(?<!\S)(?:-[ap]\s+|-p(?=[^\s-])))[^\s\"']++"
_SECRET_FLAG = re.compile(
    r"(?P<name>(?<!\S)--[\w-]*?(?:password|passwd|pass|token|secret|key)(?:=|\s++))"
    r"(?P<value>[^\s\"'-][^\s\"']*+)",
    re.IGNORECASE,
)
# `curl -u alice:Hunter2pass`, `--user alice:pw`: a user and password joined by a colon.
_USER_COLON_PAIR = r"(?P<name>(?<!\S)(?:-u|--user)(?:=|\s*+))[^\s:\"']++:[^\s\"']++"
# `Cookie: sessionid=…; csrftoken=…` and `Set-Cookie: …`: the whole header value.
_COOKIE = r"(?P<name>\b(?:set-)?cookie\s*+:\s*+)[^\r\n]++"
# A signature or key in a URL's query (S3 and GCS presigned URLs, Azure SAS `sig=`).
_URL_PARAMETER = (
    r"(?P<name>[?&](?:x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|"
    r"x-goog-credential|awsaccesskeyid|signature|sig|access_token|api_key|apikey|token|key)=)"
    r"[^&\s\"'#]++"
)
# Slack's incoming-webhook path holds the secret: `hooks.slack.com/services/T…/B…/…`.
_SLACK_WEBHOOK = r"(?P<name>hooks\.slack\.com/services/)[A-Za-z0-9/]++"
# `wandb login 3f9a…`: W&B keys are 40 lower-case hex digits.
_WANDB_LOGIN = r"(?P<name>\bwandb\s++login\s++(?:--relogin\s++)?)[0-9a-f]{40}\b"
# "… with password Hunter2!", "password is S3cret": a password in prose is a word that
# holds a digit, a capital after its first letter or a symbol ("password authentication
# failed" keeps its words).
_PROSE_PASSWORD = re.compile(
    r"(?P<name>\b(?:password|passphrase|passcode)\s++(?:is\s++|was\s++)?)"
    r"(?P<value>[^\s\"',;]++)",
    re.IGNORECASE,
)
_WORD_ONLY = re.compile(r"^[A-Za-z][a-z]*[.:!?]?$")


def _prose_password(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if _WORD_ONLY.match(match.group("value")):
            return match.group(0)
        return match.group("name") + SECRET

    return _PROSE_PASSWORD.sub(replace, text)


# Tokens recognised by their prefix: Stripe, npm, GitLab, NVIDIA NGC, Databricks,
# Replicate, Groq, Perplexity. A token starts where a run of its characters does (not
# after `-`, as `\b` would allow: `nvapi-nvapi-…` would be scanned from each `-`).
_PREFIXED_KEY = (
    r"(?<![\w-])(?:[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{36}"
    r"|glpat-[A-Za-z0-9_-]{20,}|nvapi-[A-Za-z0-9_-]{20,}|dapi[0-9a-f]{32}"
    r"|r8_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{30,}|pplx-[A-Za-z0-9]{30,})"
)
# A user's name in a home directory: `/home/alice.smith/`, `/Users/ann/`, `C:\Users\ann\`.
_HOME_USER = r"(?P<name>(?<![\w.-])(?:/home/|/users/|[a-z]:\\users\\))[^/\\\s\"':]++"
# Characters no one sees inside a run of key characters, which split a key so that no
# rule recognises it; elsewhere they stay (the gaps page shows them escaped).
_INVISIBLE = r"(?<=[\w/+=-])[\u200b-\u200d\u2060\ufeff]++(?=[\w/+=-])"
# A host named where a host goes (`ssh gpu-node-17`, `--host x`, `MASTER_ADDR=trainer3`,
# `hostname: worker-3`), whatever its suffix or none. The words `host` and `node` count
# only before `:` or `=`: "pinned host memory" is no host name.
_NAMED_HOST = (
    r"(?P<name>(?<![\w-])(?:(?:ssh|scp|rsync|--host|--master[-_]addr)(?:\s*=\s*|\s++)"
    r"|(?:host|hostname|node|nodename|master_addr)\s*[:=]\s*)(?:[\w.-]+@)?)"
    r"[A-Za-z][A-Za-z0-9-]{1,62}(?:\.[A-Za-z0-9-]{1,63})*+"
)

# Each rule is small and named for what it removes; order matters (see module docstring).
RULES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("invisible characters inside a key", _sub(_INVISIBLE, "")),
    ("pem block", _lines_kept(_PEM)),
    ("cookie header", _keep_name(_COOKIE)),
    ("authorization header", _keep_name(_AUTH_HEADER)),
    ("bearer token", _keep_name(r"(?P<name>\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}")),
    ("jwt", _sub(_JWT, SECRET)),
    ("github token", _sub(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})", SECRET)),
    ("slack token", _sub(r"\bxox[abposr]-[A-Za-z0-9-]{10,}", SECRET)),
    ("aws access key", _sub(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b", SECRET)),
    ("api key", _sub(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}", SECRET)),
    ("hugging face token", _sub(r"\bhf_[A-Za-z0-9]{30,}", SECRET)),
    ("google api key", _sub(r"\bAIza[0-9A-Za-z_-]{35}\b", SECRET)),
    ("provider token", _sub(_PREFIXED_KEY, SECRET)),
    ("slack webhook", _keep_name(_SLACK_WEBHOOK)),
    ("url parameter", _keep_name(_URL_PARAMETER)),
    ("url credentials", _sub(_URL_CREDENTIALS, r"\g<scheme><secret>@")),
    ("user and password", _keep_name(_USER_COLON_PAIR, flags=0)),
    ("wandb login", _keep_name(_WANDB_LOGIN)),
    ("named secret", _unless_code(_NAMED)),
    ("named secret, spaced", _keep_name(_SPACED_NAME, flags=0)),
    ("password flag", _keep_name(_FLAG, flags=0)),
    ("secret flag", _unless_code(_SECRET_FLAG)),
    ("password in prose", _prose_password),
    ("email", _sub(_EMAIL, "<email>")),
    ("home directory user", _keep_name(_HOME_USER, replacement="<user>")),
    ("aws secret key", _aws_secret),
    ("long random string", _random_strings),
    ("ipv4", _sub(r"\b(?:\d{1,3}\.){3}\d{1,3}\b", "<ip>")),
    ("ipv6", _sub(r"\b(?:[0-9a-fA-F]{1,4}:){3,7}[0-9a-fA-F]{1,4}\b", "<ip>")),
    ("named host", _keep_name(_NAMED_HOST, replacement="<host>")),
    ("host name", _sub(_HOST, "<host>", re.IGNORECASE)),
)


def redact(text: str) -> str:
    """`text` with every secret, e-mail address, IP address, host name and home-directory
    user name replaced."""
    for _, rule in RULES:
        text = rule(text)
    return text


# A piece of a long text redacted at once: each `re` pass over it holds the interpreter's
# lock, so a thread redacting a 15 MB log in pieces lets requests run between them.
PIECE_CHARS = 64 * 1024
_PEM_BEGIN = "-----BEGIN "
_PEM_END = "-----END "


def redacted_pieces(text: str, piece_chars: int = PIECE_CHARS) -> Iterator[str]:
    """`redact(text)` a piece of about `piece_chars` at a time, for long texts: joined, the
    pieces are the redacted text. A piece ends at a line end and never inside a PEM block,
    so each piece is redacted as the lines it holds would be on their own (a flag at the
    end of a piece's last line does not take the next piece's first word as its value);
    the caller may stop between pieces."""
    start = 0
    while start < len(text):
        end = _piece_end(text, start, piece_chars)
        yield redact(text[start:end])
        start = end


def _piece_end(text: str, start: int, piece_chars: int) -> int:
    """Where the piece from `start` ends: the line end after `start + piece_chars`, or
    further, past a PEM block begun in the piece (its END line, or as far as the PEM rule
    looks for one); the text's end when there is no line end."""
    end = text.find("\n", start + piece_chars)
    if end < 0:
        return len(text)
    opened = text.rfind(_PEM_BEGIN, start, end)
    if opened >= 0 and text.find(_PEM_END, opened, end) < 0:
        window = opened + PEM_MAX_CHARS + len(_PEM_BEGIN) + 64  # the header, then the body
        closed = text.find(_PEM_END, end, window)
        end = text.find("\n", closed if closed >= 0 else window)
        if end < 0:
            return len(text)
    return end + 1
