"""Item 3: what a visitor sends comes back escaped (paste box, `?q=`, the gaps list, error
pages), template syntax in a paste is text, and every template is covered by autoescaping
with `|safe` only over HTML the renderer sanitised."""

from __future__ import annotations

from pathlib import Path

import pytest
from editing_helpers import form_fields, sign_in
from fastapi.testclient import TestClient
from jinja2 import nodes
from security.helpers import audit, reference_text

from failref.web.templating import TEMPLATES_DIR, templates

SCRIPT = "<script>alert(1)</script>"
PAYLOADS = [
    pytest.param(SCRIPT, id="script"),
    pytest.param('"><img src=x onerror=alert(1)>', id="attribute-breakout"),
    pytest.param("'><svg onload=alert(1)>", id="single-quote-breakout"),
    pytest.param("</textarea><script>alert(1)</script>", id="textarea-breakout"),
    pytest.param("</title><script>alert(1)</script>", id="title-breakout"),
    pytest.param("javascript:alert(1)", id="javascript-url"),
]
# Proof the payload came back (escaped) rather than being dropped.
ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;"
TEMPLATE_SYNTAX = "zz{{7*7}}zz"


def assert_escaped(html: str, payload: str, where: str) -> None:
    assert audit(html, where) == []
    if "<" in payload:
        assert payload not in html, f"{where}: the payload came back unescaped"


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("field", ["log", "framework", "gpu", "model", "notes"])
def test_paste_form_reflects_every_field_escaped(
    shared_client: TestClient, field: str, payload: str
) -> None:
    data = {"log": "NCCL watchdog timeout", field: payload}
    response = shared_client.post("/", data=data)
    assert response.status_code == 200
    assert_escaped(response.text, payload, f"POST / {field}")
    if payload == SCRIPT:
        assert ESCAPED_SCRIPT in response.text


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/?q={}", id="home-q"),
        pytest.param("/?q=timeout&notes={}", id="home-notes"),
        pytest.param("/references?q={}&tag={}", id="browse"),
        pytest.param("/calculators/pipeline-bubble?microbatches={}&stage_ms={}", id="calculator"),
        pytest.param("/r/slow-collective?microbatches={}", id="reference-calculator"),
    ],
)
def test_query_strings_come_back_escaped(
    shared_client: TestClient, path: str, payload: str
) -> None:
    response = shared_client.get(path.replace("{}", payload.replace("&", "%26")))
    assert response.status_code in (200, 422)
    assert_escaped(response.text, payload, path)


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/r/{}", id="not-found-page"),
        pytest.param("/no/such/{}", id="404"),
        pytest.param("/calculators/{}", id="unknown-calculator"),
        pytest.param("/api/v1/references/{}", id="api-404"),
    ],
)
def test_error_pages_escape_the_path(shared_client: TestClient, path: str, payload: str) -> None:
    response = shared_client.get(path.replace("{}", payload))
    assert response.status_code == 404
    if response.headers["content-type"].startswith("application/json"):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert set(response.json()) == {"error"}
    else:
        assert_escaped(response.text, payload, path)


def test_not_found_page_shows_the_missing_id_escaped(shared_client: TestClient) -> None:
    response = shared_client.get("/r/<img src=x onerror=alert(1)>")
    assert response.status_code == 404
    assert "No reference called" in response.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in response.text


def test_gaps_list_shows_stored_queries_escaped(client: TestClient) -> None:
    sign_in(client)
    payloads = [str(param.values[0]) for param in PAYLOADS]
    for number, payload in enumerate(payloads):
        client.post("/", data={"log": f"mystery failure {payload} in worker {'x' * number}"})
    response = client.get("/admin/gaps")
    assert response.status_code == 200
    assert response.text.count("mystery failure") >= 2 * len(payloads), "queries not listed"
    for payload in payloads:
        assert_escaped(response.text, payload, "/admin/gaps")


def test_template_syntax_in_a_paste_is_text(client: TestClient) -> None:
    for response in (
        client.post("/", data={"log": TEMPLATE_SYNTAX, "notes": TEMPLATE_SYNTAX}),
        client.get("/", params={"q": TEMPLATE_SYNTAX}),
        client.get(f"/r/{TEMPLATE_SYNTAX}"),
    ):
        assert TEMPLATE_SYNTAX in response.text
        assert "zz49zz" not in response.text
    # A look-up of one word is not kept as a gap; a line that states a failure is.
    client.post("/", data={"log": f"RuntimeError: the widget {TEMPLATE_SYNTAX} broke"})
    sign_in(client)
    response = client.get("/admin/gaps")
    assert "zz{{" in response.text
    assert "zz49" not in response.text


def test_template_syntax_in_a_reference_is_text(client: TestClient) -> None:
    sign_in(client)
    fields = form_fields(client.get("/new").text)
    text = reference_text("jinja-probe", body_extra=f" {TEMPLATE_SYNTAX} {{{{ config }}}}")
    preview = client.post("/new", data={**fields, "text": text, "action": "preview"})
    assert "Preview (not saved)" in preview.text
    assert TEMPLATE_SYNTAX in preview.text
    assert "zz49zz" not in preview.text
    assert "{{ config }}" in preview.text


# The templates themselves -----------------------------------------------------------------


def template_names() -> list[str]:
    return sorted(
        str(p.relative_to(TEMPLATES_DIR)) for p in TEMPLATES_DIR.rglob("*") if p.is_file()
    )


def is_sanitised_html(node: nodes.Node) -> bool:
    """A value the renderer produced: a name or attribute called `html` or `*_html`."""
    if isinstance(node, nodes.Getattr):
        return node.attr == "html" or node.attr.endswith("_html")
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
        return str(node.arg.value) == "html" or str(node.arg.value).endswith("_html")
    if isinstance(node, nodes.Name):
        return node.name.endswith("_html")
    return False


def unsafe_uses(name: str, folder: Path = TEMPLATES_DIR) -> list[str]:
    """`|safe` over anything but sanitised HTML, and autoescape switched off, in `name`."""
    source = (folder / name).read_text()
    tree = templates.env.parse(source, name)
    found = [
        f"{name}:{node.lineno}: |safe over {type(node.node).__name__}"
        for node in tree.find_all(nodes.Filter)
        if node.name == "safe" and not is_sanitised_html(node.node)
    ]
    for modifier in tree.find_all((nodes.EvalContextModifier, nodes.ScopedEvalContextModifier)):
        for keyword in modifier.options:
            if keyword.key == "autoescape" and not (
                isinstance(keyword.value, nodes.Const) and keyword.value.value is True
            ):
                found.append(f"{name}:{modifier.lineno}: autoescape switched off")
    if "|safe" in source.replace(" ", "") and not any(
        isinstance(n, nodes.Filter) and n.name == "safe" for n in tree.find_all(nodes.Filter)
    ):
        found.append(f"{name}: |safe the parser did not see")
    return found


def test_every_template_is_autoescaped() -> None:
    names = template_names()
    assert len(names) >= 15
    autoescape = templates.env.autoescape
    for name in names:
        assert name.endswith(".html"), f"{name}: only .html templates are autoescaped"
        assert autoescape(name) if callable(autoescape) else autoescape, name


def test_safe_is_only_applied_to_sanitised_html() -> None:
    problems = [problem for name in template_names() for problem in unsafe_uses(name)]
    assert problems == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("{{ reference.context_html|safe }}", [], id="sanitised-field"),
        pytest.param("{{ cause.html|safe }}", [], id="sanitised-item"),
        pytest.param("{{ form.log|safe }}", ["|safe over Getattr"], id="user-field"),
        pytest.param("{{ message|safe }}", ["|safe over Name"], id="user-name"),
        pytest.param(
            "{% autoescape false %}{{ x }}{% endautoescape %}",
            ["autoescape switched off"],
            id="autoescape-off",
        ),
    ],
)
def test_the_template_walker_catches_what_it_should(
    tmp_path: Path, source: str, expected: list[str]
) -> None:
    (tmp_path / "probe.html").write_text(source)
    found = unsafe_uses("probe.html", tmp_path)
    assert len(found) == len(expected)
    for problem, fragment in zip(found, expected, strict=True):
        assert fragment in problem
