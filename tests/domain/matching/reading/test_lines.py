"""Which lines look telling: `telling` gives what TELLING_RE says of each line, whatever
shortcut it takes (needles found in the lowered text, the pattern run on those alone)."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.reading.lines import TELLING_RE, TELLING_WORDS, needle_of, telling

LABELLED = Path(__file__).resolve().parents[2] / "data" / "labelled"


def _per_line(texts: list[str]) -> list[bool]:
    return [bool(TELLING_RE.search(text)) for text in texts]


def _random_lines(count: int, seed: int) -> list[str]:
    """Lines of random words, mixed case, as a high-entropy paste has (some hit a needle)."""
    rng = random.Random(seed)
    letters = string.ascii_letters + "'"
    return [
        " ".join(
            "".join(rng.choice(letters) for _ in range(rng.randint(2, 8)))
            for _ in range(rng.randint(3, 12))
        )
        for _ in range(count)
    ]


CASES = {
    "labelled lines": [line.text for line in read_labelled(LABELLED)],
    "random words": _random_lines(5_000, 20261201),
    "case and word edges": [
        "RuntimeError: CUDA error",
        "Timed Out after 30s",
        "timeout",
        "time out",
        "TIMEDOUT",
        "NaN loss",
        "banana",
        "nan",
        "inference",
        "inf",
        "zoom",
        "ZOOM in",
        "boomerang",
        "Can't connect",
        "CANNOT",
        "step 5 loss 2.3",
        "",
        " ",
    ],
    # Characters IGNORECASE folds to an ASCII letter that lower() does not (Kelvin sign,
    # long s, dotted capital I), and ones lower() lengthens: the line numbers must hold.
    "not ASCII": [
        "\u212aILLED by signal 9",
        "\u017flow link",
        "\u0130nvalid argument",
        "\u0130\u0130\u0130 then error",
        "plain line",
        "caf\u00e9 warning",
        "\u00e9t\u00e9",
        "deadlock \u2014 stuck",
    ],
    "empty list": [],
    "a text holding a newline": ["fine\nerror", "ok", "fatal"],
}


@pytest.mark.parametrize("texts", CASES.values(), ids=CASES.keys())
def test_telling_says_what_the_pattern_says_of_each_line(texts: list[str]) -> None:
    assert telling(texts) == _per_line(texts)
    # A few texts at a time are searched one by one: the same answers.
    assert [flag for text in texts for flag in telling([text])] == _per_line(texts)


def test_the_random_lines_hold_needles_without_matching() -> None:
    """The random case is worth its time: some lines hold a needle, some of those match."""
    texts = CASES["random words"]
    lowered = [text.lower() for text in texts]
    with_needle = sum(any(needle_of(word) in text for word in TELLING_WORDS) for text in lowered)
    assert 0 < sum(telling(texts)) < with_needle


@pytest.mark.parametrize(
    ("word", "needle"),
    [
        pytest.param("timed? ?out", "time", id="optional letters"),
        pytest.param(r"\bnan\b", "nan", id="word boundaries"),
        pytest.param("could not", "could not", id="spaces"),
        pytest.param("can't", "can't", id="apostrophe"),
    ],
)
def test_a_word_needle_is_what_every_match_holds(word: str, needle: str) -> None:
    assert needle_of(word) == needle


@pytest.mark.parametrize("word", ["fo+", "(?:a|b)c", "[ab]c", "Error", r"\d+"])
def test_a_word_of_another_shape_is_refused(word: str) -> None:
    with pytest.raises(ValueError, match="plain word pattern"):
        needle_of(word)
