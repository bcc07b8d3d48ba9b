"""The evaluator against facts from outside the code: known counts, a slow reference, hand-worked examples."""

from __future__ import annotations

import itertools
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit

from poker_env.cards import make_deck, parse_cards
from poker_env.evaluator import core as core_module
from poker_env.evaluator import (
    describe_hand,
    evaluate,
    get_tables,
    hand_category,
    hand_name,
    release_buffers,
    validate_hands,
)
from poker_env.evaluator import tables as tables_module
from poker_env.evaluator.kernels import eval_cards, eval_key
from poker_env.evaluator.tables import RANK_KEYS, batch_tables
from tests.cpu import cpu_flags
from tests.evaluator.reference import reference_rank

# Published five-card counts (52-card deck), high card .. straight flush.
FIVE_CARD_COUNTS = [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
FIVE_CARD_DISTINCT = [1_277, 2_860, 858, 858, 10, 1_277, 156, 156, 10]
# Seven-card counts (best five of seven), as published (e.g. Wikipedia "Poker probability").
SEVEN_CARD_COUNTS = [
    23_294_460,
    58_627_800,
    31_433_400,
    6_461_620,
    6_180_020,
    4_047_644,
    3_473_184,
    224_848,
    41_584,
]
# 32-card deck (RULES.md §0 gives SF, quads, FH, flush, straight; the rest by counting:
# trips 8*4*C(7,2)*16, two pair C(8,2)*6*6*24, pair 8*6*C(7,3)*64).
SHORT_COUNTS = [52_020, 107_520, 24_192, 10_752, 5_100, 204, 1_344, 224, 20]


def all_hands(deck: str, k: int = 5) -> np.ndarray:
    cards = make_deck(deck)
    return np.array(list(itertools.combinations(cards, k)), dtype=np.int8)


@pytest.fixture(scope="module")
def five_card_ranks() -> np.ndarray:
    return evaluate(all_hands("standard"), validate=False)


def test_rank_keys_give_unique_sums_for_up_to_seven_cards() -> None:
    counts = np.array(_count_vectors(), dtype=np.int64)
    assert len(counts) == 76_155  # rank multisets of 0..7 cards, at most four of a rank
    sums = counts @ RANK_KEYS.astype(np.int64)
    assert np.unique(sums).size == len(sums)


def _count_vectors() -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def rec(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == 13:
            out.append(prefix)
            return
        for c in range(min(4, left) + 1):
            rec((*prefix, c), left - c)

    rec((), 7)
    return out


def test_all_five_card_hands_category_counts(five_card_ranks: np.ndarray) -> None:
    assert five_card_ranks.size == 2_598_960
    assert np.bincount(hand_category(five_card_ranks), minlength=9).tolist() == FIVE_CARD_COUNTS


def test_all_five_card_hands_7462_distinct_ranks(five_card_ranks: np.ndarray) -> None:
    distinct = np.unique(five_card_ranks)
    assert distinct.size == 7_462
    assert np.bincount(hand_category(distinct), minlength=9).tolist() == FIVE_CARD_DISTINCT


def test_all_short_deck_hands_counts_and_840_distinct() -> None:
    ranks = evaluate(all_hands("short"), deck="short")
    assert ranks.size == 201_376
    assert np.bincount(hand_category(ranks), minlength=9).tolist() == SHORT_COUNTS
    assert np.unique(ranks).size == 840


@njit
def _count_all_seven(tables, counts):  # type: ignore[no-untyped-def]
    # Incremental additive state over all C(52, 7) hands (the design's point).
    ck, cm = tables.card_keys, tables.card_masks
    for a in range(52):
        ka, ma = ck[a], cm[a]
        for b in range(a + 1, 52):
            kb, mb = ka + ck[b], ma | cm[b]
            for c in range(b + 1, 52):
                kc, mc = kb + ck[c], mb | cm[c]
                for d in range(c + 1, 52):
                    kd, md = kc + ck[d], mc | cm[d]
                    for e in range(d + 1, 52):
                        ke, me = kd + ck[e], md | cm[e]
                        for f in range(e + 1, 52):
                            kf, mf = ke + ck[f], me | cm[f]
                            for g in range(f + 1, 52):
                                v = eval_key(kf + ck[g], mf | cm[g], tables)
                                counts[(v >> 12) & 0xF] += 1


@pytest.mark.slow
def test_all_seven_card_hands_category_counts() -> None:
    counts = np.zeros(9, dtype=np.int64)
    _count_all_seven(get_tables(), counts)
    assert counts.sum() == 133_784_560
    assert counts.tolist() == SEVEN_CARD_COUNTS


def _random_hands(rng: np.random.Generator, n: int, k: int, deck: str) -> np.ndarray:
    cards = make_deck(deck)
    return np.array([rng.choice(cards, size=k, replace=False) for _ in range(n)], dtype=np.int8)


@pytest.mark.parametrize("deck", ["standard", "short"])
@pytest.mark.parametrize("k", [5, 6, 7])
@pytest.mark.parametrize("italian", [False, True])
def test_random_hands_rank_in_reference_order(deck: str, k: int, italian: bool) -> None:
    rng = np.random.default_rng(1000 * k + (deck == "short") + 10 * italian)
    hands = _random_hands(rng, 600, k, deck)
    ours = evaluate(hands, deck=deck, flush_beats_full_house=italian)
    ref = [
        reference_rank(tuple(int(c) for c in h), short=deck == "short", italian=italian)
        for h in hands
    ]
    # Compare every pair's order (ties included), and the category itself.
    order_ours = np.sign(ours[:, None].astype(np.int64) - ours[None, :])
    ref_keys = sorted(set(ref))
    ref_pos = np.array([ref_keys.index(r) for r in ref])
    order_ref = np.sign(ref_pos[:, None] - ref_pos[None, :])
    assert (order_ours == order_ref).all()
    assert hand_category(ours).tolist() == [r[1] for r in ref]


def test_short_deck_lowest_straight_is_ace_to_ten() -> None:
    wheel = evaluate(parse_cards("Ac 7d 8h 9s Tc"), deck="short")
    seven_to_jack = evaluate(parse_cards("7d 8h 9s Tc Jc"), deck="short")
    assert hand_name(wheel) == "Straight"
    assert wheel < seven_to_jack
    trips = evaluate(parse_cards("Ac Ad Ah 9s Tc"), deck="short")
    assert trips < wheel
    sf_wheel = evaluate(parse_cards("Ah 7h 8h 9h Th"), deck="short")
    assert hand_name(sf_wheel) == "Straight Flush"
    assert sf_wheel < evaluate(parse_cards("7h 8h 9h Th Jh"), deck="short")
    # In the 52-card deck the same five cards are only ace-high.
    assert hand_name(evaluate(parse_cards("Ac 7d 8h 9s Tc"))) == "High Card"


def test_standard_wheel_is_lowest_straight() -> None:
    wheel = evaluate(parse_cards("Ac 2d 3h 4s 5c"))
    six = evaluate(parse_cards("2c 3d 4h 5s 6c"))
    assert hand_name(wheel) == "Straight" and wheel < six
    assert evaluate(parse_cards("Qc Kd Ah 2s 3c")) < wheel  # no wrap-around straight


def test_flush_beats_full_house_option() -> None:
    flush = parse_cards("2h 5h 9h Jh Kh")
    boat = parse_cards("7c 7d 7h 2s 2c")
    std = evaluate([flush, boat])
    ita = evaluate([flush, boat], flush_beats_full_house=True)
    assert std[0] < std[1]
    assert ita[0] > ita[1]
    assert hand_category(ita).tolist() == [5, 6]


def test_tie_break_rules_hand_worked() -> None:
    # RULES.md §0: grouped ranks first, then kickers from the top; suits never break ties.
    pairs = evaluate([parse_cards("Kh Kd 9s 5c 3h"), parse_cards("Ks Kc 9h 5d 2h")])
    assert pairs[0] > pairs[1]
    two_pair = evaluate([parse_cards("Ah Ad 3s 3c Kh"), parse_cards("Kc Kd Qs Qc 2h")])
    assert two_pair[0] > two_pair[1]
    boats = evaluate([parse_cards("3h 3d 3s Ac Ah"), parse_cards("4h 4d 4s 2c 2h")])
    assert boats[0] < boats[1]
    flushes = evaluate([parse_cards("Ah Qh 9h 5h 3h"), parse_cards("As Qs 9s 5s 2s")])
    assert flushes[0] > flushes[1]
    same = evaluate([parse_cards("Ah Kd 9s 5c 3h"), parse_cards("As Kc 9h 5d 3d")])
    assert same[0] == same[1]


def test_best_five_of_seven() -> None:
    r = evaluate(parse_cards("2c 2d 2h 5s 5c 5d Ah"))
    assert describe_hand(r) == "Full House, Fives over Twos"
    r6 = evaluate(parse_cards("Ts Js Qs Ks As 2d"))
    assert hand_name(r6) == "Royal Flush"


def test_names_and_descriptions() -> None:
    cases = {
        "Kh Kd 7s 7c 2h": "Two Pair, Kings and Sevens",
        "Ac 2d 3h 4s 5c": "Straight, Five high",
        "9h 9d 9s Kc 2h": "Three of a Kind, Nines",
        "Ah Qh 9h 5h 3h": "Flush, Ace high",
        "Qc Qd Qh Qs 2c": "Four of a Kind, Queens",
        "5h 6h 7h 8h 9h": "Straight Flush, Nine high",
        "Ts Js Qs Ks As": "Royal Flush",
        "Ah Kd 9s 5c 3h": "High Card, Ace high",
        "Jh Jd 9s 5c 3h": "Pair, Jacks",
    }
    for text, want in cases.items():
        assert describe_hand(evaluate(parse_cards(text))) == want, text


def test_six_and_seven_cards_match_best_of_subsets() -> None:
    rng = np.random.default_rng(5)
    hands = _random_hands(rng, 300, 7, "standard")
    best = np.array(
        [max(evaluate(np.array(list(itertools.combinations(h, 5)), dtype=np.int8))) for h in hands]
    )
    assert (evaluate(hands) == best).all()


def test_single_hand_and_dtypes() -> None:
    hand = parse_cards("As Ks Qs Js Ts")
    r = evaluate(hand)
    assert np.ndim(r) == 0
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8):
        assert evaluate(hand.astype(dtype)) == r


def test_threads_give_the_same_ranks() -> None:
    hands = _random_hands(np.random.default_rng(9), 1000, 7, "standard")
    big = np.tile(hands, (250, 1))  # 250,000 rows: above the parallel threshold
    assert (
        evaluate(big, num_threads=1)
        == evaluate(big, num_threads=max(2, numba.config.NUMBA_NUM_THREADS))
    ).all()


def test_out_receives_the_same_ranks_and_is_returned() -> None:
    hands = _random_hands(np.random.default_rng(11), 400, 7, "standard")
    # A flush in each suit, with and without a pair beside it (the batch loop finds
    # the flush suit from the position of its counter's flag bit).
    flushes = [f"A{s} K{s} 9{s} 7{s} 2{s} 3c 4d" for s in "cdhs"]
    flushes += [f"Q{s} J{s} 8{s} 6{s} 4{s} 4c 4d" for s in "hs"]
    hands = np.concatenate([hands, np.array([parse_cards(f) for f in flushes])])
    for k in (5, 6, 7):
        want = [reference_rank(tuple(int(c) for c in h[:k])) for h in hands]
        keys = sorted(set(want))
        pos = np.array([keys.index(w) for w in want])
        for validate in (True, False):
            out = np.full(len(hands), -1, dtype=np.int32)
            got = evaluate(np.ascontiguousarray(hands[:, :k]), validate=validate, out=out)
            assert got is out
            # The slow reference's order, ties included.
            assert (
                np.sign(out[:, None] - out[None, :].astype(np.int64))
                == np.sign(pos[:, None] - pos[None, :])
            ).all()
    assert hand_category(out[-6:]).tolist() == [5] * 6
    one = np.zeros(1, dtype=np.int32)
    assert evaluate(parse_cards("As Ks Qs Js Ts"), out=one) == one[0]


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (np.zeros(3, np.int32), r"shape \(4,\).*got shape \(3,\)"),
        (np.zeros(4, np.int64), "got dtype int64"),
        (np.zeros(8, np.int32)[::2], "not C-contiguous"),
        (np.zeros((4, 1), np.int32), r"got shape \(4, 1\)"),
        ([0, 0, 0, 0], "numpy int32 array"),
    ],
)
def test_bad_out_names_the_problem(out: object, message: str) -> None:
    hands = np.tile(parse_cards("As Ks Qs Js Ts"), (4, 1))
    with pytest.raises(ValueError, match=message):
        evaluate(hands, out=out)  # type: ignore[arg-type]
    frozen = np.zeros(4, np.int32)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        evaluate(hands, out=frozen)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ([[0, 1, 2, 3]], "shape"),
        ([[0, 1, 2, 3, 4, 5, 6, 7]], "shape"),
        ([[0, 1, 2, 3, 52]], "row 0: card 52 is outside the deck"),
        ([[0, 1, 2, 3, 4], [5, 6, 7, 8, 5]], "row 1: card 5 .* appears twice"),
        ([[0.0, 1.0, 2.0, 3.0, 4.0]], "integer"),
        ([[-1, 1, 2, 3, 4]], "outside the deck"),
    ],
)
def test_bad_input_names_the_problem(cards: list[list[float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(np.array(cards))


def test_short_deck_rejects_low_cards() -> None:
    with pytest.raises(ValueError, match="32-card deck"):
        evaluate(parse_cards("2c 7d 8h 9s Tc"), deck="short")
    with pytest.raises(ValueError, match="unknown deck"):
        evaluate(parse_cards("2c 7d 8h 9s Tc"), deck="pinochle")  # type: ignore[arg-type]


def test_validate_false_never_crashes_on_repeated_cards() -> None:
    junk = np.full((1000, 7), 51, dtype=np.int8)  # seven aces of spades: meaningless, but no crash
    assert evaluate(junk, validate=False).shape == (1000,)


def test_corrupt_table_cache_is_rebuilt_not_trusted(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("POKER_ENV_CACHE", str(tmp_path))
    path = tables_module._cache_file(True, False)
    path.parent.mkdir(parents=True, exist_ok=True)
    good = get_tables("short")
    # A foreign file with the right names but other contents fails the digest.
    np.savez(
        path, digest=np.array("0" * 64), **{f: getattr(good, f) * 0 for f in good._fields[:-1]}
    )
    loaded = tables_module._load_or_build(True, False)
    assert (loaded.rank_table == good.rank_table).all()
    path.write_bytes(b"not a zip file")
    assert (tables_module._load_or_build(True, False).flush_table == good.flush_table).all()
    # The rebuilt file is then trusted on the next load.
    assert (tables_module._load_or_build(True, False).row_offsets == good.row_offsets).all()


# --- Integer dtypes and the checks inside the compiled loop (issue 12 §6) ----------------

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("k", [5, 6, 7])
def test_every_integer_dtype_ranks_like_the_reference(dtype: type, k: int) -> None:
    rng = np.random.default_rng(100 + k)
    hands = _random_hands(rng, 200, k, "standard")
    want = [reference_rank(tuple(int(c) for c in h), short=False, italian=False) for h in hands]
    for validate in (True, False):
        ranks = evaluate(hands.astype(dtype), validate=validate)
        # Same order as the slow reference ranker, and the same ranks as int8 input.
        keys = sorted(set(want))
        pos = np.array([keys.index(w) for w in want])
        assert (
            np.sign(ranks[:, None] - ranks[None, :].astype(np.int64))
            == np.sign(pos[:, None] - pos[None, :])
        ).all()
        assert (ranks == evaluate(hands, validate=validate)).all()


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_arrays_are_used_without_a_converting_copy(dtype: type) -> None:
    import tracemalloc

    hands = _random_hands(np.random.default_rng(7), 1000, 7, "standard")
    big = np.tile(hands, (200, 1)).astype(dtype)  # 200,000 rows
    evaluate(big[:10])  # compile (or load) this dtype's kernel first
    assert np.shares_memory(validate_hands(big), big)
    tracemalloc.start()
    try:
        ranks = evaluate(big, num_threads=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The int32 result (800 KB) and small change; a converted copy would be >= 1.4 MB.
    assert peak < big.shape[0] * 4 + 200_000, peak
    assert (ranks == np.tile(evaluate(hands), 200)).all()


def _bad_cases(dtype: type) -> list[tuple[list[list[int]], str]]:
    info = np.iinfo(dtype)
    cases = [
        ([[0, 1, 2, 3, 52]], r"row 0: card 52 is outside the deck; allowed: 0\.\.51"),
        (
            [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 10]],
            r"row 2: card 10 \(4h\) appears twice",
        ),
        ([[9, 1, 2, 3, 63]], "row 0: card 63 is outside the deck"),
        ([[0, 1, 2, 3, int(info.max)]], f"row 0: card {int(info.max)} is outside the deck"),
    ]
    if info.min < 0:
        cases.append(([[0, 1, 2, 3, -1]], "row 0: card -1 is outside the deck"))
        cases.append(([[0, 1, 2, 3, int(info.min)]], f"card {int(info.min)} is outside the deck"))
    if info.bits > 8:
        # The lowest byte is a valid, unused card (5): only the higher bits make it bad.
        cases.append(([[0, 1, 2, 3, 256 + 5]], "row 0: card 261 is outside the deck"))
        cases.append(([[0, 1, 2, 3, int(info.max) // 2 + 7]], "is outside the deck"))
    return cases


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("k", [5, 7])
def test_each_dtype_refuses_bad_cards_naming_row_and_card(dtype: type, k: int) -> None:
    for rows, message in _bad_cases(dtype):
        arr = np.array([r + [40, 41][: k - 5] for r in rows], dtype=dtype)
        before = arr.copy()
        with pytest.raises(ValueError, match=message):
            evaluate(arr)
        with pytest.raises(ValueError, match=message):
            validate_hands(arr)
        assert (arr == before).all()  # nothing changed


@pytest.mark.parametrize("dtype", [d for d in INT_DTYPES if np.dtype(d).itemsize > 1])
@pytest.mark.parametrize("k", [5, 6, 7])
def test_bits_above_the_lowest_byte_are_refused_in_every_column(dtype: type, k: int) -> None:
    # Wider dtypes test a row's bits above the lowest byte with two vector loads of four
    # cards (columns 0-3 and k-4..k-1): a set bit anywhere, in any column, makes the row
    # bad. The lowest byte stays a valid card of the row's own (so only the high bit is
    # wrong), and the bad row sits among good ones, last row included.
    hands = _random_hands(np.random.default_rng(20 + k), 300, k, "standard").astype(dtype)
    bits = 8 * np.dtype(dtype).itemsize
    for row in (0, 137, 299):
        for col in range(k):
            for bit in sorted({8, bits // 2, bits - 2, bits - 1}):
                bad = hands.copy()
                card = int(bad[row, col])
                value = card | (1 << bit)
                if np.iinfo(dtype).min < 0 and bit == bits - 1:
                    value = card - (1 << bit)  # the sign bit: a negative value
                bad[row, col] = value
                with pytest.raises(ValueError, match=f"row {row}: card {value} is outside"):
                    evaluate(bad, num_threads=1)
                with pytest.raises(ValueError, match=f"row {row}: card {value} is outside"):
                    validate_hands(bad)
                # Unchecked it still ranks every other row as the reference does.
                ranks = evaluate(bad, validate=False)
                keep = np.arange(len(hands)) != row
                assert (ranks[keep] == evaluate(hands)[keep]).all()


def test_wide_dtypes_rank_random_hands_as_the_slow_reference() -> None:
    # The int64/int32/int16 loops (prefetching, the vector high-bit check) against the
    # slow reference ranker, on enough rows that the prefetch runs ahead of the loop.
    rng = np.random.default_rng(21)
    for k in (5, 6, 7):
        hands = _random_hands(rng, 3000, k, "standard")
        want = [reference_rank(tuple(int(c) for c in h), short=False, italian=False) for h in hands]
        keys = sorted(set(want))  # the reference's own order of the hands' values
        index = {key: i for i, key in enumerate(keys)}
        pos = np.array([index[w] for w in want])
        for dtype in (np.int16, np.int32, np.int64, np.uint64):
            ranks = evaluate(hands.astype(dtype), num_threads=1)
            order = np.argsort(ranks, kind="stable")
            assert (np.diff(pos[order]) >= 0).all()  # same order as the reference
            assert len(np.unique(ranks)) == len(keys)  # ties exactly where it ties
            assert (ranks == evaluate(hands, validate=False)).all()


def test_first_bad_row_is_named_in_a_large_batch_on_one_and_more_threads() -> None:
    hands = np.tile(_random_hands(np.random.default_rng(11), 1000, 7, "standard"), (250, 1))
    hands = hands.astype(np.int64)
    hands[230_001, 3] = hands[230_001, 5]  # a repeat in a later block ...
    hands[200_017, 6] = 52  # ... and the first bad row, in another block
    card = int(hands[230_001, 5])
    for threads in (1, max(2, numba.config.NUMBA_NUM_THREADS)):
        with pytest.raises(ValueError, match="row 200017: card 52 is outside the deck"):
            evaluate(hands, num_threads=threads)
    hands[200_017, 6] = hands[200_017, 0]
    with pytest.raises(ValueError, match=r"row 200017: card \d+ \(\w\w\) appears twice"):
        evaluate(hands, num_threads=2)
    hands[200_017] = hands[200_016]
    with pytest.raises(ValueError, match=f"row 230001: card {card} .* appears twice"):
        evaluate(hands, num_threads=2)


def test_check_agrees_with_a_slow_reference_on_random_junk() -> None:
    # Rows of 5-7 values from -2..70 (repeats and values outside the deck mixed in):
    # refused exactly when the slow check says, for both decks and a narrow and a wide dtype.
    rng = np.random.default_rng(12)
    for deck, low in (("standard", 0), ("short", 20)):
        for dtype in (np.int8, np.int32):
            for _ in range(400):
                k = int(rng.integers(5, 8))
                row = rng.integers(low - 2, 56, size=k)
                good = len(set(row.tolist())) == k and all(low <= c <= 51 for c in row.tolist())
                try:
                    evaluate(row.astype(dtype), deck=deck)
                    refused = False
                except ValueError:
                    refused = True
                assert refused != good, (deck, row)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (np.array([[0.0, 1.0, 2.0, 3.0, 4.0]]), "got dtype float64"),
        (np.array([0, 1, 2, 3, 4], dtype=np.float32), "got dtype float32"),
        (np.ones((2, 5), dtype=bool), "got dtype bool"),
        (np.array([["As", "Kd", "2c", "3c", "4c"]]), "got dtype <U2"),
        (np.zeros((2, 4), dtype=np.int64), r"shape \(2, 4\)"),
        (np.zeros((2, 8), dtype=np.int64), r"shape \(2, 8\)"),
        (np.zeros((2, 2, 5), dtype=np.int64), r"shape \(2, 2, 5\)"),
        (np.int64(7), r"shape \(\)"),
    ],
)
def test_non_integer_and_misshapen_input_is_refused_even_unvalidated(
    cards: np.ndarray, message: str
) -> None:
    for validate in (True, False):
        with pytest.raises(ValueError, match=message):
            evaluate(cards, validate=validate)


def test_validate_false_never_crashes_on_any_dtype_of_junk() -> None:
    rng = np.random.default_rng(13)
    for dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        junk = rng.integers(info.min, info.max, size=(5000, 7), dtype=dtype, endpoint=True)
        assert evaluate(junk, validate=False).shape == (5000,)
        assert evaluate(junk[:, :5], validate=False).shape == (5000,)


def test_non_native_byte_order_and_non_contiguous_input() -> None:
    hands = _random_hands(np.random.default_rng(14), 300, 7, "standard")
    want = evaluate(hands)
    assert (evaluate(hands.astype(">i4")) == want).all()
    wide = np.concatenate([hands, hands], axis=1).astype(np.int16)
    assert (evaluate(wide[:, ::2][:, :7]) == evaluate(wide[:, ::2][:, :7].copy())).all()
    assert (evaluate(np.asfortranarray(hands)) == want).all()


@pytest.mark.parametrize("bits", [16, 32])
@pytest.mark.parametrize("deck", ["standard", "short"])
@pytest.mark.parametrize("italian", [False, True])
def test_both_rank_widths_give_the_scalar_kernels_ranks(
    bits: int, deck: str, italian: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The batch kernels on 16-bit tables (a rank rebuilt from its low 16 bits) or on the
    # 32-bit ones, whichever rank_width picks on a machine: the same ranks as eval_cards
    # on EvalTables, checked or not, one thread or several, for every hand size.
    monkeypatch.setattr(tables_module, "rank_width", lambda wide=False: bits)
    assert batch_tables(deck, italian).seven.rank.dtype == (np.uint16 if bits == 16 else np.int32)
    tables = get_tables(deck, italian)
    rng = np.random.default_rng(bits + 2 * (deck == "short") + italian)
    for k in (5, 6, 7):
        hands = _random_hands(rng, 400, k, deck)
        want = np.array([eval_cards(h, tables) for h in hands], dtype=np.int32)
        assert (evaluate(hands, deck=deck, flush_beats_full_house=italian) == want).all()
        wide = hands.astype(np.int64)
        assert (evaluate(wide, deck, italian, validate=False) == want).all()
        reps = -(-core_module.PARALLEL_MIN_HANDS // len(hands))  # the threaded kernels
        big = np.tile(hands, (reps, 1))
        assert (evaluate(big, deck, italian, num_threads=2) == np.tile(want, reps)).all()
        got = evaluate(big.astype(np.int64), deck, italian, validate=False, num_threads=2)
        assert (got == np.tile(want, reps)).all()


def _fake_cpu(root: Path, cpu: int, l2: str, shared: str, siblings: str) -> None:
    """One CPU of a Linux sysfs tree: an L1 (index0) and an L2 (index2) cache entry."""
    for index, level, size, share in (
        ("index0", "1", "48K", str(cpu)),
        ("index2", "2", l2, shared),
    ):
        d = root / f"cpu{cpu}" / "cache" / index
        d.mkdir(parents=True)
        (d / "level").write_text(level + "\n")
        (d / "size").write_text(size + "\n")
        (d / "shared_cpu_list").write_text(share + "\n")
    topo = root / f"cpu{cpu}" / "topology"
    topo.mkdir(parents=True)
    (topo / "thread_siblings_list").write_text(siblings + "\n")


def test_the_l2_size_is_the_smallest_per_core_share_over_the_cpus_we_may_run_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hybrid CPU's layout (Intel Alder Lake: two threads of a big core on its own 1.25
    MB L2; four small cores sharing one 2 MB L2): a thread on a small core has 512 KB."""
    root = tmp_path / "cpu"
    _fake_cpu(root, 0, "1280K", "0-1", "0-1")
    _fake_cpu(root, 1, "1280K", "0-1", "0-1")
    for cpu in range(2, 6):
        _fake_cpu(root, cpu, "2048K", "2-5", str(cpu))
    monkeypatch.setattr(
        tables_module.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5}, raising=False
    )
    assert tables_module._l2_bytes(root) == 512 << 10
    # Pinned to the big core: its whole L2 (its two threads are one core).
    monkeypatch.setattr(tables_module.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert tables_module._l2_bytes(root) == 1280 << 10
    # Threads not listed (some VMs): the cache counts whole, not halved.
    (root / "cpu0" / "topology" / "thread_siblings_list").unlink()
    assert tables_module._l2_bytes(root) == 1280 << 10
    # Unreadable or missing entries: skipped; nothing at all: unknown.
    (root / "cpu1" / "cache" / "index2" / "size").write_text("lots\n")
    (root / "cpu0" / "cache" / "index2" / "type").write_text("Instruction\n")
    assert tables_module._l2_bytes(root) is None
    (root / "cpu0" / "cache" / "index2" / "type").write_text("Unified\n")
    assert tables_module._l2_bytes(root) == 1280 << 10
    assert tables_module._l2_bytes(tmp_path / "nothing") is None
    assert tables_module._cpu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]


def test_rank_width_follows_the_environment_and_refuses_other_values(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    # The width is read once a process: forget this test's settings when it ends.
    request.addfinalizer(tables_module.rank_width.cache_clear)
    for value, want in (("16", 16), ("32", 32)):
        monkeypatch.setenv("POKER_ENV_RANK_BITS", value)
        tables_module.rank_width.cache_clear()
        assert tables_module.rank_width() == want
        assert tables_module.rank_width(wide=True) == want  # the variable decides both
    monkeypatch.setenv("POKER_ENV_RANK_BITS", "8")
    tables_module.rank_width.cache_clear()
    with pytest.raises(ValueError, match="POKER_ENV_RANK_BITS='8'; allowed"):
        tables_module.rank_width()
    monkeypatch.delenv("POKER_ENV_RANK_BITS")
    tables_module.rank_width.cache_clear()
    assert tables_module.rank_width() in (16, 32)
    assert tables_module.rank_width(wide=True) == 16  # int16..int64 hands: 16 everywhere
    with pytest.raises(ValueError, match="bits=24; allowed: 16 or 32"):
        batch_tables(bits=24)
    with pytest.raises(ValueError, match="unknown deck 'bogus'"):
        batch_tables("bogus")


def _big_batches(seed: int, count: int) -> list[np.ndarray]:
    # Batches just over the pool's lower bound: 400 checked hands tiled, int64.
    rng = np.random.default_rng(seed)
    reps = -(-core_module._POOL_MIN_HANDS // 400)
    return [np.tile(_random_hands(rng, 400, 7, "standard"), (reps, 1)) for _ in range(count)]


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def test_a_result_still_referenced_is_never_reused_and_a_dropped_one_is() -> None:
    # evaluate's fresh outputs reuse memory only when nothing else holds it: an earlier
    # result, a view of it or a memoryview keeps its ranks; once a result's name is
    # rebound, the next call's new array is over its memory (its page faults saved).
    a, b, c, d = _big_batches(5, 4)
    want = [evaluate(x, out=np.empty(len(x), np.int32)).copy() for x in (a, b, c, d)]
    kept = evaluate(a)
    view = evaluate(b)[100:]
    mem = memoryview(evaluate(c))
    for x in (d, a, b, c, d):
        assert (evaluate(x.astype(np.int64)) == evaluate(x)).all()
    assert (kept == want[0]).all()
    assert (view == want[1][100:]).all()
    assert (np.asarray(mem) == want[2]).all()
    first = evaluate(d)
    first_address = _address(first)
    del first
    again = evaluate(a)
    assert _address(again) == first_address and (again == want[0]).all()
    assert again.dtype == np.int32 and again.shape == (len(a),) and again.flags.writeable
    small = evaluate(a[:1000])
    assert _address(small) != _address(evaluate(a[:1000]))  # below the pool's bound


def test_what_a_user_does_to_a_result_stays_with_that_result() -> None:
    # Each call's array is a new object: a dropped result made read-only, reshaped or
    # retyped leaves later results as they should be, and a weak reference to a result
    # dies with it instead of seeing a later call's ranks.
    import weakref

    (a, b) = _big_batches(7, 2)
    want_a = evaluate(a, out=np.empty(len(a), np.int32)).copy()
    half = len(a) // 2 * 2
    r = evaluate(a)
    r.flags.writeable = False
    del r
    r = evaluate(a[:half])
    r.shape = (half // 2, 2)
    del r
    r = evaluate(a)
    r.dtype = np.int16
    del r
    for _ in range(3):
        got = evaluate(a)
        assert got.dtype == np.int32 and got.shape == (len(a),) and got.flags.writeable
        assert (got == want_a).all()
        del got
    ref = weakref.ref(evaluate(a))
    evaluate(b)
    assert ref() is None
    release_buffers()
    assert (evaluate(a) == want_a).all()


def test_threads_evaluating_at_once_get_arrays_of_their_own() -> None:
    import threading

    batches = _big_batches(6, 4)
    want = [evaluate(x, out=np.empty(len(x), np.int32)).copy() for x in batches]
    results: dict[int, list[bool]] = {i: [] for i in range(4)}

    def work(i: int) -> None:
        for _ in range(6):
            got = evaluate(batches[i], num_threads=1)
            results[i].append(bool((got == want[i]).all()))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(r) == 6 and all(r) for r in results.values())


# --- The vector passes (poker_env.evaluator.simd) --------------------------------------
# One-byte batches of 16 rows or more take the AVX-512 pass where the CPU has AVX-512;
# elsewhere one-byte batches of three rows or more take the pair pass (SSSE3). A single
# row (or a wider dtype) takes the row-by-row loop, so comparing the two compares the
# passes.


def _flush_heavy_hands(rng: np.random.Generator, n: int, k: int, deck: str) -> np.ndarray:
    # Half the rows drawn from one suit plus a few other cards: many flushes of every
    # suit, straight flushes and rows with five, six or seven of a suit.
    cards = make_deck(deck)
    rows = []
    for i in range(n):
        if i % 2:
            suit = int(rng.integers(4))
            same = cards[cards % 4 == suit]
            m = int(rng.integers(min(5, k), min(k, len(same)) + 1))
            others = cards[cards % 4 != suit]
            row = np.concatenate(
                [rng.choice(same, m, replace=False), rng.choice(others, k - m, replace=False)]
            )
            rows.append(rng.permutation(row))
        else:
            rows.append(rng.choice(cards, size=k, replace=False))
    return np.array(rows, dtype=np.int8)


def test_the_vector_pass_is_taken_where_the_cpu_has_avx512() -> None:
    from poker_env.evaluator import kernels

    flags = cpu_flags()
    if not flags:
        pytest.skip("no CPU flags in /proc/cpuinfo")
    assert kernels.SIMD == ({"avx512f", "avx512bw"} <= flags)


@pytest.mark.parametrize("deck", ["standard", "short"])
@pytest.mark.parametrize("italian", [False, True])
def test_the_vector_pass_ranks_every_batch_as_the_row_by_row_loop(deck: str, italian: bool) -> None:
    rng = np.random.default_rng(31 + (deck == "short") + 2 * italian)
    tables = get_tables(deck, italian)
    for k in (5, 6, 7):
        hands = _flush_heavy_hands(rng, 9000, k, deck)
        rows = [evaluate(h, deck=deck, flush_beats_full_house=italian) for h in hands]
        one_by_one = np.array(rows, dtype=np.int32)
        assert np.array_equal(one_by_one, [eval_cards(h, tables) for h in hands])
        # Sizes around the pair (the last pair overlaps; the last two rows go through the
        # loop), the block of 16 and the chunk of 4,096 rows (the last block overlaps).
        for n in (3, 4, 5, 6, 7, 16, 17, 31, 32, 33, 4095, 4096, 4097, 4111, 4112, 8207, 9000):
            for validate in (True, False):
                got = evaluate(
                    hands[:n], deck=deck, flush_beats_full_house=italian, validate=validate
                )
                assert np.array_equal(got, one_by_one[:n]), (k, n, validate)
        # Wider dtypes take the same pass (narrowed to bytes, prefetched ahead).
        for dtype in (np.int16, np.uint32, np.int64):
            wide = hands.astype(dtype)
            for n in (17, 4111, 9000):
                for validate in (True, False):
                    got = evaluate(
                        wide[:n], deck=deck, flush_beats_full_house=italian, validate=validate
                    )
                    assert np.array_equal(got, one_by_one[:n]), (k, n, validate, dtype)
        for threads in (2, 3):
            big = np.tile(hands, (3, 1))  # 27,000 rows: several blocks of 8,192 per thread
            got = evaluate(big, deck=deck, flush_beats_full_house=italian, num_threads=threads)
            assert np.array_equal(got, np.tile(one_by_one, 3)), (k, threads)


def test_the_vector_check_names_the_same_first_bad_row_as_a_slow_check() -> None:
    # One bad row (a repeat, a card outside the deck, a negative byte) at any place of a
    # batch, the overlapping last block included, or none: the same row named, or none;
    # in int8 and in the int64 a user passes by default.
    rng = np.random.default_rng(32)
    for deck, low in (("standard", 0), ("short", 20)):
        for k in (5, 6, 7):
            hands = _random_hands(rng, 4200, k, deck)
            for trial in range(80):
                n = int(rng.choice([3, 4, 5, 16, 23, 40, 4111, 4200]))
                batch = hands[rng.permutation(len(hands))[:n]].copy()
                kind = trial % 4
                row = int(rng.integers(n))
                a, b = rng.choice(k, 2, replace=False)
                if kind == 0:
                    batch[row, a] = batch[row, b]
                elif kind == 1:
                    batch[row, a] = int(rng.integers(52, 128))
                elif kind == 2:
                    batch[row, a] = (
                        int(rng.integers(-128, low)) if low else int(rng.integers(-128, 0))
                    )
                if kind == 3:
                    assert np.array_equal(
                        evaluate(batch, deck=deck), [evaluate(h, deck=deck) for h in batch]
                    )
                    continue
                with pytest.raises(ValueError, match=f"^row {row}: "):
                    evaluate(batch, deck=deck)
                with pytest.raises(ValueError, match=f"^row {row}: "):
                    evaluate(batch.astype(np.int64), deck=deck)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_the_vector_check_refuses_wide_cards_whose_low_byte_is_a_good_card(dtype: type) -> None:
    # A wide card is narrowed to a byte in the vector pass only after it is saturated:
    # a value whose lowest byte is a card the row lacks (c + 256, c + 2**31, -256 + c),
    # or far outside (the dtype's extremes), is refused, in any row and column of a
    # batch of blocks of 16; the first bad row is named, as the slow check names it.
    rng = np.random.default_rng(33)
    info = np.iinfo(dtype)
    for k in (5, 7):
        hands = _random_hands(rng, 700, k, "standard").astype(dtype)
        for trial in range(40):
            batch = hands.copy()
            rows = sorted(rng.choice(len(batch), 2, replace=False).tolist())
            values = []
            for row in rows:
                col = int(rng.integers(k))
                missing = sorted(set(range(52)) - set(batch[row].tolist()))
                card = int(rng.choice(missing))
                choices = [card + 256, info.max, card + (info.max + 1) // 2]
                if info.min < 0:
                    choices += [card - 256, info.min, -1]
                value = int(choices[trial % len(choices)])
                value = max(min(value, int(info.max)), int(info.min))
                batch[row, col] = value
                values.append(value)
            first, shown = rows[0], values[0]
            for threads in (1, 2):
                with pytest.raises(ValueError, match=f"^row {first}: card {shown} is outside"):
                    evaluate(batch, num_threads=threads)
            with pytest.raises(ValueError, match=f"^row {first}: card {shown} is outside"):
                validate_hands(batch)


def _packus(a: np.ndarray, b: np.ndarray, out_dtype: type) -> np.ndarray:
    # Intel's vpackusdw / vpackuswb on 512-bit registers: in each 128-bit lane, a's
    # elements of that lane, then b's, each saturated to the unsigned narrower type.
    info = np.iinfo(out_dtype)
    per_lane = len(a) // 4
    parts = [src[per_lane * lane : per_lane * (lane + 1)] for lane in range(4) for src in (a, b)]
    return np.clip(np.concatenate(parts).astype(np.int64), info.min, info.max).astype(out_dtype)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("k", [5, 6, 7])
def test_the_packs_leave_each_wide_card_where_the_vector_pass_reads_it(dtype: type, k: int) -> None:
    # simd._pack_places (the byte the packs leave each card in, which the pass reads
    # its cards from) against Intel's definition of the packs run on 16 rows of
    # cards in memory, little-endian: on any CPU (the pass itself runs only where
    # there is AVX-512, and the ranks are compared there by the tests above).
    from poker_env.evaluator.simd import _pack_places

    count = 16 * k
    cards = np.random.default_rng(k).integers(0, 64, count).astype(dtype)
    dwords = cards.view(np.int32)  # int64: each card's value, then its high half
    vectors = [dwords[16 * v : 16 * v + 16] for v in range(len(dwords) // 16)]

    def level(vs: list[np.ndarray], out_dtype: type) -> list[np.ndarray]:
        return [
            _packus(vs[i], vs[i + 1] if i + 1 < len(vs) else np.zeros_like(vs[i]), out_dtype)
            for i in range(0, len(vs), 2)
        ]

    words = level([v.astype(np.int32) for v in vectors], np.uint16)
    packed = level([w.view(np.int16) for w in words], np.uint8)
    if dtype == np.int64:  # (card, 0) byte pairs read as words: one more pack
        packed = level([p.view(np.int16) for p in packed], np.uint8)
    assert len(packed) == 2
    joined = np.concatenate(packed)
    places = _pack_places(count, np.dtype(dtype).itemsize * 8)
    assert sorted(set(places)) == sorted(places) and len(places) == count
    assert np.array_equal(joined[places], cards.astype(np.uint8))


def test_the_pair_pass_is_taken_where_the_cpu_has_ssse3_and_no_avx512() -> None:
    from poker_env.evaluator import kernels

    flags = cpu_flags()
    if not flags:
        pytest.skip("no CPU flags in /proc/cpuinfo")
    avx512 = {"avx512f", "avx512bw"} <= flags
    assert kernels.PAIRS == ("ssse3" in flags and not avx512)


def _pair_pass_against_the_loop(seed: int) -> None:
    # Every batch kernel (one thread, threads, checked or not) on one-byte hands against
    # the row-by-row loop run directly, both decks and orders, 5-7 cards, flush-heavy
    # hands; batch sizes around the pair and the threads' blocks of 8,192 rows.
    from poker_env.evaluator import kernels
    from poker_env.evaluator.core import _hash_for, card_pairs

    rng = np.random.default_rng(seed)
    for deck in ("standard", "short"):
        pairs = card_pairs(deck)
        for italian in (False, True):
            for k in (5, 6, 7):
                hands = _flush_heavy_hands(rng, 20_000, k, deck)
                h = _hash_for(hands, deck, italian)
                loop = np.empty(len(hands), dtype=np.int32)
                assert kernels._loop_rows_checked(hands, 0, len(hands), pairs, h, loop) == -1
                for n in (3, 4, 5, 8191, 8192, 8193, 16_385, 20_000):
                    batch = hands[:n]
                    for kernel in (kernels.eval_batch, kernels.eval_batch_parallel):
                        got = np.full(n, -1, dtype=np.int32)
                        kernel(batch, pairs, h, got)
                        assert np.array_equal(got, loop[:n]), (deck, italian, k, n, kernel)
                    for checked in (
                        kernels.eval_batch_checked,
                        kernels.eval_batch_checked_parallel,
                    ):
                        got = np.full(n, -1, dtype=np.int32)
                        assert checked(batch, pairs, h, got) == -1
                        assert np.array_equal(got, loop[:n]), (deck, italian, k, n, checked)


def test_the_pair_pass_ranks_every_batch_as_the_row_by_row_loop() -> None:
    from poker_env.evaluator import kernels

    if not kernels.PAIRS:
        pytest.skip("the pair pass is not taken on this CPU (see the next test)")
    _pair_pass_against_the_loop(41)


@pytest.mark.slow
def test_the_pair_pass_on_an_avx512_cpu_compiled_as_for_one_without() -> None:
    # Where this CPU has AVX-512 its batches take the AVX-512 pass: the pair pass is
    # checked in a process whose numba compiles for an AVX2 CPU (Haswell's features).
    import os
    import subprocess
    import sys

    flags = cpu_flags()
    if not ({"avx512f", "avx512bw"} <= flags):
        pytest.skip("no AVX-512 here: the pair pass is the one taken, tested above")
    features = "+sse2,+sse3,+ssse3,+sse4.1,+sse4.2,+popcnt,+avx,+avx2,+bmi,+bmi2,+lzcnt,+fma,+f16c"
    env = dict(os.environ, NUMBA_CPU_NAME="haswell", NUMBA_CPU_FEATURES=features)
    code = (
        "from poker_env.evaluator import kernels\n"
        "assert kernels.PAIRS and not kernels.SIMD\n"
        "from tests.evaluator.test_evaluator import _pair_pass_against_the_loop\n"
        "_pair_pass_against_the_loop(42)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
def test_wide_batches_rank_alike_wherever_they_start_in_memory(dtype: type) -> None:
    # Wide batches rank a few rows one by one first, so that the vector blocks read
    # whole 64-byte lines (kernels._aligning_rows): batches starting at every 4- or
    # 8-byte offset of a line, of lengths around a block, rank as one row at a time,
    # and a bad card in those first rows or just after them is the row named. (Without
    # AVX-512 the vector pass is not taken: then it checks the row-by-row loop alone.)
    rng = np.random.default_rng(35)
    item = np.dtype(dtype).itemsize
    for k in (5, 6, 7):
        hands = _random_hands(rng, 300, k, "standard")
        one_by_one = np.array([evaluate(h) for h in hands], dtype=np.int32)
        raw = np.zeros(hands.size * item + 128, dtype=np.uint8)
        line = (-raw.ctypes.data) % 64
        for shift in range(0, 64, item):
            at = line + shift
            batch = raw[at : at + hands.size * item].view(dtype).reshape(hands.shape)
            batch[...] = hands
            assert batch.ctypes.data % 64 == shift
            for n in (32, 33, 47, 48, 300):
                for validate in (True, False):
                    got = evaluate(batch[:n], validate=validate, num_threads=1)
                    assert np.array_equal(got, one_by_one[:n]), (k, shift, n, validate)
            for row in (0, 1, 7, 15, 16, 17):
                bad = batch.copy() if row % 2 else batch  # (a copy starts elsewhere)
                keep = int(bad[row, 1])
                bad[row, 1] = bad[row, 0]
                try:
                    with pytest.raises(ValueError, match=f"^row {row}: "):
                        evaluate(bad, num_threads=1)
                finally:
                    bad[row, 1] = keep
