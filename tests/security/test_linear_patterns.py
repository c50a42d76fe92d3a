"""Every pattern that sees user text runs in time linear in it (issue 13, item 1 and 3).

Quadratic redaction answered a 16 KB paste after 19 s and held the interpreter lock all
along; `[a](` repeated took over a minute to parse. Here each redaction rule, each
normalisation rule, the context inference, the line classifiers, the refused-link pattern
and the gap recorder get 100,000 repetitions of shapes that made a pattern restart at
every word (`a.`, `a-`, `a@`, ...). Each call runs under a CPU-time deadline (SIGPROF
counts this process's CPU only, so a loaded machine does not trip it) of CPU_DEADLINE_S:
a linear pass over these 200-400 KB takes at most a quarter of a second here, a quadratic
one minutes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from deadlines import OverBudget, cpu_deadline

from failref.domain.matching.reading import bulk, context, lines, normalize
from failref.domain.redact import RULES, redact
from failref.domain.references import blocks, items, markdown
from failref.store import gaps
from failref.web import bodies

REPEAT = 100_000
CPU_DEADLINE_S = 5.0
SHAPES = {
    "dots": "a." * REPEAT,
    "hyphens": "a-" * REPEAT,
    "ats": "a@" * REPEAT,
    "colons": "a:" * REPEAT,
    "slashes": "a/" * REPEAT,
    "numbers": "1." * REPEAT,
    "links": "[a](" * REPEAT,
    "scheme-far-away": "a." * REPEAT + " ://",
    "hex-ish": "x0" * REPEAT,
    "placeholders": "<n>, " * REPEAT,
    "escapes": "\x1b]" * REPEAT,
    "words": "a " * REPEAT,
    "pem-headers": "-----BEGIN " * (REPEAT // 5),
    "named": "password." * (REPEAT // 5),
    "emails": "a.b@" * (REPEAT // 2),
    # Issue 35, item 6: a dotted run of hyphenated labels restarted the host rule at every
    # `-`; and the shapes of the rules added for item 5.
    "hyphenated-labels": ("a-" * 30 + "a.") * (REPEAT // 31),
    "token-prefixes": "nvapi-glpat-" * (REPEAT // 6),
    "base64-slashes": "aB3/" * (REPEAT // 2),
    "secret-flags": " --a-key" * (REPEAT // 4),
    "password-words": " password" * (REPEAT // 4),
    "user-flags": " -u a" * (REPEAT // 2),
    "url-parameters": "?sig=" * (REPEAT // 2),
    "home-paths": "/home/a" * (REPEAT // 3),
}
Rule = Callable[[str], Any]
CHECKED: dict[str, Rule] = {
    **{f"redact: {name}": rule for name, rule in RULES},
    "redact": redact,
    **{f"normalize: {mask.__name__}": mask for mask in normalize.MASKS},
    "normalize: strip_prefixes": normalize.strip_prefixes,
    "normalize: strip_ansi": normalize.strip_ansi,
    "normalize: strip_control": normalize.strip_control,
    "normalize: collapse_spaces": normalize.collapse_spaces,
    "normalize: keep_last_carriage_segment": normalize.keep_last_carriage_segment,
    "normalize_line": normalize.normalize_line,
    "normalize_lines": lambda text: bulk.normalize_lines([text, text]),
    "infer_context": context.infer_context,
    "telling lines": lines.TELLING_RE.search,
    "telling": lambda text: lines.telling([text, text]),
    "noise lines": lines.NOISE_RE.match,
    "refused links": blocks._LINK_TEXT.findall,
    "link destinations": items.DESTINATION_RE.findall,
    "safe url": markdown.is_safe_url,
    "gap template": gaps.gap_template,
    "form percent escapes": lambda text: bodies.unquote_plus_bytes(text.encode()),
}


@pytest.mark.parametrize("rule", CHECKED.values(), ids=CHECKED.keys())
def test_a_pattern_that_sees_user_text_is_linear(rule: Rule) -> None:
    for shape, text in SHAPES.items():
        try:
            with cpu_deadline(CPU_DEADLINE_S):
                rule(text)
        except OverBudget:
            pytest.fail(f"the {shape!r} shape ({len(text):,} characters) is not linear")


def test_the_gap_recorder_redacts_a_bounded_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 10 MB line is redacted 4,000 characters at a time at most, cut at a word."""
    seen: list[str] = []

    def recording(text: str) -> str:
        seen.append(text)
        return redact(text)

    monkeypatch.setattr(gaps, "redact", recording)
    line = "token: " + "word " * 2_000_000
    found = gaps.gap_template("\n\n" + line)
    assert found is not None
    [redacted] = seen
    assert gaps.REDACTED_CHARS - len("word ") <= len(redacted) <= gaps.REDACTED_CHARS
    assert redacted.endswith("word")


def test_a_secret_is_not_cut_before_it_is_redacted() -> None:
    """The window ends at a word, so a key straddling it is dropped whole, never in part."""
    key = "ghp_" + "A1b2C3d4" * 5
    padding = "x " * ((gaps.REDACTED_CHARS - 10) // 2)
    found = gaps.gap_template(padding + key + " tail")
    assert found is not None
    assert key[:8] not in found[1]
