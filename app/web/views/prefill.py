"""The calculator a result opens with numbers from the paste: the first matched reference
whose calculator reads a number of the text (the paste matched that page, and the numbers
are its own: Megatron's straggler report, nccl-tests' bandwidth), or else one of the
candidate causes the paste points to most, of a matched symptom, whose calculator reads
enough of the text to be about it: two inputs read, or one read and one it asks the
reader for. A candidate's calculator that reads one number of many (the checkpoint-stall
calculator reading a watchdog's timeout, the activation calculator a GPU's capacity)
describes its worked example, not the paste, and stays closed. Only what the paste prints
is filled, each input marked with its line; the rest keeps the reference's worked example,
and an input the read values need but the paste cannot give (the healthy bandwidth beside
nccl-tests' degraded one) asks for the reader's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ...domain.calculators import get_calculator
from ...domain.catalog import Catalog
from ...domain.matching.results import CandidateMatch
from ...services.outcome import Outcome
from .calculator_panel import CalculatorPanel, build_panel, preset_inputs

# Of a symptom's candidates, ranked for the paste, the calculators of the first this many
# may open: the less likely ones are not what the paste points to.
PREFILL_CANDIDATES = 2
# Inputs a candidate's calculator must take from the paste, or ask of the reader because
# of what it read, to open pre-filled: one number beside the worked example's others
# describes the example, not the paste.
MIN_INPUTS_READ = 2


@dataclass(frozen=True, slots=True)
class PrefilledCalculator:
    """A reference's calculator panel with the inputs read from a paste filled in."""

    reference_id: str
    reference_title: str
    panel: CalculatorPanel
    candidate_of: str | None = None

    @property
    def filled(self) -> int:
        return sum(field.from_line is not None for field in self.panel.fields)


def prefilled_calculator(
    catalog: Catalog, outcome: Outcome, text: str
) -> PrefilledCalculator | None:
    """The panel of the first reference of `outcome` whose calculator reads `text`."""
    for reference_id, symptom_id in _references_in_order(outcome):
        reference = catalog.references.get(reference_id)
        if reference is None or reference.calculator is None:
            continue
        calculator = get_calculator(reference.calculator.name)
        found = calculator.read_inputs(text)
        asked = calculator.asked_inputs(found)
        enough = MIN_INPUTS_READ if symptom_id else 1
        if not found or len(found.keys() | asked.keys()) < enough:
            continue
        preset = preset_inputs(calculator, reference.calculator.inputs)
        preset.update({name: item.value for name, item in found.items()})
        lines = {name: item.line for name, item in found.items()}
        panel = build_panel(calculator, preset, {}, lines, asked)
        symptom = catalog.references.get(symptom_id) if symptom_id else None
        via = symptom.title if symptom is not None else None
        return PrefilledCalculator(reference.id, reference.title, panel, via)
    return None


def _references_in_order(outcome: Outcome) -> Iterator[tuple[str, str | None]]:
    """Confident matches and diagnostic lines read (nccl-tests' summary, vLLM's start-up
    figures: right references even when their values read healthy) in rank order, each
    followed by its first PREFILL_CANDIDATES candidate causes as ranked for the paste (with
    the id of the match they are candidates of)."""
    seen: set[str] = set()
    hits: list[tuple[str, list[CandidateMatch]]] = []
    if outcome.scan is not None:
        hits = [(h.id, h.candidates) for h in outcome.scan.hits if h.confident or h.verdict]
    else:
        matches = [card.match for card in outcome.cards]
        hits = [(m.id, m.candidates) for m in matches if m.confident or m.verdict]
    for reference_id, candidates in hits:
        pointed = [c.id for c in candidates[:PREFILL_CANDIDATES] if c.id]
        for found in (reference_id, *pointed):
            if found not in seen:
                seen.add(found)
                yield found, (reference_id if found != reference_id else None)
