"""Which parser read a reference: a digest of the code that turns a file into a
`Reference` (every module of the app, and the versions of the libraries that parse
Markdown and YAML and validate the model). A stored reading made by the same code, of
the same bytes, is what parsing them again would give."""

from __future__ import annotations

import hashlib
import uuid
from functools import cache
from importlib.metadata import version

from ...config import PACKAGE_DIR

# Libraries whose version can change what a file parses to.
PARSING_LIBRARIES = ("markdown-it-py", "PyYAML", "pydantic", "pydantic-core")


@cache
def parser_version() -> str:
    """The digest of the app's Python sources and the parsing libraries' versions."""
    digest = hashlib.sha256()
    for library in PARSING_LIBRARIES:
        digest.update(f"{library}=={version(library)}\n".encode())
    sources = sorted(PACKAGE_DIR.rglob("*.py"))
    if not sources:  # compiled files alone: nothing tells this parser from another one
        digest.update(uuid.uuid4().bytes)
    for path in sources:
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def reading_of(document: str) -> str:
    """What a stored document is recognised by: the parser that wrote it and the
    document itself, so a writer that changes the document alone breaks the match."""
    return hashlib.sha256(f"{parser_version()}\0{document}".encode()).hexdigest()
