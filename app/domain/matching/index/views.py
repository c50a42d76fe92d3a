"""The parts of the match index worked out where a query reads them, each from what an
update keeps current: a token's IDF from how many lines hold it, a line's weights and mass
from its tokens, a token's lines and a stem's references from the references holding them.

A save that adds a line changes the number of lines, and with it every IDF and every
line's weights: computed on demand (once per index, then remembered), an update touches
only what the changed reference holds. Each view equals, value for value, the table a
full build used to store."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import Generic, TypeVar, cast, overload

import numpy as np
from numpy.typing import NDArray

from ..reading.tokens import set_chars
from .tables import ReferencePieces

T = TypeVar("T")
R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")


class _Keyed(Mapping[str, V]):
    """A view with the keys of the table it reads, each value worked out on first
    reading and remembered."""

    def __init__(self, keys: Mapping[str, object]) -> None:
        self._keys = keys
        self._memo: dict[str, V] = {}

    @abstractmethod
    def _work_out(self, key: str) -> V:
        """The value of `key` (KeyError when the table does not hold it)."""

    def __getitem__(self, key: str) -> V:
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._work_out(key)
        return found

    @overload  # type: ignore[override]
    def get(self, key: str) -> V | None: ...
    @overload
    def get(self, key: str, default: V) -> V: ...
    def get(self, key: str, default: V | None = None) -> V | None:
        # Mapping.get goes through __getitem__ and a caught KeyError: a prefilter asks
        # for every token of every query line, most of which no line holds.
        found = self._memo.get(key)
        if found is None:
            if key not in self._keys:
                return default
            found = self._memo[key] = self._work_out(key)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def fill(self) -> Mapping[str, V]:
        """Work out every value now (what a load does before the first query would), and
        return them all as a plain table."""
        if len(self._memo) < len(self._keys):
            keys = [key for key in self._keys if key not in self._memo]
            self._memo.update(zip(keys, map(self._work_out, keys), strict=True))
        return self._memo


class Sizes(_Keyed[int]):
    """How many each key holds, read from a table of holders."""

    def __init__(self, holders: Mapping[str, Collection[str]]) -> None:
        super().__init__(holders)
        self._holders = holders

    def _work_out(self, key: str) -> int:
        return len(self._holders[key])

    __getitem__ = _work_out  # not remembered: a length is as cheap to read again


class InverseFrequency(_Keyed[float]):
    """log(1 + total / how many hold the token), divided by `scale`, for each token held."""

    def __init__(self, counts: Mapping[str, int], total: int, scale: float = 1.0) -> None:
        super().__init__(counts)
        self._counts = counts
        self._total = total
        self._scale = scale

    def _work_out(self, token: str) -> float:
        return math.log(1 + self._total / self._counts[token]) / self._scale


class _PerEntry(Sequence[T]):
    """A value per message line, worked out on first reading and remembered."""

    def __init__(self, size: int) -> None:
        self._memo: list[T | None] = [None] * size

    @abstractmethod
    def _work_out(self, entry: int) -> T:
        """The value of line `entry`."""

    @overload
    def __getitem__(self, entry: int) -> T: ...
    @overload
    def __getitem__(self, entry: slice) -> Sequence[T]: ...
    def __getitem__(self, entry: int | slice) -> T | Sequence[T]:
        if isinstance(entry, slice):
            return [self[number] for number in range(len(self))[entry]]
        found = self._memo[entry]
        if found is None:
            found = self._memo[entry] = self._work_out(entry)
        return found

    def __len__(self) -> int:
        return len(self._memo)

    def values(self) -> list[T]:
        """Every line's value, in line order (all worked out first)."""
        self.fill()
        return cast(list[T], self._memo)  # no None left

    def fill(self) -> None:
        """Work out every line's value now (what a load does before the first query would)."""
        if None in self._memo:
            self._memo = [
                self._work_out(entry) if found is None else found
                for entry, found in enumerate(self._memo)
            ]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class PerReference(_PerEntry[T], Generic[R, T]):
    """A value per reference, worked out from it on first reading and remembered (what
    only the references a query answers with need)."""

    def __init__(self, references: Sequence[R], work_out: Callable[[R], T]) -> None:
        super().__init__(len(references))
        self._references: Sequence[R] = references
        self._of: Callable[[R], T] = work_out

    def _work_out(self, entry: int) -> T:
        return self._of(self._references[entry])


class _PerLine(_PerEntry[T]):
    """A value per message line, worked out from its tokens on first reading."""

    def __init__(self, token_sets: tuple[frozenset[str], ...], idf: Mapping[str, float]) -> None:
        super().__init__(len(token_sets))
        self.token_sets = token_sets
        self._idf = idf

    def _work_out(self, entry: int) -> T:
        return self._of(self.token_sets[entry])

    @abstractmethod
    def _of(self, tokens: frozenset[str]) -> T:
        """The value of a line holding these tokens."""


class LineWeights(_PerLine[Mapping[str, float]]):
    """Each message line's informative tokens with their IDF."""

    def _of(self, tokens: frozenset[str]) -> Mapping[str, float]:
        return MappingProxyType({token: self._idf[token] for token in tokens})


class LineMasses(_PerLine[float]):
    """Each message line's IDF mass: the sum of its tokens' IDF."""

    def _of(self, tokens: frozenset[str]) -> float:
        return sum(self._idf[token] for token in tokens)

    def fill(self) -> None:
        # Read from the IDF as one plain table: the same floats summed in the same order.
        idf = self._idf.fill() if isinstance(self._idf, _Keyed) else self._idf
        weight = idf.__getitem__
        self._memo = [
            sum(map(weight, tokens)) if found is None else found
            for tokens, found in zip(self.token_sets, self._memo, strict=True)
        ]


class LineChars(_PerEntry[tuple[int, int]]):
    """Each message line's distinct tokens as `token_set_ratio` measures them: their
    characters and one separator each, of all of them and of those not informative
    (`search.bounded.ratio_bound`)."""

    def __init__(self, keys: tuple[str, ...], token_sets: tuple[frozenset[str], ...]) -> None:
        super().__init__(len(keys))
        self._keys = keys
        self._token_sets = token_sets  # each line's informative tokens

    def _work_out(self, entry: int) -> tuple[int, int]:
        return set_chars(self._keys[entry], self._token_sets[entry])


class _Numbered(_Keyed[frozenset[int]]):
    """A view whose values are sets of index numbers, each also kept as an array (for
    sums over thousands of them at once, `np.bincount`)."""

    def __init__(self, keys: Mapping[str, object]) -> None:
        super().__init__(keys)
        self._arrays: dict[str, NDArray[np.intp]] = {}

    def array(self, key: str) -> NDArray[np.intp]:
        """The numbers of `key`, in the order its set iterates (KeyError when the table
        does not hold `key`)."""
        found = self._arrays.get(key)
        if found is None:
            numbers = self[key]
            found = self._arrays[key] = np.fromiter(numbers, dtype=np.intp, count=len(numbers))
        return found

    def fill_arrays(self) -> None:
        """Every key's array, now (`fill` first)."""
        self.fill()
        for key in list(self._keys):
            self.array(key)


class LinePostings(_Numbered):
    """Each token's message lines, by index number, from the references holding it."""

    def __init__(
        self,
        holders: Mapping[str, frozenset[str]],
        pieces: Mapping[str, ReferencePieces],
        positions: Mapping[str, int],
        starts: Sequence[int],
    ) -> None:
        super().__init__(holders)
        self._holders = holders
        self._pieces = pieces
        self._positions = positions
        self._starts = starts  # each reference's first line, by index number

    def _work_out(self, token: str) -> frozenset[int]:
        # Filed in line order, as `fill` files them: the same set iterates the same way
        # (the order a query's shared masses are summed and its ties are walked in).
        return frozenset(
            sorted(
                self._starts[self._positions[holder]] + line
                for holder in self._holders[token]
                for line in self._pieces[holder].lines_holding(token)
            )
        )

    def fill_from(self, token_sets: Sequence[frozenset[str]]) -> None:
        """Work out every token's lines now, in one pass over the index's lines (their
        informative tokens, in index order: the lines these postings number)."""
        lines: dict[str, list[int]] = {token: [] for token in self._holders}
        for entry, tokens in enumerate(token_sets):
            for held in map(lines.__getitem__, tokens):
                held.append(entry)
        known = self._memo  # what a query already worked out stays the very same set
        known.update((t, frozenset(found)) for t, found in lines.items() if t not in known)


class Owners(_Numbered):
    """Each key's references, by index number, from their ids."""

    def __init__(self, holders: Mapping[str, frozenset[str]], positions: Mapping[str, int]):
        super().__init__(holders)
        self._holders = holders
        self._positions = positions

    def _work_out(self, key: str) -> frozenset[int]:
        return frozenset(map(self._positions.__getitem__, self._holders[key]))


class LineArrays:
    """The index's lines as arrays, for bounds over thousands of lines at once: each
    line's reference (by index number), whether it is a healthy line, its IDF mass, and
    its distinct tokens' characters (all of them, and those not informative: `LineChars`);
    each built whole on first reading."""

    def __init__(
        self, refs: Sequence[int], kinds: Sequence[str], masses: LineMasses, chars: LineChars
    ) -> None:
        self._refs, self._kinds, self._masses, self._chars = refs, kinds, masses, chars

    @cached_property
    def refs(self) -> NDArray[np.intp]:
        return np.array(self._refs, dtype=np.intp)

    @cached_property
    def healthy(self) -> NDArray[np.bool_]:
        return np.array([kind == "healthy" for kind in self._kinds], dtype=np.bool_)

    @cached_property
    def masses(self) -> NDArray[np.float64]:
        return np.array(self._masses.values(), dtype=np.float64)

    @cached_property
    def chars(self) -> NDArray[np.intp]:
        """One row per line: its distinct tokens' characters, and those not informative."""
        return np.array(self._chars.values(), dtype=np.intp).reshape(-1, 2)

    def fill(self) -> None:
        """Build every array now."""
        _ = (self.refs, self.healthy, self.masses, self.chars)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LineArrays) and all(
            np.array_equal(mine, theirs)
            for mine, theirs in zip(
                (self.refs, self.healthy, self.masses, self.chars),
                (other.refs, other.healthy, other.masses, other.chars),
                strict=True,
            )
        )

    __hash__ = None  # type: ignore[assignment]


class Computed(Mapping[K, V]):
    """A table worked out whole on first reading (what only some queries read)."""

    def __init__(self, work_out: Callable[[], Mapping[K, V]]) -> None:
        self._work_out = work_out
        self._found: Mapping[K, V] | None = None

    def _table(self) -> Mapping[K, V]:
        if self._found is None:
            self._found = self._work_out()
        return self._found

    def __getitem__(self, key: K) -> V:
        return self._table()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())
