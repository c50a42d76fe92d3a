"""Many lines normalised at once: `normalize_line`'s rules run over the lines joined into
one text, a handful of regular-expression passes in all rather than a dozen per line.

Each pass is derived from the rule it stands for, never spelled again: the pattern text
is the same with `\\s` narrowed to white space other than a newline (so no match crosses
from one line into the next), and the prefix rules become one alternation anchored at
each line start that tries them in their order, as `strip_prefixes` does. A pattern this
derivation cannot keep inside one line (`\\W`, `\\S`, `\\D`, `\\s` in a character class,
or an anchor) raises at import, so a new rule cannot silently change the output here.
Lines over MAX_LINE_CHARS and lines with a carriage return take the per-line steps for
those two rules first, as `normalize_line` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, count, repeat
from operator import contains

from . import normalize as rules

# White space inside one line: what `\s` and `str.isspace` match, less the newline.
_BLANK = r"[^\S\n]"
# Escapes that would match a newline and cannot be narrowed without changing the rule.
_CROSSING = frozenset("WSDAZ")


def within_lines(pattern: str) -> str:
    """`pattern` with every `\\s` outside a character class made to skip newlines, and
    every negated class made to exclude them; refuses what could still cross a line."""
    out: list[str] = []
    position, in_class, negated = 0, False, False
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            escaped = pattern[position + 1]
            if escaped in _CROSSING or (escaped == "s" and in_class and not negated):
                raise ValueError(f"\\{escaped} in {pattern!r} may match across lines")
            out.append(_BLANK if escaped == "s" and not in_class else char + escaped)
            position += 2
            continue
        if char == "[" and not in_class:
            in_class, negated = True, pattern.startswith("[^", position)
            out.append("[^\\n" if negated else "[")
            position += 2 if negated else 1
            continue
        if char == "]" and in_class:
            in_class = False
        elif not in_class and char in "^$":
            raise ValueError(f"an anchor in {pattern!r} means something else across lines")
        out.append(char)
        position += 1
    return "".join(out)


def _compiled(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(within_lines(pattern.pattern), pattern.flags)


def _prefix_pass(patterns: Sequence[re.Pattern[str]], passes: int) -> re.Pattern[str]:
    """`strip_prefixes` as one pattern: at each line start, leading white space, then up to
    `passes` times the first prefix rule that matches and leaves something of the line
    (each rule's own first match, hence the atomic group), with the white space after it."""
    alternatives = []
    for pattern in patterns:
        flags = "i" if pattern.flags & re.IGNORECASE else ""
        body = within_lines(pattern.pattern)
        alternatives.append(
            f"(?{flags}:(?>{body}))(?=[^\\n])" if flags else f"(?>{body})(?=[^\\n])"
        )
    return re.compile(rf"(?m)^{_BLANK}*(?:(?:{'|'.join(alternatives)}){_BLANK}*){{0,{passes}}}+")


ANSI_RE = _compiled(rules.ANSI_RE)
CONTROL_RE = _compiled(rules.CONTROL_RE)
PREFIX_RE = _prefix_pass(rules.PREFIX_RES, rules.MAX_PREFIX_PASSES)
# Every prefix rule needs a `:` in the line or starts with one of these (after white
# space): a bracket, a digit or placeholder, a separator, or the capital letter of a level,
# a glog severity or a month. A line with neither keeps its head, so it skips the rules.
PREFIX_STARTS = frozenset("[(<|:-IWEFDVCTNJMASO")
# Lines normalised together: enough that a pass's fixed cost vanishes, few enough that
# its scratch copies of the text stay small beside the lines themselves.
BLOCK_LINES = 2_048
# A line a prefix rule could match, found at its start without the `:` test.
PREFIX_START_RE = re.compile(rf"\n(?=[\s\d{re.escape(''.join(sorted(PREFIX_STARTS)))}])")
# A needle in more than one line in this many is looked for line by line, not hit by hit.
WALK_SHARE = 16
# ASCII digits become `0`: one C-level pass tells which lines hold a number at all.
ZERO_DIGITS = str.maketrans("123456789", "000000000")
# ASCII hex digits become `h`: a UUID, a PCI bus id or a hex string shows as a run of `h`.
HEX_DIGITS = str.maketrans("0123456789abcdefABCDEF", "h" * 22)


def _xid_name(found: re.Match[str]) -> str:
    return f"{found.group(1)}{found.group(2)}{found.group(1).lower()}{found.group(3)}"


def fewest(needles: Iterable[str]) -> tuple[str, ...]:
    """The needles that hold no other one (a text holding `.com` holds `.co`)."""
    given = tuple(dict.fromkeys(needles))
    return tuple(n for n in given if not any(o != n and o in n for o in given))


Replacement = str | Callable[[re.Match[str]], str]
# Stands for "any digit": which lines hold one is read once, before any rule (the rules
# only ever remove digits).
ANY_DIGIT = ("0",)


@dataclass(frozen=True, slots=True)
class MaskPass:
    """A mask as a whole-text pass: it runs on the lines holding one of `needles` and, when
    there are `view_needles`, whose text (translated by `view`, when given) also holds one
    of those. Every match of the pattern holds both, so a line lacking either cannot match;
    the first needles are cheap to find in a long text, the others cut the lines found."""

    pattern: re.Pattern[str]
    replacement: Replacement
    needles: tuple[str, ...]
    view_needles: tuple[str, ...] = ()
    view: dict[int, int] | None = None
    runs: re.Pattern[str] | None = None  # see `runs_holding`


def runs_holding(needles: tuple[str, ...]) -> re.Pattern[str]:
    """The runs of non-white-space characters holding one of some one-character needles.
    A mask none of whose matches holds white space, and each holds a needle, can run on
    these runs alone, one at a time: a run starts after white space (which no lookbehind or
    `\\b` of the mask tells from the start of a text) and every match lies inside one. Used
    for paths, whose lookbehinds and alternatives cost ~150 ns a character: most of a line
    holding a `/` is words without one."""
    if any(len(needle) != 1 for needle in needles):
        raise ValueError(f"runs are found by one-character needles, not {needles!r}")
    held = re.escape("".join(needles))
    return re.compile(rf"(?<!\S)[^\s{held}]*+[{held}]\S*")


# The masks, in MASKS order.
MASK_PASSES = (
    MaskPass(_compiled(rules.XID_RE), _xid_name, ("Xid",)),
    MaskPass(_compiled(rules.URL_RE), "<url>", ("://",)),
    MaskPass(_compiled(rules.UUID_RE), "<uuid>", ("-",), ("hhhhhhhh-hhhh-hhhh-hhhh-",), HEX_DIGITS),
    MaskPass(_compiled(rules.IP_RE), "<ip>", ANY_DIGIT, ("0.0",), ZERO_DIGITS),
    MaskPass(_compiled(rules.PATH_RE), "<path>", ("/", "\\"), runs=runs_holding(("/", "\\"))),
    MaskPass(
        _compiled(rules.HOST_RE),
        "<host>",
        (".", "localhost"),
        fewest([*(f".{suffix}" for suffix in rules.HOST_SUFFIXES), "localhost"]),
    ),
    MaskPass(_compiled(rules.PCI_RE), "<hex>", (":",), ("hhhh:hh:hh",), HEX_DIGITS),
    MaskPass(_compiled(rules.HEX_RE), "<hex>", ANY_DIGIT, ("hxh", "hXh", "hhhhhhhh"), HEX_DIGITS),
    MaskPass(_compiled(rules.DIMENSIONS_RE), "<shape>", ANY_DIGIT, ("0x0",), ZERO_DIGITS),
    MaskPass(_compiled(rules.EMPTY_SHAPE_RE), "empty", ("[0]",)),
    MaskPass(_compiled(rules.NUMBER_RE), "<n>", ANY_DIGIT),
    MaskPass(_compiled(rules.SHAPE_RE), "<shape>", ("<n>",)),
)


def normalize_lines(lines: Sequence[str]) -> list[str]:
    """`[normalize_line(line) for line in lines]`, computed in whole-text passes over blocks
    of BLOCK_LINES lines (so a long paste costs a block's worth of scratch memory)."""
    normalized: list[str] = []
    for start in range(0, len(lines), BLOCK_LINES):
        normalized.extend(_normalize_block(lines[start : start + BLOCK_LINES]))
    return normalized


def _normalize_block(lines: Sequence[str]) -> list[str]:
    text = "\n".join(lines)
    if text.count("\n") != len(lines) - 1:  # a line holds a newline itself
        return [rules.normalize_line(line) for line in lines]
    if max(map(len, lines)) > rules.MAX_LINE_CHARS:
        text = "\n".join(rules.truncate(line) for line in lines)
    if "\r" in text:
        text = "\n".join(rules.keep_last_carriage_segment(line) for line in text.split("\n"))
    if "\x1b" in text:
        text = ANSI_RE.sub("", text)
    if "\ufffd" in text or not text.isascii() or _has_ascii_control(text):
        text = CONTROL_RE.sub(" ", text)
    work = text.split("\n")
    # Lines not ASCII go through every rule (`\d` and `\w` reach past the ASCII needles);
    # which lines hold a digit is read before any rule, as the rules only remove digits.
    foreign = [] if text.isascii() else [n for n, line in enumerate(work) if not line.isascii()]
    with_digits = lines_holding(text.translate(ZERO_DIGITS), ANY_DIGIT, foreign)
    del text
    _strip_prefixes(work, foreign)
    for mask in MASK_PASSES:
        if mask.needles == ANY_DIGIT:
            picked = with_digits
        else:
            picked = _holding(work, "\n".join(work), mask.needles, foreign)
        if mask.view_needles and picked:
            picked = _in_view(work, picked, mask.view, mask.view_needles, foreign)
        _substitute(work, picked, mask)
    _strip_prefixes(work, foreign)
    return spaces_tidied(work)


# The ASCII characters `str.split()` cuts at, besides the space and the newline.
_OTHER_ASCII_SPACES = "\t\r\x0b\x0c\x1c\x1d\x1e\x1f"


def spaces_tidied(lines: list[str]) -> list[str]:
    """`[" ".join(line.split()) for line in lines]`: over the lines joined, at C speed,
    when the space is the only white space in them (ASCII, no tab): runs of spaces
    halved until single, then those at a line's ends dropped."""
    text = "\n".join(lines)
    if not lines or not text.isascii() or any(map(text.__contains__, _OTHER_ASCII_SPACES)):
        return [" ".join(line.split()) for line in lines]
    while "  " in text:
        text = text.replace("  ", " ")
    return text.replace("\n ", "\n").replace(" \n", "\n").strip(" ").split("\n")


def _in_view(
    lines: list[str],
    picked: list[int],
    view: dict[int, int] | None,
    needles: tuple[str, ...],
    foreign: list[int],
) -> list[int]:
    """The picked lines whose text, translated by `view` when given, holds one of
    `needles`, and the foreign ones (the views map ASCII characters alone; `\\d` reaches
    further)."""
    text = "\n".join([lines[n] for n in picked])
    if view is not None:
        text = text.translate(view)
    found = list(map(picked.__getitem__, _holding(text.split("\n"), text, needles, [])))
    return sorted(set(found).union(foreign)) if foreign else found


def _holding(
    lines: list[str], text: str, needles: tuple[str, ...], foreign: list[int]
) -> list[int]:
    """`lines_holding(text, needles, foreign)`, `text` being `lines` joined. Each needle
    apart: one in many lines is looked for with one `in` per line at C speed, which beats
    walking from hit to hit; a rare one is walked to (a host's dozen suffixes, each in a few
    lines, cost a dozen `in` per line taken together)."""
    present = [needle for needle in needles if text.find(needle) != -1]  # `find` stops early
    hits = [
        _line_positions(text, _first_per_line(text, needle))
        if text.count(needle) * WALK_SHARE < len(lines)
        else compress(count(), map(contains, lines, repeat(needle)))
        for needle in present
    ]
    if len(hits) == 1 and not foreign:
        return list(hits[0])  # in order already
    return sorted(set(foreign).union(*hits))


def _has_ascii_control(text: str) -> bool:
    """Whether an ASCII text holds a character CONTROL_RE replaces (C-level, no regex)."""
    ascii_text = text.encode("ascii")
    return len(ascii_text.translate(None, _ASCII_CONTROL)) != len(ascii_text)


_ASCII_CONTROL = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


def lines_holding(text: str, needles: tuple[str, ...], foreign: list[int]) -> list[int]:
    """Positions of the lines of `text` holding any of `needles`, and the `foreign` ones:
    found with `str.find` (one per line that holds a needle), not a test per line."""
    found = set(foreign)
    for needle in needles:
        found.update(_line_positions(text, _first_per_line(text, needle)))
    return sorted(found)


def _first_per_line(text: str, needle: str) -> Iterator[int]:
    """Where `needle` first occurs in each line holding it."""
    position = text.find(needle)
    while position != -1:
        yield position
        end = text.find("\n", position)
        if end == -1:
            return
        position = text.find(needle, end + 1)


def _line_positions(text: str, offsets: Iterable[int]) -> Iterator[int]:
    """The 0-based line of each of some ascending offsets into `text`."""
    line, counted = 0, 0
    for offset in offsets:
        line += text.count("\n", counted, offset)
        counted = offset
        yield line


def _strip_prefixes(lines: list[str], foreign: list[int]) -> None:
    """`strip_prefixes` on every line, run only on the lines a prefix rule could match
    (on every line when most hold a `:`: the others' match ends where it starts)."""
    text = "\n".join(lines)
    colons = _holding(lines, text, (":",), foreign)
    if len(colons) * WALK_SHARE < len(lines):
        # In the text behind one more newline, the newline before each line counts its lines.
        behind = "\n" + text
        starts = (found.start() for found in PREFIX_START_RE.finditer(behind))
        picked: Iterable[int] = set(_line_positions(behind, starts)).union(colons)
    else:
        picked = range(len(lines))
    # Matched at each picked line's start, line by line: over the lines joined, `(?m)^`
    # would be tried at every character.
    head = PREFIX_RE.match
    for n in picked:
        line = lines[n]
        found = head(line)
        if found is not None and found.end():
            lines[n] = line[found.end() :]


def prefix_length(line: str) -> int:
    """How many characters `strip_prefixes` takes off the head of a line holding no
    newline: one match of the prefix pass, against a few per rule and pass."""
    found = PREFIX_RE.match(line)
    return 0 if found is None else found.end()


def _substitute(lines: list[str], picked: Sequence[int], mask: MaskPass) -> None:
    """Apply the mask to the picked lines in one pass over them joined (or over its runs)."""
    if not picked:
        return
    joined = "\n".join([lines[n] for n in picked])
    if mask.runs is None:
        changed = mask.pattern.sub(mask.replacement, joined)
    else:
        sub, replacement = mask.pattern.sub, mask.replacement
        changed = mask.runs.sub(lambda run: sub(replacement, run.group()), joined)
    if changed is joined:  # nothing matched: `sub` hands the same text back
        return
    for n, line in zip(picked, changed.split("\n"), strict=True):
        lines[n] = line
