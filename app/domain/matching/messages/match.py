"""Match one pasted message (a line, or a block such as a traceback) against the index: the
entry the services call, and the one place that walks a paste through the rooms in order.

`reading` gives the telling lines, the run's context and the code paths frames pass
through; `index` gives each line's comparison key and the references whose rarer title
words the text holds; per telling line, `search` compares only the message lines that can
change the answer (asking the `Scorer`, as its `ScoreBounds`, how far a similarity can be
lifted) and `scoring` turns what it compared into references' scores, the best line per
reference counting (a line that is a reference's healthy message is set aside as normal
output); references that only share title words or code paths with the text come in low;
`judging` turns each score into what the answer says (confidence, kind, verdict,
candidates, reasons).
"""

from __future__ import annotations

from ....config import DEFAULT_MATCH_LIMIT
from ....errors import LogTooLarge
from ..index.match_index import MatchIndex
from ..index.pieces import comparison_key
from ..judging.judge import Judge, healthy_line
from ..reading.context import NO_FIELDS, QueryContext, RunContext, infer_context
from ..reading.evidence import code_path_hits, line_level
from ..reading.lines import count_lines, query_lines
from ..reading.tokens import informative, keyword_stems
from ..results import Match, MatchResult
from ..scoring.scorer import MIN_REPORT_SCORE, Scored, Scorer
from ..search.bounded import PasteBar, search_line
from ..search.budgeted import score_line
from ..search.compare import LineScore, LineScores
from .leads import with_leads
from .pages import FUSED_DEPTH, with_pages
from .warning_lines import with_healthy_first

# A single-message paste beyond these is a log: use scan_log.
MAX_MATCH_CHARS = 2 * 1024 * 1024


MAX_MATCH_LINES = 2_000


# A keyword held by more than this share of references, or by more than this many, does
# not nominate candidates: it says too little, and scoring hundreds of references on
# keywords alone would cost more than the message search.
KEYWORD_CANDIDATE_SHARE = 0.20


KEYWORD_CANDIDATE_MAX = 32


def match_text(
    index: MatchIndex,
    text: str,
    context: RunContext | None = None,
    limit: int = DEFAULT_MATCH_LIMIT,
    exhaustive: bool = False,
) -> MatchResult:
    """Rank references for a pasted message (one line or a block such as a traceback).

    Lines that are healthy output are set aside (`healthy_lines`); every other telling
    line is scored and the best line per reference counts, comparing only the message
    lines that can change the answer (`bounded`); `exhaustive` compares every one, for
    benchmarks and tests to compare the two.
    """
    line_count = count_lines(text)
    if len(text) > MAX_MATCH_CHARS or line_count > MAX_MATCH_LINES:
        raise LogTooLarge(
            f"{len(text)} characters in {line_count} lines is over the limit for one message "
            f"({MAX_MATCH_CHARS} characters, {MAX_MATCH_LINES} lines); scan it as a log instead"
        )
    inferred = infer_context(text) if text.strip() else NO_FIELDS
    query = QueryContext.of(context, inferred)
    echo = {
        "inferred_context": inferred.shown(),
        "context_read": query.given.shown(),
        "context_ignored": list(query.ignored),
    }
    lines = query_lines(text)
    normalized_text = "\n".join(normalized for _, _, normalized in lines)
    if not lines or limit <= 0:
        _, lookups, lead = with_leads(index, text, [])
        return MatchResult(
            normalized=normalized_text, matches=[], lookups=lookups, lead=lead, **echo
        )
    # The page text and the warnings reorder the first FUSED_DEPTH matches: worked out to
    # that depth whatever `limit` is, so that the first answer never depends on how many
    # are asked for.
    depth = max(limit, FUSED_DEPTH)
    code_paths = code_path_hits(text, index.code_paths)
    keys = [comparison_key(normalized) for _, _, normalized in lines]
    stems = keyword_stems({token for key in keys for token in informative(key.split())})
    others = keyword_candidates(index, stems) | code_paths.keys()
    scorer = Scorer(index, stems, query, code_paths)
    best: dict[int, Scored] = {}
    claimed: list[tuple[str, LineScore]] = []
    neighbours: list[tuple[int, LineScores]] = []
    bar = PasteBar(scorer, depth, MIN_REPORT_SCORE, best)
    said: set[str] = set()  # the informative tokens of the lines not set aside as healthy
    # The best `depth` over all lines are among the best `depth` of some line.
    for (span, raw, _), key in zip(lines, keys, strict=True):
        scores = (
            score_line(index, key, exhaustive=True) if exhaustive else search_line(index, key, bar)
        )
        healthy = scores.claimed_healthy()
        if healthy is not None:
            claimed.append((raw, healthy))
            continue
        said.update(informative(key.split()))
        number = text.count("\n", 0, span[0]) + 1
        neighbours.append((number, scores))
        level = line_level(raw)
        for scored in scorer.ranked(scores, depth, MIN_REPORT_SCORE):
            ref = scored.line.ref if scored.line is not None else -1
            if ref >= 0 and (ref not in best or scored.raw > best[ref].raw):
                best[ref] = Scored(scored.raw, scored.line, span, level, number)
    best.update(scorer.without_a_line(others - best.keys(), best, depth, MIN_REPORT_SCORE))
    ranked = sorted(best.items(), key=lambda item: (-item[1].raw, item[0]))[:depth]
    judge = Judge(index, scorer, text, neighbours, ranked)
    matches = [judge.match(ref, scored) for ref, scored in ranked]
    printed = printed_by_their_code(index, text, code_paths, matches)
    matches.sort(key=lambda m: (not m.confident, m.id not in printed, -m.score))
    matches = with_pages(index, judge, scorer, keyword_stems(said), matches)
    setting_aside = {line.ref for _, line in claimed}
    matches = with_healthy_first(index, judge, scorer, text, matches, setting_aside)[:limit]
    matches, lookups, lead = with_leads(index, text, matches)
    return MatchResult(
        normalized=normalized_text,
        matches=matches,
        lookups=lookups,
        lead=lead,
        healthy_lines=[healthy_line(index, raw, line) for raw, line in claimed],
        **echo,
    )


def printed_by_their_code(
    index: MatchIndex, text: str, code_paths: dict[int, str], matches: list[Match]
) -> set[str]:
    """Ids of the matches whose line names a code path of theirs: the file that printed a
    line (`Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid
    argument'`) is its most telling word, yet masked as `<path>` it never reaches a message
    comparison. Between confident matches it decides; a path in another line of the paste
    (a traceback frame) does not."""
    printed: set[str] = set()
    for match in matches:
        ref = index.position(match.id)
        path = code_paths.get(ref) if ref is not None else None
        if path is None or match.matched_span is None:
            continue
        start, end = match.matched_span
        if path in text[start:end].replace("\\", "/").lower():
            printed.add(match.id)
    return printed


def keyword_candidates(index: MatchIndex, stems: set[str]) -> set[int]:
    """References whose title, tags or summary hold one of the query's rarer words."""
    limit = min(KEYWORD_CANDIDATE_MAX, max(1, int(len(index.references) * KEYWORD_CANDIDATE_SHARE)))
    found: set[int] = set()
    for token in stems:
        refs = index.keyword_postings.get(token)
        if refs is not None and len(refs) <= limit:
            found.update(refs)
    return found
