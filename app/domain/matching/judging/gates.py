"""Whether a run's context contradicts a reference outright (then it is never confident,
whatever its score): a phase it does not occur in, or an engine other than the ones it is
about. How much an agreeing or disagreeing context moves a score is `index.context_terms`.
"""

from __future__ import annotations

from ...references.document import Reference
from ..index.context_terms import framework_name, quoted

# Engines and training frameworks a job runs one of: a run on one is not about another's
# failure (a vLLM server does not print DeepSpeed's ZeRO-3 warnings). Libraries every job
# uses (PyTorch, NCCL, CUDA) and tools (DCGM, nvidia-smi) are not engines and never gate.
ENGINES = frozenset(
    {
        "vllm",
        "sglang",
        "tensorrt-llm",
        "text-generation-inference",
        "deepspeed",
        "megatron",
        "lightning",
        "accelerate",
        "jax",
        "tensorflow",
        "keras",
        "unsloth",
    }
)
# Phases that are the same work for a reference's purposes.
PHASE_EQUIVALENTS = {"fine-tuning": "training"}
# Inferred phases are guesses from words in the text; only the broad split between
# training and serving is trusted enough to take confidence away.
GATING_INFERRED_PHASES = frozenset({"training", "fine-tuning", "inference"})


def context_gates(
    reference: Reference, given: dict[str, str], inferred: dict[str, str]
) -> list[str]:
    """Why the run's context contradicts a reference (then it is never confident): a phase
    it does not occur in, or an engine other than the ones it is about."""
    gates = []
    phase = given.get("phase") or (
        inferred["phase"] if inferred.get("phase") in GATING_INFERRED_PHASES else None
    )
    if phase and reference.phases and not _phase_fits(reference, phase, "phase" in given):
        said = "you said" if "phase" in given else "the text suggests"
        gates.append(
            f"context disagrees: {said} phase {quoted(phase)}, "
            f"and this happens in {', '.join(reference.phases)}"
        )
    framework = given.get("framework") or inferred.get("framework")
    if framework and _other_engine(reference, framework):
        said = "you said" if "framework" in given else "the text names"
        gates.append(
            f"context disagrees: {said} {quoted(framework)}, "
            f"and this is about {', '.join(reference.frameworks)}"
        )
    return gates


def _phase_fits(reference: Reference, phase: str, exact: bool) -> bool:
    wanted = PHASE_EQUIVALENTS.get(phase.lower(), phase.lower())
    phases = {PHASE_EQUIVALENTS.get(p.lower(), p.lower()) for p in reference.phases}
    if exact or wanted not in ("training", "inference"):
        return wanted in phases
    broad = {p for p in phases if p in ("training", "inference")}
    return not broad or wanted in broad


def _other_engine(reference: Reference, framework: str) -> bool:
    """True when the run names an engine and the reference is about other engines only."""
    wanted = framework_name(framework)
    if wanted not in ENGINES:
        return False
    named = {framework_name(f) for f in reference.frameworks}
    return bool(named & ENGINES) and wanted not in named
