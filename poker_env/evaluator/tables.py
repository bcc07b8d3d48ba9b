"""Lookup tables of the hand evaluator, built on first use (not at import).

The hand state is additive, as in OMPEval (Henri Lehmuskoski's C++ evaluator):
every card has two 64-bit keys, and a hand's state is the sum of its cards'
keys, so a partial hand (hole cards, a board) is summed once and reused.

- ``card_keys[c]``: low 32 bits, a rank key chosen so that the sum over any
  multiset of up to seven ranks (at most four of each) is unique; bits 48-63,
  one 4-bit counter per suit.
- ``card_masks[c]``: bit ``16 * suit + rank``; per suit a 13-bit rank mask.

Evaluation: if some suit counter reached 5 (bit 3 of its nibble after adding 3,
checked by one AND), the 13-bit mask of that suit indexes ``flush_table`` (8 K
entries). Otherwise the rank-key sum goes through a perfect hash (a row offset
per 4096-wide row) into ``rank_table``. A flush hand can never also hold a full
house or quads in at most seven cards (five suited cards leave at most two more),
so the flush branch is always the best hand.

Rank values: ``order << 16 | category << 12 | index``; ``category`` is 0 (high
card) .. 8 (straight flush), ``order`` is the category's place in the ranking in
force (equal to the category, except that ``flush_beats_full_house`` swaps
flush and full house), ``index`` orders hands inside the category. So values
compare as hands do, are equal exactly for ties, and carry their category.
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.cards import NUM_RANKS, SHORT_DECK_MIN_RANK

__all__ = [
    "CATEGORY_NAMES",
    "RANK_KEYS",
    "BatchTables",
    "EvalTables",
    "RankHash",
    "batch_tables",
    "best_signature",
    "build_tables",
    "straight_top",
]

# Rank keys with unique sums over every multiset of <= 7 ranks with <= 4 of a rank
# (OMPEval's constants; tests/evaluator checks the uniqueness directly).
RANK_KEYS = np.array(
    [0x2000, 0x8001, 0x11000, 0x3A000, 0x91000, 0x176005, 0x366000,
     0x41A013, 0x47802E, 0x479068, 0x48C0E4, 0x48F211, 0x494493],
    dtype=np.uint64,
)  # fmt: skip
SUIT_SHIFT = 48
ROW_SHIFT = 12
COL_MASK = (1 << ROW_SHIFT) - 1

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = (
    "High Card",
    "Pair",
    "Two Pair",
    "Three of a Kind",
    "Straight",
    "Flush",
    "Full House",
    "Four of a Kind",
    "Straight Flush",
)

Signature = tuple[int, tuple[int, ...]]


class EvalTables(NamedTuple):
    """The arrays a compiled kernel needs; pass the whole tuple into ``eval_cards``."""

    card_keys: NDArray[np.uint64]  # (52,) additive rank key + suit counters
    card_masks: NDArray[np.uint64]  # (52,) bit 16*suit + rank
    row_offsets: NDArray[np.uint32]  # perfect-hash row offsets (unsigned: no negative-index checks)
    rank_table: NDArray[np.int32]  # non-flush hands by hashed rank-key sum
    flush_table: NDArray[np.int32]  # (8192,) flush hands by 13-bit rank mask
    deck_min_card: int  # lowest card index in the deck (0, or 20 for the 32-card deck)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # The tables of build_tables(...) pickle, and deep-copy, as that call: a copy
        # of an env (pickle, deepcopy) then shares the process's one set (about 400 KB,
        # read-only) instead of carrying its own. Tables made otherwise: their arrays.
        with _lock:
            made = list(_memo.items())
        for (short, flush_beats_full_house), tables in made:
            if tables is self:
                return build_tables, ("short" if short else "standard", flush_beats_full_house)
        return EvalTables, tuple(self)


class RankHash(NamedTuple):
    """One hash of the batch kernels: row offsets, rank and flush tables, 16 or 32 bits.

    16 bits: a rank's low 16 bits (``category << 12 | index``) are stored, and its
    ``order`` (bits 16-19) follows from the category: the same, or with ``swap`` (the
    order ``flush_beats_full_house``) flush and full house exchanged. The 7-card rank
    table is then 169 KB instead of 337 KB. 32 bits: ``EvalTables``' own tables.
    """

    row_offsets: NDArray[np.unsignedinteger]  # the perfect hash's row offsets
    rank: NDArray[np.uint16] | NDArray[np.int32]  # non-flush hands (or their low 16 bits)
    flush: NDArray[np.uint16] | NDArray[np.int32]  # flush hands (or their low 16 bits)
    swap: bool  # flush_beats_full_house: order 5 and 6 exchanged (read for 16 bits only)


class BatchTables(NamedTuple):
    """The batch kernels' tables (:func:`batch_tables`): the 5-7 card hash of
    ``EvalTables`` and the smaller five-card hash (:func:`five_card_tables`)."""

    seven: RankHash  # 5, 6 or 7 cards a row
    five: RankHash  # exactly five cards a row: 40 KB of offsets and ranks, not 370 KB

    def for_cards(self, k: int) -> RankHash:
        """The hash for rows of ``k`` cards."""
        return self.five if k == 5 else self.seven


def straight_top(present: set[int], short: bool) -> int | None:
    """Top rank of the best straight in a set of ranks, or None.

    RULES.md §0: the ace plays low too; the lowest straight is A-2-3-4-5
    (five-high) in the 52-card deck and A-7-8-9-T (ten-high) in the 32-card deck.
    """
    low = SHORT_DECK_MIN_RANK if short else 0
    for top in range(12, low + 3, -1):
        if all(r in present for r in range(top - 4, top + 1)):
            return top
    wheel_top = low + 3
    if 12 in present and all(r in present for r in range(low, wheel_top + 1)):
        return wheel_top
    return None


def best_signature(counts: tuple[int, ...] | list[int], short: bool) -> Signature:
    """Best non-flush five-card hand from rank counts (5..7 cards): (category, tiebreak ranks)."""
    desc = [r for r in range(12, -1, -1) if counts[r] > 0]
    quads = [r for r in desc if counts[r] >= 4]
    trips = [r for r in desc if counts[r] >= 3]
    pairs = [r for r in desc if counts[r] >= 2]
    if quads:
        q = quads[0]
        return QUADS, (q, next(r for r in desc if r != q))
    if trips:
        t = trips[0]
        rest = [r for r in pairs if r != t]
        if rest:
            return FULL_HOUSE, (t, rest[0])
    top = straight_top(set(desc), short)
    if top is not None:
        return STRAIGHT, (top,)
    if trips:
        t = trips[0]
        return TRIPS, (t, *[r for r in desc if r != t][:2])
    if len(pairs) >= 2:
        p1, p2 = pairs[0], pairs[1]
        return TWO_PAIR, (p1, p2, next(r for r in desc if r not in (p1, p2)))
    if pairs:
        p = pairs[0]
        return PAIR, (p, *[r for r in desc if r != p][:3])
    return HIGH_CARD, tuple(desc[:5])


def flush_signature(mask: int, short: bool) -> Signature:
    """Best hand among the cards of one suit with >= 5 cards (rank bit mask)."""
    present = {r for r in range(NUM_RANKS) if mask >> r & 1}
    top = straight_top(present, short)
    if top is not None:
        return STRAIGHT_FLUSH, (top,)
    return FLUSH, tuple(sorted(present, reverse=True)[:5])


def _multisets(ranks: list[int], min_cards: int, max_cards: int) -> list[tuple[int, ...]]:
    """Every rank-count vector over ``ranks`` with <= 4 of a rank and min..max cards."""
    out: list[tuple[int, ...]] = []
    counts = [0] * NUM_RANKS

    def rec(i: int, left: int) -> None:
        if i == len(ranks):
            if max_cards - left >= min_cards:
                out.append(tuple(counts))
            return
        for c in range(min(4, left) + 1):
            counts[ranks[i]] = c
            rec(i + 1, left - c)
        counts[ranks[i]] = 0

    rec(0, max_cards)
    return out


@njit(cache=True)
def _place_rows(
    row_order: NDArray[np.int64], starts: NDArray[np.int64], cols: NDArray[np.int64], capacity: int
) -> tuple[NDArray[np.uint32], NDArray[np.bool_]]:
    offsets = np.zeros(starts.size - 1, dtype=np.uint32)
    occupied = np.zeros(capacity, dtype=np.bool_)
    first_free = 0  # every slot below it is taken, so no offset may put a column there
    for row in row_order:
        lo, hi = starts[row], starts[row + 1]
        if hi == lo:
            break
        cmin = cols[lo:hi].min()
        off = max(0, first_free - cmin)
        while True:
            ok = True
            for j in range(lo, hi):
                if occupied[cols[j] + off]:
                    ok = False
                    break
            if ok:
                break
            off += 1
        offsets[row] = off
        for j in range(lo, hi):
            occupied[cols[j] + off] = True
        while occupied[first_free]:
            first_free += 1
    return offsets, occupied


def _perfect_hash(keys: NDArray[np.int64]) -> tuple[NDArray[np.uint32], NDArray[np.bool_]]:
    """Row-displacement perfect hash: slot = (key & COL_MASK) + offset[key >> ROW_SHIFT].

    Rows are placed greedily, fullest first, at the first offset where none of
    their columns collides (Tarjan & Yao's displacement scheme, as in OMPEval).
    """
    rows = keys >> ROW_SHIFT
    order = np.argsort(rows, kind="stable")
    rows_sorted, cols_sorted = rows[order], keys[order] & COL_MASK
    num_rows = int(rows.max()) + 1
    starts = np.searchsorted(rows_sorted, np.arange(num_rows + 1)).astype(np.int64)
    row_order = np.argsort(-np.diff(starts), kind="stable").astype(np.int64)
    offsets: NDArray[np.uint32]
    occupied: NDArray[np.bool_]
    offsets, occupied = _place_rows(
        row_order, starts, cols_sorted.astype(np.int64), len(keys) * 4 + (2 << ROW_SHIFT)
    )
    return offsets, occupied


def _value(order: int, category: int, index: int) -> int:
    return order << 16 | category << 12 | index


def _build(short: bool, flush_beats_full_house: bool) -> EvalTables:
    ranks = list(range(SHORT_DECK_MIN_RANK if short else 0, NUM_RANKS))
    flush_masks = [
        m
        for m in range(1 << NUM_RANKS)
        if bin(m).count("1") >= 5 and m >> ranks[0] << ranks[0] == m
    ]
    index = _signature_index()[0]
    order = list(range(9))
    if flush_beats_full_house:
        order[FLUSH], order[FULL_HOUSE] = FULL_HOUSE, FLUSH

    def value(sig: Signature) -> int:
        return _value(order[sig[0]], sig[0], index[sig])

    multisets = _multisets(ranks, 5, 7)
    counts = np.array(multisets, dtype=np.int64)
    keys = counts @ RANK_KEYS.astype(np.int64)
    offsets, occupied = _perfect_hash(keys)
    size = int(np.flatnonzero(occupied).max()) + 1
    # Pad so that any key below 2**25 hashes inside the table (no out-of-bounds read).
    rank_table = np.zeros(max(size, int(offsets.max()) + (1 << ROW_SHIFT)), dtype=np.int32)
    slots = (keys & COL_MASK) + offsets[keys >> ROW_SHIFT]
    rank_table[slots] = [value(best_signature(c, short)) for c in multisets]
    flush_table = np.zeros(1 << NUM_RANKS, dtype=np.int32)
    for m in flush_masks:
        flush_table[m] = value(flush_signature(m, short))
    # Five-card hands only: a small second hash, so 5-card batches touch 40 KB, not 340 KB.
    five = counts.sum(axis=1) == 5
    offsets5 = np.zeros(1 << (25 - ROW_SHIFT), dtype=np.uint16)
    placed, _ = _perfect_hash(keys[five])
    offsets5[: placed.size] = placed
    rank5_table = np.zeros(int(offsets5.max()) + (1 << ROW_SHIFT), dtype=np.int32)
    rank5_table[(keys[five] & COL_MASK) + offsets5[keys[five] >> ROW_SHIFT]] = rank_table[
        slots[five]
    ]

    cards = np.arange(52)
    card_keys = RANK_KEYS[cards // 4] + (
        np.uint64(1) << (np.uint64(SUIT_SHIFT) + np.uint64(4) * (cards % 4).astype(np.uint64))
    )
    card_masks = np.uint64(1) << (
        np.uint64(16) * (cards % 4).astype(np.uint64) + (cards // 4).astype(np.uint64)
    )
    for a in (card_keys, card_masks, offsets, rank_table, flush_table, offsets5, rank5_table):
        a.setflags(write=False)
    _FIVE[(short, flush_beats_full_house)] = (offsets5, rank5_table)
    return EvalTables(card_keys, card_masks, offsets, rank_table, flush_table, ranks[0] * 4)


@cache
def _signature_index() -> tuple[dict[Signature, int], dict[tuple[int, int], Signature]]:
    """Number every distinct five-card hand of the 52-card deck within its category.

    The 32-card deck's hands are a subset with the same order inside each
    category (its straights number by top card too), so one numbering serves
    both decks and a rank decodes without knowing its deck.
    """
    five = {best_signature(c, False) for c in _multisets(list(range(NUM_RANKS)), 5, 5)}
    five |= {flush_signature(m, False) for m in range(1 << NUM_RANKS) if bin(m).count("1") == 5}
    index: dict[Signature, int] = {}
    by_value: dict[tuple[int, int], Signature] = {}
    for cat in range(9):
        for i, sig in enumerate(sorted(s for s in five if s[0] == cat)):
            index[sig] = i
            by_value[(cat, i)] = sig
    return index, by_value


def signature_of(rank: int) -> Signature:
    """(category, tiebreak ranks high to low) of a rank value, for naming hands."""
    sig = _signature_index()[1].get(((rank >> 12) & 0xF, rank & 0xFFF))
    if sig is None:
        raise ValueError(f"{rank} is not a hand rank")
    return sig


_lock = threading.Lock()
_memo: dict[tuple[bool, bool], EvalTables] = {}
#: Per (short, flush_beats_full_house): the five-card hash (row offsets, table).
_FIVE: dict[tuple[bool, bool], tuple[NDArray[np.uint16], NDArray[np.int32]]] = {}
_FIVE_FIELDS = ("row5_offsets", "rank5_table")


def cache_dir() -> Path:
    """Where built tables are kept between processes (``POKER_ENV_CACHE`` or ~/.cache/poker_env)."""
    return Path(os.environ.get("POKER_ENV_CACHE", Path.home() / ".cache" / "poker_env"))


def _cache_file(short: bool, fbfh: bool) -> Path:
    # The file name carries a digest of this module's source, so a changed builder never reads stale tables.
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    return cache_dir() / f"eval-{'short' if short else 'standard'}-{int(fbfh)}-{digest}.npz"


def _digest(arrays: list[NDArray[Any]]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _load_or_build(short: bool, fbfh: bool) -> EvalTables:
    path = _cache_file(short, fbfh)
    fields = EvalTables._fields[:-1]
    min_card = SHORT_DECK_MIN_RANK * 4 if short else 0
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = [data[f] for f in fields]
            five = [data[f] for f in _FIVE_FIELDS]
            stored = str(data["digest"])
        # A truncated, corrupt or foreign file fails the digest and is rebuilt.
        if stored == _digest(arrays + five):
            for a in arrays + five:
                a.setflags(write=False)
            _FIVE[(short, fbfh)] = (five[0], five[1])
            return EvalTables(*arrays, min_card)  # type: ignore[call-arg]
    except (OSError, KeyError, ValueError, EOFError):
        pass
    tables = _build(short, fbfh)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        arrays = [getattr(tables, f) for f in fields] + list(_FIVE[(short, fbfh)])
        names = list(fields) + list(_FIVE_FIELDS)
        np.savez(tmp, digest=np.array(_digest(arrays)), **dict(zip(names, arrays, strict=True)))
        os.replace(tmp, path)  # atomic: a concurrent reader sees the whole file or none
    except OSError:
        pass  # a read-only home only costs the rebuild next time
    return tables


def five_card_tables(
    deck: str = "standard", flush_beats_full_house: bool = False
) -> tuple[NDArray[np.uint16], NDArray[np.int32]]:
    """The five-card hash (row offsets, rank table) beside :func:`build_tables`' tables."""
    build_tables(deck, flush_beats_full_house)
    return _FIVE[(deck == "short", bool(flush_beats_full_house))]


def _low16(full: NDArray[np.int32], swap: bool) -> NDArray[np.uint16]:
    low = (full & 0xFFFF).astype(np.uint16)
    # Decoded back by the kernels' own decoding (kernels.full_ranks), on every entry.
    from poker_env.evaluator.kernels import full_ranks  # (kernels imports this module)

    decoded = np.empty(low.size, np.int32)
    full_ranks(low, swap, decoded)
    if not np.array_equal(decoded, full):  # pragma: no cover - a builder bug
        raise AssertionError("a rank value does not round-trip through 16 bits")
    low.setflags(write=False)
    return low


def _cpu_list(text: str) -> list[int]:
    """The CPUs of a Linux list such as ``0-3,8,10-11``."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if part:
            first, _, last = part.partition("-")
            cpus.extend(range(int(first), int(last or first) + 1))
    return cpus


def _cores_sharing(root: Path, cpus: list[int]) -> int:
    """How many cores ``cpus`` are: the hardware threads of one core (SMT) count once.
    Where a CPU's threads are not listed (some VMs), 1: the cache counts whole, as
    before this was read, rather than halved for threads that may be one core's."""
    cores = set()
    for cpu in cpus:
        try:
            siblings = (root / f"cpu{cpu}" / "topology" / "thread_siblings_list").read_text()
            cores.add(tuple(_cpu_list(siblings)))
        except (OSError, ValueError):
            return 1
    return max(len(cores), 1)


def _l2_bytes(root: Path = Path("/sys/devices/system/cpu")) -> int | None:
    """The level-2 cache a thread of this process can count on (Linux sysfs): over the
    CPUs it may run on, the smallest share of one, a cache's size over the cores that
    share it (a hybrid CPU's small cores share one L2 by four; the two hardware threads
    of one core count as one core, as one thread mostly runs there alone). None where
    the OS does not say."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = [0]
    shares = []
    for cpu in cpus:
        for index in sorted((root / f"cpu{cpu}" / "cache").glob("index*")):
            try:
                if (index / "level").read_text().strip() != "2":
                    continue
                if (index / "type").exists() and "Instruction" in (index / "type").read_text():
                    continue  # an instruction cache of level 2 (the data is what counts)
                size = (index / "size").read_text().strip().upper()
                scale = {"K": 1 << 10, "M": 1 << 20}.get(size[-1:], 1)
                try:
                    shared = _cpu_list((index / "shared_cpu_list").read_text())
                except (OSError, ValueError):
                    shared = [cpu]
                sharing = _cores_sharing(root, shared)
                shares.append(int(size.rstrip("KM")) * scale // sharing)
                break
            except (OSError, ValueError):
                continue  # an unreadable entry: the next one
    return min(shares) if shares else None


@cache
def rank_width(wide: bool = False) -> int:
    """The rank width of the batch tables here: 16 or 32 bits (decided once a process).

    ``wide``: for 6- or 7-card hands in a dtype wider than one byte (int16 ... int64:
    numpy's default int64 is eight times the bytes of int8). ``POKER_ENV_RANK_BITS``
    (16 or 32) chooses for both; otherwise 16 for wide hands, and for the others 32
    where the level-2 cache holds 1 MiB or more, 16 where it is smaller or unknown.
    Measured in turns on 10 M random 7-card hands: on an AMD EPYC with 512 KB of L2,
    16 bits 1.3-1.4x as fast (the 337 KB table does not stay in it beside the stream
    of hands); on ones with 1 MB, 16 bits 3-10% slower on int8 hands (both fit, and 16
    bits cost three instructions more a hand) but 1.25x as fast on int64 hands, whose
    stream pushes the 32-bit table out. Five-card hands read a small hash that stays
    cached either way: 32 bits were faster for int8 and int64 alike on the 1 MB one.
    """
    chosen = os.environ.get("POKER_ENV_RANK_BITS", "").strip()
    if chosen:
        if chosen not in ("16", "32"):
            raise ValueError(
                f"environment variable POKER_ENV_RANK_BITS={chosen!r}; allowed: '16' or '32' "
                "(unset: chosen by the L2 cache size)"
            )
        return int(chosen)
    if wide:
        return 16
    l2 = _l2_bytes()
    return 32 if l2 is not None and l2 >= 1 << 20 else 16


_batch: dict[tuple[bool, bool, int], BatchTables] = {}


def batch_tables(
    deck: str = "standard",
    flush_beats_full_house: bool = False,
    bits: int | None = None,
    *,
    wide: bool = False,
) -> BatchTables:
    """:class:`BatchTables` for a deck and ranking order; ``bits``: 16 or 32 (None:
    :func:`rank_width` for hands ``wide`` or not). Derived from :func:`build_tables`'
    tables, once."""
    if deck not in ("standard", "short"):
        raise ValueError(f"unknown deck {deck!r}; allowed: 'standard', 'short'")
    width = rank_width(wide) if bits is None else bits
    if width not in (16, 32):
        raise ValueError(f"bits={width!r}; allowed: 16 or 32")
    key = (deck == "short", bool(flush_beats_full_house), width)
    found = _batch.get(key)
    if found is not None:
        return found
    tables = build_tables(deck, flush_beats_full_house)
    row5_offsets, rank5_table = five_card_tables(deck, flush_beats_full_house)
    swap = key[1]
    if width == 16:
        assert (FLUSH ^ 3, FULL_HOUSE ^ 3) == (FULL_HOUSE, FLUSH)
        flush = _low16(tables.flush_table, swap)
        made = BatchTables(
            RankHash(tables.row_offsets, _low16(tables.rank_table, swap), flush, swap),
            RankHash(row5_offsets, _low16(rank5_table, swap), flush, swap),
        )
    else:
        made = BatchTables(
            RankHash(tables.row_offsets, tables.rank_table, tables.flush_table, swap),
            RankHash(row5_offsets, rank5_table, tables.flush_table, swap),
        )
    with _lock:
        return _batch.setdefault(key, made)


def build_tables(deck: str = "standard", flush_beats_full_house: bool = False) -> EvalTables:
    """The tables for a deck and ranking order (built once, then cached in memory and on disk)."""
    if deck not in ("standard", "short"):
        raise ValueError(f"unknown deck {deck!r}; allowed: 'standard', 'short'")
    key = (deck == "short", bool(flush_beats_full_house))
    with _lock:
        if key not in _memo:
            _memo[key] = _load_or_build(*key)
        return _memo[key]
