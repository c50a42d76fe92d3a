"""What a run's context says of each reference: a field that agrees lifts the reference's
score a little, and only a real contradiction lowers it (`context_adjustment`): the user
said the run only serves and the failure only happens in training, a single GPU for a
multi-GPU failure, another engine for a failure that belongs to its engines
(`engine_specific`), or the notes rule it out. What the text gives away only lifts.
`ContextTerms` are what the verdicts read of one reference (worked out once, kept per
reference), and `ContextVerdicts` remembers the verdicts per index and context; whether a
context contradicts a reference outright is the judge's call (`judging.gates`).

Context never makes a match on its own: the matcher multiplies, so a reference whose
messages do not match stays at zero.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cached_property

from ...references.document import Reference
from ..reading.context import MODEL, NO_FIELDS, ContextFields
from ..reading.context_words import GPU, framework_name
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
# The two kinds of run a failure can be confined to; the other phases happen in both.
MAIN_PHASES = frozenset({"training", "inference"})
# Engines and training frameworks a job runs one of: a run on one is not about a failure
# that belongs to another's (`engine_specific`). Libraries every job uses (PyTorch, NCCL,
# CUDA) and tools (DCGM, nvidia-smi) are not engines and never contradict.
ENGINES = frozenset(
    {
        "vllm",
        "sglang",
        "tensorrt-llm",
        "text-generation-inference",
        "llama.cpp",
        "deepspeed",
        "megatron",
        "lightning",
        "accelerate",
        "jax",
        "tensorflow",
        "unsloth",
        "colossalai",
        "paddlepaddle",
    }
)

ContextVerdict = tuple[float, tuple[str, ...]]  # a context_adjustment: offset and reasons


def context_adjustment(
    reference: Reference, given: ContextFields, inferred: ContextFields = NO_FIELDS
) -> ContextVerdict:
    """A multiplier offset in [-MAX_DROP, MAX_LIFT] and a reason per field that counted,
    worked out anew (`ContextVerdicts` remembers them per index and context)."""
    return ContextTerms(reference).adjustment(given, inferred)


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
    def broad_phases(self) -> frozenset[str]:
        """Its phases, fine-tuning read as training."""
        return frozenset(broad(phase) for phase in self.reference.phases)

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

    def adjustment(self, given: ContextFields, inferred: ContextFields) -> ContextVerdict:
        """`context_adjustment` of the reference these terms are of."""
        verdicts = [
            verdict
            for verdict in (
                self._framework(given.frameworks, "you said")
                or self._framework(inferred.frameworks, "the text names", agree_only=True),
                self._phase(given.phases, "you said")
                or self._phase(inferred.phases, "the text suggests", agree_only=True),
                self._gpu(given.gpu or inferred.gpu),
                self._gpu_count(given.gpus or inferred.gpus),
                self._model(given.model or inferred.model),
                self._notes(given.notes),
            )
            if verdict is not None
        ]
        agree = sum(1 for agrees, _ in verdicts if agrees)
        offset = agree * AGREE_STEP - (len(verdicts) - agree) * DISAGREE_STEP
        return max(-MAX_DROP, min(MAX_LIFT, offset)), tuple(reason for _, reason in verdicts)

    def _framework(
        self, names: tuple[str, ...], said: str, *, agree_only: bool = False
    ) -> tuple[bool, str] | None:
        frameworks = self.reference.frameworks
        if not names or not frameworks:
            return None
        shared = [name for name in names if name in self.framework_names]
        if shared:
            return True, f"{said} {', '.join(shared)}, which it happens in"
        if agree_only or not self.reference.engine_specific or not set(names) & ENGINES:
            return None
        return False, f"{said} {', '.join(names)}; this belongs to {', '.join(frameworks)}"

    def _phase(
        self, phases: tuple[str, ...], said: str, *, agree_only: bool = False
    ) -> tuple[bool, str] | None:
        if not phases or not self.reference.phases:
            return None
        shared = [phase for phase in phases if broad(phase) in self.broad_phases]
        if shared:
            return True, f"{said} {', '.join(shared)}, which it happens in"
        if agree_only or not contradicts(phases, self.reference.phases):
            return None
        its = ", ".join(self.reference.phases)
        return False, f"{said} {', '.join(phases)}; this happens in {its}"

    def _gpu(self, value: str | None) -> tuple[bool, str] | None:
        if not value or value not in self.gpu_names:
            return None
        return True, f"GPU {quoted(value)} agrees"

    def _gpu_count(self, value: int | None) -> tuple[bool, str] | None:
        if value is None or not self.distributed:
            return None
        if value > 1:
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
        self._found: dict[tuple[int, ContextFields, ContextFields], ContextVerdict] = {}

    def of(self, ref: int, given: ContextFields, inferred: ContextFields) -> ContextVerdict:
        """The verdict of reference `ref` (by index number) for a context."""
        key = (ref, given, inferred)
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= self._kept:
                self._found = {}
            found = self._found[key] = self._terms[ref].adjustment(given, inferred)
        return found


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


def broad(phase: str) -> str:
    """A phase as contradictions compare it: fine-tuning is training."""
    return "training" if phase == "fine-tuning" else phase


def contradicts(said: tuple[str, ...], phases: tuple[str, ...]) -> bool:
    """Whether a run said to be only in training or only serving (`said`, canonical) rules
    out a failure of these phases: it happens in the other of the two and not in this one.
    Start-up, checkpoints, compiling and data loading happen in both, so never."""
    said_broad = {broad(phase) for phase in said} & MAIN_PHASES
    its_broad = {broad(phase) for phase in phases} & MAIN_PHASES
    return bool(said_broad) and bool(its_broad) and said_broad.isdisjoint(its_broad)


def quoted(value: str) -> str:
    """A user's value as a reason quotes it: whole when short, its start otherwise."""
    if len(value) <= REASON_VALUE_CHARS:
        return value
    return value[:REASON_VALUE_CHARS] + "…"
