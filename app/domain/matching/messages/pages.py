"""When no message answers a paste with confidence, its pages' whole text has a say in the
order. A line the writers never saw often shares few words with any message line, while
its page names them elsewhere (another engine's form of the message, where it was seen, a
cause, a thread's title among the sources). The pages whose words best hold the paste's
(`index.page_words`, BM25) and the references the messages ranked are merged by
reciprocal rank: a page both rank high comes first, one only the page text finds joins
the list as a lead. The pages a traceback frame or log prefix passes through (their code
paths) are a third ranking. A confident answer is never reordered, and the page text never makes
a match confident: it finds where to look, the message and the checks confirm."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..index.match_index import MatchIndex
from ..judging.judge import Judge
from ..results import Match
from ..scoring.scorer import Scored, Scorer

# Reciprocal rank fusion: a reference at rank r (from 0) of a list gains 1 / (RRF_K + r).
# A small constant lets the first places of either list count for much more than the last.
RRF_K = 3
# How many of each list take part.
FUSED_DEPTH = 5


def with_pages(
    index: MatchIndex,
    judge: Judge,
    scorer: Scorer,
    stems: Iterable[str],
    matches: list[Match],
) -> list[Match]:
    """The matches in the order the messages and the page text agree on, with the pages
    only the text found added (each saying which of the paste's words its page holds);
    as they are when one is confident."""
    if any(match.confident for match in matches):
        return matches
    words = list(stems)
    pages = [
        index.references[position].id for position, _ in index.page_words.ranked(words, FUSED_DEPTH)
    ]
    if not pages:
        return matches
    found = {match.id: match for match in matches}
    # A frame or log prefix through a page's code path names where the failure was raised:
    # a ranking of its own, so that words alone do not push such a page down.
    through = [m.id for m in matches if index.positions[m.id] in scorer.code_paths]
    order = fused([match.id for match in matches[:FUSED_DEPTH]], pages, through)
    for ref_id in order:
        if ref_id not in found:
            found[ref_id] = _page_match(index, judge, scorer, ref_id, words)
    rest = [match.id for match in matches[FUSED_DEPTH:] if match.id not in order]
    return [found[ref_id] for ref_id in [*order, *rest]][: max(len(matches), FUSED_DEPTH)]


def fused(*rankings: Sequence[str]) -> list[str]:
    """Ids ordered by their summed reciprocal ranks; ties keep the first list's order."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, ref_id in enumerate(ranking):
            score[ref_id] = score.get(ref_id, 0.0) + 1 / (RRF_K + rank)
    return sorted(score, key=lambda ref_id: -score[ref_id])


def _page_match(
    index: MatchIndex, judge: Judge, scorer: Scorer, ref_id: str, words: list[str]
) -> Match:
    """A reference no message of which resembles the paste, found by its page's words."""
    position = index.positions[ref_id]
    match = judge.match(position, Scored(scorer.raw(position, 0.0), None))
    named = ", ".join(index.page_words.shared(ref_id, words))
    reason = f"its page (other messages, where they were seen, causes, sources) names {named}"
    return match.model_copy(update={"reasons": [*match.reasons, reason]})
