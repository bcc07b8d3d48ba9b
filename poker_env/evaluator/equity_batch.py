"""Equity in bulk, compiled: many five-card draw hands or Hold'em rows in one call.

For policies that decide on thousands of rows at once (the baselines in
``agents/baselines``). :mod:`poker_env.evaluator.equity` holds the one-hand
functions (exact enumeration, seeded Monte Carlo) these agree with.

- :func:`draw_discard_equities`: every discard choice of many draw hands, exact,
  against a random pat hand (two tables built once, then lookups).
- :func:`pat_equity`: a pat five-card hand's share against a random hand.
- :func:`holdem_equity_batch`: one Monte Carlo equity per Hold'em row, each row
  on its own seeded stream.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from poker_env.cards import Deck, _deck_name
from poker_env.evaluator.core import evaluate, get_tables
from poker_env.evaluator.equity import _binomial, _next_combo
from poker_env.evaluator.kernels import eval_key
from poker_env.evaluator.tables import EvalTables, cache_dir
from poker_env.rng import draw

__all__ = ["draw_discard_equities", "holdem_equity_batch", "pat_equity"]


# ----- five-card draw: every discard choice of many hands, exactly ----------------------
#
# The opposing hand of this model is a random *pat* five-card hand dealt from the whole
# deck, independent of ours (``draw_equity`` deals it from the cards we have not seen,
# by Monte Carlo). Under that model a final hand of rank value v wins the pot share
# ``G(v) = (hands below v + half the hands equal to v) / all hands``, and the equity of a
# discard choice is the average of G over every draw from the stock. Counted in "points"
# (2 x hands below + hands equal, integers, so equal choices come out exactly equal):
#
# - without a flush, a draw's value depends on its ranks only: the sum over draws is a
#   sum over rank multisets weighted by how many draws have them, and it depends only
#   on the hand's rank multiset and which of its ranks are kept (a table: 6,188 rank
#   multisets x 32 choices, built once);
# - a flush needs every kept card of one suit s and every drawn card of suit s; those
#   draws were counted by their ranks in the first table, so a correction swaps in their
#   flush value. It depends only on which ranks the hand holds in suit s and which of
#   them are kept (a table: 13-bit held mask x 5-bit kept mask, built once).
#
# A hand's 32 equities are then 32 lookups in each table (the same split as the exact
# Hold'em enumeration of :mod:`poker_env.evaluator.equity`, precomputed).

_PAT_CACHE: dict[tuple[Deck, bool], NDArray[np.int64]] = {}
_DRAW_TABLES: dict[tuple[Deck, bool], tuple[NDArray[np.int64], NDArray[np.int64]]] = {}
_DRAW_LOCK = threading.Lock()


@njit(cache=True)
def _pat_points(tables: EvalTables, deck_min_card: int) -> NDArray[np.int64]:
    """``2 x (hands below v) + (hands equal to v)`` for every rank value v of a 5-card hand."""
    size = max(tables.rank_table.max(), tables.flush_table.max()) + 1
    counts = np.zeros(size, dtype=np.int64)
    keys = tables.card_keys
    masks = tables.card_masks
    for a in range(deck_min_card, 52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                kc = keys[a] + keys[b] + keys[c]
                mc = masks[a] | masks[b] | masks[c]
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        v = eval_key(kc + keys[d] + keys[e], mc | masks[d] | masks[e], tables)
                        counts[v] += 1
    points = np.empty(size, dtype=np.int64)
    below = 0
    for v in range(size):
        points[v] = 2 * below + counts[v]
        below += counts[v]
    return points


def _pat_table(deck_name: Deck, flush_beats_full_house: bool) -> NDArray[np.int64]:
    key = (deck_name, flush_beats_full_house)
    if key not in _PAT_CACHE:
        tables = get_tables(deck_name, flush_beats_full_house)
        _PAT_CACHE[key] = _pat_points(tables, int(tables.deck_min_card))
    return _PAT_CACHE[key]


@njit(cache=True, _nrt=False)
def _multiset_index(ranks: NDArray[np.int64]) -> int:
    """Index < C(17, 5) of five sorted ranks (stars and bars: r[j] + j strictly increase)."""
    idx = 0
    for j in range(5):
        c = ranks[j] + j
        # C(c, j + 1), exact in int64 for c <= 16.
        num = 1
        for t in range(j + 1):
            num = num * (c - t) // (t + 1)
        idx += num
    return idx


@njit(cache=True)
def _plain_sums(tables: EvalTables, min_rank: int) -> NDArray[np.int64]:
    """Points of every draw counted by its ranks only: ``[multiset index, choice]``.

    ``tables`` give points (see :func:`_point_tables`); a choice is a 5-bit mask over
    the multiset's sorted positions (bit j set: replace the j-th lowest card).
    """
    low = np.uint64(0xFFFFFFFF)
    out = np.zeros((6188, 32), dtype=np.int64)
    small = np.zeros((5, 6), dtype=np.int64)  # C(a, b) for a <= 4 cards of a rank
    for a in range(5):
        for b in range(6):
            small[a, b] = _binomial(a, b)
    rank_low = np.empty(13, dtype=np.uint64)
    for r in range(13):
        rank_low[r] = tables.card_keys[4 * r] & low
    hand = np.full(5, min_rank, dtype=np.int64)
    avail = np.zeros(13, dtype=np.int64)
    ranks = np.zeros(5, dtype=np.int64)
    done = np.zeros(32, dtype=np.bool_)
    draw_key = np.zeros((6, 6188), dtype=np.uint64)
    draw_weight = np.zeros((6, 6188), dtype=np.int64)
    num_draws = np.zeros(6, dtype=np.int64)
    while True:
        for r in range(13):
            avail[r] = 4 if r >= min_rank else 0
        for j in range(5):
            avail[hand[j]] -= 1
        ok = True
        for r in range(13):
            ok &= avail[r] >= 0
        if ok:
            row = _multiset_index(hand)
            # The draws of k cards by rank multiset, with how many draws have each: the
            # same for every choice that replaces k cards.
            for k in range(6):
                num_draws[k] = 0
                for t in range(k):
                    ranks[t] = min_rank
                while True:
                    weight = 1
                    key = np.uint64(0)
                    t = 0
                    while t < k:
                        u = t
                        while u + 1 < k and ranks[u + 1] == ranks[t]:
                            u += 1
                        weight *= small[avail[ranks[t]], u - t + 1]
                        key += np.uint64(u - t + 1) * rank_low[ranks[t]]
                        t = u + 1
                    if weight > 0:
                        draw_key[k, num_draws[k]] = key
                        draw_weight[k, num_draws[k]] = weight
                        num_draws[k] += 1
                    t = k - 1
                    while t >= 0 and ranks[t] == 12:
                        t -= 1
                    if t < 0:
                        break
                    ranks[t] += 1
                    for u in range(t + 1, k):
                        ranks[u] = ranks[t]
            # Replacing either of two equal ranks is the same choice: compute the one
            # that replaces the last positions of each run of equal ranks, copy the rest.
            for d in range(32):
                done[d] = False
            for sweep in range(2):
                for d in range(32):
                    canon = 0
                    for j in range(5):
                        if (d >> j) & 1:
                            # The discard moves to the last free position of its run.
                            u = j
                            while u + 1 < 5 and hand[u + 1] == hand[j]:
                                u += 1
                            while (canon >> u) & 1:
                                u -= 1
                            canon |= 1 << u
                    if sweep == 1:
                        out[row, d] = out[row, canon]
                        continue
                    if canon != d or done[d]:
                        continue
                    done[d] = True
                    k = 0
                    kept = np.uint64(0)
                    for j in range(5):
                        if (d >> j) & 1:
                            k += 1
                        else:
                            kept += rank_low[hand[j]]
                    acc = 0
                    for t in range(num_draws[k]):
                        acc += draw_weight[k, t] * np.int64(
                            eval_key(kept + draw_key[k, t], np.uint64(0), tables)
                        )
                    out[row, d] = acc
        # Next multiset hand[0] <= ... <= hand[4].
        t = 4
        while t >= 0 and hand[t] == 12:
            t -= 1
        if t < 0:
            break
        hand[t] += 1
        for u in range(t + 1, 5):
            hand[u] = hand[t]
    return out


@njit(cache=True)
def _flush_sums(tables: EvalTables, min_rank: int) -> NDArray[np.int64]:
    """Flush corrections in points: ``[ranks held in the suit, kept among them]``.

    Row: the 13-bit set of ranks the hand holds in one suit; column: bit j set when
    the j-th lowest of them is kept. The entry sums, over every draw of the missing
    cards from that suit's rest, the flush's points less the points the same ranks
    score without a flush.
    """
    low = np.uint64(0xFFFFFFFF)
    keys = tables.card_keys
    cmasks = tables.card_masks
    out = np.zeros((8192, 32), dtype=np.int64)
    members = np.zeros(5, dtype=np.int64)
    rest = np.zeros(13, dtype=np.int64)
    idx = np.zeros(5, dtype=np.int64)
    for held in range(8192):
        h = 0
        n_rest = 0
        valid = (held & ((1 << min_rank) - 1)) == 0
        for r in range(13):
            if (held >> r) & 1:
                if h < 5:
                    members[h] = r
                h += 1
            elif r >= min_rank:
                rest[n_rest] = r
                n_rest += 1
        if h > 5 or not valid:
            continue
        for kept_bits in range(1 << h):
            key0 = np.uint64(0)
            mask0 = np.uint64(0)
            num_kept = 0
            for j in range(h):
                if (kept_bits >> j) & 1:
                    c = 4 * members[j]  # suit 0 stands for any suit: flushes are symmetric
                    key0 += keys[c]
                    mask0 |= cmasks[c]
                    num_kept += 1
            k = 5 - num_kept
            if k > n_rest:
                continue
            for t in range(k):
                idx[t] = t
            acc = np.int64(0)
            while True:
                key = key0
                mask = mask0
                for t in range(k):
                    c = 4 * rest[idx[t]]
                    key += keys[c]
                    mask |= cmasks[c]
                acc += np.int64(eval_key(key, mask, tables))
                acc -= np.int64(eval_key(key & low, np.uint64(0), tables))
                if _next_combo(idx, k, n_rest) < 0:
                    break
            out[held, kept_bits] = acc
    return out


def _content_digest(arrays: tuple[NDArray[np.int64], ...]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _build_draw_tables(
    deck_name: Deck, flush_beats_full_house: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    tables = get_tables(deck_name, flush_beats_full_house)
    points = _pat_table(deck_name, flush_beats_full_house)
    # The evaluator's own tables with each rank value replaced by its points:
    # eval_key then returns points in one lookup.
    point_tables = tables._replace(
        rank_table=points[tables.rank_table].astype(np.int32),
        flush_table=points[tables.flush_table].astype(np.int32),
    )
    min_rank = int(tables.deck_min_card) // 4
    return _plain_sums(point_tables, min_rank), _flush_sums(point_tables, min_rank)


def _draw_tables(
    deck_name: Deck, flush_beats_full_house: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The plain and flush tables of a deck and ranking order.

    Built once (seconds) and kept in memory and on disk beside the evaluator's
    tables, as they are: the file name carries a digest of this module's source and
    the file a digest of its content, so a stale or damaged file is rebuilt.
    """
    key = (deck_name, flush_beats_full_house)
    with _DRAW_LOCK:
        if key in _DRAW_TABLES:
            return _DRAW_TABLES[key]
        source = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
        path = cache_dir() / f"draw-discard-{deck_name}-{int(flush_beats_full_house)}-{source}.npz"
        loaded: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
        try:
            with np.load(path, allow_pickle=False) as data:
                pair = (data["plain"], data["flush"])
                if str(data["digest"]) == _content_digest(pair):
                    loaded = pair
        except (OSError, KeyError, ValueError, EOFError):
            pass
        if loaded is None:
            loaded = _build_draw_tables(deck_name, flush_beats_full_house)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
                np.savez(
                    tmp, digest=np.array(_content_digest(loaded)), plain=loaded[0], flush=loaded[1]
                )
                os.replace(tmp, path)  # atomic: a concurrent reader sees all of it or nothing
            except OSError:
                pass  # a read-only home only costs the rebuild next time
        for a in loaded:
            a.setflags(write=False)
        _DRAW_TABLES[key] = loaded
        return loaded


@njit(cache=True)
def _discard_equities(
    hands: NDArray[np.int64],
    plain: NDArray[np.int64],
    flush: NDArray[np.int64],
    deck_min_card: int,
    out: NDArray[np.float64],
) -> None:
    """``out[i, d]``: equity of hand ``i`` replacing the cards of slot mask ``d``."""
    deck_size = 52 - deck_min_card
    all_points = 2.0 * _binomial(deck_size, 5)
    denom = np.empty(6, dtype=np.float64)
    for k in range(6):
        denom[k] = all_points * _binomial(deck_size - 5, k)
    order = np.zeros(5, dtype=np.int64)
    ranks = np.zeros(5, dtype=np.int64)
    suit = np.zeros(5, dtype=np.int64)
    group_bit = np.zeros(5, dtype=np.int64)  # bit of the card among its suit's held cards
    held = np.zeros(4, dtype=np.int64)
    count = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        # Sort the slots by card (rank, then suit): insertion sort of five.
        for j in range(5):
            order[j] = j
        for j in range(1, 5):
            t = j
            while t > 0 and hands[i, order[t - 1]] > hands[i, order[t]]:
                order[t - 1], order[t] = order[t], order[t - 1]
                t -= 1
        for s in range(4):
            held[s] = 0
        for s in range(4):
            count[s] = 0
        for j in range(5):
            c = hands[i, order[j]]
            ranks[j] = c >> 2
            suit[j] = c & 3
            group_bit[j] = 1 << count[suit[j]]
            count[suit[j]] += 1
            held[suit[j]] |= 1 << ranks[j]
        row = _multiset_index(ranks)
        for d in range(32):  # over sorted positions
            acc = plain[row, d]
            num_kept = 0
            slot_mask = 0
            kept_bits_0 = kept_bits_1 = kept_bits_2 = kept_bits_3 = 0
            for j in range(5):
                if (d >> j) & 1:
                    slot_mask |= 1 << order[j]
                else:
                    num_kept += 1
                    s = suit[j]
                    b = group_bit[j]
                    kept_bits_0 |= b if s == 0 else 0
                    kept_bits_1 |= b if s == 1 else 0
                    kept_bits_2 |= b if s == 2 else 0
                    kept_bits_3 |= b if s == 3 else 0
            # A flush correction applies for the suit that holds every kept card (all
            # four when none is kept).
            for s, kb in ((0, kept_bits_0), (1, kept_bits_1), (2, kept_bits_2), (3, kept_bits_3)):
                n_kb = 0
                for j in range(5):
                    n_kb += (kb >> j) & 1
                if n_kb == num_kept:
                    acc += flush[held[s], kb]
            out[i, slot_mask] = acc / denom[5 - num_kept]


def _check_draw_hands(hands: ArrayLike, deck_name: str) -> NDArray[np.int64]:
    arr = np.asarray(hands)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"hands must be integer cards (rank * 4 + suit), got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 5:
        raise ValueError(f"hands must have shape (n, 5) or (5,), got shape {np.shape(hands)}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    lo = 0 if deck_name == "standard" else 20
    if arr.size and (arr.min() < lo or arr.max() > 51):
        bad = int(np.flatnonzero(((arr < lo) | (arr > 51)).any(axis=1))[0])
        raise ValueError(
            f"hands row {bad}: card outside the {deck_name} deck (allowed {lo}..51): "
            f"{arr[bad].tolist()}"
        )
    srt = np.sort(arr, axis=1)
    dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    if dup.any():
        bad = int(np.flatnonzero(dup)[0])
        raise ValueError(f"hands row {bad} holds a card twice: {arr[bad].tolist()}")
    return arr


def pat_equity(
    hands: ArrayLike, *, deck: Deck | int = "standard", flush_beats_full_house: bool = False
) -> NDArray[np.float64]:
    """Share of the pot each five-card hand wins standing pat against a random five-card
    hand dealt from the whole deck (ties split): its place among all hands, 0 to 1.

    Args:
        hands: ``(n, 5)`` (or ``(5,)``) integer cards, distinct within a row.
        deck: ``"standard"``/52 or ``"short"``/32 (RULES.md §0).
        flush_beats_full_house: the Italian order (RULES.md §0 option).

    >>> from poker_env.cards import parse_cards
    >>> round(float(pat_equity(parse_cards("As Ks Qs Js Ts"))[0]), 8)  # 4 royals tie: 1 - 2 / 2598960
    0.99999923
    """
    deck_name = _deck_name(deck)
    arr = _check_draw_hands(hands, deck_name)
    points = _pat_table(deck_name, flush_beats_full_house)
    values = evaluate(arr, deck_name, flush_beats_full_house, validate=False, num_threads=1)
    total = 2.0 * _binomial(52 if deck_name == "standard" else 32, 5)
    out: NDArray[np.float64] = points[values] / total
    return out


def draw_discard_equities(
    hands: ArrayLike, *, deck: Deck | int = "standard", flush_beats_full_house: bool = False
) -> NDArray[np.float64]:
    """Exact equity of all 32 discard choices of many five-card draw hands, compiled.

    ``out[i, d]`` is hand ``i``'s share of the pot after replacing the cards of bit
    mask ``d`` (bit j: the card in column j), averaged over every draw from the stock
    (the deck less the five cards held), against a random pat hand dealt from the
    whole deck, independent of ours. That last point is the one difference from
    :func:`draw_equity`, whose Monte Carlo deals the opposing hand from the cards we
    have not seen: ignoring that card removal makes the count exact and fast (two
    tables built on first use, a few seconds; then about a microsecond a hand), and
    it moves equities by thousandths. Choices of equal value get exactly equal
    numbers (integer sums), whatever the order of the cards.

    Args:
        hands: ``(n, 5)`` (or ``(5,)``) integer cards, distinct within a row.
        deck: ``"standard"``/52 or ``"short"``/32 (RULES.md §0).
        flush_beats_full_house: the Italian order (RULES.md §0 option).

    Returns:
        ``(n, 32)`` float64 equities; ``out[i, 0]`` is :func:`pat_equity` of the hand.

    >>> from poker_env.cards import parse_cards
    >>> e = draw_discard_equities(parse_cards("As Ad 7c 8h 2s"))
    >>> int(e[0].argmax())  # keep the aces, replace 7c 8h 2s (bits 2, 3, 4)
    28
    """
    deck_name = _deck_name(deck)
    arr = _check_draw_hands(hands, deck_name)
    plain, flush = _draw_tables(deck_name, flush_beats_full_house)
    out = np.empty((arr.shape[0], 32), dtype=np.float64)
    _discard_equities(arr, plain, flush, 0 if deck_name == "standard" else 20, out)
    return out


# ----- Hold'em in bulk: one Monte Carlo equity per row ------------------------------------


@njit(cache=True)
def sample_holdem_equity(
    c0: int,
    c1: int,
    board: NDArray[np.int64],
    num_opponents: int,
    x: np.uint64,
    num_samples: int,
    tables: EvalTables,
) -> float:  # pragma: no cover - compiled
    """Share of the pot (ties split) that hole cards ``c0 c1`` win against ``num_opponents``
    random hands, over ``num_samples`` random completions of ``board`` (its cards >= 0),
    drawn from SplitMix64 state ``x`` (:mod:`poker_env.rng`; the caller's copy does not move).

    The one Hold'em Monte Carlo equity: :func:`holdem_equity_batch` and the Hold'em
    env's equity feature both draw here.
    """
    keys = tables.card_keys
    masks = tables.card_masks
    seen = np.zeros(52, dtype=np.bool_)
    seen[c0] = True
    seen[c1] = True
    board_key = np.uint64(0)
    board_mask = np.uint64(0)
    nb = 0
    for j in range(board.shape[0]):
        c = board[j]
        if c >= 0:
            seen[c] = True
            board_key += keys[c]
            board_mask |= masks[c]
            nb += 1
    deck = np.empty(52, dtype=np.int64)
    size = 0
    for c in range(52):
        if not seen[c]:
            deck[size] = c
            size += 1
    m = num_opponents
    need = 2 * m + 5 - nb
    own_key = keys[c0] + keys[c1]
    own_mask = masks[c0] | masks[c1]
    total = 0.0
    for _ in range(num_samples):
        x = draw(deck, size, need, x)  # deck[:need]: the opponents' cards, then the board's
        key = board_key
        mask = board_mask
        for j in range(2 * m, need):
            key += keys[deck[j]]
            mask |= masks[deck[j]]
        mine = eval_key(key + own_key, mask | own_mask, tables)
        best = mine
        ties = 1
        for o in range(m):
            a = deck[2 * o]
            b = deck[2 * o + 1]
            v = eval_key(key + keys[a] + keys[b], mask | masks[a] | masks[b], tables)
            if v > best:
                best = v
                ties = 0
            elif v == best and best == mine:
                ties += 1
        if best == mine:
            total += 1.0 / ties
    return total / num_samples


@njit(cache=True)
def _holdem_equity_rows(
    holes: NDArray[np.int64],
    boards: NDArray[np.int64],
    num_opponents: NDArray[np.int64],
    seeds: NDArray[np.uint64],
    num_samples: int,
    tables: EvalTables,
    out: NDArray[np.float64],
) -> None:
    """``out[i]``: row ``i``'s share of the pot against ``num_opponents[i]`` random hands."""
    for i in range(holes.shape[0]):
        out[i] = sample_holdem_equity(
            holes[i, 0], holes[i, 1], boards[i], num_opponents[i], seeds[i], num_samples, tables
        )


def holdem_equity_batch(
    hole_cards: ArrayLike,
    boards: ArrayLike,
    num_opponents: ArrayLike,
    *,
    seeds: ArrayLike,
    num_samples: int = 256,
) -> NDArray[np.float64]:
    """Monte Carlo equity of many Hold'em hands against random hands, one per row.

    Row ``i``: the share of the pot (ties split) that ``hole_cards[i]`` wins against
    ``num_opponents[i]`` players holding random hands, over ``num_samples`` random
    completions of ``boards[i]``, all drawn from the cards not seen by the row. Each
    row draws from its own stream, started at ``seeds[i]`` (:mod:`poker_env.rng`'s SplitMix64):
    the same row and seed give the same number in any batch. Take the seeds from a
    seeded :class:`numpy.random.Generator`.

    Args:
        hole_cards: ``(n, 2)`` card indices.
        boards: ``(n, 5)`` card indices, -1 for cards not dealt (0, 3, 4 or 5 dealt).
        num_opponents: ``(n,)`` integers 1..9.
        seeds: ``(n,)`` non-negative integers (< 2**64).
        num_samples: boards per row (>= 1); the standard error is at most
            ``0.5 / sqrt(num_samples)``.

    Returns:
        ``(n,)`` float64 equities in [0, 1].

    >>> e = holdem_equity_batch([[48, 49]], [[-1] * 5], [1], seeds=[7], num_samples=20_000)
    >>> abs(float(e[0]) - 0.852) < 0.015  # aces against one random hand: 85.2%
    True
    """
    holes = np.ascontiguousarray(hole_cards, dtype=np.int64)
    brd = np.ascontiguousarray(boards, dtype=np.int64)
    opp = np.ascontiguousarray(num_opponents, dtype=np.int64).reshape(-1)
    sd = np.asarray(seeds)
    if holes.ndim != 2 or holes.shape[1] != 2:
        raise ValueError(f"hole_cards must have shape (n, 2), got {holes.shape}")
    n = holes.shape[0]
    if brd.shape != (n, 5):
        raise ValueError(
            f"boards must have shape ({n}, 5) with -1 for undealt cards, got {brd.shape}"
        )
    if opp.shape != (n,) or (n and (opp.min() < 1 or opp.max() > 9)):
        raise ValueError(f"num_opponents must be {n} integers in 1..9, got {opp.tolist()[:10]}")
    if sd.shape != (n,) or not np.issubdtype(sd.dtype, np.integer) or (n and sd.min() < 0):
        raise ValueError(f"seeds must be {n} non-negative integers, got shape {sd.shape}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
    if n:
        if holes.min() < 0 or holes.max() > 51 or brd.max() > 51 or brd.min() < -1:
            raise ValueError(
                "card index out of range; allowed: 0..51 (and -1 for an undealt board card)"
            )
        dealt = (brd >= 0).sum(axis=1)
        if not np.isin(dealt, (0, 3, 4, 5)).all():
            bad = int(np.flatnonzero(~np.isin(dealt, (0, 3, 4, 5)))[0])
            raise ValueError(f"boards row {bad} has {int(dealt[bad])} cards; allowed 0, 3, 4 or 5")
        cards = np.where(np.hstack([holes, brd]) < 0, -1 - np.arange(7), np.hstack([holes, brd]))
        srt = np.sort(cards, axis=1)
        dup = ((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)).any(axis=1)
        if dup.any():
            bad = int(np.flatnonzero(dup)[0])
            raise ValueError(f"row {bad} holds a card twice: {cards[bad].tolist()}")
    out = np.empty(n, dtype=np.float64)
    _holdem_equity_rows(
        holes, brd, opp, sd.astype(np.uint64), num_samples, get_tables("standard"), out
    )
    return out
