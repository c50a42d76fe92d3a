"""The labelled lines as queries (their text and comparison keys) and the run contexts the
matching tests ask them in: no context, a serving run and a training run."""

from __future__ import annotations

from paths import LABELLED

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.index.pieces import comparison_key
from failref.domain.matching.reading.context import RunContext
from failref.domain.matching.reading.normalize import normalize_line

LINES = [line.text for line in read_labelled(LABELLED)]
KEYS = [comparison_key(normalize_line(text)) for text in LINES]
CONTEXTS = [
    None,
    RunContext(framework="vllm", phase="inference", gpu="H100", gpus=8, model="llama-3-70b"),
    RunContext(framework="deepspeed", phase="training", notes="no torch.compile, fsdp off"),
]
