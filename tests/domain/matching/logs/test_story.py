"""The story of a whole log: roots, what follows from them, ranks, unrecognised lines and
what was skipped. Run against the small references of tests/fixtures/diagnosis, where
fx-timeout is a waiting symptom (tagged `timeout`) listing fx-slow-link as a cause."""

from __future__ import annotations

import dataclasses

import pytest
from paths import DIAGNOSIS
from reference_helpers import made_message, made_reference

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.judging.unmatched import Unmatched
from failref.domain.matching.logs.ranks import attribute, log_ranks, read_labels
from failref.domain.matching.logs.scan import WARNING_REASON, scan_log
from failref.domain.matching.logs.story import diagnose
from failref.domain.matching.messages.match import match_text
from failref.domain.matching.reading.context import RunContext
from failref.domain.matching.results import ScanHit
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder

SLOW_LINK = (
    "node1:100:200 [0] NCCL WARN NET/Socket : peer 10.0.0.2<45678> message truncated : "
    "receiving 1048576 bytes instead of 65536"
)
NO_CACHE = (
    "ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine."
)
START = "step {n} loss 2.3 lr 3e-4"


def watchdog(rank: int) -> str:
    return (
        f"[rank{rank}]:[E112 15:47:18.7 ProcessGroupNCCL.cpp:629] [Rank {rank}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, "
        "Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
    )


def log_of(*lines: str) -> str:
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(DIAGNOSIS).references)


def test_a_cause_printed_before_its_symptom_is_the_root(index: MatchIndex) -> None:
    log = log_of(START.format(n=1), SLOW_LINK, *(watchdog(r) for r in range(4)))
    (root,) = scan_log(index, log).diagnosis.roots
    assert (root.id, root.line, root.kind) == ("fx-slow-link", 2, "cause")
    (consequence,) = root.consequences
    assert (consequence.id, consequence.first_line, consequence.last_line) == ("fx-timeout", 3, 6)
    assert (consequence.count, consequence.ranks) == (4, [0, 1, 2, 3])
    assert "lists this root as a cause" in consequence.why
    assert root.reasons[0] == "explains 4 later lines"
    assert [line.number for line in root.context] == [1, 2, 3, 4, 5]


def test_a_cause_printed_after_the_symptom_does_not_explain_it(index: MatchIndex) -> None:
    log = log_of(watchdog(0), watchdog(1), SLOW_LINK)
    roots = scan_log(index, log).diagnosis.roots
    assert [(root.id, root.line) for root in roots] == [("fx-timeout", 1), ("fx-slow-link", 3)]
    assert roots[0].candidates[0].id == "fx-slow-link"


def test_a_failure_on_the_rank_the_others_wait_for_is_their_root(index: MatchIndex) -> None:
    log = log_of(f"[rank3]: {NO_CACHE}", *(watchdog(r) for r in range(3)))
    (root,) = scan_log(index, log).diagnosis.roots
    assert (root.id, root.ranks) == ("fx-serving", [3])
    (consequence,) = root.consequences
    assert consequence.ranks == [0, 1, 2]
    assert "rank 3, which the waiting ranks wait for" in consequence.why


def test_a_timeout_alone_is_a_symptom_root_naming_the_silent_rank(index: MatchIndex) -> None:
    log = log_of(*(START.format(n=n) for n in range(3)), "[rank3]: " + START.format(n=3))
    log += log_of(*(watchdog(r) for r in range(3)))
    diagnosis = scan_log(index, log).diagnosis
    (root,) = diagnosis.roots
    assert (root.id, root.kind, root.ranks, root.silent_ranks) == (
        "fx-timeout",
        "symptom",
        [0, 1, 2],
        [3],
    )
    assert any("rank 3 did not print it" in reason for reason in root.reasons)
    assert root.candidates
    assert root.checks
    assert (diagnosis.ranks, diagnosis.all_ranks) == ([0, 1, 2, 3], True)


def test_unrelated_failures_are_separate_roots_failures_before_warnings(
    index: MatchIndex,
) -> None:
    warned = (
        "W1102 10:00:00.123 4242 torch/_dynamo/convert_frame.py:844] "
        "torch._dynamo hit config.recompile_limit (8)"
    )
    log = log_of(warned, "heartbeat 1", NO_CACHE)
    roots = scan_log(index, log).diagnosis.roots
    assert [(root.id, root.line) for root in roots] == [("fx-serving", 3), ("fx-recompiles", 1)]


def test_two_symptoms_sharing_a_cause_chain_to_the_earlier(index: MatchIndex) -> None:
    # fx-serving stands in for a symptom that shares fx-slow-link with fx-timeout.
    shared = dict(index.symptom_causes, **{"fx-serving": frozenset({"fx-slow-link"})})
    reference = next(r for r in index.references if r.id == "fx-serving")
    as_symptom = dataclasses.replace(
        index,
        symptom_causes=shared,
        references=tuple(
            r.model_copy(update={"kind": "symptom"}) if r is reference else r
            for r in index.references
        ),
    )
    log = log_of(NO_CACHE, watchdog(0))
    (root,) = scan_log(as_symptom, log).diagnosis.roots
    assert root.id == "fx-serving"
    assert root.consequences[0].why == "the root came first, and the two share causes"


def test_error_looking_lines_nothing_matched_are_listed(index: MatchIndex) -> None:
    log = log_of(
        watchdog(0),
        "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0.",
        "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1.",
        START.format(n=2),
    )
    diagnosis = scan_log(index, log).diagnosis
    (line,) = diagnosis.unrecognised
    assert (line.line, line.count, line.line_numbers) == (2, 2, [2, 3])
    assert diagnosis.unrecognised_lines == 2


@pytest.mark.parametrize(
    ("lines", "verdict"),
    [
        pytest.param((SLOW_LINK, watchdog(0)), "failure", id="a-root"),
        pytest.param(
            (START.format(n=1), "Traceback (most recent call last):", "KeyError: 'lr'"),
            "uncovered-failure",
            id="an-error-nothing-covers-is-where-it-went-wrong",
        ),
        pytest.param(
            (START.format(n=1), START.format(n=2), "checkpoint saved to /ckpt/step_2"),
            "quiet",
            id="training-output",
        ),
        pytest.param(
            (START.format(n=1), "a retry failed, trying the next mirror"),
            "unrecognised",
            id="an-error-looking-line-that-states-no-failure",
        ),
        pytest.param(("",), "quiet", id="empty"),
    ],
)
def test_the_log_in_one_word(index: MatchIndex, lines: tuple[str, ...], verdict: str) -> None:
    assert scan_log(index, log_of(*lines)).diagnosis.verdict == verdict


def test_a_resemblance_the_user_rules_out_is_a_lead(index: MatchIndex) -> None:
    log = log_of(START.format(n=1), "ERROR: cache blocks memory not available for the engine")
    assert scan_log(index, log, RunContext(phase="pre-training")).diagnosis.verdict == "leads"
    # the training words of the text are a guess: they lift, never take confidence away
    assert scan_log(index, log).diagnosis.verdict == "failure"


@pytest.mark.parametrize(
    ("log", "note"),
    [
        pytest.param("\n\n   \n", "no line with text", id="blank"),
        pytest.param("x" * 1_000_000, "longer than 2,000 characters", id="a-1-MB-line"),
        pytest.param("a\x00b\nc\x00\n", "NUL bytes: 2", id="nul"),
        pytest.param("\x1b[31mred\x1b[0m\n", "Terminal escape sequences: 2", id="ansi"),
        pytest.param("caf\ufffd\n", "not valid UTF-8", id="encoding"),
    ],
)
def test_what_was_skipped_is_said(index: MatchIndex, log: str, note: str) -> None:
    diagnosis = scan_log(index, log).diagnosis
    assert diagnosis.roots == []
    assert any(note in text for text in diagnosis.notes), diagnosis.notes


def test_a_million_identical_lines_are_one_template(index: MatchIndex) -> None:
    result = scan_log(index, watchdog(0) + "\n" + "same line\n" * 1_000_000, max_lines=2_000_000)
    assert result.templates == 2
    (root,) = result.diagnosis.roots
    assert root.id == "fx-timeout"


def hit(reference_id: str, score: float, lines: list[int]) -> ScanHit:
    return ScanHit(
        id=reference_id,
        title=reference_id,
        score=score,
        confident=True,
        count=len(lines),
        first_line=lines[0],
        last_line=lines[-1],
        line_numbers=lines,
        example="",
        matched_message="",
        reasons=[],
    )


# A log with no ranks, no unmatched lines, no line stating a failure apart from the hits.
NOTHING_ELSE = (
    log_ranks(read_labels("")),
    Unmatched(),
    [],
    lambda numbers: attribute(read_labels(""), numbers),
    [],
)


def test_a_line_is_one_failure_the_best_match_of_it(index: MatchIndex) -> None:
    lines = ["step 1", "RuntimeError: CUDA error: an illegal memory access", "step 2"]
    both = [hit("fx-serving", 0.95, [2]), hit("fx-recompiles", 0.80, [2])]
    story = diagnose(index, both, lines, *NOTHING_ELSE)
    assert [root.id for root in story.roots] == ["fx-serving"]
    apart = [hit("fx-serving", 0.95, [2]), hit("fx-recompiles", 0.80, [2, 3])]
    story = diagnose(index, apart, lines, *NOTHING_ELSE)
    assert [root.id for root in story.roots] == ["fx-serving", "fx-recompiles"]


def test_the_first_error_no_page_covers_is_the_root_and_the_waits_after_it_fold(
    index: MatchIndex,
) -> None:
    log = log_of(
        START.format(n=1),
        "[rank2]: Traceback (most recent call last):",
        '[rank2]:   File "model.py", line 9, in build',
        "[rank2]: TypeError: __init__() got an unexpected keyword argument 'rope'",
        *(watchdog(r) for r in range(2)),
    )
    diagnosis = scan_log(index, log).diagnosis
    assert diagnosis.verdict == "uncovered-failure"
    root = diagnosis.roots[0]
    assert (root.id, root.kind, root.line, root.ranks) == (None, None, 4, [2])
    assert root.text == "[rank2]: TypeError: __init__() got an unexpected keyword argument 'rope'"
    assert root.reasons[0] == "the first line of the log that states a failure"
    (wait,) = root.consequences
    assert (wait.id, wait.first_line) == ("fx-timeout", 5)
    assert "after the first error, at line 4" in wait.why
    assert [u.line for u in diagnosis.unrecognised] == [4]  # the error, not its header


def test_a_covered_failure_right_after_the_first_error_is_the_same_event(
    index: MatchIndex,
) -> None:
    log = log_of(
        START.format(n=1),
        "RuntimeError: engine start failed: out of memory for the KV cache",
        NO_CACHE,
    )
    (root,) = scan_log(index, log).diagnosis.roots
    assert (root.id, root.line) == ("fx-serving", 2)
    assert root.line_numbers[:2] == [2, 3]
    assert root.reasons[0] == "line 2 states it first"


def test_a_covered_failure_first_stays_the_root(index: MatchIndex) -> None:
    log = log_of(START.format(n=1), NO_CACHE, "KeyError: 'lr'")
    diagnosis = scan_log(index, log).diagnosis
    assert [root.id for root in diagnosis.roots] == ["fx-serving"]
    assert diagnosis.verdict == "failure"


def test_wrappers_fold_under_the_root_and_are_never_it(index: MatchIndex) -> None:
    log = log_of(
        NO_CACHE,
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
    )
    (root,) = scan_log(index, log).diagnosis.roots
    assert root.id == "fx-serving"
    (teardown,) = root.consequences
    assert (teardown.id, teardown.first_line, teardown.count) == (None, 2, 3)
    assert teardown.title == "Teardown and wrapper lines"


def test_a_hit_on_a_wrapper_page_folds_under_the_first_error() -> None:
    references = list(read_folder(DIAGNOSIS).references)
    wrapped = wrapper_reference()
    index = build_index([*references, wrapped])
    log = log_of("KeyError: 'lr'", "the launcher saw rank 3 exit with code 1 and stopped")
    diagnosis = scan_log(index, log).diagnosis
    assert [root.id for root in diagnosis.roots] == [None]
    (folded,) = diagnosis.roots[0].consequences
    assert folded.id == "fx-launcher"
    assert "wrapper" in folded.why
    alone = scan_log(index, log_of("the launcher saw rank 3 exit with code 1 and stopped"))
    assert [root.id for root in alone.diagnosis.roots] == ["fx-launcher"]


def wrapper_reference() -> Reference:
    """A page about a launcher's line on top of the real error, tagged `wrapper`."""
    message = made_message("the launcher saw rank <n> exit with code <n> and stopped")
    return made_reference(
        id="fx-launcher",
        title="A launcher stopped the job",
        tags=["wrapper"],
        messages=[message],
        path="references/fx-launcher.md",
    )


def test_an_exception_line_is_its_own_event_not_the_next_tracebacks_announcement(
    index: MatchIndex,
) -> None:
    log = log_of(
        START.format(n=1),
        "[rank0]: ValueError: DeepSpeed is not compatible with `device_map`.",
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "train.py", line 3, in <module>',
        "[rank1]: RuntimeError: the store was closed",
    )
    root = scan_log(index, log).diagnosis.roots[0]
    assert (root.id, root.line, root.line_numbers) == (None, 2, [2])


def test_a_message_announcing_a_traceback_is_one_event_with_its_exception(
    index: MatchIndex,
) -> None:
    log = log_of(
        START.format(n=1),
        "ERROR worker.py:233] Exception in worker Proc while processing method init: "
        "Cannot re-initialize CUDA in forked subprocess.",
        "ERROR worker.py:233] Traceback (most recent call last):",
        'ERROR worker.py:233]   File "w.py", line 3, in init',
        "ERROR worker.py:233] RuntimeError: Cannot re-initialize CUDA in forked subprocess.",
    )
    root = scan_log(index, log).diagnosis.roots[0]
    assert (root.id, root.line, root.line_numbers) == (None, 2, [2, 5])
    assert root.text is not None
    assert root.text.endswith("RuntimeError: Cannot re-initialize CUDA in forked subprocess.")


def test_a_warning_before_it_does_not_hide_the_first_failure(index: MatchIndex) -> None:
    recompile = "torch._dynamo hit config.recompile_limit (8)"
    log = log_of(
        START.format(n=1), f"W0110 12:27:06 convert_frame.py:1551] {recompile}", "KeyError: 'lr'"
    )
    roots = scan_log(index, log).diagnosis.roots
    assert roots[0].id is None
    assert roots[0].line == 3


def test_a_line_logged_at_info_never_raises_a_candidate(index: MatchIndex) -> None:
    truncated = SLOW_LINK.split("NCCL WARN ", 1)[1]
    for level, counts in (("NCCL WARN", True), ("NCCL INFO", False)):
        paste = log_of(f"node1:100:200 [0] {level} {truncated}", watchdog(0))
        symptom = next(m for m in match_text(index, paste).matches if m.id == "fx-timeout")
        slow = next(c for c in symptom.candidates if c.id == "fx-slow-link")
        assert ("line 1 looks like this cause's own message" in slow.reasons) is counts, level


def test_a_log_whose_only_matches_are_warnings_has_no_root(index: MatchIndex) -> None:
    recompile = "W0110 12:27:06 convert_frame.py:1551] torch._dynamo hit config.recompile_limit (8)"
    diagnosis = scan_log(index, log_of(START.format(n=1), recompile, START.format(n=2))).diagnosis
    assert (diagnosis.verdict, diagnosis.roots) == ("warnings", [])


def test_a_warning_block_is_listed_and_never_a_failure_of_the_log() -> None:
    notice = "Using default MoE config. Performance might be sub-optimal! Config file not found at <path>"
    page = made_reference(id="untuned", messages=[made_message(notice, "warning")])
    index = build_index([page])
    line = (
        "[2025-03-07 09:25:24 TP3] Using default MoE config. Performance might be sub-optimal! "
        "Config file not found at /x/configs/E=256,N=256,device_name=NVIDIA_H800.json"
    )
    result = scan_log(index, log_of(START.format(n=1), line, START.format(n=2)))
    (hit,) = result.hits
    assert hit.message_kind == "warning"
    assert not hit.confident
    assert WARNING_REASON in hit.reasons
    assert (result.diagnosis.verdict, result.diagnosis.roots) == ("warnings", [])
    alone = match_text(index, line).matches[0]
    assert (alone.id, alone.confident) == ("untuned", True)
