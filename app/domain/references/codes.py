"""Error codes a reference owns, read from its own content, and a code typed alone.

A reference owns an Xid or SXid its failure messages print (`NVRM: Xid (PCI:...): 79`), an
NCCL error name they print (`ncclRemoteError`), and the codes its front matter tags name:
`xid-79`, `sxid-20034`, `error-802` (a CUDA error number), `dcgm-error-3`, or an NCCL
error name (`ncclremoteerror`). Two references claiming one code is a load problem
(`folder.check_across_files`), so a code leads to one reference or none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from .document import Reference

# (kind, value): ("xid", "79"), ("sxid", "20034"), ("cuda", "802"), ("dcgm", "3"),
# ("nccl", "ncclremoteerror").
Code = tuple[str, str]
# A second reference claiming a code: (that reference, the code, the id owning it).
Clash = tuple[Reference, Code, str]
# A code is typed alone: a line longer than this is a message to match, not a code.
MAX_CODE_CHARS = 40
KIND_NAMES = {"xid": "Xid", "sxid": "SXid", "cuda": "CUDA error", "dcgm": "DCGM error"}
NCCL_NAME = r"nccl(?:[A-Z][a-z]+)*(?:Error|InvalidUsage|InvalidArgument)"
MESSAGE_CODES = (
    ("xid", re.compile(r"(?<![A-Za-z])Xid \(PCI:[^)\n]{0,40}\): ([0-9]{1,5})\b")),
    ("sxid", re.compile(r"\bSXid \(PCI:[^)\n]{0,40}\): ([0-9]{1,5})\b")),
    ("nccl", re.compile(rf"\b({NCCL_NAME})\b")),
)
TAG_CODE_RE = re.compile(r"(xid|sxid|error|dcgm-error)-([0-9]{1,5})")
TAG_KINDS = {"xid": "xid", "sxid": "sxid", "error": "cuda", "dcgm-error": "dcgm"}
NCCL_TAG_RE = re.compile(r"nccl[a-z]+(?:error|invalidusage|invalidargument)")
TYPED_NUMBER_RE = re.compile(
    r"(?P<kind>s?xid|(?:cuda\s+)?error|dcgm(?:\s+error)?)\s*[:#=]?\s*(?P<number>[0-9]{1,5})",
    re.IGNORECASE,
)
TYPED_NCCL_RE = re.compile(NCCL_NAME, re.IGNORECASE)


def codes_of(reference: Reference) -> frozenset[Code]:
    """The codes `reference` owns: in its failure and diagnostic messages and its tags."""
    found: set[Code] = set()
    for message in reference.messages:
        if message.kind == "healthy":
            continue
        for kind, pattern in MESSAGE_CODES:
            found.update((kind, _value(kind, value)) for value in pattern.findall(message.text))
    found.update(_tag_codes(reference.tags))
    return frozenset(found)


def _tag_codes(tags: Iterable[str]) -> Iterator[Code]:
    for tag in tags:
        numbered = TAG_CODE_RE.fullmatch(tag)
        if numbered:
            yield TAG_KINDS[numbered.group(1)], str(int(numbered.group(2)))
        elif NCCL_TAG_RE.fullmatch(tag):
            yield "nccl", tag


def _value(kind: str, value: str) -> str:
    return value.casefold() if kind == "nccl" else str(int(value))


def typed_code(text: str) -> Code | None:
    """The code `text` is when typed alone (`Xid 79`, `xid: 48`, `error 802`,
    `ncclSystemError`), else None."""
    typed = text.strip()
    if len(typed) > MAX_CODE_CHARS:
        return None
    number = TYPED_NUMBER_RE.fullmatch(typed)
    if number:
        kind = number.group("kind").casefold().split()[0]
        kind = {"error": "cuda"}.get(kind, kind)
        return kind, str(int(number.group("number")))
    if TYPED_NCCL_RE.fullmatch(typed):
        return "nccl", typed.casefold()
    return None


def code_name(code: Code) -> str:
    """A code as people write it: `Xid 79`, `CUDA error 802`, `ncclremoteerror`."""
    kind, value = code
    return value if kind == "nccl" else f"{KIND_NAMES[kind]} {value}"


def code_owners(references: Sequence[Reference]) -> tuple[dict[Code, str], list[Clash]]:
    """Each code's reference, first claim wins; and every later claim as (reference, code,
    the id that owns it), for the load to report."""
    owners: dict[Code, str] = {}
    clashes: list[Clash] = []
    for reference in references:
        for code in sorted(codes_of(reference)):
            owner = owners.setdefault(code, reference.id)
            if owner != reference.id:
                clashes.append((reference, code, owner))
    return owners, clashes
