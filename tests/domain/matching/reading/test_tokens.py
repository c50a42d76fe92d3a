"""The tokenizer: a text of words alone is cut at C speed into the tokens the pattern gives;
a key's distinct tokens measured as `token_set_ratio` joins them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from failref.domain.matching.reading.tokens import TOKEN_RE, plain_words, set_chars, tokens

# ASCII of every kind (controls, separators, placeholder brackets) and what lower() folds.
TOKEN_TEXT = st.lists(
    st.sampled_from([*map(chr, range(128)), "\u212a", "\u0130", "\u00e9", "<n>", "<a_b>"]),
    max_size=60,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(TOKEN_TEXT)
def test_tokens_are_the_patterns_matches(text: str) -> None:
    assert tokens(text) == TOKEN_RE.findall(text.lower())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("NCCL_timeout, rank 3!", ["nccl", "timeout", "rank", "3"], id="words"),
        pytest.param("Took <n> ms at <PATH>", ["took", "<n>", "ms", "at", "<path>"], id="held"),
        pytest.param("\u212aelvin", ["kelvin"], id="kelvin sign folds to k"),
    ],
)
def test_a_text_is_cut_into_words_and_placeholders(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


def test_a_keys_set_chars_count_each_distinct_token_and_a_separator() -> None:
    # "nccl" twice counts once: 4 + 1, "watchdog" 8 + 1, "<n>" 3 + 1.
    assert set_chars("nccl watchdog nccl <n>", ("watchdog",)) == (18, 9)
    assert set_chars("", ()) == (0, 0)


def test_set_chars_measure_what_token_set_ratio_joins() -> None:
    """Two keys with no token in common: the ratio compares their sorted, joined distinct
    tokens, whose lengths are the set chars less one separator."""
    left, right = "rank gpu rank nccl", "timeout watchdog"
    whole_left, whole_right = set_chars(left, ())[0], set_chars(right, ())[0]
    joined_left, joined_right = "gpu nccl rank", "timeout watchdog"
    assert (whole_left - 1, whole_right - 1) == (len(joined_left), len(joined_right))
    assert fuzz.token_set_ratio(left, right) == pytest.approx(fuzz.ratio(joined_left, joined_right))


def test_a_page_is_cut_into_words_whatever_it_holds() -> None:
    text = "NCCL’s `ncclSystemError` — see <path>:12 (vLLM 0.34.0)"
    assert plain_words(text) == [
        "nccl", "s", "ncclsystemerror", "see", "path", "12", "vllm", "0", "34", "0"
    ]  # fmt: skip


@settings(max_examples=200)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_plain_words_are_the_tokens_of_the_ascii_text(text: str) -> None:
    ascii_only = text.lower().encode("ascii", "replace").decode("ascii").replace("<", " ")
    assert plain_words(text) == tokens(ascii_only)
