"""What a run's context says of each reference: it agrees or disagrees field by field, which
lifts or lowers the reference's score a little (`context_adjustment`). `ContextTerms` are
what the verdicts read of one reference (worked out once, kept per reference), and
`ContextVerdicts` remembers the verdicts per index and context; whether a context
contradicts a reference outright is the judge's call (`judging.gates`).

Context never makes a match on its own: the matcher multiplies, so a reference whose
messages do not match stays at zero.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from functools import cached_property

from ...references.document import Reference
from ..reading.context import GPU, MODEL
from ..reading.tokens import STOPWORDS, words
from .views import PerReference

# A value the user gave is quoted in a reason at most this long.
REASON_VALUE_CHARS = 40
# How much one agreeing or disagreeing field moves a score (multiplicative). A
# disagreement weighs more: many references share the common frameworks, so agreeing
# says less than contradicting.
AGREE_STEP = 0.03
DISAGREE_STEP = 0.05
MAX_LIFT = 0.10
MAX_DROP = 0.15
# Context verdicts an index keeps (`ContextVerdicts`), then forgets all at once. A paste
# asks for dozens (the references it scores), so this holds hundreds of contexts; with
# notes (their reasons are new strings) ~430 bytes each, ~7 MB when full. Notes in free
# text make a new context of most pastes that carry them: hence a bound, not a cache of
# every context ever asked.
VERDICTS_KEPT = 16_384
DISTRIBUTED_WORDS = frozenset(
    {
        "nccl",
        "distributed",
        "multi-gpu",
        "multi-node",
        "all-reduce",
        "allreduce",
        "collective",
        "fsdp",
        "deepspeed",
        "megatron",
        "tensor-parallel",
        "pipeline-parallel",
        "nvlink",
        "infiniband",
        "rdma",
    }
)
# Words that negate a name near them in a note ("we do not use torch.compile",
# "without deepspeed", "cuda graphs disabled").
NEGATIONS_BEFORE = frozenset(
    {"not", "no", "without", "never", "nor", "don", "doesn", "didn", "isn", "aren", "wasn"}
)
NEGATIONS_AFTER = frozenset({"disabled", "off", "removed", "unused"})
NEGATION_WINDOW = 3
FRAMEWORK_ALIASES = {
    "torch": "pytorch",
    "megatron-lm": "megatron",
    "megatron-core": "megatron",
    "nemo": "megatron",
    "pytorch-lightning": "lightning",
    "lightning-ai": "lightning",
    "tf": "tensorflow",
    "trtllm": "tensorrt-llm",
    "tgi": "text-generation-inference",
}

ContextVerdict = tuple[float, tuple[str, ...]]  # a context_adjustment: offset and reasons


def context_adjustment(reference: Reference, fields: dict[str, str]) -> ContextVerdict:
    """A multiplier offset in [-MAX_DROP, MAX_LIFT] and a reason per field that counted,
    worked out anew (`ContextVerdicts` remembers them per index and context)."""
    return ContextTerms(reference).adjustment(fields)


class ContextTerms:
    """What the field verdicts read of one reference, each piece worked out the first time
    a verdict needs it and kept: its frameworks, phases and GPUs as compared, whether it is
    a multi-GPU failure, and the words of its title, summary and tags (~13 us to cut anew
    for each verdict that reads them; kept interned, ~2 KB a reference, for the references
    a model or notes field was asked of)."""

    def __init__(self, reference: Reference) -> None:
        self.reference = reference

    @cached_property
    def framework_names(self) -> frozenset[str]:
        """Lower case, aliases resolved."""
        return frozenset(framework_name(f) for f in self.reference.frameworks)

    @cached_property
    def phase_names(self) -> frozenset[str]:
        return frozenset(phase.lower() for phase in self.reference.phases)

    @cached_property
    def gpus(self) -> tuple[str, ...]:
        """The hardware entries that name a GPU model."""
        hardware = self.reference.hardware
        return tuple(name for name in hardware if GPU.any_case.fullmatch(name.strip()))

    @cached_property
    def gpu_names(self) -> frozenset[str]:
        """Upper case, without spaces."""
        return frozenset(name.replace(" ", "").upper() for name in self.gpus)

    @cached_property
    def distributed(self) -> bool:
        reference = self.reference
        named = {word.lower() for word in (*reference.tags, *reference.frameworks)}
        return not named.isdisjoint(DISTRIBUTED_WORDS)

    @cached_property
    def keywords(self) -> frozenset[str]:
        reference = self.reference
        return frozenset(
            map(sys.intern, words((reference.title, reference.summary, *reference.tags)))
        )

    def adjustment(self, fields: Mapping[str, str]) -> ContextVerdict:
        """`context_adjustment` of the reference these terms are of."""
        verdicts = [
            verdict
            for verdict in (
                self._framework(fields.get("framework")),
                self._phase(fields.get("phase")),
                self._gpu(fields.get("gpu")),
                self._gpu_count(fields.get("gpus")),
                self._model(fields.get("model")),
                self._notes(fields.get("notes")),
            )
            if verdict is not None
        ]
        agree = sum(1 for agrees, _ in verdicts if agrees)
        offset = agree * AGREE_STEP - (len(verdicts) - agree) * DISAGREE_STEP
        return max(-MAX_DROP, min(MAX_LIFT, offset)), tuple(reason for _, reason in verdicts)

    def _framework(self, value: str | None) -> tuple[bool, str] | None:
        frameworks = self.reference.frameworks
        if not value or not frameworks:
            return None
        if framework_name(value) in self.framework_names:
            return True, f"framework {quoted(value)} agrees"
        return False, f"framework {quoted(value)} is not among {', '.join(frameworks)}"

    def _phase(self, value: str | None) -> tuple[bool, str] | None:
        phases = self.reference.phases
        if not value or not phases:
            return None
        if value.lower() in self.phase_names:
            return True, f"phase {quoted(value)} agrees"
        return False, f"phase {quoted(value)} is not among {', '.join(phases)}"

    def _gpu(self, value: str | None) -> tuple[bool, str] | None:
        if not value or not self.gpus:
            return None
        if value.replace(" ", "").upper() in self.gpu_names:
            return True, f"GPU {quoted(value)} agrees"
        return False, f"GPU {quoted(value)} is not among {', '.join(self.gpus)}"

    def _gpu_count(self, value: str | None) -> tuple[bool, str] | None:
        if not value or not value.isdigit() or not self.distributed:
            return None
        if int(value) > 1:
            return True, f"{value} GPUs fits a multi-GPU failure"
        return False, "a single GPU rules out most multi-GPU failures"

    def _model(self, value: str | None) -> tuple[bool, str] | None:
        if not value:
            return None
        family = MODEL.any_case.match(value.strip())
        if family is None or family.group(1).lower() not in self.keywords:
            return None
        return True, f"model {quoted(value)} is named by the reference"

    def _notes(self, value: str | None) -> tuple[bool, str] | None:
        if not value:
            return None
        keywords = self.keywords - STOPWORDS
        negated = sorted(negated_words(value) & keywords)
        if negated:
            return False, f"your notes rule out {', '.join(negated[:3])}"
        shared = sorted(set(words([value])) & keywords)
        if len(shared) < 2:
            return None
        return True, f"your notes mention {', '.join(shared[:5])}"


class ContextVerdicts:
    """Each reference's `context_adjustment` per run context, worked out once: the pastes of
    one run share a context, and each asks it of the dozens of references it scores."""

    def __init__(self, references: Sequence[Reference], kept: int = VERDICTS_KEPT) -> None:
        self._terms = PerReference(references, ContextTerms)
        self._kept = kept
        self._found: dict[tuple[int, tuple[tuple[str, str], ...]], ContextVerdict] = {}

    def of(self, ref: int, fields: tuple[tuple[str, str], ...]) -> ContextVerdict:
        """The verdict of reference `ref` (by index number) for the fields, as `fields_key`
        gives them."""
        key = (ref, fields)
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= self._kept:
                self._found = {}
            found = self._found[key] = self._terms[ref].adjustment(dict(fields))
        return found


def fields_key(fields: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """A context's fields as `ContextVerdicts` files them: the same for the same fields."""
    return tuple(sorted(fields.items()))


def negated_words(text: str) -> set[str]:
    """Words a negation governs: up to NEGATION_WINDOW words after `not`, `no`, `without`,
    ..., and the word or two before `disabled` or `off`."""
    found = words([text])
    negated: set[str] = set()
    for position, word in enumerate(found):
        before = found[max(0, position - NEGATION_WINDOW) : position]
        after = found[position + 1 : position + 3]
        if NEGATIONS_BEFORE.intersection(before) or NEGATIONS_AFTER.intersection(after):
            negated.add(word)
    return negated


def framework_name(name: str) -> str:
    """A framework's name as verdicts compare it: lower case, its alias resolved."""
    return FRAMEWORK_ALIASES.get(name.lower(), name.lower())


def quoted(value: str) -> str:
    """A user's value as a reason quotes it: whole when short, its start otherwise."""
    if len(value) <= REASON_VALUE_CHARS:
        return value
    return value[:REASON_VALUE_CHARS] + "…"
