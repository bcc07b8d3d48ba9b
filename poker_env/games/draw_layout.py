"""Array layout of a five-card draw table (RULES.md §1): one int64 row per table.

The rules kernels in :mod:`poker_env.games.draw` and :mod:`poker_env.games.wardrobe`
read and write a table only through these column numbers, so a batch of tables is
a 2-D array with one row each. Numba treats these module globals as constants.
"""

from __future__ import annotations

__all__ = [
    "BUF_MARGIN",
    "BUF_SIZE",
    "COMPUTER",
    "HUMAN",
    "MAX_ITEMS",
    "NUM_COLS",
]

# Seats. RULES.md §1: seat 1 is the computer opponent, the only one with a wardrobe.
HUMAN = 0
COMPUTER = 1

# Phases (one explicit phase field, STYLE.md).
PH_PRE_DRAW = 0
PH_DRAW = 1
PH_POST_DRAW = 2
PH_HAND_END = 3
PH_BUY_BACK = 4
PH_MATCH_END = 5
NUM_PHASES = 6

# Action kinds of the engine (the seed's words, plus the draw and buy-back choices).
K_BET = 0
K_STAY = 1
K_DROP = 2
K_RAISE = 3
K_DRAW = 4
K_CALL = 5
K_DISCARD = 6
K_BUY_BACK = 7
K_SKIP_BUY_BACK = 8
NUM_KINDS = 9
# The legal-action scratch row: NUM_KINDS flags, then the bet/raise amount bounds.
LG_LO = NUM_KINDS
LG_HI = NUM_KINDS + 1
LG_SIZE = NUM_KINDS + 2

# Hand results.
RES_NONE = -1
RES_TIE = 2  # 0 or 1: that seat won the pot
HOW_DROP = 0
HOW_SHOWDOWN = 1
HOW_ANTE = 2  # the match ended at the ante; the pending pot went to the match winner

# Item states of the wardrobe.
ITEM_UNUSED = -1
ITEM_WORN = 0
ITEM_AT_STAKE = 1
ITEM_LOST = 2
MAX_ITEMS = 16

# Config row (int64), built by DrawConfig.to_array().
C_NUM_CARDS = 0
C_START = 1
C_ANTE = 2
C_MIN_BET = 3
C_MAX_RAISES = 4
C_NUM_ITEMS = 5
C_ITEM_VALUE = 6
C_RESERVE = 7
C_BUYBACK_DECIDE = 8  # 1: the computer's buy-back is a decision (an action); 0: the default rule
NUM_CFG = 9

# History of the current hand kept in the row: HIST_LEN entries of (seat, kind, amount).
HIST_LEN = 16

# State columns.
S_PHASE = 0
S_FIRST = 1  # seat that acts first this hand (RULES.md §1: alternates hand to hand)
S_TO_ACT = 2
S_STACK = 3  # 3, 4: money of seat 0, 1
S_POT = 5
S_BET = 6  # 6, 7: chips put in during the current betting round
S_RAISES = 8
S_ROUND_ACTIONS = 9
S_DRAWN = 10  # 10, 11: cards drawn by each seat, -1 before it drew
S_HAND_NO = 12
S_DECK_POS = 13
S_RESULT = 14
S_HOW = 15
S_WORN = 16
S_STAKED = 17
S_LOST = 18
S_BANK = 19  # chips the bank paid out net: stakes minus redemptions and buy-backs (<= 0)
S_MATCH_WINNER = 20
S_CURSOR = 21  # next unused uniform in the table's random buffer
S_RANK = 22  # 22, 23: showdown ranks from the evaluator, -1 when no showdown
S_HIST_N = 24
S_BASE = 25  # 25, 26: each seat's worth when its reward was last paid (envs)
S_EP_ACTED = 27  # the agent has acted in this episode (envs)
S_EP_HANDS = 28
S_POT_WON = 29  # the pot the last decided hand paid out
S_STAKE_MASK = 30  # bit i: item i was at stake when the last pot was decided
S_BOUGHT_BACK = 31  # 1 + index of the item bought back before this hand, 0 when none
S_HANDS = 32  # 32..41: seat 0 cards 0-4, seat 1 cards 0-4
S_DECK = 42  # 42..93: the deck, dealt from the front by a lazy Fisher-Yates shuffle
S_ITEMS = 94  # 94..109: item states
S_HIST = 110  # 110..157: (seat, kind, amount) per entry
NUM_COLS = S_HIST + 3 * HIST_LEN

# Random buffer: uniforms in [0, 1) drawn in numpy from the table's Generator. A
# step consumes at most BUF_MARGIN of them (two deals of 20 cards, a first-seat
# draw and a few opponent actions), so the caller refills a table's buffer before
# a step whenever fewer than BUF_MARGIN remain: the same rule for one table or many.
BUF_SIZE = 2048
BUF_MARGIN = 128
