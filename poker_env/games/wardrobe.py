"""Clothing stakes of the computer opponent (RULES.md §1, "Clothing stakes").

The computer (seat 1) wears a wardrobe of items, each worth ``item_value`` chips.
These kernels work on a table row (see :mod:`poker_env.games.draw_layout`):

- staking: when she must put in money she does not have, the next worn item is
  put at stake and the bank pays her its value in chips;
- settling: when a pot is decided, items at stake are lost if she lost it and
  redeemed (their value repaid to the bank) if she won; a tie settles nothing;
- buying back: between hands, when her money is at least ``item_value +
  buyback_reserve`` and no pot is pending, she may pay one lost item's value to
  the bank and wear it again.

Chip accounting: the bank is the counterparty of every stake, so
``stack_0 + stack_1 + pot + bank == 2 * starting_money`` always, and
``bank == -item_value * (items at stake + items lost)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from poker_env.games.draw_layout import (
    C_ITEM_VALUE,
    C_NUM_ITEMS,
    C_RESERVE,
    COMPUTER,
    ITEM_AT_STAKE,
    ITEM_LOST,
    ITEM_UNUSED,
    ITEM_WORN,
    MAX_ITEMS,
    S_BANK,
    S_ITEMS,
    S_LOST,
    S_POT,
    S_STACK,
    S_STAKED,
    S_WORN,
)

__all__ = [
    "DEFAULT_WARDROBE",
    "WardrobeState",
    "buy_back",
    "can_buy_back",
    "default_wants_buy_back",
    "reset_wardrobe",
    "settle_stakes",
    "stake_to_cover",
    "wardrobe_state",
    "worth",
]

#: RULES.md §1: six items by default, named plainly.
DEFAULT_WARDROBE: tuple[str, ...] = ("hat", "scarf", "gloves", "jacket", "shoes", "belt")


@njit(cache=True, _nrt=False)
def reset_wardrobe(s: NDArray[np.int64], cfg: NDArray[np.int64]) -> None:
    """Every item worn, nothing at stake, nothing lost, the bank even."""
    n = cfg[C_NUM_ITEMS]
    for i in range(MAX_ITEMS):
        s[S_ITEMS + i] = ITEM_WORN if i < n else ITEM_UNUSED
    s[S_WORN] = n
    s[S_STAKED] = 0
    s[S_LOST] = 0
    s[S_BANK] = 0


@njit(cache=True, _nrt=False, inline="always")
def stake_to_cover(s: NDArray[np.int64], cfg: NDArray[np.int64], amount: int) -> None:
    """Stake worn items, next first, until the computer's money covers ``amount``.

    RULES.md §1: she receives each item's value in chips for this hand. Stops when
    no worn item is left (the caller bounds amounts by what she can raise).
    """
    value = cfg[C_ITEM_VALUE]
    i = 0
    while s[S_STACK + COMPUTER] < amount and s[S_WORN] > 0:
        while s[S_ITEMS + i] != ITEM_WORN:
            i += 1
        s[S_ITEMS + i] = ITEM_AT_STAKE
        s[S_WORN] -= 1
        s[S_STAKED] += 1
        s[S_STACK + COMPUTER] += value
        s[S_BANK] -= value


@njit(cache=True, _nrt=False)
def settle_stakes(s: NDArray[np.int64], cfg: NDArray[np.int64], computer_won: bool) -> None:
    """Settle every item at stake once a pot is decided (RULES.md §1, "Settling")."""
    if s[S_STAKED] == 0:
        return
    value = cfg[C_ITEM_VALUE]
    for i in range(cfg[C_NUM_ITEMS]):
        if s[S_ITEMS + i] == ITEM_AT_STAKE:
            if computer_won:
                # Redeemed: its value goes back to the bank, the item is worn again.
                s[S_ITEMS + i] = ITEM_WORN
                s[S_WORN] += 1
                s[S_STACK + COMPUTER] -= value
                s[S_BANK] += value
            else:
                s[S_ITEMS + i] = ITEM_LOST
                s[S_LOST] += 1
    s[S_STAKED] = 0


@njit(cache=True, _nrt=False, inline="always")
def can_buy_back(s: NDArray[np.int64], cfg: NDArray[np.int64]) -> bool:
    """A lost item exists, no pot is pending, and money >= item value + reserve."""
    return bool(
        s[S_LOST] > 0
        and s[S_POT] == 0
        and s[S_STAKED] == 0
        and s[S_STACK + COMPUTER] >= cfg[C_ITEM_VALUE] + cfg[C_RESERVE]
    )


@njit(cache=True, _nrt=False, inline="always")
def default_wants_buy_back(s: NDArray[np.int64], cfg: NDArray[np.int64]) -> bool:
    """The computer's default buy-back rule: buy back whenever she may."""
    return bool(can_buy_back(s, cfg))


@njit(cache=True, _nrt=False)
def buy_back(s: NDArray[np.int64], cfg: NDArray[np.int64]) -> int:
    """Buy back the most recently lost item (the highest index); returns its index."""
    value = cfg[C_ITEM_VALUE]
    for i in range(cfg[C_NUM_ITEMS] - 1, -1, -1):
        if s[S_ITEMS + i] == ITEM_LOST:
            s[S_ITEMS + i] = ITEM_WORN
            s[S_LOST] -= 1
            s[S_WORN] += 1
            s[S_STACK + COMPUTER] -= value
            s[S_BANK] += value
            return i
    return -1


@njit(cache=True, _nrt=False, inline="always")
def worth(s: NDArray[np.int64], cfg: NDArray[np.int64], seat: int) -> int:
    """Money plus the value of worn items: what rewards measure (items at stake are
    offset by the chips received for them, so they count as neither)."""
    w = s[S_STACK + seat]
    if seat == COMPUTER:
        w += s[S_WORN] * cfg[C_ITEM_VALUE]
    return int(w)


@dataclass(frozen=True)
class WardrobeState:
    """The public state of the computer's wardrobe: item names by status."""

    worn: tuple[str, ...]
    at_stake: tuple[str, ...]
    lost: tuple[str, ...]


def wardrobe_state(s: NDArray[np.int64], names: tuple[str, ...]) -> WardrobeState:
    """Read the wardrobe of a table row as item names."""
    by: dict[int, list[str]] = {ITEM_WORN: [], ITEM_AT_STAKE: [], ITEM_LOST: []}
    for i, name in enumerate(names):
        by[int(s[S_ITEMS + i])].append(name)
    return WardrobeState(tuple(by[ITEM_WORN]), tuple(by[ITEM_AT_STAKE]), tuple(by[ITEM_LOST]))
