"""The tokenizer: a text of words alone is cut at C speed into the tokens the pattern gives."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.matching.tokens import TOKEN_RE, tokens

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
