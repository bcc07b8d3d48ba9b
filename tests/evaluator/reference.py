"""A slow, obviously correct hand ranker: the best of every five-card subset.

Written from RULES.md §0 alone, sharing no code with the evaluator.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

CATEGORY_ORDER_STANDARD = list(range(9))
# Italian order: flush (5) above full house (6).
CATEGORY_ORDER_ITALIAN = [0, 1, 2, 3, 4, 6, 5, 7, 8]


def rank5(cards: tuple[int, ...], short: bool) -> tuple[int, tuple[int, ...]]:
    """(category, tiebreak) of exactly five cards."""
    ranks = sorted((c // 4 for c in cards), reverse=True)
    suits = {c % 4 for c in cards}
    counts = Counter(ranks)
    flush = len(suits) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        low = [12, 8, 7, 6, 5] if short else [12, 3, 2, 1, 0]
        if distinct == low:  # the ace plays low: A-2-3-4-5, or A-7-8-9-T in the 32-card deck
            straight_top = low[1]
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    grouped = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    if straight_top is not None and flush:
        return 8, (straight_top,)
    if shape == (4, 1):
        return 7, grouped
    if shape == (3, 2):
        return 6, grouped
    if flush:
        return 5, tuple(ranks)
    if straight_top is not None:
        return 4, (straight_top,)
    if shape == (3, 1, 1):
        return 3, grouped
    if shape == (2, 2, 1):
        return 2, grouped
    if shape == (2, 1, 1, 1):
        return 1, grouped
    return 0, tuple(ranks)


def reference_rank(
    cards: list[int] | tuple[int, ...], short: bool = False, italian: bool = False
) -> tuple[int, int, tuple[int, ...]]:
    """Comparable key of the best five of ``cards``: (order, category, tiebreak)."""
    order = CATEGORY_ORDER_ITALIAN if italian else CATEGORY_ORDER_STANDARD
    best = max(
        (order[cat], cat, tb) for cat, tb in (rank5(five, short) for five in combinations(cards, 5))
    )
    return best
