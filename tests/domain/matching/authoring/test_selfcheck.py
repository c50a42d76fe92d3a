"""Collision checks for authors: own messages rank their reference; no silent competition."""

from __future__ import annotations

from pathlib import Path

from paths import GOOD
from reference_helpers import made_message, made_reference

from failref.domain.matching.authoring.labelled import LabelledLine, read_labelled
from failref.domain.matching.authoring.selfcheck import (
    answers,
    index_with_edit,
    judge_lines,
    message_problems,
)
from failref.domain.matching.index.match_index import IndexCache, build_index
from failref.domain.matching.messages.match import match_text
from failref.domain.references.folder import read_folder

FIXTURES = GOOD


def test_distinct_messages_raise_no_problem() -> None:
    references = read_folder(FIXTURES).references
    assert message_problems(build_index(references), references) == []


def test_a_message_copied_into_another_reference_is_a_collision() -> None:
    references = read_folder(FIXTURES).references
    stuck, slow = sorted(references, key=lambda r: r.id != "stuck-rank")
    copied = stuck.model_copy(update={"messages": (*stuck.messages, slow.messages[0])})
    problems = message_problems(index_with_edit(references, copied), [copied])
    texts = [problem.message for problem in problems]
    assert any(
        "also matches slow-collective confidently" in t or "does not rank its own" in t
        for t in texts
    )
    assert all(problem.rule == "matcher" and problem.path == copied.path for problem in problems)


def test_labelled_lines_are_read_and_judged(tmp_path: Path) -> None:
    (tmp_path / "stuck-rank.yaml").write_text(
        "reference: stuck-rank\nlines:\n"
        "  - text: 'torch._dynamo hit config.recompile_limit (8)'\n    source: https://example.org/a\n"
    )
    (tmp_path / "unrelated.yaml").write_text(
        "reference: null\nlines:\n  - text: 'hello world'\n    source: https://example.org/b\n"
    )
    lines = read_labelled(tmp_path)
    assert lines == [
        LabelledLine(
            "torch._dynamo hit config.recompile_limit (8)",
            "stuck-rank",
            "https://example.org/a",
            "stuck-rank.yaml",
        ),
        LabelledLine("hello world", None, "https://example.org/b", "unrelated.yaml"),
    ]
    verdicts = judge_lines(build_index(read_folder(FIXTURES).references), lines)
    assert [(v.top, v.confident, v.right) for v in verdicts] == [
        ("stuck-rank", True, True),
        (verdicts[1].top, False, True),
    ]


def test_an_edit_indexed_from_a_cache_leaves_the_cache_as_it_was() -> None:
    references = read_folder(FIXTURES).references
    cache = IndexCache()
    build_index(references, cache)
    last, built = cache.last, cache.built
    copied = references[0].model_copy(update={"title": "Renamed in the editor"})
    assert index_with_edit(references, copied, cache) == index_with_edit(references, copied)
    assert (cache.last, cache.built) == (last, built)


def test_a_line_of_a_page_of_normal_lines_is_answered_by_being_recognised() -> None:
    message = made_message(
        "UserWarning: TypedStorage is deprecated. It will be removed in the future", "healthy"
    )
    catalogue = made_reference(id="harmless", kind="healthy", messages=[message])
    index = build_index([catalogue])
    line = "UserWarning: TypedStorage is deprecated. It will be removed in the future"
    assert answers(match_text(index, line), "harmless")
    assert not answers(match_text(index, "step 1 loss 2.3"), "harmless")


def test_a_page_of_normal_lines_leading_a_paste_of_warnings_answers_it() -> None:
    message = made_message("UserWarning: TypedStorage is deprecated", "healthy")
    catalogue = made_reference(id="harmless", kind="healthy", messages=[message])
    failure = made_reference(
        id="fsdp",
        messages=[made_message("ValueError: FSDP.state_dict_type() needs a wrapped module")],
    )
    index = build_index([catalogue, failure])
    warning = "<path>:690: FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated."
    result = match_text(index, warning)
    assert result.healthy_lines == []
    assert answers(result, "harmless")
    assert not answers(result, "fsdp")


def test_a_normal_line_of_a_cause_page_is_answered_by_being_recognised() -> None:
    notice = (
        "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P "
        "test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly."
    )
    crash = "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:368 'invalid resource handle'"
    cause = made_reference(
        id="allreduce", messages=[made_message(crash), made_message(notice, "healthy")]
    )
    index = build_index([cause])
    assert answers(match_text(index, notice), "allreduce")
    assert answers(match_text(index, crash), "allreduce")
    assert not answers(match_text(index, "step 1 loss 2.3"), "allreduce")
