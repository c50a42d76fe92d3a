"""How a check is named: its first sentence, and the causes it names, each once."""

from __future__ import annotations

import pytest

from failref.domain.matching.results import CheckHint
from failref.web.views.check_names import CauseLink, NamedCauses, first_sentence, hint_causes


@pytest.mark.parametrize(
    ("html", "sentence"),
    [
        pytest.param("<p>Run it. Then read.</p>", "Run it.", id="two-sentences"),
        pytest.param(
            "<p>Dump <code>torch.save</code> frames, e.g. the first.</p>",
            "Dump torch.save frames, e.g. the first.",
            id="stops-inside-words",
        ),
        pytest.param(
            "<p>Read the lines. <code>found NaN</code> on one rank.</p>",
            "Read the lines.",
            id="next-starts-with-code",
        ),
        pytest.param(
            "<p>On each node:</p>\n<pre><code>nvidia-smi</code></pre>", "On each node:", id="block"
        ),
        pytest.param("<p>" + "word " * 40 + "end.</p>", ("word " * 28).strip() + "…", id="long"),
    ],
)
def test_a_check_is_named_by_its_first_sentence(html: str, sentence: str) -> None:
    assert first_sentence(html) == sentence


def test_a_cause_on_both_sides_of_a_check_is_named_once() -> None:
    hint = CheckHint(
        text="x",
        commands=[],
        confirms=["Two", "Three", "One"],
        rules_out=["Two", "Four"],
        number=1,
        confirms_numbers=[2, 3, 1],
        rules_out_numbers=[2, 4],
    )
    assert hint_causes(hint, "candidate-") == NamedCauses(
        either=(CauseLink(2, "Two", "candidate-2"),),
        confirms=(CauseLink(3, "Three", "candidate-3"), CauseLink(1, "One", "candidate-1")),
        rules_out=(CauseLink(4, "Four", "candidate-4"),),
    )
