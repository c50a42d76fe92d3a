"""kv-cache: worked example, hand-computed cases, edge cases, capacity monotonicity."""

from __future__ import annotations

import pytest
from calculator_checks import assert_outputs_close, assert_refused, outputs_of
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import get_calculator

CALC = get_calculator("kv-cache")


def outputs(**inputs: object) -> dict[str, object]:
    return outputs_of(CALC, inputs)


def test_worked_example() -> None:
    # Llama 2 70B: 2 * 80 layers * 8 KV heads * 128 * 2 bytes = 327,680 bytes per token.
    # 512 * 4096 * 327,680 = 687,194,767,360 bytes = 687.194767 GB of 1,000 GB: fits.
    # The cache holds floor(1e12 / 327,680) = floor(3,051,757.8) = 3,051,757 tokens.
    # max = floor(1e12 / (4096 * 327,680)) = floor(745.06) = 745; blocks = 512 * 4096/16.
    assert outputs() == {
        "bytes_per_token": 327680.0,
        "kv_mb_per_token": 0.32768,
        "gb_per_sequence": 1.342177,
        "total_gb": 687.194767,
        "capacity_tokens": 3051757,
        "utilization": 0.687195,
        "fits": True,
        "max_sequences": 745,
        "blocks": 131072,
        "paged_gb": 687.194767,
    }


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param(
            # 2 * 2 * 4 * 64 * 2 = 2048 bytes/token; 10 * 100 * 2048 = 2,048,000 bytes
            # = 0.002048 GB > 0.001 GB; max = floor(1e6 / 204,800) = 4;
            # blocks = 10 * ceil(100/16) = 70; paged = 70 * 16 * 2048 = 2,293,760 bytes.
            {
                "layers": 2,
                "kv_heads": 4,
                "head_dim": 64,
                "bytes_per_value": 2,
                "sequences": 10,
                "tokens_per_sequence": 100,
                "capacity_gb": 0.001,
            },
            {
                "bytes_per_token": 2048.0,
                "total_gb": 0.002048,
                "utilization": 2.048,
                "fits": False,
                "max_sequences": 4,
                "blocks": 70,
                "paged_gb": 0.002294,
            },
            id="small-model-does-not-fit",
        ),
        pytest.param(
            # Direct 1000 bytes/token * 1000 tokens = 1e6 bytes = exactly 0.001 GB: fits, 1.
            {
                "bytes_per_token": 1000,
                "sequences": 1,
                "tokens_per_sequence": 1000,
                "capacity_gb": 0.001,
                "block_tokens": 1,
            },
            {
                "bytes_per_token": 1000.0,
                "total_gb": 0.001,
                "utilization": 1.0,
                "fits": True,
                "max_sequences": 1,
                "blocks": 1000,
            },
            id="direct-bytes-exact-fit",
        ),
        pytest.param(
            # fp8 halves the cache: 163,840 bytes/token; max = floor(1e12 / 671,088,640) = 1490.
            {"bytes_per_value": "1"},
            {"bytes_per_token": 163840.0, "total_gb": 343.597384, "max_sequences": 1490},
            id="fp8-form-string",
        ),
        pytest.param(
            # vLLM's `GPU KV cache size: 1,028,832 tokens` replaces 1,000 GB / 327,680 bytes:
            # max = floor(1,028,832 / 4096) = 251; 512 * 4096 / 1,028,832 = 2.038381.
            {"cache_tokens": 1028832},
            {
                "capacity_tokens": 1028832,
                "max_sequences": 251,
                "fits": False,
                "utilization": 2.038381,
                "total_gb": 687.194767,  # what the sequences need does not change
            },
            id="server-token-count-replaces-memory",
        ),
        pytest.param(
            # The count is the server's: the memory no longer decides what fits.
            {"cache_tokens": 4096, "capacity_gb": 0.001, "sequences": 1},
            {"capacity_tokens": 4096, "max_sequences": 1, "fits": True, "utilization": 1.0},
            id="token-count-exact-fit-whatever-the-memory",
        ),
    ],
)
def test_hand_computed(inputs: dict[str, object], expected: dict[str, object]) -> None:
    assert_outputs_close(CALC, inputs, expected)


@pytest.mark.parametrize(
    ("inputs", "field", "message"),
    [
        pytest.param(
            {"bytes_per_token": 0.5},
            "bytes_per_token",
            "must be at least 1, or be left empty",
            id="sub-byte-direct",
        ),
        pytest.param(
            {"bytes_per_token": 0},
            "bytes_per_token",
            "must be at least 1, or be left empty",
            id="zero-is-no-longer-derive",
        ),
        pytest.param(
            {"bytes_per_token": -1},
            "bytes_per_token",
            "must be at least 1, or be left empty",
            id="negative-bytes",
        ),
        pytest.param({"capacity_gb": 0}, "capacity_gb", "must be at least 0.001", id="no-memory"),
        pytest.param({"layers": 0}, "layers", "must be at least 1", id="zero-layers"),
        pytest.param({"sequences": -3}, "sequences", "must be at least 1", id="negative-sequences"),
        pytest.param({"block_tokens": 0}, "block_tokens", "must be at least 1", id="zero-block"),
        pytest.param(
            {"tokens_per_sequence": 1e9},
            "tokens_per_sequence",
            "must be at most 100000000",
            id="absurd-context",
        ),
        pytest.param(
            {"bytes_per_value": float("inf")},
            "bytes_per_value",
            "must be a finite number",
            id="inf",
        ),
        pytest.param({"kv_heads": "eight"}, "kv_heads", "must be a number, not 'eight'", id="text"),
        pytest.param(
            {"cache_tokens": 0},
            "cache_tokens",
            "must be at least 1, or be left empty",
            id="no-cached-tokens",
        ),
        pytest.param(
            {"cache_tokens": 1.5},
            "cache_tokens",
            "must be a whole number, or be left empty",
            id="half-a-token",
        ),
    ],
)
def test_invalid_inputs(inputs: dict[str, object], field: str, message: str) -> None:
    assert_refused(CALC, inputs, field, message)


@settings(max_examples=150, deadline=None, database=None)
@given(
    sequences=st.integers(1, 10_000_000),
    tokens=st.integers(1, 100_000_000),
    capacities=st.lists(st.floats(0.001, 1e7), min_size=2, max_size=2),
)
def test_more_memory_never_fits_fewer_sequences(
    sequences: int, tokens: int, capacities: list[float]
) -> None:
    small, large = sorted(capacities)
    common = {"sequences": sequences, "tokens_per_sequence": tokens}
    less = outputs(**common, capacity_gb=small)
    more = outputs(**common, capacity_gb=large)
    assert less["max_sequences"] <= more["max_sequences"]  # type: ignore[operator]
    assert less["fits"] == (sequences <= less["max_sequences"])  # type: ignore[operator]
    assert more["fits"] or not less["fits"]
    assert less["paged_gb"] >= less["total_gb"]  # type: ignore[operator]


@pytest.mark.parametrize(
    "left_empty",
    [
        pytest.param(None, id="json-null"),
        pytest.param("", id="empty-field"),
        pytest.param(" ", id="blank"),
    ],
)
def test_an_empty_direct_size_is_derived_from_the_model(left_empty: object) -> None:
    assert outputs(bytes_per_token=left_empty)["bytes_per_token"] == 327680.0


def test_the_direct_size_is_optional_in_the_schema() -> None:
    schema = CALC.input_schema()["properties"]
    assert isinstance(schema, dict)
    assert schema["bytes_per_token"]["type"] == ["number", "null"]
    assert schema["bytes_per_token"]["default"] is None
    assert "0" not in schema["bytes_per_token"]["description"].split()


@pytest.mark.parametrize(
    "left_empty", [pytest.param(None, id="null"), pytest.param("", id="empty")]
)
def test_an_empty_token_count_is_worked_out_from_the_memory(left_empty: object) -> None:
    assert outputs(cache_tokens=left_empty) == outputs()
