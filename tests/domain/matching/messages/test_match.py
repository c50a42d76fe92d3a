"""What a match says beyond its score: symptoms and their candidates, healthy lines set
aside, diagnostic lines read with their values, and the gates that remove confidence.

Run against the small references of tests/fixtures/diagnosis, so a content change in the
shipped references cannot move these answers."""

from __future__ import annotations

import re

import pytest
from paths import DIAGNOSIS

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.reading.context import RunContext
from failref.domain.matching.results import Match
from failref.domain.references.folder import read_folder

WATCHDOG = (
    "[rank3]:[E112 15:47:18.7 ProcessGroupNCCL.cpp:629] [Rank 3] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, Timeout(ms)=600000) ran for "
    "600045 milliseconds before timing out."
)
MISMATCH = (
    "[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running "
    "collective: CollectiveFingerPrint(OpType=ALLREDUCE)"
)
SOCKET = "node1:100:200 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>"
IB = "node1:100:200 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE"
NO_CACHE = (
    "ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine."
)


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(DIAGNOSIS).references)


def top(index: MatchIndex, text: str, context: RunContext | None = None) -> Match:
    matches = match_text(index, text, context).matches
    assert matches, "nothing matched"
    return matches[0]


def test_a_bare_symptom_names_the_symptom_and_ranks_its_candidates(index: MatchIndex) -> None:
    match = top(index, WATCHDOG)
    assert (match.id, match.kind, match.confident) == ("fx-timeout", "symptom", True)
    titles = [c.title for c in match.candidates]
    assert titles == ["A slow link", "Mismatched collectives", "A long checkpoint save"]
    assert match.candidates[0].id == "fx-slow-link"
    assert "nothing in the paste points to it" in match.candidates[0].reasons[0]
    named = {title for check in match.checks for title in check.confirms + check.rules_out}
    assert named >= {"A slow link", "Mismatched collectives"}, "checks for the top two"


def test_a_telling_neighbour_line_raises_its_candidate(index: MatchIndex) -> None:
    match = top(index, f"{MISMATCH}\n{WATCHDOG}")
    assert match.id == "fx-timeout"
    first = match.candidates[0]
    assert first.title == "Mismatched collectives"
    assert first.reasons == ["line 1 mentions “detected mismatch between collectives”"]
    assert any("Mismatched collectives" in c.confirms for c in match.checks)


def test_the_numbers_of_the_message_raise_the_candidate_they_fit(index: MatchIndex) -> None:
    slow = WATCHDOG.replace("ran for 600045", "ran for 1900000")
    match = top(index, slow)
    first = match.candidates[0]
    assert first.title == "A long checkpoint save"
    assert first.reasons == [
        "the message's numbers fit: ran_ms (1900000) > 2 * timeout_ms (600000)"
    ]


def test_the_line_of_a_linked_cause_raises_that_candidate(index: MatchIndex) -> None:
    match = top(index, f"{SOCKET}\n{WATCHDOG}")
    assert match.candidates[0].id == "fx-slow-link"
    assert "line 1 mentions “net/socket : using”" in match.candidates[0].reasons


def test_a_healthy_line_is_set_aside_and_matches_no_failure(index: MatchIndex) -> None:
    result = match_text(index, IB)
    assert [line.id for line in result.healthy_lines] == ["fx-slow-link"]
    assert result.matches == []


def test_a_healthy_line_next_to_a_failure_does_not_hide_it(index: MatchIndex) -> None:
    result = match_text(index, f"{IB}\n{NO_CACHE}")
    assert [line.id for line in result.healthy_lines] == ["fx-slow-link"]
    assert result.matches[0].id == "fx-serving"
    assert result.matches[0].confident


@pytest.mark.parametrize(
    ("line", "state", "confident"),
    [
        pytest.param("# Avg bus bandwidth    : 4.91", "failing", True, id="slow"),
        pytest.param("# Avg bus bandwidth    : 178.078 ", "healthy", False, id="fast"),
        pytest.param("# Avg bus bandwidth    : 40.2", "unknown", False, id="between"),
    ],
)
def test_a_diagnostic_line_is_read_with_its_values(
    index: MatchIndex, line: str, state: str, confident: bool
) -> None:
    match = top(index, line)
    assert (match.id, match.message_kind) == ("fx-slow-link", "diagnostic")
    assert match.verdict is not None
    assert match.verdict.state == state
    assert match.confident is confident
    assert match.verdict.rule == [f"busbw ({match.verdict.values['busbw']}) < 10"]


def test_a_contradicting_phase_removes_confidence_and_says_so(index: MatchIndex) -> None:
    assert top(index, NO_CACHE).confident
    match = top(index, NO_CACHE, RunContext(phase="training"))
    assert match.id == "fx-serving"
    assert not match.confident
    assert match.context_disagrees
    assert "context disagrees: you said training" in " ".join(match.reasons)


def test_a_phase_in_other_words_reads_as_its_phase(index: MatchIndex) -> None:
    for phase in ("serving", "deployment", "inference (load test)", "benchmark"):
        assert top(index, NO_CACHE, RunContext(phase=phase)).confident, phase
    assert top(index, NO_CACHE, RunContext(phase="startup (two nodes)")).confident


def test_another_engine_removes_confidence_of_an_engine_specific_failure(
    index: MatchIndex,
) -> None:
    match = top(index, NO_CACHE, RunContext(framework="DeepSpeed ZeRO-3"))
    assert not match.confident
    assert match.context_disagrees
    assert top(index, NO_CACHE, RunContext(framework="vLLM 0.8 (OpenAI server)")).confident


def test_a_library_every_job_uses_contradicts_nothing(index: MatchIndex) -> None:
    match = top(index, NO_CACHE, RunContext(framework="pytorch"))
    assert match.confident


def test_a_note_never_raises_a_reference_it_negates(index: MatchIndex) -> None:
    line = "W0110 12:27:06.332000 158 torch/_dynamo/convert_frame.py:1551] torch._dynamo hit config.recompile_limit (8)"
    plain = top(index, line)
    negated = top(index, line, RunContext(notes="we do not use torch.compile or dynamo"))
    assert negated.id == plain.id == "fx-recompiles"
    assert negated.score < plain.score
    assert any(reason.startswith("your notes rule out") for reason in negated.reasons)


def test_an_info_line_is_not_the_warning_it_resembles(index: MatchIndex) -> None:
    line = "I0110 12:27:06.332000 158 torch/_dynamo/convert_frame.py:1551] torch._dynamo hit config.recompile_limit (8)"
    match = top(index, line)
    assert match.id == "fx-recompiles"
    assert not match.confident
    assert "line 1 is logged at info, not as a failure" in match.reasons


def test_a_traceback_through_a_code_path_points_to_its_reference(index: MatchIndex) -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/_dynamo/output_graph.py", line 1400, in call_user_compiler\n'
        "RuntimeError: something nobody wrote a message for\n"
    )
    match = top(index, trace)
    assert match.id == "fx-recompiles"
    assert not match.confident
    assert "passes through torch/_dynamo/" in " ".join(match.reasons)


KERNEL_PAGES = {
    "fx-generic": (
        "A CUDA call got an invalid argument",
        "[]",
        "CUDA error: invalid argument",
    ),
    "fx-launch": (
        "A Triton kernel's launch is refused",
        "[]",
        "RuntimeError: Triton Error [CUDA]: invalid argument",
    ),
    "fx-kernel": (
        "The fused kernel's IPC set-up fails",
        "[fx_kernel.cuh]",
        "Failed: Cuda error <path>/fx_kernel.cuh:<n> 'invalid resource handle'",
    ),
}


def _kernel_page(ref_id: str, title: str, code_paths: str, message: str) -> str:
    return (
        f"---\nid: {ref_id}\ntitle: {title}\nsummary: {title}.\ncategory: inference\n"
        f"tags: [cuda]\nframeworks: [pytorch]\nphases: [inference]\ncode_paths: {code_paths}\n"
        "updated: 2026-12-07\n---\n\n## Message\n\n```text\n"
        f"{message}\n```\n\nSeen in [pytorch/pytorch#1](https://github.com/pytorch/pytorch/issues/1)."
        "\n\n## Context\n\nSeen at start-up.\n\n## Causes\n\n1. **A bad call.** It fails.\n\n"
        "## Evidence checks\n\n- Run it again: the same line **confirms** cause 1.\n\n## Sources\n\n"
        "- [pytorch/pytorch#1](https://github.com/pytorch/pytorch/issues/1) — the line.\n"
    )


@pytest.fixture(scope="module")
def kernel_index(tmp_path_factory: pytest.TempPathFactory) -> MatchIndex:
    folder = tmp_path_factory.mktemp("kernel")
    for ref_id, parts in KERNEL_PAGES.items():
        (folder / f"{ref_id}.md").write_text(_kernel_page(ref_id, *parts), encoding="utf-8")
    return build_index(read_folder(folder).references)


def test_the_file_that_printed_a_line_decides_between_confident_matches(
    kernel_index: MatchIndex,
) -> None:
    line = "Failed: Cuda error /workspace/csrc/fx_kernel.cuh:164 'invalid argument'"
    matches = match_text(kernel_index, line).matches
    assert [m.id for m in matches if m.confident] == ["fx-kernel", "fx-generic"]
    # The generic message is the closer one: only the file decides.
    assert matches[1].score > matches[0].score


def test_a_code_path_in_another_line_of_the_paste_decides_nothing(
    kernel_index: MatchIndex,
) -> None:
    paste = (
        '  File "/workspace/csrc/fx_kernel.cuh", line 164, in setup\nCUDA error: invalid argument'
    )
    assert top(kernel_index, paste).id == "fx-generic"


def test_reasons_are_words_not_internal_figures(index: MatchIndex) -> None:
    for text in (WATCHDOG, NO_CACHE, f"{MISMATCH}\n{WATCHDOG}"):
        for match in match_text(index, text).matches:
            for reason in match.reasons:
                assert not re.search(r"\d+%|token set|coverage", reason), reason


def test_a_scan_counts_healthy_lines_and_ranks_a_symptoms_candidates(index: MatchIndex) -> None:
    log = "\n".join(
        [IB] * 3 + [MISMATCH] + [WATCHDOG.replace("rank3", f"rank{r}") for r in range(4)]
    )
    result = scan_log(index, log)
    assert result.healthy_lines == 3
    hit = next(h for h in result.hits if h.id == "fx-timeout")
    assert (hit.kind, hit.count, hit.confident) == ("symptom", 4, True)
    assert hit.candidates[0].title == "Mismatched collectives"


def test_a_scan_reads_a_diagnostic_and_flags_it_only_when_failing(index: MatchIndex) -> None:
    healthy = scan_log(index, "start\n# Avg bus bandwidth    : 178.078\nend\n")
    (hit,) = [h for h in healthy.hits if h.id == "fx-slow-link"]
    assert hit.verdict is not None
    assert (hit.verdict.state, hit.confident) == ("healthy", False)
    failing = scan_log(index, "start\n# Avg bus bandwidth    : 3.5\nend\n")
    (hit,) = [h for h in failing.hits if h.id == "fx-slow-link"]
    assert (hit.verdict and hit.verdict.state, hit.confident) == ("failing", True)
