"""The views of the index worked out on demand: each value is what a stored table held."""

from __future__ import annotations

import math

import pytest

from failref.domain.matching.index.tables import ReferencePieces
from failref.domain.matching.index.views import (
    Computed,
    InverseFrequency,
    LineChars,
    LineMasses,
    LinePostings,
    LineWeights,
    Owners,
    PerReference,
    Sizes,
)


def test_inverse_frequency_is_log_of_total_over_holders() -> None:
    idf = InverseFrequency({"nccl": 1, "error": 4}, total=4, scale=2.0)
    assert idf["nccl"] == math.log(1 + 4 / 1) / 2.0
    assert idf.get("error") == math.log(2) / 2.0
    assert idf.get("unseen", 9.0) == 9.0
    assert "unseen" not in idf
    assert dict(idf) == {"nccl": math.log(5) / 2.0, "error": math.log(2) / 2.0}


def test_line_weights_and_masses_read_the_idf_of_their_tokens() -> None:
    idf = InverseFrequency({"nccl": 1, "error": 2}, total=2)
    token_sets = (frozenset({"nccl", "error"}), frozenset({"error"}))
    weights, masses = LineWeights(token_sets, idf), LineMasses(token_sets, idf)
    assert dict(weights[0]) == {"nccl": math.log(3), "error": math.log(2)}
    assert masses[1] == math.log(2)
    assert list(masses) == [math.log(3) + math.log(2), math.log(2)]
    assert [dict(w) for w in weights[1:]] == [{"error": math.log(2)}]
    assert masses == [math.log(3) + math.log(2), math.log(2)]


def test_line_chars_measure_each_distinct_token_and_a_separator() -> None:
    keys = ("nccl <n> timeout <n> of rank <n>", "cuda error")
    chars = LineChars(keys, (frozenset({"nccl", "timeout", "rank"}), frozenset({"cuda", "error"})))
    # nccl timeout rank: 5 + 8 + 5 informative; <n> once and `of`: 4 + 3 not
    assert chars[0] == (25, 7)
    assert chars[1] == (11, 0)
    assert chars.values() == [(25, 7), (11, 0)]


def line(*keys: str) -> ReferencePieces:
    return ReferencePieces(
        keys=keys,
        messages=(0,) * len(keys),
        kinds=("failure",) * len(keys),
        levels=(None,) * len(keys),
        token_sets=tuple(frozenset(key.split()) for key in keys),
        keywords=frozenset(),
        code_paths=frozenset(),
    )


def test_postings_number_each_line_from_its_references_first() -> None:
    pieces = {"a": line("nccl timeout", "cuda abort"), "b": line("nccl abort")}
    holders = {"nccl": frozenset({"a", "b"}), "abort": frozenset({"a", "b"})}
    postings = LinePostings(holders, pieces, {"b": 0, "a": 1}, [0, 1, 3])
    assert postings["nccl"] == {0, 1}
    assert postings["abort"] == {0, 2}
    assert "timeout" not in postings
    assert postings.get("timeout") is None
    assert postings.get("nccl") == {0, 1}
    assert postings.get("timeout", frozenset({7})) == {7}
    assert postings.array("abort").tolist() == list(postings["abort"])  # in the set's order
    with pytest.raises(KeyError):
        postings.array("timeout")


def test_owners_and_sizes_read_the_holders() -> None:
    holders = {"rank": frozenset({"a", "b"}), "gpu": frozenset({"b"})}
    assert dict(Owners(holders, {"a": 1, "b": 0})) == {"rank": {0, 1}, "gpu": {0}}
    assert dict(Sizes(holders)) == {"rank": 2, "gpu": 1}


def test_a_computed_table_is_worked_out_once() -> None:
    calls: list[int] = []
    table = Computed(lambda: calls.append(1) or {"symptom": frozenset({"cause"})})
    assert table["symptom"] == {"cause"}
    assert dict(table) == {"symptom": {"cause"}}
    assert calls == [1]


def test_a_value_per_reference_is_worked_out_once_on_first_reading() -> None:
    asked: list[str] = []

    def shout(name: str) -> str:
        asked.append(name)
        return name.upper()

    values = PerReference(("nccl", "oom", "xid"), shout)
    assert asked == []
    assert (values[2], values[0], values[2]) == ("XID", "NCCL", "XID")
    assert asked == ["xid", "nccl"]
    assert list(values) == ["NCCL", "OOM", "XID"]
    assert asked == ["xid", "nccl", "oom"]


def test_filled_views_hold_what_reading_them_works_out() -> None:
    pieces = {"a": line("nccl timeout", "cuda abort"), "b": line("nccl abort")}
    holders = {
        "nccl": frozenset({"a", "b"}),
        "abort": frozenset({"a", "b"}),
        "timeout": frozenset({"a"}),
        "cuda": frozenset({"a"}),
    }
    token_sets = (*pieces["b"].token_sets, *pieces["a"].token_sets)  # b first, then a
    read, filled = (LinePostings(holders, pieces, {"b": 0, "a": 1}, [0, 1, 3]) for _ in "ab")
    assert read["abort"] == {0, 2}
    before = filled["abort"]
    filled.fill_from(token_sets)
    assert filled["abort"] is before  # one worked out before the fill: kept
    assert {t: list(filled[t]) for t in holders} == {t: list(read[t]) for t in holders}
    idf = InverseFrequency({"nccl": 2, "abort": 2, "timeout": 1, "cuda": 1}, total=3)
    assert idf.fill() == {t: idf[t] for t in holders}
    for weights in (idf, dict(idf)):  # a view of the IDF, or a plain table
        masses = LineMasses(token_sets, weights)
        assert masses[2] == sum(idf[t] for t in token_sets[2])
        masses.fill()
        assert list(masses) == [sum(idf[t] for t in tokens) for tokens in token_sets]
    chars = LineChars(("nccl abort", "nccl timeout", "cuda abort"), token_sets)
    chars.fill()
    assert chars.values() == [(11, 0), (13, 0), (11, 0)]
