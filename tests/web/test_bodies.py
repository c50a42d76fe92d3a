"""Request bodies: urlencoded forms decoded like urllib but in bounded memory; JSON with
lone surrogates made valid."""

from __future__ import annotations

import tracemalloc
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.exceptions import HTTPException

from failref.web.bodies import parse_urlencoded, unquote_plus_bytes, without_surrogates

# Bytes a form body is made of, weighted towards what makes unquoting hard.
FORM_BYTES = st.lists(
    st.sampled_from([b"%", b"+", b"\\", b"x", b"0", b"a", b"F", b"%0A", b"%e2%82%ac", b"\xff"])
    | st.binary(max_size=3),
    max_size=40,
).map(b"".join)


@given(FORM_BYTES)
def test_unquote_agrees_with_urllib(raw: bytes) -> None:
    expected = unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8", "replace")
    assert unquote_plus_bytes(raw) == expected


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        pytest.param(b"a+b%20c", "a b c", id="spaces"),
        pytest.param(b"100%", "100%", id="trailing-percent"),
        pytest.param(b"%zz%4", "%zz%4", id="not-escapes"),
        pytest.param(b"\\x41%41%5Cx41", "\\x41A\\x41", id="backslashes"),
        pytest.param(b"%E2%82%AC", "€", id="utf-8"),
        pytest.param(b"%FF%00", "\ufffd\x00", id="invalid-utf-8-and-nul"),
        pytest.param(b"%ED%A0%80", "\ufffd\ufffd\ufffd", id="encoded-surrogate"),
    ],
)
def test_unquote_cases(raw: bytes, text: str) -> None:
    assert unquote_plus_bytes(raw) == text


def test_fields_in_order_with_repeats_and_empty_pairs() -> None:
    form = parse_urlencoded(b"a=1&&b&a=2%263&=x", max_fields=10, max_part_size=100)
    assert form.multi_items() == [("a", "1"), ("b", ""), ("a", "2&3"), ("", "x")]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        pytest.param(b"&".join([b"f=1"] * 11), "Maximum number of fields is 10", id="fields"),
        pytest.param(b"log=" + b"x" * 101, "maximum size of 100 bytes", id="size"),
    ],
)
def test_limits_are_413(body: bytes, says: str) -> None:
    with pytest.raises(HTTPException) as raised:
        parse_urlencoded(body, max_fields=10, max_part_size=100)
    assert raised.value.status_code == 413
    assert says in raised.value.detail


def test_a_body_of_escapes_costs_a_few_times_its_size() -> None:
    """urllib would make an object per escape: about 75 times the body."""
    body = b"log=" + b"%0A" * 1_000_000
    tracemalloc.start()
    try:
        form = parse_urlencoded(body, max_fields=10, max_part_size=len(body))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert form["log"] == "\n" * 1_000_000
    assert peak < 5 * len(body)


def test_lone_surrogates_become_replacement_characters() -> None:
    parsed = {"log": "a\ud800b", "context": {"\udfff": ["x\udc00", 1, None]}, "ok": "😀"}
    assert without_surrogates(parsed) == {
        "log": "a\ufffdb",
        "context": {"\ufffd": ["x\ufffd", 1, None]},
        "ok": "😀",
    }
