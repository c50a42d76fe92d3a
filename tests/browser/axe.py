"""axe-core, the accessibility checker, run inside a page: `assert_no_axe_violations(page)`.

axe-core comes from npm, pinned by tests/browser/npm/package-lock.json and installed by
`bash scripts/setup dev` (which `bash scripts/test` runs) into tests/browser/npm/node_modules.

Injection: the pages send a strict Content-Security-Policy (no inline script, no eval), so
`page.add_script_tag(path=...)`, which inserts the file's text as an inline <script>, is
blocked. The source goes in through `page.evaluate` instead: Playwright evaluates over the
DevTools protocol, which CSP does not govern, and axe itself needs no eval. Bypassing CSP
for the whole context (`bypass_csp=True`) would work too, but then the page under test is
not the page users get, and the CSP-violation checks the other tests make would see
nothing; this way the page keeps its policy and `window.__cspViolations` stays honest.

Usage from any browser test (tests/ is on the import path):

    from browser.axe import assert_no_axe_violations
    assert_no_axe_violations(page)  # the whole page, as it is now
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

AXE_SOURCE = Path(__file__).parent / "npm" / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0/2.1/2.2 A and AA, plus axe's best practices (heading order, landmarks, one h1).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
RUN_AXE = """
async (tags) => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
  }));
}
"""


@cache
def axe_source() -> str:
    """The text of axe.min.js; a clear failure, never a skip, when it is not installed."""
    if not AXE_SOURCE.is_file():
        pytest.fail(
            f"axe-core is not installed ({AXE_SOURCE} is missing): the accessibility tests "
            "need it; `bash scripts/setup dev` installs it from npm "
            "(or `npm ci --prefix tests/browser/npm`; tests/browser/npm/package-lock.json pins "
            "the version).",
            pytrace=False,
        )
    return AXE_SOURCE.read_text(encoding="utf-8")


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source() + "\n;undefined")
    violations: list[dict[str, Any]] = page.evaluate(RUN_AXE, AXE_TAGS)
    return violations


def describe(violations: list[dict[str, Any]]) -> str:
    """One paragraph per violation: rule, impact, help and each offending element."""
    parts = []
    for violation in violations:
        nodes = "\n".join(
            f"    {node['target']}: {' '.join(node['summary'].split())}"
            for node in violation["nodes"]
        )
        parts.append(f"  {violation['id']} ({violation['impact']}): {violation['help']}\n{nodes}")
    return "\n".join(parts)


def assert_no_axe_violations(page: Page) -> None:
    """Fail with every axe-core violation on the page (WCAG A/AA and best practices)."""
    violations = axe_violations(page)
    assert not violations, f"axe-core found violations on {page.url}:\n{describe(violations)}"
