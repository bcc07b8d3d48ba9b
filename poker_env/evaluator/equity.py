"""Equity: exact by enumeration or seeded Monte Carlo, for Hold'em and five-card draw.

The enumeration kernels use the evaluator's additive hand state: the known
cards' state is summed once, each new board card adds its key, and each
player's hand is the board state plus his hole-card state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from poker_env.cards import Deck, _deck_name, format_cards, make_deck, parse_cards
from poker_env.evaluator.core import get_tables
from poker_env.evaluator.kernels import eval_key
from poker_env.evaluator.tables import EvalTables

__all__ = ["DrawEquity", "HoldemEquity", "draw_equity", "holdem_equity"]

Method = Literal["exact", "monte_carlo"]
_MC_CHUNK = 65_536


@dataclass(frozen=True)
class HoldemEquity:
    """Result of :func:`holdem_equity`, one entry per player.

    ``equity[p] = (wins[p] + tie_shares[p]) / num_boards``: a tie among k best
    hands gives each of them 1/k of that board.
    """

    equity: NDArray[np.float64]
    wins: NDArray[np.int64]
    ties: NDArray[np.int64]
    tie_shares: NDArray[np.float64]
    num_boards: int
    method: str

    @property
    def win_rate(self) -> NDArray[np.float64]:
        return self.wins / self.num_boards

    @property
    def tie_rate(self) -> NDArray[np.float64]:
        return self.ties / self.num_boards


@dataclass(frozen=True)
class DrawEquity:
    """Result of :func:`draw_equity`: one row per discard choice (32 of them).

    ``discards[i]`` is a bit mask over the hand's five cards (bit j set: card j is
    replaced); ``category_probs[i, c]`` the chance the final hand is of category
    ``c`` (0 high card .. 8 straight flush); ``equity[i]`` the share of the pot
    won against the opposing hand (wins plus half the ties), exact against a
    given hand and Monte Carlo against a random one (``equity_stderr`` its error).
    """

    hand: NDArray[np.int8]
    discards: NDArray[np.int64]
    category_probs: NDArray[np.float64]
    equity: NDArray[np.float64]
    win: NDArray[np.float64]
    tie: NDArray[np.float64]
    equity_stderr: NDArray[np.float64]
    num_draws: NDArray[np.int64]

    def best(self) -> int:
        """The discard mask with the highest equity."""
        return int(self.discards[int(np.argmax(self.equity))])

    def discard_cards(self, i: int) -> str:
        """Text of the cards thrown by row ``i``."""
        mask = int(self.discards[i])
        return format_cards([c for j, c in enumerate(self.hand) if mask >> j & 1])


@njit(cache=True)
def _next_combo(idx: NDArray[np.int64], m: int, n: int) -> int:
    """Advance ``idx`` to the next m-subset of range(n); return the first changed slot, -1 at the end."""
    t = m - 1
    while t >= 0 and idx[t] == n - m + t:
        t -= 1
    if t < 0:
        return -1
    idx[t] += 1
    for u in range(t + 1, m):
        idx[u] = idx[u - 1] + 1
    return t


@njit(cache=True)
def _score(
    values: NDArray[np.int32],
    wins: NDArray[np.int64],
    ties: NDArray[np.int64],
    shares: NDArray[np.float64],
    weight: int,
) -> None:
    best = values.max()
    num_best = 0
    for p in range(values.size):
        if values[p] == best:
            num_best += 1
    for p in range(values.size):
        if values[p] == best:
            if num_best == 1:
                wins[p] += weight
            else:
                ties[p] += weight
                shares[p] += weight / num_best


@njit(cache=True, _nrt=False)
def _add_score(
    values: NDArray[np.int32],
    wins: NDArray[np.int64],
    ties: NDArray[np.int64],
    shares: NDArray[np.float64],
    weight: int,
) -> None:
    """Credit one outcome (``weight`` boards; negative to take a credit back)."""
    best = values[0]
    for p in range(1, values.size):
        best = max(best, values[p])
    num_best = 0
    for p in range(values.size):
        num_best += values[p] == best
    for p in range(values.size):
        if values[p] == best:
            if num_best == 1:
                wins[p] += weight
            else:
                ties[p] += weight
                shares[p] += weight / num_best


@njit(cache=True)
def _binomial(n: int, k: int) -> int:
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


@njit(cache=True)
def _holdem_exact(
    hole_keys: NDArray[np.uint64],
    hole_masks: NDArray[np.uint64],
    board_key: np.uint64,
    board_mask: np.uint64,
    rest: NDArray[np.int64],
    missing: int,
    tables: EvalTables,
    wins: NDArray[np.int64],
    ties: NDArray[np.int64],
    shares: NDArray[np.float64],
) -> int:
    """Every completion of the board, counted exactly; returns the number of boards.

    Without flushes a board's outcome depends only on its ranks. So:

    1. every multiset of ranks for the missing cards is scored once, with
       everyone's best non-flush hand, weighted by how many boards have those
       ranks (a product of binomials over the undealt cards of each rank);
    2. the boards on which somebody makes a flush are then enumerated one by
       one (only suit patterns with enough cards of one suit for some player),
       and their score replaces the non-flush score credited in step 1.

    For two players before the flop that is ~6,000 rank patterns and ~30,000
    flush boards instead of 1,712,304 boards.
    """
    num_players = hole_keys.size
    values = np.empty(num_players, dtype=np.int32)
    plain = np.empty(num_players, dtype=np.int32)
    low = np.uint64(0xFFFFFFFF)
    avail = np.zeros(13, dtype=np.int64)
    for c in rest:
        avail[c >> 2] += 1
    # Step 1: rank multisets r[0] <= r[1] <= ... of the missing cards.
    total = 0
    ranks = np.zeros(max(missing, 1), dtype=np.int64)
    while True:
        weight = 1
        key = board_key & low
        i = 0
        while i < missing:
            j = i
            while j + 1 < missing and ranks[j + 1] == ranks[i]:
                j += 1
            weight *= _binomial(avail[ranks[i]], j - i + 1)
            key += np.uint64(j - i + 1) * (tables.card_keys[4 * ranks[i]] & low)
            i = j + 1
        if weight > 0:
            for p in range(num_players):
                plain[p] = eval_key(key + (hole_keys[p] & low), np.uint64(0), tables)
            _add_score(plain, wins, ties, shares, weight)
            total += weight
        # Next non-decreasing sequence.
        t = missing - 1
        while t >= 0 and ranks[t] == 12:
            t -= 1
        if t < 0:
            break
        ranks[t] += 1
        for u in range(t + 1, missing):
            ranks[u] = ranks[t]
    # Step 2: boards where some player holds five of a suit.
    by_suit = np.full((4, 13), -1, dtype=np.int64)
    num_suit = np.zeros(4, dtype=np.int64)
    for c in rest:
        s = c & 3
        by_suit[s, num_suit[s]] = c
        num_suit[s] += 1
    need = np.zeros(4, dtype=np.int64)  # new cards of a suit that give somebody a flush
    for s in range(4):
        most = 0
        for p in range(num_players):
            held = int(((hole_keys[p] + board_key) >> np.uint64(48 + 4 * s)) & np.uint64(0xF))
            most = max(most, held)
        need[s] = 5 - most
    counts = np.zeros(4, dtype=np.int64)
    idx = np.zeros((4, 5), dtype=np.int64)
    # Every suit pattern (k_c, k_d, k_h, k_s) of the missing cards.
    for k0 in range(missing + 1):
        for k1 in range(missing + 1 - k0):
            for k2 in range(missing + 1 - k0 - k1):
                k3 = missing - k0 - k1 - k2
                counts[0], counts[1], counts[2], counts[3] = k0, k1, k2, k3
                flush = False
                fits = True
                for s in range(4):
                    flush |= counts[s] >= need[s]
                    fits &= counts[s] <= num_suit[s]
                if not (flush and fits):
                    continue
                for s in range(4):
                    for u in range(counts[s]):
                        idx[s, u] = u
                while True:
                    key = board_key
                    mask = board_mask
                    for s in range(4):
                        for u in range(counts[s]):
                            c = by_suit[s, idx[s, u]]
                            key += tables.card_keys[c]
                            mask |= tables.card_masks[c]
                    for p in range(num_players):
                        values[p] = eval_key(key + hole_keys[p], mask | hole_masks[p], tables)
                        plain[p] = eval_key((key + hole_keys[p]) & low, np.uint64(0), tables)
                    _add_score(values, wins, ties, shares, 1)
                    _add_score(plain, wins, ties, shares, -1)
                    # Odometer over the four suits' combinations.
                    s = 3
                    while s >= 0:
                        if counts[s] > 0 and _next_combo(idx[s], counts[s], num_suit[s]) >= 0:
                            break
                        for u in range(counts[s]):
                            idx[s, u] = u
                        s -= 1
                    if s < 0:
                        break
    return total


@njit(cache=True)
def _holdem_monte_carlo(
    holes: NDArray[np.int64],
    board: NDArray[np.int64],
    rest: NDArray[np.int64],
    uniforms: NDArray[np.float64],
    tables: EvalTables,
    wins: NDArray[np.int64],
    ties: NDArray[np.int64],
    shares: NDArray[np.float64],
) -> None:
    # holes: (players, 2), -1 for a player whose cards are drawn; uniforms: (trials, draws).
    num_players = holes.shape[0]
    missing = 5 - board.size
    values = np.empty(num_players, dtype=np.int32)
    deck = rest.copy()
    n = deck.size
    for trial in range(uniforms.shape[0]):
        # Partial Fisher-Yates: the first `draws` cards of `deck` become a uniform sample.
        for j in range(uniforms.shape[1]):
            r = j + np.int64(uniforms[trial, j] * (n - j))
            deck[j], deck[r] = deck[r], deck[j]
        key = np.uint64(0)
        mask = np.uint64(0)
        for c in board:
            key += tables.card_keys[c]
            mask |= tables.card_masks[c]
        for j in range(missing):
            key += tables.card_keys[deck[j]]
            mask |= tables.card_masks[deck[j]]
        drawn = missing
        for p in range(num_players):
            pk, pm = key, mask
            for h in range(2):
                c = holes[p, h]
                if c < 0:
                    c = deck[drawn]
                    drawn += 1
                pk += tables.card_keys[c]
                pm |= tables.card_masks[c]
            values[p] = eval_key(pk, pm, tables)
        _score(values, wins, ties, shares, 1)


def _as_cards(cards: ArrayLike | str | None, what: str) -> NDArray[np.int64]:
    if cards is None:
        return np.empty(0, dtype=np.int64)
    arr = parse_cards(cards) if isinstance(cards, str) else np.asarray(cards)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what} must be card strings or integer cards, got dtype {arr.dtype}")
    arr = arr.astype(np.int64).ravel()
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        raise ValueError(f"{what}: card index out of range; allowed: 0..51")
    return arr


def _check_disjoint(groups: list[tuple[str, NDArray[np.int64]]]) -> None:
    seen: dict[int, str] = {}
    for name, cards in groups:
        for c in cards:
            if int(c) in seen:
                raise ValueError(
                    f"card {format_cards([c])} appears in {seen[int(c)]} and in {name}"
                )
            seen[int(c)] = name


def holdem_equity(
    hole_cards: list[ArrayLike | str | None],
    board: ArrayLike | str | None = None,
    dead: ArrayLike | str | None = None,
    *,
    method: Method = "exact",
    num_samples: int = 100_000,
    rng: np.random.Generator | int | None = None,
) -> HoldemEquity:
    """Each player's share of the pot over all ways to complete the board.

    Args:
        hole_cards: 2..10 players' hole cards (``"As Ah"`` or two card ints);
            ``None`` for a player whose cards are unknown (Monte Carlo only).
        board: 0, 3, 4 or 5 known board cards.
        dead: cards known to be out of play.
        method: ``"exact"`` enumerates every board; ``"monte_carlo"`` samples
            ``num_samples`` boards (and unknown hole cards) from ``rng``.

    >>> r = holdem_equity(["As Ah", "Ks Kh"])
    >>> int(r.wins[0]), int(r.ties[0]), r.num_boards, round(float(r.equity[0]), 6)
    (1410336, 9308, 1712304, 0.826366)
    """
    if not 2 <= len(hole_cards) <= 10:
        raise ValueError(f"hole_cards must list 2..10 players, got {len(hole_cards)}")
    holes = np.full((len(hole_cards), 2), -1, dtype=np.int64)
    for p, h in enumerate(hole_cards):
        if h is None:
            continue
        cards = _as_cards(h, f"hole_cards[{p}]")
        if cards.size != 2:
            raise ValueError(f"hole_cards[{p}] must hold 2 cards, got {cards.size}")
        holes[p] = cards
    board_cards = _as_cards(board, "board")
    dead_cards = _as_cards(dead, "dead")
    if board_cards.size not in (0, 3, 4, 5):
        raise ValueError(f"board must hold 0, 3, 4 or 5 cards, got {board_cards.size}")
    _check_disjoint(
        [(f"hole_cards[{p}]", holes[p][holes[p] >= 0]) for p in range(len(holes))]
        + [("board", board_cards), ("dead", dead_cards)]
    )
    known = np.concatenate([holes[holes >= 0], board_cards, dead_cards])
    rest = np.setdiff1d(np.arange(52), known).astype(np.int64)
    tables = get_tables("standard")
    num_players = len(holes)
    wins = np.zeros(num_players, dtype=np.int64)
    ties = np.zeros(num_players, dtype=np.int64)
    shares = np.zeros(num_players, dtype=np.float64)
    missing = 5 - board_cards.size
    if method == "exact":
        if (holes < 0).any():
            raise ValueError(
                "exact enumeration needs every player's hole cards; use method='monte_carlo' for unknown hands"
            )
        keys = tables.card_keys[holes].sum(axis=1, dtype=np.uint64)
        masks = np.bitwise_or.reduce(tables.card_masks[holes], axis=1)
        bkey = np.uint64(tables.card_keys[board_cards].sum(dtype=np.uint64))
        bmask = (
            np.uint64(np.bitwise_or.reduce(tables.card_masks[board_cards]))
            if board_cards.size
            else np.uint64(0)
        )
        total = _holdem_exact(keys, masks, bkey, bmask, rest, missing, tables, wins, ties, shares)
    elif method == "monte_carlo":
        if num_samples < 1:
            raise ValueError(f"num_samples must be >= 1, got {num_samples}")
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        draws = missing + 2 * int((holes[:, 0] < 0).sum())
        for start in range(0, num_samples, _MC_CHUNK):
            count = min(_MC_CHUNK, num_samples - start)
            _holdem_monte_carlo(
                holes, board_cards, rest, gen.random((count, draws)), tables, wins, ties, shares
            )
        total = num_samples
    else:
        raise ValueError(f"unknown method {method!r}; allowed: 'exact', 'monte_carlo'")
    return HoldemEquity((wins + shares) / total, wins, ties, shares, int(total), method)


@njit(cache=True)
def _draw_exact(
    kept_key: np.uint64,
    kept_mask: np.uint64,
    stock: NDArray[np.int64],
    num_draw: int,
    opponent_value: int,
    tables: EvalTables,
    categories: NDArray[np.int64],
) -> tuple[int, int, int]:
    """Enumerate every draw of ``num_draw`` cards; count categories, wins and ties against a fixed value."""
    keys = np.empty(num_draw + 1, dtype=np.uint64)
    masks = np.empty(num_draw + 1, dtype=np.uint64)
    keys[0], masks[0] = kept_key, kept_mask
    idx = np.arange(num_draw)
    total = wins = ties = 0
    changed = 0
    while True:
        for t in range(changed, num_draw):
            c = stock[idx[t]]
            keys[t + 1] = keys[t] + tables.card_keys[c]
            masks[t + 1] = masks[t] | tables.card_masks[c]
        v = eval_key(keys[num_draw], masks[num_draw], tables)
        categories[(v >> 12) & 0xF] += 1
        wins += v > opponent_value
        ties += v == opponent_value
        total += 1
        changed = _next_combo(idx, num_draw, stock.size)
        if changed < 0:
            return total, wins, ties


@njit(cache=True)
def _draw_monte_carlo(
    kept: NDArray[np.int64],
    unseen: NDArray[np.int64],
    num_draw: int,
    uniforms: NDArray[np.float64],
    tables: EvalTables,
) -> tuple[int, int, float]:
    """Sample an opposing hand (5 of the unseen cards) and our draw from the rest."""
    deck = unseen.copy()
    n = deck.size
    wins = ties = 0
    sq = 0.0
    for trial in range(uniforms.shape[0]):
        for j in range(5 + num_draw):
            r = j + np.int64(uniforms[trial, j] * (n - j))
            deck[j], deck[r] = deck[r], deck[j]
        ok = np.uint64(0)
        om = np.uint64(0)
        for j in range(5):
            ok += tables.card_keys[deck[j]]
            om |= tables.card_masks[deck[j]]
        mk = np.uint64(0)
        mm = np.uint64(0)
        for c in kept:
            mk += tables.card_keys[c]
            mm |= tables.card_masks[c]
        for j in range(5, 5 + num_draw):
            mk += tables.card_keys[deck[j]]
            mm |= tables.card_masks[deck[j]]
        mine = eval_key(mk, mm, tables)
        theirs = eval_key(ok, om, tables)
        score = 1.0 if mine > theirs else (0.5 if mine == theirs else 0.0)
        wins += mine > theirs
        ties += mine == theirs
        sq += score * score
    return wins, ties, sq


def draw_equity(
    hand: ArrayLike | str,
    opponent: ArrayLike | str | None = None,
    *,
    deck: Deck | int = "standard",
    flush_beats_full_house: bool = False,
    dead: ArrayLike | str | None = None,
    num_samples: int = 20_000,
    rng: np.random.Generator | int | None = None,
) -> DrawEquity:
    """Every discard choice of a five-card draw hand, with its outcome distribution.

    For each of the 32 subsets of the hand to replace, enumerates every draw
    from the stock (the deck less the hand, the opponent's hand if given, and
    ``dead``) for the exact distribution of the final hand's category. Against
    a given ``opponent`` (standing pat) the equity is exact too; against a
    random opposing hand it is a Monte Carlo estimate from ``num_samples``
    deals per choice drawn from ``rng`` (the opponent's five cards and our draw
    both from the cards we have not seen).
    """
    deck_name = _deck_name(deck)
    mine = _as_cards(hand, "hand")
    if mine.size != 5:
        raise ValueError(f"hand must hold 5 cards, got {mine.size}")
    opp = _as_cards(opponent, "opponent")
    if opp.size not in (0, 5):
        raise ValueError(
            f"opponent must hold 5 cards (or be None for a random hand), got {opp.size}"
        )
    dead_cards = _as_cards(dead, "dead")
    _check_disjoint([("hand", mine), ("opponent", opp), ("dead", dead_cards)])
    deck_cards = make_deck(deck_name).astype(np.int64)
    for name, cards in (("hand", mine), ("opponent", opp), ("dead", dead_cards)):
        outside = np.setdiff1d(cards, deck_cards)
        if outside.size:
            raise ValueError(f"{name}: {format_cards(outside)} not in the {deck_name} deck")
    tables = get_tables(deck_name, flush_beats_full_house)
    unseen = np.setdiff1d(deck_cards, np.concatenate([mine, dead_cards])).astype(np.int64)
    stock = np.setdiff1d(unseen, opp).astype(np.int64)
    if opp.size:
        opp_value = int(
            eval_key(
                tables.card_keys[opp].sum(dtype=np.uint64),
                np.bitwise_or.reduce(tables.card_masks[opp]),
                tables,
            )
        )
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    discards = np.arange(32, dtype=np.int64)
    probs = np.zeros((32, 9))
    equity = np.zeros(32)
    win = np.zeros(32)
    tie = np.zeros(32)
    stderr = np.zeros(32)
    num_draws = np.zeros(32, dtype=np.int64)
    for d in discards:
        kept = mine[[(d >> j) & 1 == 0 for j in range(5)]]
        num_draw = 5 - kept.size
        if num_draw > stock.size:
            raise ValueError(f"the stock holds {stock.size} cards, too few to draw {num_draw}")
        categories = np.zeros(9, dtype=np.int64)
        key = np.uint64(tables.card_keys[kept].sum(dtype=np.uint64))
        mask = (
            np.uint64(np.bitwise_or.reduce(tables.card_masks[kept])) if kept.size else np.uint64(0)
        )
        total, w, t = _draw_exact(
            key, mask, stock, num_draw, opp_value if opp.size else -1, tables, categories
        )
        probs[d] = categories / total
        num_draws[d] = total
        if opp.size:
            win[d], tie[d] = w / total, t / total
            stderr[d] = 0.0
        else:
            w, t, sq = _draw_monte_carlo(
                kept, unseen, num_draw, gen.random((num_samples, 5 + num_draw)), tables
            )
            win[d], tie[d] = w / num_samples, t / num_samples
            mean = win[d] + tie[d] / 2
            stderr[d] = np.sqrt(max(sq / num_samples - mean * mean, 0.0) / num_samples)
        equity[d] = win[d] + tie[d] / 2
    return DrawEquity(mine.astype(np.int8), discards, probs, equity, win, tie, stderr, num_draws)
