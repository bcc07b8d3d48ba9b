"""Hold'em replays at scale: a hand played again from its history ends with the same
stacks (RULES.md "Everywhere"), in JSON (``replay_json``) and in PHH (``to_phh`` /
``from_phh``).

Two levels, because a Python-level round trip costs 1-2 ms a hand (measured: play
0.15-0.3 ms, ``to_json`` + ``replay_json`` 0.35-0.7 ms, ``to_phh`` 0.2-0.45 ms,
``from_phh`` 0.3-0.8 ms, from 2 to 10 players), too slow for 100,000 hands per
player count in CI:

- compiled: random hands played by the rules kernels, each logged (seats, stacks,
  button, deck, actions with amounts) and played again from a fresh table row by
  the same kernels, the way ``replay_json`` does; standard hands also again with
  the players moved to PHH's seats (``p1`` first after the dealer, the dealer
  last) and their actions in PHH's forms (an all-in that only calls is ``cc``, one
  that raises is ``cbr`` and comes back as a raise where one is legal), the way
  ``to_phh`` / ``from_phh`` write and read them. 100,000 hands per player count
  (and 100,000 more with escapes, both profiles and a bet cap, for the replay).
- Python: a sample through the real ``to_json`` / ``replay_json`` and ``to_phh`` /
  ``from_phh``. ``scripts/verify_holdem_phh.py`` runs the PokerKit round trip (and
  ``from_phh``) over 100,000 hands per player count outside CI.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import HoldemConfig, HoldemGame, get_holdem_tables, replay_json
from poker_env.games.holdem_phh import from_phh, phh_player_seats, to_phh

MAX_LOG = 4096  # actions a hand may take (a violation is counted if one needs more)
# bad[i]: 0 a replayed action refused, 1 replay ends with other stacks / payouts /
# ranks / bank / roles, 2 a hand still running after its actions, 3 PHH-form replay refused
# an action, 4 PHH-form replay ends differently, 5 the log overflowed.
NUM_BAD = 6


@njit(cache=True)
def _pick(s, rng, lg):  # type: ignore[no-untyped-def]
    """A random legal (kind, amount) for the seat to act: raises of every size."""
    r = K.rng_uniform(rng, 0)
    if lg[K.L_CAN_FOLD] == 1 and r < 0.2:
        return K.FOLD, 0
    if lg[K.L_CAN_RAISE] == 1 and r < 0.45:
        lo = lg[K.L_MIN_TO]
        hi = lg[K.L_MAX_TO]
        if K.rng_uniform(rng, 0) < 0.4:
            return K.RAISE_TO, lo
        return K.RAISE_TO, lo + K.rng_below(rng, 0, hi - lo + 1)
    if lg[K.L_CAN_ALLIN] == 1 and r < 0.5:
        return K.ALL_IN, 0
    return K.CHECK_CALL, 0


@njit(cache=True)
def _replay_hands(  # type: ignore[no-untyped-def]
    s, rng, num_hands, leave_p, tables, bad, counts
):
    """Play ``num_hands`` random hands on row ``s``; replay each from a fresh row.

    counts[0]: hands replayed; counts[1]: hands also replayed at PHH's seats.
    """
    n = s[K.NUM_SEATS]
    stack = 100 * s[K.BASE]
    deck = np.empty(52, dtype=np.int64)
    lg = np.empty(K.LEGAL_SIZE, dtype=np.int64)
    seated = np.empty(K.MAX_SEATS, dtype=np.int64)
    stacks0 = np.empty(K.MAX_SEATS, dtype=np.int64)
    kinds = np.empty(MAX_LOG, dtype=np.int64)
    amounts = np.empty(MAX_LOG, dtype=np.int64)
    phh_kinds = np.empty(MAX_LOG, dtype=np.int64)  # FOLD, CHECK_CALL or RAISE_TO ("cbr")
    phh_amounts = np.empty(MAX_LOG, dtype=np.int64)
    order = np.empty(K.MAX_SEATS, dtype=np.int64)
    r = np.empty(K.STATE_SIZE, dtype=np.int64)
    changed = True
    for _ in range(num_hands):
        players = 0
        for q in range(n):
            if s[K.STATUS + q] == K.SEATED and s[K.STACK + q] > 0:
                players += 1
        if players < 2:
            # Refill the table: everyone sits down again with a fresh stack.
            for q in range(n):
                s[K.STATUS + q] = K.SEATED
                s[K.STACK + q] = stack
            changed = True
        for q in range(n):
            seated[q] = 1 if s[K.STATUS + q] == K.SEATED else 0
            stacks0[q] = s[K.STACK + q]
        bank0 = s[K.BANK]
        button = K.next_button(s, changed, K.rng_below(rng, 0, 1 << 30))
        K.rng_shuffle(rng, 0, deck)
        K.start_hand(s, deck, button, tables)
        num = 0
        has_left = False
        while s[K.PHASE] == K.PHASE_BETTING and num < MAX_LOG:
            if leave_p > 0.0 and K.rng_uniform(rng, 0) < leave_p:
                q = K.rng_below(rng, 0, n)
                st = s[K.STATUS + q]
                if st == K.ACTIVE or st == K.ALLIN or st == K.FOLDED:
                    K.leave(s, q, tables)
                    kinds[num] = K.LEAVE
                    amounts[num] = q
                    num += 1
                    has_left = True
                    continue
            K.legal(s, lg)
            kind, amount = _pick(s, rng, lg)
            kinds[num] = kind
            amounts[num] = amount
            # PHH's form (holdem_phh.to_phh): an all-in that only calls is a call,
            # one that raises is a raise to the all-in total.
            phh_kinds[num] = kind
            phh_amounts[num] = amount
            if kind == K.ALL_IN:
                if lg[K.L_ALLIN_TO] <= s[K.CUR_BET]:
                    phh_kinds[num] = K.CHECK_CALL
                else:
                    phh_kinds[num] = K.RAISE_TO
                    phh_amounts[num] = lg[K.L_ALLIN_TO]
            K.act(s, kind, amount, tables)
            num += 1
        if s[K.PHASE] == K.PHASE_BETTING:
            bad[5] += 1
            return
        # Replay as replay_json does: a fresh table, the same seats, stacks, button
        # and deck, the logged actions.
        K.new_table(r, n, s[K.BASE], s[K.MAX_BET], s[K.RULES], s[K.PENALTY_TO])
        for q in range(n):
            r[K.STATUS + q] = K.SEATED if seated[q] == 1 else K.EMPTY
            r[K.STACK + q] = stacks0[q]
        ok = K.start_hand(r, deck, button, tables) == K.OK
        for i in range(num):
            if kinds[i] == K.LEAVE:
                ok = ok and K.leave(r, amounts[i], tables) == K.OK
            else:
                ok = ok and K.act(r, kinds[i], amounts[i], tables) == K.OK
        if not ok:
            bad[0] += 1
        if r[K.PHASE] != K.PHASE_OVER:
            bad[2] += 1
        same = r[K.BANK] == s[K.BANK] - bank0
        # The roles too: escapes shift them (RULES.md §3), and the replay must agree.
        for f in (K.BUTTON, K.SB, K.BB, K.HEADS_UP):
            same = same and r[f] == s[f]
        for q in range(n):
            for f in (K.STACK, K.WON, K.RANK, K.STATUS):
                same = same and r[f + q] == s[f + q]
        if not same:
            bad[1] += 1
        counts[0] += 1
        if s[K.RULES] == K.RULES_STANDARD and s[K.MAX_BET] == 0 and not has_left:
            # Replay at PHH's seats (holdem_phh.phh_player_seats / from_phh): the
            # dealt players from the seat after the dealer clockwise at seats
            # 0..m-1, the dealer at m-1; cbr is a raise where legal, else an all-in.
            m = 0
            for i in range(1, n + 1):
                q = K.clockwise(button, i, n)
                if seated[q] == 1 and stacks0[q] > 0:
                    order[m] = q
                    m += 1
            K.new_table(r, m, s[K.BASE], 0, K.RULES_STANDARD, s[K.PENALTY_TO])
            for i in range(m):
                r[K.STATUS + i] = K.SEATED
                r[K.STACK + i] = stacks0[order[i]]
            ok = K.start_hand(r, deck, m - 1, tables) == K.OK
            for i in range(num):
                if not ok:
                    break
                kind = phh_kinds[i]
                if kind == K.RAISE_TO and K.check_action(r, kind, phh_amounts[i], lg) != K.OK:
                    ok = lg[K.L_CAN_ALLIN] == 1 and lg[K.L_ALLIN_TO] == phh_amounts[i]
                    kind = K.ALL_IN
                ok = ok and K.act(r, kind, phh_amounts[i], tables) == K.OK
            if not ok:
                bad[3] += 1
            same = r[K.PHASE] == K.PHASE_OVER
            for i in range(m):
                q = order[i]
                for f in (K.STACK, K.WON, K.RANK):
                    same = same and r[f + i] == s[f + q]
            if not same:
                bad[4] += 1
            counts[1] += 1
        changed = K.finish_hand(s, True)


def _run_compiled(
    n: int, seed: int, rules: int, penalty_to: int, max_bet: int, hands: int, leave_p: float
) -> list[int]:
    s = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_table(s, n, 2, max_bet, rules, penalty_to)
    rng = np.array([seed], dtype=np.uint64)
    bad = np.zeros(NUM_BAD, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    _replay_hands(s, rng, hands, leave_p, get_holdem_tables(), bad, counts)
    assert bad.tolist() == [0] * NUM_BAD, (n, rules, penalty_to, max_bet, bad)
    return [int(c) for c in counts]


def _compiled(n: int, hands: int, seed: int) -> None:
    # Standard no-limit hands without escapes: replayed and replayed at PHH's seats.
    counts = _run_compiled(n, seed, K.RULES_STANDARD, K.PENALTY_BURN, 0, hands, 0.0)
    assert counts == [hands, hands]
    # As many again with escapes (1% a step), both profiles, a cap and both
    # penalty targets: replayed only (PHH has no form for them).
    for i, (rules, penalty_to, max_bet) in enumerate(
        [
            (K.RULES_SEED, K.PENALTY_BURN, 0),
            (K.RULES_SEED, K.PENALTY_POT, 40),
            (K.RULES_STANDARD, K.PENALTY_POT, 0),
            (K.RULES_STANDARD, K.PENALTY_BURN, 40),
        ]
    ):
        counts = _run_compiled(n, seed + 1 + i, rules, penalty_to, max_bet, hands // 4, 0.01)
        assert counts[0] == hands // 4


@pytest.mark.parametrize("n", range(2, 11))
def test_compiled_replay_random_hands_quick(n: int) -> None:
    _compiled(n, 4_000, seed=n)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_compiled_replay_100k_random_hands_per_player_count(n: int) -> None:
    _compiled(n, 100_000, seed=1000 * n)


def _random_hand(game: HoldemGame, rng: np.random.Generator, leave_p: float) -> None:
    game.start_hand()
    while not game.is_hand_over:
        if leave_p and rng.random() < leave_p:
            game.leave(int(rng.choice([q for q in game.seats() if game.can_leave(q)])))
            continue
        la = game.legal_actions()
        r = rng.random()
        if la.can_fold and r < 0.2:
            game.fold()
        elif la.min_raise_to is not None and r < 0.45:
            assert la.max_raise_to is not None
            lo, hi = la.min_raise_to, la.max_raise_to
            game.raise_to(lo if rng.random() < 0.4 else int(rng.integers(lo, hi + 1)))
        elif la.can_all_in and r < 0.5:
            game.all_in()
        else:
            game.check_or_call()


def _next_hand(game: HoldemGame) -> None:
    game._close_hand()
    if sum(1 for x in game.stacks() if x > 0) < 2:
        for q in range(game.config.num_seats):
            if game._status(q) == K.EMPTY:
                game.join(q)


def _python_round_trips(n: int, num_hands: int, seed: int) -> None:
    """Standard hands through JSON and PHH; seed-profile hands with escapes through JSON."""
    rng = np.random.default_rng(seed)
    game = HoldemGame(HoldemConfig(num_seats=n, rules="standard"), rng=seed)
    for _ in range(num_hands):
        _next_hand(game)
        _random_hand(game, rng, 0.0)
        record = game.hand_record()
        assert replay_json(game.to_json()).stacks() == game.stacks()
        text = to_phh(record)
        again = from_phh(text)
        seats = phh_player_seats(record)
        assert again.stacks() == [game.stacks()[q] for q in seats], text
        assert again.payouts == [game.payouts[q] for q in seats], text
        # The same history again, but for the seat numbers (PHH's seats 1..m).
        same = [x for x in to_phh(again.hand_record()).splitlines() if not x.startswith("seats")]
        assert same == [x for x in text.splitlines() if not x.startswith("seats")]
    game = HoldemGame(HoldemConfig(num_seats=n, max_bet=40), rng=seed + 1)
    for _ in range(num_hands):
        _next_hand(game)
        bank = game.bank
        _random_hand(game, rng, 0.01)
        again = replay_json(game.to_json())
        assert again.stacks() == game.stacks()
        assert again.payouts == game.payouts
        assert again.bank == game.bank - bank  # escape penalties burned this hand
        assert again.roles() == game.roles()  # as the escapes shifted them
        assert again.history() == game.history()  # leave records with their roles


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_python_replay_and_phh_round_trip_quick(n: int) -> None:
    _python_round_trips(n, 30, seed=n)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_python_replay_and_phh_round_trip_2000_hands(n: int) -> None:
    _python_round_trips(n, 2_000, seed=100 + n)
