"""Matching messages and logs end to end on small fixture references: the table in data/matcher_cases.yaml, then
the properties a table states badly (context, limits, caps, immutability, bad input)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml
from paths import DATA
from searches import count_searches

from failref.domain.matching import results
from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.judging.judge import CONFIDENT_THRESHOLD
from failref.domain.matching.logs import scan
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.messages.match import MAX_MATCH_LINES, match_text
from failref.domain.matching.reading.context import RunContext
from failref.domain.references.document import Reference
from failref.errors import LogTooLarge

CASES = yaml.safe_load((DATA / "matcher_cases.yaml").read_text("utf-8"))


def make_reference(fields: dict[str, Any]) -> Reference:
    """A valid Reference from the few fields the matcher reads."""
    messages = [
        {"text": text, "line": 10 + number, "seen_in_markdown": "", "seen_in_url": None}
        for number, text in enumerate(fields["messages"])
    ]
    return Reference.model_validate(
        {
            "category": "training",
            "updated": "2026-11-29",
            "context_markdown": "",
            "causes": [],
            "checks": [],
            "sources": [],
            "path": f"references/{fields['id']}.md",
            "content_hash": "0" * 64,
            **fields,
            "messages": messages,
        }
    )


REFERENCES = [make_reference(fields) for fields in CASES["references"]]


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(REFERENCES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES["match"]])
def test_match_case(index: MatchIndex, case: dict[str, Any]) -> None:
    context = RunContext(**case["context"]) if "context" in case else None
    result = match_text(index, case["text"], context)
    confident = [m.id for m in result.matches if m.confident]
    if case["top"] is None:
        assert confident == [], result.matches
    else:
        assert result.matches, "no match at all"
        best = result.matches[0]
        assert best.id == case["top"], [(m.id, m.score, m.reasons) for m in result.matches]
        assert best.confident is case.get("confident", True), (best.score, best.reasons)
    for ref_id in case.get("not_confident", []):
        assert ref_id not in confident
    assert case.get("inferred", {}).items() <= result.inferred_context.items()
    if "span_text" in case:
        start, end = result.matches[0].matched_span or (0, 0)
        assert case["text"][start:end] == case["span_text"]


def hit_view(hit: results.ScanHit, keys: set[str]) -> dict[str, Any]:
    return {key: getattr(hit, key) for key in keys}


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES["scan"]])
def test_scan_case(index: MatchIndex, case: dict[str, Any]) -> None:
    result = scan_log(index, case["log"])
    found = {hit.id: hit for hit in result.hits}
    for expected in case["hits"]:
        assert expected["id"] in found, [(h.id, h.score) for h in result.hits]
        assert hit_view(found[expected["id"]], set(expected)) == expected
    if not case["hits"]:
        assert [h.id for h in result.hits if h.confident] == []
    for ref_id in case.get("absent", []):
        assert ref_id not in found


def test_every_message_ranks_its_own_reference_first_and_confidently(index: MatchIndex) -> None:
    for reference in REFERENCES:
        for message in reference.messages:
            best = match_text(index, message.text).matches[0]
            assert best.confident
            assert best.score == 1.0
            if reference.id.endswith("-preemption"):
                continue  # the two preemption fixtures share a message on purpose
            assert best.id == reference.id


def test_context_lifts_and_lowers_but_never_matches_alone(index: MatchIndex) -> None:
    line = "Sequence group 7 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space."
    plain = {m.id: m.score for m in match_text(index, line).matches}
    for_sglang = {m.id: m for m in match_text(index, line, RunContext(framework="sglang")).matches}
    assert plain["vllm-preemption"] == plain["sglang-preemption"]
    assert for_sglang["sglang-preemption"].score >= plain["sglang-preemption"]
    assert for_sglang["vllm-preemption"].score < plain["vllm-preemption"]
    assert any("you said sglang, which" in r for r in for_sglang["sglang-preemption"].reasons)
    assert any("this belongs to vllm" in r for r in for_sglang["vllm-preemption"].reasons)
    everything = RunContext(
        framework="vllm",
        phase="inference",
        gpu="H100",
        gpus=8,
        model="llama-3",
        notes="kv cache preemption serving",
    )
    assert match_text(index, "the quick brown fox", everything).matches == []


def test_scores_are_bounded_and_ordered(index: MatchIndex) -> None:
    text = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8, reducing to 4"
    matches = match_text(index, text, RunContext(framework="deepspeed", phase="training")).matches
    scores = [m.score for m in matches]
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 for s in scores)
    assert all(m.confident == (m.score >= CONFIDENT_THRESHOLD) for m in matches)


def test_limit(index: MatchIndex) -> None:
    text = "Watchdog caught collective operation timeout CUDA out of memory OVERFLOW"
    assert len(match_text(index, text, limit=1).matches) <= 1
    assert match_text(index, text, limit=0).matches == []


def test_prefilter_agrees_with_exhaustive_scan(index: MatchIndex) -> None:
    for case in CASES["match"]:
        fast = [(m.id, m.score) for m in match_text(index, case["text"]).matches]
        slow = [(m.id, m.score) for m in match_text(index, case["text"], exhaustive=True).matches]
        assert fast == slow, case["id"]


def test_scan_caps_line_numbers(index: MatchIndex) -> None:
    line = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {n}, reducing to 1"
    log = "\n".join(line.format(n=n) if n % 2 else f"step {n}" for n in range(1, 101))
    hit = next(h for h in scan_log(index, log, line_cap=5).hits if h.id == "fp16-overflow")
    assert (hit.count, hit.first_line, hit.last_line) == (50, 1, 99)
    assert hit.line_numbers == [1, 3, 5, 7, 9]
    assert hit.example == line.format(n=1)


def test_scan_reports_the_fuzzy_cap(index: MatchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "FUZZY_TEMPLATE_CAP", 3)
    log = "\n".join(f"unique words {chr(97 + n % 26)}{n} here" for n in range(20))
    log += "\n[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1"
    result = scan_log(index, log)
    assert (result.templates, result.fuzzy_templates, result.fuzzy_cap) == (21, 3, 3)
    assert result.capped
    assert [h.id for h in result.hits] == ["fp16-overflow"]  # error-looking lines go first


def test_scan_counts_lines(index: MatchIndex) -> None:
    result = scan_log(index, "a 1\na 2\n\nb\n")
    assert (result.lines, result.templates, result.capped) == (4, 2, False)


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t\n"])
def test_empty_text_is_an_empty_result(index: MatchIndex, text: str) -> None:
    assert match_text(index, text).matches == []
    assert match_text(index, text).normalized == ""
    assert scan_log(index, text).hits == []
    assert scan_log(index, text).lines == 0


def test_too_many_lines(index: MatchIndex) -> None:
    with pytest.raises(LogTooLarge, match="over the 10-line limit"):
        scan_log(index, "x\n" * 11, max_lines=10)
    assert scan_log(index, "x\n" * 10, max_lines=10).lines == 10
    with pytest.raises(LogTooLarge, match="scan it as a log"):
        match_text(index, "x\n" * (MAX_MATCH_LINES + 1))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("x" * (1 << 20), id="one-1mb-line"),
        pytest.param(bytes(range(256)).decode("latin-1") * 4_000, id="binary-junk"),
        pytest.param("\x00" * 500_000, id="nul"),
        pytest.param("\n".join(str(n) for n in range(1_500)), id="numbers-only"),
        pytest.param("(((([[[[.*+?^$\\1{999999}|" * 20_000, id="regex-metacharacters"),
    ],
)
def test_bad_input_does_bounded_work(
    index: MatchIndex, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Junk gets no confident match, and costs at most the caps' fuzzy searches (how long
    those take is measured in bench/bench_matcher.py)."""
    searches = count_searches(monkeypatch)
    try:
        result = match_text(index, text)
    except LogTooLarge:
        pass
    else:
        assert [m for m in result.matches if m.confident] == []
    assert [h for h in scan_log(index, text).hits if h.confident] == []
    assert searches.within_caps(), searches


def test_index_is_immutable(index: MatchIndex) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        index.entry_keys = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        index.postings["nccl"] = frozenset()  # type: ignore[index]


def test_empty_index() -> None:
    empty = build_index([])
    assert match_text(empty, "Watchdog caught collective operation timeout").matches == []
    assert scan_log(empty, "Watchdog caught collective operation timeout").hits == []
