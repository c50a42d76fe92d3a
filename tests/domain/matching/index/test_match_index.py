"""The incremental index: a build that starts from the last one works out only the changed
references, and after any run of additions, edits, removals and reorderings gives the
index, the tables and the match results a full build over the same references gives."""

from __future__ import annotations

import gc
import random
from collections.abc import Mapping, Sequence
from dataclasses import fields

import pytest
from paths import REFERENCES

from failref.domain.matching.index import match_index as index_module
from failref.domain.matching.index.match_index import IndexCache, MatchIndex, build_index, warm
from failref.domain.matching.logs.scan import scan_log
from failref.domain.matching.messages.match import match_text
from failref.domain.references import values
from failref.domain.references.document import Message, Reference
from failref.domain.references.folder import read_folder

STEPS = 12


@pytest.fixture(scope="module")
def references() -> list[Reference]:
    return read_folder(REFERENCES).references


def edited(reference: Reference, text: str = "Some new message 42") -> Reference:
    """`reference` with one more message line, as a save would store it."""
    extra = Message(text=text, line=1, seen_in_markdown="", seen_in_url=None)
    return reference.model_copy(update={"messages": (*reference.messages, extra)})


def contents(index: MatchIndex) -> dict[str, object]:
    """Every field two indexes are compared by (not a memo of what queries asked), as plain
    values (each lazy view read whole)."""
    found: dict[str, object] = {}
    for name in (f.name for f in fields(index) if f.compare):
        value = getattr(index, name)
        found[name] = (
            dict(value)
            if isinstance(value, Mapping)
            else list(value)
            if isinstance(value, Sequence)
            else value
        )
    return found


def step(
    refs: list[Reference], pool: list[Reference], rng: random.Random, n: int
) -> list[Reference]:
    """One random change to the library: an edit, an addition, a removal or a new order."""
    refs = list(refs)
    at = rng.randrange(len(refs))
    match rng.choice(
        ["message", "drop line", "title", "kind", "code path", "add", "remove", "order"]
    ):
        case "message":
            refs[at] = edited(
                refs[at], f"Step {n} {rng.choice(['nccl', 'cuda', 'fresh'])} failed <n>"
            )
        case "drop line" if len(refs[at].messages) > 1:
            refs[at] = refs[at].model_copy(update={"messages": refs[at].messages[1:]})
        case "title":
            refs[at] = refs[at].model_copy(
                update={"title": f"Rank {n} watchdog timeout", "tags": ("nccl",)}
            )
        case "kind":
            first, *rest = refs[at].messages
            kind = "healthy" if first.kind == "failure" else "failure"
            refs[at] = refs[at].model_copy(
                update={"messages": (first.model_copy(update={"kind": kind}), *rest)}
            )
        case "code path":
            refs[at] = refs[at].model_copy(
                update={"code_paths": (f"torch/step{n}/", "deepspeed/zero.py")}
            )
        case "add":
            base = rng.choice(pool)
            refs.insert(at, base.model_copy(update={"id": f"{base.id}-copy{n}"}))
        case "remove" if len(refs) > 2:
            del refs[at]
        case _:
            rng.shuffle(refs)
    return refs


@pytest.mark.parametrize("seed", range(4))
def test_any_run_of_changes_gives_what_a_full_build_gives(
    references: list[Reference], seed: int
) -> None:
    rng = random.Random(seed)
    refs = rng.sample(references, 12)
    cache = IndexCache()
    build_index(refs, cache)
    queries = [m.text for r in references[:10] for m in r.messages[:1]] + ["nccl watchdog timeout"]
    for n in range(STEPS):
        refs = step(refs, references, rng, n)
        index = build_index(refs, cache)
        full_cache = IndexCache()
        full = build_index(refs, full_cache)
        assert contents(index) == contents(full)
        assert cache.last.tables == full_cache.last.tables
        assert [match_text(index, q) for q in queries] == [match_text(full, q) for q in queries]
    log = "\n".join(queries)
    assert scan_log(index, log) == scan_log(full, log)


def test_a_save_of_one_reference_works_out_only_that_one(references: list[Reference]) -> None:
    cache = IndexCache()
    build_index(references, cache)
    assert cache.built == len(references)
    changed = [*references[:5], edited(references[5]), *references[6:]]
    index = build_index(changed, cache)
    assert cache.built == len(references) + 1
    assert index == build_index(changed)
    assert "some new message <n>" in index.entry_keys


def test_an_unchanged_reload_works_out_nothing(references: list[Reference]) -> None:
    cache = IndexCache()
    build_index(references, cache)
    copies = [r.model_copy() for r in reversed(references)]
    assert build_index(copies, cache) == build_index(copies)
    assert cache.built == len(references)


def test_a_removed_reference_leaves_the_cache(references: list[Reference]) -> None:
    cache = IndexCache()
    build_index(references, cache)
    build_index(references[1:], cache)
    assert references[0].id not in cache.last.pieces
    build_index(references, cache)
    assert cache.built == len(references) + 1


def test_two_references_with_one_id_are_refused(references: list[Reference]) -> None:
    with pytest.raises(ValueError, match="same id"):
        build_index([references[0], references[0]])


def test_a_build_leaves_the_collector_as_it_found_it(references: list[Reference]) -> None:
    assert gc.isenabled()
    build_index(references[:3])
    assert gc.isenabled()
    gc.disable()
    try:
        build_index(references[:3])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_warmed_index_holds_what_its_queries_would_work_out(
    references: list[Reference],
) -> None:
    cache = IndexCache()
    build_index(references, cache)
    saved = [edited(references[0], "NCCL watchdog caught collective timeout <n>"), *references[1:]]
    for warmed, cold in [
        (build_index(references), build_index(references)),
        (build_index(saved, cache.fork()), build_index(saved, cache.fork())),  # spliced
    ]:
        warm(warmed)
        assert contents(warmed) == contents(cold)
        # The same sets, iterating the same way: shared masses are summed in that order.
        assert [list(warmed.postings[t]) for t in cold.postings] == [
            list(cold.postings[t]) for t in cold.postings
        ]
        queries = [m.text for r in references for m in r.messages[:2]]
        assert [match_text(warmed, q) for q in queries] == [match_text(cold, q) for q in queries]


def test_warming_never_switches_the_collector(
    references: list[Reference], monkeypatch: pytest.MonkeyPatch
) -> None:
    # It runs in a thread beside requests: a build there pauses the collector, and a warm
    # switching it back on (or off) would undo that for the whole process.
    index = build_index(references[:3])
    switched: list[str] = []
    monkeypatch.setattr(gc, "disable", lambda: switched.append("disable"))
    monkeypatch.setattr(gc, "enable", lambda: switched.append("enable"))
    warm(index)
    assert switched == []


def test_warming_compiles_the_value_patterns_when_they_all_fit(
    references: list[Reference], monkeypatch: pytest.MonkeyPatch
) -> None:
    slots = {slot for ref in references for m in ref.messages for slot in m.slots}
    assert slots
    values._slot_regexes.cache_clear()
    warm(build_index(references))
    assert values._slot_regexes.cache_info().currsize == len(slots)
    values._slot_regexes.cache_clear()
    monkeypatch.setattr(values, "SLOT_PATTERNS_KEPT", len(slots) - 1)
    warm(build_index(references))
    assert values._slot_regexes.cache_info().currsize == 0  # more than fit: left to the queries


def test_warming_works_out_the_card_checks_of_a_small_index_only(
    references: list[Reference], monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    card_checks = index_module.CardChecks.of

    def counted(reference: Reference) -> index_module.CardChecks:
        made.append(reference.id)
        return card_checks(reference)

    monkeypatch.setattr(index_module.CardChecks, "of", counted)
    small = build_index(references)
    warm(small)
    assert sorted(made) == sorted(r.id for r in references)
    assert small.checks[0].reference is references[0]  # read, not worked out again
    assert len(made) == len(references)
    made.clear()
    monkeypatch.setattr(index_module, "CARDS_WARMED_UP_TO", len(references))
    warm(build_index(references))
    assert len(made) == len(references)  # as many as the bound: warmed
    made.clear()
    monkeypatch.setattr(index_module, "CARDS_WARMED_UP_TO", len(references) - 1)
    warm(build_index(references))
    assert made == []  # left to the answers that show them
