"""Pages: template and context, what must show, and the paste and calculator forms."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from reference_helpers import LONG_INFERENCE

from failref.config import DEFAULT_MAX_LOG_LINES, HOME_SHELF_SIZE, PROJECT_ROOT, Settings
from failref.domain.calculators import CALCULATORS, get_calculator
from failref.services.analysis import LOG_LINE_THRESHOLD
from failref.web.factory import create_app
from failref.web.views.calculator_panel import format_number
from failref.web.views.paste import ECHO_MAX_CHARS, EXAMPLES

WATCHDOG = (
    "[rank0]:[E ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out."
)
MESSAGE_START = WATCHDOG.index("Watchdog")
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


@dataclass
class Element:
    """One element of a page: tag, attributes and the text inside it."""

    tag: str
    attrs: dict[str, str]
    ancestors: list[Element]
    text: str = ""
    parts: list[str] = field(default_factory=list)


class Document(HTMLParser):
    """Every element of a page, enough to find what must show by tag and attributes."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []
        self.feed(html)
        self.close()
        for element in self.elements:
            element.text = "".join(element.parts)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs}, list(self.open))
        self.elements.append(element)
        if tag not in VOID_TAGS:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for position in range(len(self.open) - 1, -1, -1):
            if self.open[position].tag == tag:
                del self.open[position:]
                return

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.parts.append(data)

    def find_all(self, tag: str, within: Element | None = None, **attrs: str) -> list[Element]:
        """Elements with this tag whose attributes hold these values (`class_` for class,
        `for_` for for, `data_x` for data-x), inside `within` when given."""
        wanted = {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}

        def has(element: Element, name: str, value: str) -> bool:
            if name == "class":
                return value in element.attrs.get("class", "").split()
            return element.attrs.get(name) == value

        return [
            element
            for element in self.elements
            if element.tag == tag
            and all(has(element, n, v) for n, v in wanted.items())
            and (within is None or within in element.ancestors)
        ]

    def find(self, tag: str, within: Element | None = None, **attrs: str) -> Element:
        """The first element that matches; fails the test when there is none."""
        found = self.find_all(tag, within, **attrs)
        assert found, f"no <{tag}> with {attrs}"
        return found[0]

    def hrefs(self) -> list[str]:
        return [element.attrs.get("href", "") for element in self.find_all("a")]

    def alternates(self) -> list[str]:
        return [
            e.attrs["href"] for e in self.find_all("link", rel="alternate", type="application/json")
        ]


def parse(response: Response) -> Document:
    assert response.headers["content-type"].startswith("text/html")
    return Document(response.text)


def template_of(response: Response) -> str:
    name: str = response.template.name  # type: ignore[attr-defined]
    return name


def context_of(response: Response) -> dict[str, object]:
    context: dict[str, object] = response.context  # type: ignore[attr-defined]
    return context


@pytest.fixture
def small_client(settings: Settings) -> Iterator[TestClient]:
    """A client whose logs may have at most 40 lines."""
    limited = settings.model_copy(update={"max_log_lines": 40})
    with TestClient(create_app(limited)) as test_client:
        yield test_client


@pytest.fixture
def shipped_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client on the shipped references, for what depends on their content."""
    folder = tmp_path / "shipped"
    shutil.copytree(PROJECT_ROOT / "references", folder)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'shipped.db'}", references_dir=folder)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


# Home


def test_home_offers_the_paste_form_and_the_references(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert template_of(response) == "home.html"
    context = context_of(response)
    assert context["outcome"] is None
    assert context["frameworks"] == ["nccl", "pytorch"]
    page = parse(response)
    form = page.find("form", class_="paste")
    assert (form.attrs["method"], form.attrs["action"]) == ("post", "/")
    assert page.find("textarea", name="log").attrs["id"] == "log"
    assert page.find("label", for_="log")
    for name in ("framework", "phase", "gpu", "gpus", "model", "notes"):
        control = page.find_all("input", name=name) + page.find_all("select", name=name)
        assert len(control) == 1, name
        assert page.find("label", for_=control[0].attrs["id"])
    assert page.find("input", name="framework").attrs["list"] == "frameworks"
    datalist = page.find("datalist", id="frameworks")
    assert [o.attrs["value"] for o in page.find_all("option", datalist)] == ["nccl", "pytorch"]
    assert page.find("input", name="phase").attrs["list"] == "phases"
    phases = [o.attrs["value"] for o in page.find_all("option", page.find("datalist", id="phases"))]
    assert phases[:2] == ["training", "inference"]
    assert page.find("button", type="submit").text == "Find references"
    assert "/r/slow-collective" in page.hrefs()
    assert "/r/stuck-rank" in page.hrefs()
    assert page.alternates() == ["/api/v1/references"]


def test_home_shows_the_first_references_of_each_category_and_links_the_rest(
    long_client: TestClient,
) -> None:
    page = parse(long_client.get("/"))
    shelves = page.find("section", class_="shelves")
    assert page.find("h2", shelves).text == "The 132 references by category"
    assert [h.text for h in page.find_all("h3", shelves)] == ["Training (72)", "Inference (60)"]
    shown = [a.attrs["href"] for a in page.find_all("a", shelves)]
    training = ["slow-collective"] + [f"numbered-{n:03d}" for n in range(HOME_SHELF_SIZE - 1)]
    inference = [f"numbered-{n:03d}" for n in LONG_INFERENCE[:HOME_SHELF_SIZE]]
    assert shown == [
        *[f"/r/{ref_id}" for ref_id in training],
        "/references?category=training",
        *[f"/r/{ref_id}" for ref_id in inference],
        "/references?category=inference",
        "/references",
    ]
    assert page.find("a", shelves, href="/references?category=training").text == (
        "All 72 training references"
    )


def test_every_page_has_the_navigation_and_marks_where_you_are(client: TestClient) -> None:
    for path, current in [
        ("/", "/"),
        ("/references", "/references"),
        ("/calculators", "/calculators"),
    ]:
        page = parse(client.get(path))
        nav = [
            a
            for a in page.find_all("a")
            if a.attrs.get("href") in {"/", "/references", "/calculators", "/docs"}
        ]
        assert {a.text for a in nav} >= {"Match a log", "References", "Calculators", "API"}
        assert [a.attrs["href"] for a in page.find_all("a", aria_current="page")] == [current]
        assert page.find("main", id="main")
        assert page.find("nav", aria_label="Main")


def test_examples_are_real_lines_that_find_their_reference(shipped_client: TestClient) -> None:
    page = parse(shipped_client.get("/"))
    examples = [a for a in page.find_all("a") if "data-example" in a.attrs]
    assert [a.attrs["data-example"] for a in examples] == [e.line for e in EXAMPLES]
    for example, link in zip(EXAMPLES, examples, strict=True):
        assert parse_qs(urlsplit(link.attrs["href"]).query) == {"q": [example.line]}
        response = shipped_client.get(link.attrs["href"])
        card = context_of(response)["outcome"].cards[0].match  # type: ignore[attr-defined]
        assert (card.id, card.confident) == (example.reference_id, True), example.line


# Results for one message


def test_one_line_gives_ranked_cards_with_the_match_highlighted(client: TestClient) -> None:
    response = client.post("/", data={"log": WATCHDOG, "gpu": "H100"})
    assert response.status_code == 200
    assert template_of(response) == "home.html"
    outcome = context_of(response)["outcome"]
    assert outcome.kind == "match"  # type: ignore[attr-defined]
    page = parse(response)
    first = page.find("li", class_="result")
    assert first.attrs["data-reference-id"] == "slow-collective"
    assert "confident" in first.attrs["class"].split()
    assert page.find("mark").text == WATCHDOG[MESSAGE_START:]
    assert page.find("span", class_="label").text == "confident"
    assert page.find("meter").attrs["value"] == "1.0"
    assert "does not confirm a cause" in page.find("p", class_="caution").text
    assert "matched" in page.find("details", class_="reasons").text
    assert page.find("a", href="#ctx-framework").text == "Framework: nccl"
    assert page.find("input", name="framework").attrs["value"] == "nccl"
    assert page.find("input", name="gpu").attrs["value"] == "H100"
    assert page.find("textarea", name="log").text.strip() == WATCHDOG
    share = page.find("a", page.find("p", class_="share"))
    assert parse_qs(urlsplit(share.attrs["href"]).query) == {"q": [WATCHDOG], "gpu": ["H100"]}


def test_the_share_link_gives_the_same_answer(client: TestClient) -> None:
    posted = context_of(client.post("/", data={"log": WATCHDOG}))
    shared = context_of(client.get(str(posted["share_url"])))
    assert shared["outcome"] == posted["outcome"]


def test_long_or_multi_line_pastes_get_no_share_link(client: TestClient) -> None:
    for text in (WATCHDOG + " x" * 300, f"Traceback\n{WATCHDOG}"):
        response = client.post("/", data={"log": text})
        assert response.status_code == 200
        assert context_of(response)["share_url"] is None
        assert not parse(response).find_all("p", class_="share")


def test_a_short_query_in_the_url_is_matched(client: TestClient) -> None:
    response = client.get("/", params={"q": WATCHDOG, "framework": "pytorch"})
    assert response.status_code == 200
    page = parse(response)
    assert page.find("li", class_="result").attrs["data-reference-id"] == "slow-collective"
    assert page.find("input", name="framework").attrs["value"] == "pytorch"
    assert "you said pytorch, which it happens in" in page.find("details", class_="reasons").text


def test_blank_query_is_the_plain_start_page(client: TestClient) -> None:
    response = client.get("/", params={"q": "  "})
    assert response.status_code == 200
    assert context_of(response)["outcome"] is None


def test_nothing_confident_says_so_and_lists_the_nearest_titles_only(client: TestClient) -> None:
    response = client.post("/", data={"log": "collective stalls sometimes"})
    page = parse(response)
    assert page.find("h1").text == "No reference matches this text"
    section = page.find("section", class_="no-match")
    assert "covers the performance and failure modes of GPU training" in section.text
    assert "2 references" in section.text  # the live count of the fixture folder
    assert "Your text was kept, redacted" in section.text
    assert page.find("form", class_="no-match-search").attrs["action"] == "/references"
    nearest = page.find("details", class_="nearest")
    assert page.find("a", nearest).attrs["href"] == "/r/slow-collective"
    assert not page.find_all("li", class_="result")  # no weak card dressed as an answer
    assert not page.find_all("figure", class_="excerpt")


def test_nothing_at_all_says_so(client: TestClient) -> None:
    page = parse(client.post("/", data={"log": "hello world"}))
    assert page.find("h1").text == "No reference matches this text"
    assert "failref has no reference for this text" in page.find("h2", id="no-match-title").text
    assert not page.find_all("li", class_="result")
    assert not page.find_all("details", class_="nearest")


def test_a_server_that_keeps_nothing_says_so(settings: Settings) -> None:
    quiet = settings.model_copy(update={"store_queries": False})
    with TestClient(create_app(quiet)) as client:
        page = parse(client.post("/", data={"log": "hello world"}))
    assert "does not keep unanswered text" in page.find("p", class_="kept").text


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("{{7*7}} {% if 1 %}x{% endif %}", id="jinja"),
        pytest.param("<script>alert(1)</script><img src=x onerror=alert(2)>", id="html"),
    ],
)
def test_pasted_text_is_shown_as_text(client: TestClient, text: str) -> None:
    for response in (
        client.post("/", data={"log": text}),
        client.post("/", data={"log": f"{text} {WATCHDOG}"}),
    ):
        assert response.status_code == 200
        assert "<script>alert" not in response.text
        assert "<img src=x" not in response.text
        assert "49" not in parse(response).find("textarea", name="log").text
        assert parse(response).find("textarea", name="log").text.strip().startswith(text)
    mark = parse(client.post("/", data={"log": f"{text} {WATCHDOG}"})).find("pre")
    assert mark.text.startswith(text)


# Results for a whole log


def progress_log(lines: int, failures: dict[int, str]) -> str:
    return "\n".join(
        failures.get(n, f"step {n * 10} | loss {2 + n / 1000:.4f} | tokens/s {90000 + n * 7}")
        for n in range(1, lines + 1)
    )


def test_a_log_lists_each_reference_with_its_lines(client: TestClient) -> None:
    log = progress_log(60, {12: WATCHDOG, 47: WATCHDOG.replace("SeqNum=5", "SeqNum=9")})
    response = client.post("/", data={"log": log})
    assert response.status_code == 200
    outcome = context_of(response)["outcome"]
    assert outcome.kind == "scan"  # type: ignore[attr-defined]
    page = parse(response)
    hit = page.find("li", class_="result")
    assert hit.attrs["data-reference-id"] == "slow-collective"
    assert page.find("p", class_="lines").attrs["data-lines"] == "12,47"
    assert "2 lines" in page.find("p", class_="lines").text
    assert WATCHDOG in page.find("pre").text
    stats = page.find("p", class_="read-stats").text
    assert stats.startswith("Read 60 lines: 2 distinct")
    assert "limit" not in stats
    assert context_of(response)["share_url"] is None


def test_a_log_without_failures_says_so_and_names_no_reference(client: TestClient) -> None:
    log = progress_log(LOG_LINE_THRESHOLD + 5, {LOG_LINE_THRESHOLD: "collective stalls sometimes"})
    page = parse(client.post("/", data={"log": log}))
    assert page.find("h1").text == "Nothing in this log looks like a failure"
    assert "That is what a healthy run prints" in page.find("p", class_="verdict").text
    assert page.find("h2", id="s-quiet").text == "If the run did fail or slow down"
    assert page.find_all("li", class_="card") == []
    assert page.find_all("details", class_="nearest") == []


def test_a_log_whose_first_error_no_reference_covers_starts_there(client: TestClient) -> None:
    error = "RuntimeError: collective stalls sometimes"
    log = progress_log(LOG_LINE_THRESHOLD + 5, {LOG_LINE_THRESHOLD: error})
    page = parse(client.post("/", data={"log": log}))
    assert page.find("h1").text == f"Line {LOG_LINE_THRESHOLD}: No reference covers this error yet"
    root = page.find("li", class_="uncovered")
    assert "data-reference-id" not in root.attrs
    assert page.find("mark", within=root).text == error
    leads = page.find("p", root, class_="root-leads")
    assert page.find("a", within=leads).attrs["href"] == "/r/slow-collective"
    unrecognised = page.find("section", class_="unrecognised")
    assert page.find("code", within=unrecognised).text == error


def test_a_log_whose_errors_state_no_failure_says_so(client: TestClient) -> None:
    log = progress_log(LOG_LINE_THRESHOLD + 5, {LOG_LINE_THRESHOLD: "a retry failed, moving on"})
    page = parse(client.post("/", data={"log": log}))
    assert page.find("h1").text == "No reference covers the errors in this log"
    verdict = page.find("p", class_="verdict").text
    assert verdict.startswith("1 line of this log looks like an error, and no reference covers it")
    assert page.find_all("li", class_="card") == []
    assert page.find("form", class_="no-match-search").attrs["action"] == "/references"


def story_log(*failures: str, padding: int = LOG_LINE_THRESHOLD) -> str:
    """A log of `padding` progress lines, then the failures."""
    return "\n".join([*(f"heartbeat {n}" for n in range(1, padding + 1)), *failures])


def diagnosis_watchdog(rank: int) -> str:
    return WATCHDOG.replace("Rank 0", f"Rank {rank}").replace("rank0", f"rank{rank}")


SOCKET = "node1:100:200 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>"
TRUNCATED = (
    "node1:100:200 [0] NCCL WARN NET/Socket : peer 10.0.0.2<45678> message truncated : "
    "receiving 1048576 bytes instead of 65536"
)


def test_a_log_shows_its_root_first_with_what_followed(diagnosis_client: TestClient) -> None:
    log = story_log(
        TRUNCATED,
        diagnosis_watchdog(0),
        diagnosis_watchdog(1),
        "RuntimeError: <script>alert(1)</script> nobody knows this",
    )
    root_line = LOG_LINE_THRESHOLD + 1
    response = diagnosis_client.post("/", data={"log": log})
    page = parse(response)
    assert page.find("h1").text.startswith(f"Line {root_line}: ")
    root = page.find("li", class_="root")
    assert root.attrs["data-reference-id"] == "fx-slow-link"
    assert f"#L{root_line}" in [a.attrs.get("href") for a in page.find_all("a", within=root)]
    assert TRUNCATED in page.find("mark", within=root).text
    followed = page.find("details", class_="consequences", within=root)
    assert "What followed from it: 2 lines" in page.find("summary", within=followed).text
    assert "on ranks 0-1" in followed.text
    unrecognised = page.find("section", class_="unrecognised")
    assert f"Line {root_line + 3}" in unrecognised.text
    assert "The first few were kept, redacted" in unrecognised.text
    numbered = page.find("span", id=f"L{root_line}")
    assert TRUNCATED in numbered.text
    assert "<script>alert(1)</script>" not in response.text
    assert "&lt;script&gt;" in response.text


def test_every_scan_heading_is_one_level_below_its_parent(diagnosis_client: TestClient) -> None:
    log = story_log(SOCKET, diagnosis_watchdog(0), "RuntimeError: unknown")
    page = parse(diagnosis_client.post("/", data={"log": log}))
    results = page.find("section", class_="results")
    headings = [e for e in page.elements if e.tag in {"h1", "h2", "h3", "h4"}]
    levels = [int(e.tag[1]) for e in headings if results in e.ancestors]
    assert levels[:2] == [1, 2]
    assert all(b <= a + 1 for a, b in pairwise(levels)), levels


def test_a_long_log_is_numbered_around_the_linked_lines(diagnosis_client: TestClient) -> None:
    log = story_log(SOCKET, diagnosis_watchdog(0), padding=3_000)
    page = parse(diagnosis_client.post("/", data={"log": log}))
    view = page.find("section", class_="log-view")
    numbered = [e.attrs["id"] for e in page.find_all("span", within=view, class_="log-line")]
    assert "L3001" in numbered
    assert "L1" not in numbered
    assert "2,995 lines not shown" in view.text


# Errors of the paste form


def test_an_empty_paste_gets_the_form_again(client: TestClient) -> None:
    response = client.post("/", data={"log": " \n ", "model": "llama-3-8b"})
    assert response.status_code == 422
    assert template_of(response) == "home.html"
    page = parse(response)
    assert "Paste a log line" in page.find("p", class_="form-error").text
    assert page.find("textarea", name="log").attrs["aria-describedby"] == "form-error"
    assert page.find("textarea", name="log").attrs["aria-invalid"] == "true"
    assert page.find("input", name="model").attrs["value"] == "llama-3-8b"


def test_the_form_takes_the_100000_lines_the_readme_promises(client: TestClient) -> None:
    # Lines of a realistic length: urlencoded, the form is over the old 10 MiB body limit.
    prefix = "[2025-03-01 10:00:00,123] [INFO] [rank0]: "
    log = prefix + progress_log(DEFAULT_MAX_LOG_LINES, {}).replace("\n", "\n" + prefix)
    assert len(urlencode({"log": log})) > 10 * 1024 * 1024
    response = client.post("/", data={"log": log})
    assert response.status_code == 200
    assert context_of(response)["outcome"].scan.lines == DEFAULT_MAX_LOG_LINES  # type: ignore[attr-defined]
    # The answer does not carry the paste back: a browser takes 15-40 s to show 15 MB.
    assert len(response.content) < 1_000_000
    page = parse(response)
    assert page.find("textarea", name="log").text.strip() == ""
    note = page.find("p", id="log-not-echoed").text
    assert f"{DEFAULT_MAX_LOG_LINES:,} lines" in note


def test_a_paste_is_copied_back_up_to_the_echo_limit(client: TestClient) -> None:
    line = "[rank0]: step 1 | loss 2.1234\n"
    within = line * (ECHO_MAX_CHARS // len(line))
    page = parse(client.post("/", data={"log": within}))
    assert page.find("textarea", name="log").text.strip() == within.strip()
    assert not page.find_all("p", id="log-not-echoed")
    over = within + "x" * (ECHO_MAX_CHARS - len(within) + 1)
    page = parse(client.post("/", data={"log": over}))
    assert page.find("textarea", name="log").text.strip() == ""
    assert page.find("p", id="log-not-echoed").text.startswith(
        f"Your paste ({over.count(chr(10)) + 1:,} lines, 0.3 MB)"
    )


def test_too_many_lines_keep_the_text(small_client: TestClient) -> None:
    log = progress_log(45, {})
    response = small_client.post("/", data={"log": log})
    assert response.status_code == 422
    page = parse(response)
    assert "45 lines is over the 40-line limit" in page.find("p", class_="form-error").text
    assert page.find("textarea", name="log").text.strip() == log
    limits = page.find("div", id="paste-limits").text
    assert "40 lines" in limits
    assert "tail -n 5000 train.log | failref scan -" in limits


def test_context_is_read_as_typed_and_what_is_not_understood_is_shown(
    client: TestClient,
) -> None:
    data = {"log": WATCHDOG, "gpus": "single node", "framework": "PyTorch DDP (torchrun)"}
    response = client.post("/", data={**data, "phase": "pre-training (step 61)"})
    assert response.status_code == 200
    page = parse(response)
    read = page.find("div", class_="read-context")
    chips = [chip.text for chip in page.find_all("a", read, class_="chip")]
    assert "Framework: torchrun, pytorch" in chips
    assert "Phase: training" in chips
    assert "single node" in page.find("p", read, class_="not-understood").text
    assert page.find("input", name="gpus").attrs["value"] == "single node"
    assert page.find("textarea", name="log").text.strip() == WATCHDOG


def test_windows_line_endings_are_read_as_lines(client: TestClient) -> None:
    response = client.post("/", data={"log": f"Traceback:\r\n{WATCHDOG}\r\n"})
    page = parse(response)
    assert page.find("mark").text == WATCHDOG[MESSAGE_START:]
    assert "line 2" in page.find("figcaption").text


# Reference pages


def test_reference_page_shows_what_the_file_says(client: TestClient) -> None:
    response = client.get("/r/slow-collective")
    assert response.status_code == 200
    assert template_of(response) == "reference.html"
    html = response.text
    assert "A collective stalls on one slow link" in html
    assert "NCCL WARN Net : Connection closed by remote peer &lt;host&gt;&lt;&lt;ip&gt;&gt;" in html
    assert html.index("A degraded link") < html.index("A congested switch")
    assert "all_reduce_perf -b 8 -e 8G -f 2 -g 8" in html
    assert "does not confirm any cause" in html
    page = parse(response)
    assert "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md" in page.hrefs()
    assert "/r/stuck-rank" in page.hrefs()
    assert "/references?tag=all-reduce" in page.hrefs()
    assert page.alternates() == ["/api/v1/references/slow-collective"]
    assert page.find("time").attrs["datetime"] == "2026-11-01"


def test_each_message_shows_its_seen_in_paragraph_whole(client: TestClient) -> None:
    """The paragraph a writer puts under a message (where, in which release, what the thread
    showed) is on the page as written, its links live, not reduced to its first URL."""
    page = parse(client.get("/r/slow-collective"))
    captions = [" ".join(caption.text.split()) for caption in page.find_all("figcaption")]
    assert "Seen in the NCCL issue tracker." in captions
    assert "https://github.com/NVIDIA/nccl/issues/1" in page.hrefs()


def test_reference_calculator_starts_from_the_worked_example(client: TestClient) -> None:
    response = client.get("/r/slow-collective")
    panel = context_of(response)["panel"]
    assert panel.calculator.name == "pipeline-bubble"  # type: ignore[attr-defined]
    page = parse(response)
    form = page.find("form", class_="calculator-form")
    assert (form.attrs["method"], form.attrs["action"]) == ("get", "/r/slow-collective#calculator")
    assert form.attrs["data-api"] == "/api/v1/calculators/pipeline-bubble"
    assert page.find("textarea", name="stage_ms").text.strip() == "200, 200, 400, 200"
    assert page.find("input", name="microbatches").attrs["value"] == "8"
    assert page.find("label", for_="calc-microbatches")
    expected = get_calculator("pipeline-bubble").run(
        {"stage_ms": [200, 200, 400, 200], "microbatches": 8}
    )
    assert page.find("output", data_output="step_ms").text == "3,800"
    assert expected.outputs["step_ms"] == 3800
    assert page.find("p", class_="formula").text.startswith("Formula: step time = (m − 1)")
    assert page.find("script", src="/static/calculator.js")


def test_reference_calculator_answers_its_form(client: TestClient) -> None:
    response = client.get("/r/slow-collective", params={"stage_ms": "100 100", "microbatches": "4"})
    assert response.status_code == 200
    page = parse(response)
    assert page.find("output", data_output="step_ms").text == "500"
    assert page.find("output", data_output="efficiency").text == "80"
    assert page.find("textarea", name="stage_ms").text.strip() == "100 100"


def test_reference_calculator_shows_errors_next_to_their_fields(client: TestClient) -> None:
    response = client.get("/r/slow-collective", params={"stage_ms": "200,x", "microbatches": "0"})
    assert response.status_code == 422
    assert template_of(response) == "reference.html"
    page = parse(response)
    assert page.find("p", id="calc-stage_ms-error").text == "item 2: must be a number, not 'x'"
    assert page.find("p", id="calc-microbatches-error").text == "must be at least 1"
    assert page.find("input", id="calc-microbatches").attrs["aria-invalid"] == "true"
    assert page.find("output", data_output="step_ms").text == "—"
    assert page.find("h1").text == "A collective stalls on one slow link"


def test_reference_without_calculator_has_no_panel(client: TestClient) -> None:
    response = client.get("/r/stuck-rank")
    assert context_of(response)["panel"] is None
    page = parse(response)
    assert not page.find_all("form", class_="calculator-form")
    assert not page.find_all("script", src="/static/calculator.js")


def test_alias_redirects_permanently(client: TestClient) -> None:
    response = client.get("/r/old-slow-collective", follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == "/r/slow-collective"


def test_unknown_reference_gets_a_helpful_404(client: TestClient) -> None:
    response = client.get("/r/nccl-timeout")
    assert response.status_code == 404
    assert template_of(response) == "not_found.html"
    page = parse(response)
    assert page.find("input", type="search").attrs["value"] == "nccl timeout"
    assert page.find("form", role="search").attrs["action"] == "/references"


# Browse


def test_browse_filters_by_tag_and_text(client: TestClient) -> None:
    response = client.get("/references", params={"tag": "hang"})
    assert response.status_code == 200
    assert template_of(response) == "browse.html"
    page = parse(response)
    assert "/r/stuck-rank" in page.hrefs()
    assert "/r/slow-collective" not in page.hrefs()
    assert "1 of 2 references" in page.find("h2", class_="count").text
    assert page.alternates() == ["/api/v1/references?tag=hang&limit=50"]
    assert parse(client.get("/references")).alternates() == ["/api/v1/references?limit=50"]
    assert page.find_all("nav", aria_label="Pages of references") == []
    empty = client.get("/references", params={"q": "zzzz"})
    assert "No reference passes these filters" in empty.text


def card_ids(page: Document) -> list[str]:
    """The ids of the references a list's cards link to, in order."""
    cards = page.find_all("li", class_="card")
    return [page.find("a", card).attrs["href"].removeprefix("/r/") for card in cards]


def test_browse_shows_a_page_at_a_time_and_links_the_next(long_client: TestClient) -> None:
    response = long_client.get("/references")
    assert response.status_code == 200
    page = parse(response)
    assert card_ids(page) == ["slow-collective"] + [f"numbered-{n:03d}" for n in range(49)]
    assert page.find("h2", class_="count").text == "132 of 132 references: 1–50 on page 1 of 3"
    nav = page.find("nav", aria_label="Pages of references")
    links = [
        (a.text, a.attrs["href"], a.attrs.get("aria-current")) for a in page.find_all("a", nav)
    ]
    assert links == [
        ("Page 1", "/references", "page"),
        ("Page 2", "/references?page=2", None),
        ("Page 3", "/references?page=3", None),
        ("Next page", "/references?page=2", None),
    ]
    assert page.find("a", nav, rel="next").attrs["href"] == "/references?page=2"
    assert page.alternates() == ["/api/v1/references?limit=50"]


def test_browse_pages_keep_the_filters(long_client: TestClient) -> None:
    response = long_client.get("/references", params={"category": "inference", "page": "2"})
    page = parse(response)
    assert card_ids(page) == [f"numbered-{n:03d}" for n in LONG_INFERENCE[50:]]
    assert page.find("h2", class_="count").text == "60 of 132 references: 51–60 on page 2 of 2"
    nav = page.find("nav", aria_label="Pages of references")
    links = [
        (a.text, a.attrs["href"], a.attrs.get("aria-current")) for a in page.find_all("a", nav)
    ]
    assert links == [
        ("Previous page", "/references?category=inference", None),
        ("Page 1", "/references?category=inference", None),
        ("Page 2", "/references?category=inference&page=2", "page"),
    ]
    assert page.find_all("a", nav, rel="next") == []
    assert page.alternates() == ["/api/v1/references?category=inference&limit=50&offset=50"]


@pytest.mark.parametrize(
    ("number", "status", "says"),
    [
        pytest.param("4", 404, "these references have no page 4", id="past-the-last"),
        pytest.param("0", 422, "page", id="zero"),
        pytest.param("many", 422, "page", id="not-a-number"),
    ],
)
def test_browse_has_no_page_past_the_last(
    long_client: TestClient, number: str, status: int, says: str
) -> None:
    response = long_client.get("/references", params={"page": number})
    assert response.status_code == status
    assert says in parse(response).find("main").text


# Calculators


def test_calculators_lists_each_with_the_references_using_it(client: TestClient) -> None:
    response = client.get("/calculators")
    assert response.status_code == 200
    assert template_of(response) == "calculators.html"
    assert context_of(response)["used_by"]["pipeline-bubble"][0].id == "slow-collective"  # type: ignore[index]
    page = parse(response)
    for name in CALCULATORS:
        assert f"/calculators/{name}" in page.hrefs()
    assert page.alternates() == ["/api/v1/calculators"]


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_each_calculator_page_runs_its_defaults(client: TestClient, name: str) -> None:
    response = client.get(f"/calculators/{name}")
    assert response.status_code == 200
    assert template_of(response) == "calculator.html"
    page = parse(response)
    assert page.alternates() == [f"/api/v1/calculators/{name}"]
    assert (
        page.find("form", class_="calculator-form").attrs["action"]
        == f"/calculators/{name}#calculator"
    )
    outputs = get_calculator(name).run({}).outputs
    calculator = CALCULATORS[name]
    for spec in calculator.inputs:
        assert page.find("label", for_=f"calc-{spec.name}")
    for spec in calculator.outputs:
        shown = page.find("output", data_output=spec.name).text
        value = outputs[spec.name]
        if spec.unit == "fraction":
            assert shown == format_number(float(value) * 100)  # type: ignore[arg-type]
        elif isinstance(value, float) and not isinstance(value, bool):
            assert shown == format_number(value)


def test_calculator_page_reports_bad_input(client: TestClient) -> None:
    response = client.get("/calculators/allreduce-slow-link", params={"algorithm": "tree"})
    assert response.status_code == 422
    page = parse(response)
    assert page.find("p", id="calc-algorithm-error").text.startswith(
        "must be one of: effective, ring"
    )
    assert "stale" in page.find("div", class_="outputs").attrs["class"]


def test_unknown_calculator_is_a_404_page(client: TestClient) -> None:
    response = client.get("/calculators/nope")
    assert response.status_code == 404
    assert template_of(response) == "error.html"
    assert "no calculator 'nope'" in parse(response).find("p", class_="error-message").text


# Every page


PAGES = [
    "/",
    "/?q=collective+stalls",
    "/references",
    "/r/slow-collective",
    "/r/stuck-rank",
    "/r/missing",
    "/calculators",
    "/calculators/kv-cache",
    "/nowhere",
]


@pytest.mark.parametrize("path", PAGES)
def test_pages_run_nothing_inline(client: TestClient, path: str) -> None:
    """The CSP allows no inline script or style: everything comes from /static."""
    response = client.get(path)
    page = parse(response)
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    for script in page.find_all("script"):
        assert script.attrs.get("src", "").startswith("/static/"), script
        assert not script.text.strip()
    assert not page.find_all("style")
    for element in page.elements:
        assert "style" not in element.attrs, element
        assert not [name for name in element.attrs if name.startswith("on")], element
    for stylesheet in page.find_all("link", rel="stylesheet"):
        assert stylesheet.attrs["href"].startswith("/static/")


def test_unknown_page_is_an_html_error_page(client: TestClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert template_of(response) == "error.html"


def test_a_term_with_no_confident_match_shows_its_lead_and_keeps_the_query(
    diagnosis_client: TestClient,
) -> None:
    response = diagnosis_client.post("/", data={"log": "gpu_memory_utilization"})
    page = parse(response)
    lead = page.find("section", class_="lead")
    assert "Possible:" in lead.text
    assert page.find("a", lead).attrs["href"] == "/r/fx-serving"
    assert page.find("input", id="no-match-q").attrs["value"] == "gpu_memory_utilization"
    body = diagnosis_client.post("/api/v1/match", json={"log": "gpu_memory_utilization"}).json()
    assert body["lead"]["id"] == "fx-serving"
    assert body["lead"]["url"] == "/r/fx-serving"
    assert body["lookups"][0]["why"] == "“gpu_memory_utilization” is named in its messages"


def test_a_log_of_warnings_alone_says_nothing_failed(diagnosis_client: TestClient) -> None:
    warning = "W0110 12:27:06 convert_frame.py:1551] torch._dynamo hit config.recompile_limit (8)"
    log = story_log(warning)
    page = parse(diagnosis_client.post("/", data={"log": log}))
    assert page.find("h1").text == "No failure in this log; some warnings match references"
    assert "a warning rarely ends a run" in page.find("p", class_="verdict").text
    assert page.find_all("li", class_="root") == []
