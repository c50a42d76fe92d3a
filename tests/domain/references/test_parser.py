"""The parser and validator: every rule has a fixture file that breaks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import FIXTURES

from failref.domain.references.folder import read_folder
from failref.domain.references.parser import HEALTHY_ONLY, parse_reference


def problems_of(name: str) -> list[str]:
    data = (FIXTURES / "broken" / name).read_bytes()
    _, problems = parse_reference(f"broken/{name}", data)
    return [str(problem) for problem in problems]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param(
            "Bad_Slug.md",
            "broken/Bad_Slug.md:2: front matter: id must be a slug of [a-z0-9] words joined by '-', "
            "not a Windows device name (con, nul, ...)",
            id="Bad_Slug",
        ),
        pytest.param(
            "bad-category.md",
            "broken/bad-category.md:5: front matter: category must be one of training, inference, fine-tuning, hardware",
            id="bad-category",
        ),
        pytest.param(
            "bad-phase.md",
            "broken/bad-phase.md:8: front matter: unknown 'warmup'; use training, inference, fine-tuning, startup, checkpointing, compilation, data-loading",
            id="bad-phase",
        ),
        pytest.param(
            "bad-updated.md",
            "broken/bad-updated.md:9: front matter: updated must be an ISO date like 2026-11-29",
            id="bad-updated",
        ),
        pytest.param(
            "bad-yaml.md",
            "broken/bad-yaml.md:7: front matter: invalid YAML: expected ',' or ']', but got ':'",
            id="bad-yaml",
        ),
        pytest.param(
            "calculator-bad-input.md",
            "broken/calculator-bad-input.md:9: calculator: input microbatches: must be at least 1",
            id="calculator-bad-input",
        ),
        pytest.param(
            "cause-no-bold.md",
            "broken/cause-no-bold.md:27: Causes: start the item with the cause in **bold**",
            id="cause-no-bold",
        ),
        pytest.param(
            "causes-bullet.md",
            "broken/causes-bullet.md:26: Causes: must hold only an ordered list (1. 2. 3.)",
            id="causes-bullet",
        ),
        pytest.param(
            "check-no-verdict.md",
            "broken/check-no-verdict.md:32: Evidence checks: say which cause it confirms or rules out",
            id="check-no-verdict",
        ),
        pytest.param(
            "duplicate-key.md",
            "broken/duplicate-key.md:6: front matter: duplicate key 'category' (first at line 5)",
            id="duplicate-key",
        ),
        pytest.param(
            "empty-message.md",
            "broken/empty-message.md:14: Message: empty message block",
            id="empty-message",
        ),
        pytest.param(
            "empty-section.md",
            "broken/empty-section.md:20: Context: the section is empty",
            id="empty-section",
        ),
        pytest.param(
            "h1-heading.md",
            "broken/h1-heading.md:12: sections: level-1 headings are not allowed; use '## Section'",
            id="h1-heading",
        ),
        pytest.param(
            "id-mismatch.md",
            "broken/id-mismatch.md:2: front matter: id 'another-id' differs from file name 'id-mismatch'",
            id="id-mismatch",
        ),
        pytest.param(
            "invalid-utf8.md",
            "broken/invalid-utf8.md:27: encoding: the file is not valid UTF-8",
            id="invalid-utf8",
        ),
        pytest.param(
            "message-no-seen-in.md",
            "broken/message-no-seen-in.md:14: Message: the block needs a 'Seen in [where](url)' line",
            id="message-no-seen-in",
        ),
        pytest.param(
            "message-prose.md",
            "broken/message-prose.md:20: Message: only code blocks and 'Seen in' lines go here",
            id="message-prose",
        ),
        pytest.param(
            "misordered-sections.md",
            "broken/misordered-sections.md:12: sections: sections must come in this order: Message, Context, Causes, Evidence checks, Sources",
            id="misordered-sections",
        ),
        pytest.param(
            "missing-section.md",
            "broken/missing-section.md:1: sections: missing section 'Sources'",
            id="missing-section",
        ),
        pytest.param(
            "missing-title.md",
            "broken/missing-title.md:1: front matter: missing required key 'title'",
            id="missing-title",
        ),
        pytest.param(
            "no-front-matter.md",
            "broken/no-front-matter.md:1: front matter: the file must start with a '---' line opening the front matter",
            id="no-front-matter",
        ),
        pytest.param(
            "seen-in-no-link.md",
            "broken/seen-in-no-link.md:18: Message: 'Seen in' line has no link",
            id="seen-in-no-link",
        ),
        pytest.param(
            "self-alias.md",
            "broken/self-alias.md:10: front matter: aliases: a reference cannot alias itself",
            id="self-alias",
        ),
        pytest.param(
            "source-empty-url.md",
            "broken/source-empty-url.md:36: Sources: link has no URL",
            id="source-empty-url",
        ),
        pytest.param(
            "source-javascript.md",
            "broken/source-javascript.md:36: Sources: link must be a public http(s) URL, not 'JavaScript:alert(1'",
            id="source-javascript",
        ),
        pytest.param(
            "source-no-link.md",
            "broken/source-no-link.md:36: Sources: item has no [title](url) link",
            id="source-no-link",
        ),
        pytest.param(
            "source-no-supports.md",
            "broken/source-no-supports.md:36: Sources: say what the source supports after the link",
            id="source-no-supports",
        ),
        pytest.param(
            "source-non-http.md",
            "broken/source-non-http.md:36: Sources: link must be a public http(s) URL, not 'ftp://github.com/benfred/py-spy'",
            id="source-non-http",
        ),
        pytest.param(
            "summary-no-period.md",
            "broken/summary-no-period.md:4: front matter: summary must be one sentence ending with a full stop",
            id="summary-no-period",
        ),
        pytest.param(
            "text-before-sections.md",
            "broken/text-before-sections.md:12: sections: text before the first '## Message' section",
            id="text-before-sections",
        ),
        pytest.param(
            "unexpected-section.md",
            "broken/unexpected-section.md:24: sections: unexpected section 'Workarounds'",
            id="unexpected-section",
        ),
        pytest.param(
            "unknown-calculator.md",
            "broken/unknown-calculator.md:9: calculator: unknown calculator 'warp-drive'",
            id="unknown-calculator",
        ),
        pytest.param(
            "unknown-key.md",
            "broken/unknown-key.md:10: front matter: unknown key 'severity'",
            id="unknown-key",
        ),
        pytest.param(
            "unterminated-front-matter.md",
            "broken/unterminated-front-matter.md:1: front matter: the front matter opened here is never closed with a '---' line",
            id="unterminated-front-matter",
        ),
        pytest.param(
            "uppercase-tag.md",
            "broken/uppercase-tag.md:6: front matter: tags must be lowercase",
            id="uppercase-tag",
        ),
        pytest.param(
            "worked-example-without-calculator.md",
            "broken/worked-example-without-calculator.md:34: sections: unexpected section 'Worked example' without a calculator",
            id="worked-example-without-calculator",
        ),
        pytest.param(
            "yaml-alias.md",
            "broken/yaml-alias.md:7: front matter: YAML aliases (*name) are not allowed",
            id="yaml-alias",
        ),
        pytest.param(
            "bad-kind.md",
            "broken/bad-kind.md:5: front matter: kind must be one of cause, symptom, healthy",
            id="bad-kind",
        ),
        pytest.param(
            "bad-code-path.md",
            "broken/bad-code-path.md:9: front matter: code_paths: 'torch/*.py' is not a path of whole segments like torch/_dynamo/",
            id="bad-code-path",
        ),
        pytest.param(
            "unknown-block-kind.md",
            "broken/unknown-block-kind.md:14: Message: unknown block kind in 'text noisy'; use text, text warning, text diagnostic or text healthy",
            id="unknown-block-kind",
        ),
        pytest.param(
            "diagnostic-no-rule.md",
            "broken/diagnostic-no-rule.md:14: Message: a diagnostic block needs a 'Failing when `value < 1`.' line after 'Seen in'",
            id="diagnostic-no-rule",
        ),
        pytest.param(
            "rule-unknown-value.md",
            "broken/rule-unknown-value.md:20: Message: unknown value 'speed'; the message names concurrency",
            id="rule-unknown-value",
        ),
        pytest.param(
            "rule-no-comparison.md",
            "broken/rule-no-comparison.md:20: Message: 'concurrency' has no comparison (<=, >=, ==, !=, <, >)",
            id="rule-no-comparison",
        ),
        pytest.param(
            "value-no-prefix.md",
            "broken/value-no-prefix.md:14: Message: value 'limit' needs literal text just before it on its line",
            id="value-no-prefix",
        ),
        pytest.param(
            "failing-when-misplaced.md",
            "broken/failing-when-misplaced.md:20: Message: 'Failing when' belongs after the 'Seen in' line of a diagnostic block",
            id="failing-when-misplaced",
        ),
        pytest.param(
            "judged-across-misplaced.md",
            "broken/judged-across-misplaced.md:20: Message: 'Judged only across lines:' belongs after the 'Seen in' line of a diagnostic or warning block",
            id="judged-across-misplaced",
        ),
        pytest.param(
            "healthy-when-misplaced.md",
            "broken/healthy-when-misplaced.md:20: Message: 'Healthy when' belongs right after a 'Failing when' line",
            id="healthy-when-misplaced",
        ),
        pytest.param(
            "check-names-missing-cause.md",
            "broken/check-names-missing-cause.md:32: Evidence checks: names cause 5, but 3 are listed",
            id="check-names-missing-cause",
        ),
        pytest.param(
            "symptom-with-causes.md",
            "broken/symptom-with-causes.md:25: sections: unexpected section 'Causes' in a symptom: list them under 'Candidate causes'",
            id="symptom-with-causes",
        ),
        pytest.param(
            "cause-with-candidates.md",
            "broken/cause-with-candidates.md:24: sections: unexpected section 'Candidate causes' in a cause (kind: symptom has candidate causes)",
            id="cause-with-candidates",
        ),
        pytest.param(
            "symptom-check-no-number.md",
            "broken/symptom-check-no-number.md:33: Evidence checks: say which candidate it confirms or rules out by number ('confirms candidate 2')",
            id="symptom-check-no-number",
        ),
        pytest.param(
            "candidate-bad-phase.md",
            "broken/candidate-bad-phase.md:28: Candidate causes: 'Phases:' takes training, inference, fine-tuning, startup, checkpointing, compilation, data-loading",
            id="candidate-bad-phase",
        ),
        pytest.param(
            "candidate-lines-no-code.md",
            "broken/candidate-lines-no-code.md:28: Candidate causes: 'Lines:' needs snippets in `backticks`",
            id="candidate-lines-no-code",
        ),
        pytest.param(
            "symptom-lists-symptoms.md",
            "broken/symptom-lists-symptoms.md:10: front matter: symptoms: only a cause lists symptoms",
            id="symptom-lists-symptoms",
        ),
    ],
)
def test_each_broken_rule_is_reported_with_file_line_and_rule(name: str, expected: str) -> None:
    assert expected in problems_of(name)


def test_every_broken_fixture_is_covered_by_a_case() -> None:
    broken = {path.name for path in (FIXTURES / "broken").glob("*.md")}
    contents = read_folder(FIXTURES / "broken")
    assert {problem.path.removeprefix("broken/") for problem in contents.problems} == broken


def test_a_broken_file_yields_no_reference() -> None:
    data = (FIXTURES / "broken" / "bad-yaml.md").read_bytes()
    reference, problems = parse_reference("broken/bad-yaml.md", data)
    assert reference is None
    assert problems


def test_dead_link_is_a_warning_and_the_file_still_loads() -> None:
    contents = read_folder(FIXTURES / "broken")
    assert [r.id for r in contents.references] == ["dead-link"]
    (warning,) = [p for p in contents.problems if p.path.endswith("dead-link.md")]
    assert warning.severity == "warning"
    assert (
        str(warning)
        == "broken/dead-link.md:1: links: link to unknown reference 'no-such-reference'"
    )


def test_good_file_parses_into_structured_fields() -> None:
    data = (FIXTURES / "good" / "slow-collective.md").read_bytes()
    reference, problems = parse_reference("good/slow-collective.md", data)
    assert problems == []
    assert reference is not None
    assert reference.id == "slow-collective"
    assert reference.aliases == ("old-slow-collective",)
    assert next(m.text for m in reference.messages).startswith("NCCL WARN Net")
    assert reference.messages[1].seen_in_url == "https://github.com/pytorch/pytorch/issues/2"
    assert [c.title for c in reference.causes] == ["A degraded link", "A congested switch"]
    assert reference.checks[0].commands == ("all_reduce_perf -b 8 -e 8G -f 2 -g 8",)
    assert reference.sources[0].supports_markdown == "the bus bandwidth convention."
    assert reference.calculator is not None
    assert reference.calculator.inputs == {"stage_ms": [200, 200, 400, 200], "microbatches": 8}
    assert reference.related == ("stuck-rank",)
    assert 'href="/r/stuck-rank"' in reference.context_html
    assert reference.worked_example_markdown.startswith("Four stages")


def test_windows_line_endings_parse_like_unix_ones() -> None:
    data = (FIXTURES / "good" / "stuck-rank.md").read_bytes()
    unix, _ = parse_reference("good/stuck-rank.md", data)
    windows, problems = parse_reference("good/stuck-rank.md", data.replace(b"\n", b"\r\n"))
    assert problems == []
    assert windows is not None
    assert unix is not None
    assert windows.model_dump(exclude={"content_hash"}) == unix.model_dump(exclude={"content_hash"})


def test_duplicate_ids_across_files_keep_the_first_and_report_the_second(tmp_path: Path) -> None:
    good = (FIXTURES / "good" / "stuck-rank.md").read_text()
    (tmp_path / "stuck-rank.md").write_text(good)
    (tmp_path / "other.md").write_text(
        good.replace("id: stuck-rank", "id: other").replace(
            "updated: 2026-10-01", "updated: 2026-10-01\naliases: [stuck-rank]"
        )
    )
    contents = read_folder(tmp_path)
    assert [r.id for r in contents.references] == ["other"]
    errors = [str(p) for p in contents.problems if p.severity == "error"]
    assert errors == [
        f"{tmp_path.name}/stuck-rank.md:1: front matter: "
        f"duplicate id 'stuck-rank', already used by {tmp_path.name}/other.md"
    ]


def test_oversized_file_is_refused_before_parsing(tmp_path: Path) -> None:
    (tmp_path / "huge.md").write_bytes(b"x" * (256 * 1024 + 1))
    contents = read_folder(tmp_path)
    assert contents.references == []
    assert "is over the 262144 limit" in str(contents.problems[0])


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "refs"
    folder.mkdir()
    outside = tmp_path / "secret.md"
    outside.write_text((FIXTURES / "good" / "stuck-rank.md").read_text())
    (folder / "stuck-rank.md").symlink_to(outside)
    contents = read_folder(folder)
    assert contents.references == []
    assert "symbolic link pointing outside the folder" in str(contents.problems[0])


def test_source_title_with_parentheses_keeps_what_it_supports() -> None:
    data = (
        (FIXTURES / "good" / "stuck-rank.md")
        .read_bytes()
        .replace(
            b"[py-spy](https://github.com/benfred/py-spy)",
            b"[py-spy (the [sampling] profiler)](https://github.com/benfred/py-spy)",
        )
    )
    reference, problems = parse_reference("good/stuck-rank.md", data)
    assert problems == []
    assert reference is not None
    assert reference.sources[0].title.startswith("py-spy (the")
    assert reference.sources[0].supports_markdown == "`dump` prints every thread's stack."


def test_a_source_url_the_parser_percent_encodes_keeps_what_it_supports() -> None:
    """Issue 13, item 15: `Ü` in a URL reaches the link token as `%C3%9C`."""
    text = (FIXTURES / "good" / "stuck-rank.md").read_text()
    text = text.replace(
        "- [py-spy](https://github.com/benfred/py-spy)",
        "- [Überlauf](https://de.wikipedia.org/wiki/Überlauf_(Informatik))",
    )
    reference, problems = parse_reference("references/stuck-rank.md", text.encode())
    assert [str(problem) for problem in problems] == []
    assert reference is not None
    source = reference.sources[0]
    assert source.url == "https://de.wikipedia.org/wiki/%C3%9Cberlauf_(Informatik)"
    assert source.supports_markdown.startswith("`dump` prints every thread's stack.")


def test_each_result_a_check_names_is_kept_as_data_in_order() -> None:
    symptom = next(
        r for r in read_folder(FIXTURES / "diagnosis").references if r.id == "fx-timeout"
    )
    outcomes = [[(o.verdict, o.causes) for o in check.outcomes] for check in symptom.checks]
    assert outcomes == [
        [("rules_out", (2,)), ("confirms", (2,))],
        [("confirms", (1,)), ("rules_out", (3,))],
        [("confirms", (3,))],
    ]
    assert [(c.confirms, c.rules_out) for c in symptom.checks] == [
        ((2,), (2,)),
        ((1,), (3,)),
        ((3,), ()),
    ]


def test_a_page_of_normal_lines_holds_only_healthy_blocks() -> None:
    text = (FIXTURES / "good" / "slow-collective.md").read_text(encoding="utf-8")
    healthy = text.replace("kind: cause\n", "").replace("title:", "kind: healthy\ntitle:", 1)
    reference, problems = parse_reference("slow-collective.md", healthy.encode())
    assert reference is None
    assert any(HEALTHY_ONLY in str(problem) for problem in problems)


def test_a_warning_may_say_what_one_line_cannot_judge() -> None:
    text = (FIXTURES / "broken" / "failing-when-misplaced.md").read_text(encoding="utf-8")
    warned = text.replace("```text\n", "```text warning\n", 1).replace(
        "Failing when `limit > 8`.", "Judged only across lines: compare `limit` across ranks."
    )
    reference, problems = parse_reference("failing-when-misplaced.md", warned.encode())
    assert [p for p in problems if p.severity == "error"] == []
    assert reference is not None
    assert reference.messages[0].judged_across == "compare limit across ranks."
