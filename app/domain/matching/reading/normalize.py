"""Log text into the normal form that reference messages are compared in.

A real line and its reference template compare equal when only the variable parts
differ: colour codes and log prefixes go, and numbers, hex addresses, UUIDs, paths,
IPs, hostnames and tensor shapes become the placeholders reference authors write
(`<n>`, `<hex>`, `<uuid>`, `<path>`, `<ip>`, `<host>`, `<shape>`); an empty tensor's
shape, which names a failure, becomes the telling word `empty`. Every rule is one small
function; `normalize_line` applies them in order. Templates go through the same
rules, which leave placeholders alone, so both sides land on one form. No user text is
ever compiled as a regular expression, and every pattern here is linear-time.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Longest raw line looked at: bounds regex and fuzzy cost on a 1 MB single-line paste
# while keeping every real log line whole (the longest in the labelled set is < 1,000).
MAX_LINE_CHARS = 2_000
# Prefixes nest (`[rank0]:[E1102 10:00:00.1 ProcessGroupNCCL.cpp:616] [Rank 0] ...`); a
# bound keeps a line made only of prefixes from looping long.
MAX_PREFIX_PASSES = 8

# A number as it appears in a raw line, or the placeholder a template has instead.
_N = r"(?:\d+|<n>)"
_TIME = rf"{_N}:{_N}(?::{_N})?(?:[.,]{_N})?"
# Placeholders authors write for a whole timestamp.
_STAMP = r"<(?:timestamp|datetime|date|time)>"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"

ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[@-Z\\-_]"  # two-character escapes
)
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]+")
SPACE_RE = re.compile(r"\s+")

PREFIX_RES: tuple[re.Pattern[str], ...] = (
    # torchrun/SLURM rank labels: `[rank3]:`, `[default0]:`, `rank3:`, `0: `
    re.compile(rf"\[(?:rank|default|local_rank) ?{_N}\]:?\s*", re.IGNORECASE),
    re.compile(rf"(?:rank|local_rank) ?{_N}:\s*", re.IGNORECASE),
    re.compile(rf"{_N}:\s+"),
    # glog and c10 logging: `E1102 10:00:00.123456 1234 file.cc:12]`, `[W ProcessGroup.cpp:1]`
    re.compile(
        rf"\[?[IWEFDV]{_N}(?: {_TIME})?(?: +{_N})?(?: [\w./-]+:{_N})?\]\s*"
        rf"|\[?[IWEFDV]{_N} {_TIME}(?: +{_N})?\s+"
        rf"|\[[IWEFD] [\w./-]+:{_N}\]\s*"
    ),
    re.compile(rf"\[?{_STAMP}\]?,?\s*"),
    # ISO dates with optional time, `[2024-01-02 03:04:05,678]`, `2024-01-02T03:04:05Z`
    re.compile(
        rf"\[?{_N}-{_N}-{_N}(?:[T ]{_TIME}(?:Z|[+-]{_N}(?::?{_N})?)?)?\]?,?\s*",
    ),
    # vLLM `01-02 03:04:05`, bare times, dmesg `[ 12.345678]`, syslog `Jan  2 03:04:05`
    re.compile(rf"\[?{_N}-{_N} {_TIME}\]?\s*"),
    re.compile(rf"\[?{_TIME}\]?\s+"),
    re.compile(rf"\[\s*{_N}(?:\.{_N})?\]\s*"),
    # syslog `Jan  2 03:04:05 host kernel:`, dmesg -T `[Fri Aug  9 13:32:56 2024]`
    re.compile(rf"{_MONTH} +{_N} {_TIME}(?:\s+[\w.<>-]+ [\w.-]+(?:\[{_N}\])?:)?\s+"),
    re.compile(rf"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) {_MONTH} +{_N} {_TIME} {_N}\]\s*"),
    # US dates, as the Hugging Face examples log them: `07/02/2023 03:54:35 - WARNING - `
    # (the logger after the level names the component, and stays)
    re.compile(rf"{_N}/{_N}/{_N} {_TIME}\s+(?:-\s+)?"),
    # Rust `tracing` (TGI, Dynamo): the level, then the spans and the module that logged,
    # the same on every line of a component (`ERROR shard-manager: text_generation_launcher:`,
    # `INFO dynamo_engine_vllm::worker:`); the lower-case snake_case target keeps Python's
    # dotted loggers and words such as `RuntimeError:` out.
    re.compile(
        r"(?:INFO|WARN|ERROR|DEBUG|TRACE) +(?:[a-z][\w-]*(?:\{[^{}\n]{0,200}\})?: )*"
        r"[a-z][a-z0-9_]*(?:::[a-z0-9_]+)*: "
    ),
    # levels: `INFO`, `[WARNING]`, `ERROR:root:`, `| ERROR    |`
    re.compile(
        r"[\[|]?\s*(?:INFO|WARN|WARNING|ERROR|DEBUG|CRITICAL|FATAL|TRACE|NOTICE)"
        r"(?:(?::[\w.]+:|\s*[\]|:]|\s+-)\s*|\s+)"
    ),
    # source locations: `[engine.py:123]`, `llm_engine.py:123]`, `module:func:12 -`
    re.compile(
        rf"\[?[\w./-]+\.(?:py|cc|cpp|cxx|c|h|hpp|cu|cuh|rs|go):{_N}(?::\w+)?\]:?\s*"
        rf"|[\w.]+:[\w<>]+:{_N}\s+-\s+"
    ),
    # process labels: `(VllmWorkerProcess pid=123)`, `(RayWorker pid=1, ip=10.0.0.1)`,
    # NCCL `host:1234:5678 [0]`, `[pid 123]`
    re.compile(rf"\((?:[\w-]+ )?pid={_N}(?:, ip=[\w.<>:]+)?\)\s*"),
    re.compile(rf"[\w.<>-]+:{_N}:{_N} \[{_N}\]\s*"),
    re.compile(rf"\[pid:? ?{_N}\]\s*", re.IGNORECASE),
    # separators left behind: `| `, `- `, `: `
    re.compile(r"[|:-]\s+"),
)

# A scheme is a few dozen characters at most: bounded, so a long dotted run before a
# `://` elsewhere on the line is not scanned again from each of its words.
URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}+://[^\s\"'<>)\]]*+(?:<[a-z]+>[^\s\"')\]]*+)*+")
UUID_RE = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
IP_RE = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\w)")
PATH_RE = re.compile(
    r"(?<![\w/.>])(?:<path>|~|\.{1,2})?(?:/[\w.@+-]+)+/?"  # /abs/path, ./rel, <path>/x
    r"|(?<![\w/.-])[\w.-]+(?:/[\w.-]+){2,}"  # rel/a/b with at least two slashes
    r"|\b[A-Za-z]:\\[^\s\"']+"  # C:\windows\path
)
# The last label of a host name the mask knows for one.
HOST_SUFFIXES = (
    *("com", "net", "org", "io", "ai", "co", "dev", "cloud", "internal", "local", "lan"),
    *("cluster", "svc", "edu"),
)
HOST_RE = re.compile(
    r"(?<![\w.-])(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+"
    rf"(?:{'|'.join(HOST_SUFFIXES)})\b"
    r"|\blocalhost\b"
)
HEX_RE = re.compile(
    r"\b0[xX][0-9a-fA-F]+\b"
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b"
    r"|\b(?=[0-9A-F]*\d)(?=[0-9A-F]*[A-F])[0-9A-F]{8,}\b"
)
# `Xid (PCI:0000:3b:00): 79`, `SXid (PCI:0000:0a:00.0): 20034`, `Xid 79`: the bounded
# parenthesis and the digits make it linear.
XID_RE = re.compile(r"\b(S?Xid)\b((?:\s*\([^)\n]{0,40}\))?\s*:?\s*)(\d{1,5})\b")
# What `keep_error_codes` made of it (`Xid (PCI:<hex>): xid79`), to be read back as written.
KEPT_XID_RE = re.compile(r"\b(S?Xid)\b((?:\s*\([^)\n]{0,40}\))?\s*:?\s*)s?xid(\d{1,5})\b")
# A PCI bus id, `0000:3b:00` or `00000000:3B:00.0`: hex fields, so the number mask would
# read `3b` as a number glued to a `b` (`<n>:<n>b:<n>`).
PCI_RE = re.compile(
    r"(?<![\w.])(?<![0-9a-fA-F]:)"
    r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?"
    r"(?![\w.]|:[0-9a-fA-F])"
)
DIMENSIONS_RE = re.compile(r"\b\d+(?:x\d+)+\b")
# An empty tensor's shape (`torch.Size([0])`, `of shape [0]`): what ZeRO-3 leaves in place of
# a partitioned parameter, so it tells a failure apart where any other shape is a value.
EMPTY_SHAPE_RE = re.compile(r"(?<=Size\()\[0\](?=\))|(?<=shape )\[0\]")
NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?:[eE][-+]?\d+)?")
SHAPE_RE = re.compile(
    r"\[\s*<n>(?:\s*,\s*<n>)+\s*,?\s*\]"
    r"|\(\s*<n>(?:\s*,\s*<n>)+\s*,?\s*\)"
    r"|<n>(?:\s?[x×]\s?<n>)+"
)


def truncate(line: str) -> str:
    """Cut a line to `MAX_LINE_CHARS` so a huge paste costs no more than a long line."""
    return line[:MAX_LINE_CHARS]


def keep_last_carriage_segment(line: str) -> str:
    """Keep what a terminal would show of a line redrawn with `\\r` (progress bars)."""
    if "\r" not in line:
        return line
    segments = [segment for segment in line.split("\r") if segment.strip()]
    return segments[-1] if segments else ""


def strip_ansi(line: str) -> str:
    """Remove ANSI colour and cursor escape sequences."""
    return ANSI_RE.sub("", line) if "\x1b" in line else line


def strip_control(line: str) -> str:
    """Replace NUL, other control characters and decoding debris with a space."""
    return CONTROL_RE.sub(" ", line)


def strip_prefixes(line: str) -> str:
    """Remove leading timestamps, levels, rank labels, source locations and pids."""
    text = line.lstrip()
    for _ in range(MAX_PREFIX_PASSES):
        for pattern in PREFIX_RES:
            found = pattern.match(text)
            if found is not None and found.end() < len(text):
                text = text[found.end() :].lstrip()
                break
        else:
            return text
    return text


def keep_error_codes(line: str) -> str:
    """An Xid or SXid number is the failure's name, not a variable: `Xid (PCI:...): 79`
    keeps it as the token `xid79` (so Xid 79 and Xid 48 are different lines)."""
    if "id" not in line:
        return line
    return XID_RE.sub(lambda f: f"{f.group(1)}{f.group(2)}{f.group(1).lower()}{f.group(3)}", line)


def restore_error_codes(line: str) -> str:
    """A normalised line as a person writes it: `keep_error_codes` undone (`Xid (...): 79`)."""
    return KEPT_XID_RE.sub(lambda f: f"{f.group(1)}{f.group(2)}{f.group(3)}", line)


def mask_pci_ids(line: str) -> str:
    """PCI bus ids (`0000:3b:00`, `00000000:3B:00.0`) become `<hex>`."""
    return PCI_RE.sub("<hex>", line) if ":" in line else line


def mask_urls(line: str) -> str:
    """URLs become `<url>`."""
    return URL_RE.sub("<url>", line) if "://" in line else line


def mask_uuids(line: str) -> str:
    """UUIDs become `<uuid>`."""
    return UUID_RE.sub("<uuid>", line)


def mask_ips(line: str) -> str:
    """IPv4 addresses become `<ip>` (a port stays, and becomes `:<n>` later)."""
    return IP_RE.sub("<ip>", line)


def mask_paths(line: str) -> str:
    """File-system paths become `<path>`."""
    return PATH_RE.sub("<path>", line) if "/" in line or "\\" in line else line


def mask_hosts(line: str) -> str:
    """Host names (dotted names with a network suffix, `localhost`) become `<host>`."""
    return HOST_RE.sub("<host>", line)


def mask_hex(line: str) -> str:
    """`0x…` values and long hex strings (addresses, hashes) become `<hex>`."""
    return HEX_RE.sub("<hex>", line)


def mask_dimensions(line: str) -> str:
    """Dimensions written `4096x4096` become `<shape>`."""
    return DIMENSIONS_RE.sub("<shape>", line)


def mark_empty_shapes(line: str) -> str:
    """An empty tensor's shape (`torch.Size([0])`, `of shape [0]`) becomes the word `empty`:
    a word, not a placeholder, so a line saying it and a message that does not differ in
    their telling words."""
    return EMPTY_SHAPE_RE.sub("empty", line) if "[0]" in line else line


def mask_numbers(line: str) -> str:
    """Numbers not glued to a word (`12`, `3.5`, `1e-4`, `20.00MiB`) become `<n>`."""
    return NUMBER_RE.sub("<n>", line)


def mask_shapes(line: str) -> str:
    """Lists of two or more numbers (`[<n>, <n>]`, `(<n>, <n>)`, `<n> x <n>`) become `<shape>`."""
    return SHAPE_RE.sub("<shape>", line) if "<n>" in line else line


def collapse_spaces(line: str) -> str:
    """Runs of white space become one space; the ends are trimmed."""
    return SPACE_RE.sub(" ", line).strip()


MASKS: tuple[Callable[[str], str], ...] = (
    keep_error_codes,
    mask_urls,
    mask_uuids,
    mask_ips,
    mask_paths,
    mask_hosts,
    mask_pci_ids,
    mask_hex,
    mask_dimensions,
    mark_empty_shapes,
    mask_numbers,
    mask_shapes,
)


def normalize_line(line: str) -> str:
    """One raw log line in normal form: no colours or prefixes, variables as placeholders."""
    text = strip_control(strip_ansi(keep_last_carriage_segment(truncate(line))))
    text = strip_prefixes(text)
    for mask in MASKS:
        text = mask(text)
    # Masking can expose a prefix (`12.5: x` reads `<n>: x`); a second pass keeps the
    # result a fixed point, so normalising twice changes nothing.
    return collapse_spaces(strip_prefixes(text))


def normalize_template(message: str) -> str:
    """A reference message (placeholders already in) in normal form, one line per line."""
    lines = (normalize_line(line) for line in message.splitlines())
    return "\n".join(line for line in lines if line)
