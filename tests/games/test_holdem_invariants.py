"""Hold'em invariants under random play: chips conserved, pots paid in full, masks
never empty before the end, replay gives the same stacks (RULES.md "Everywhere");
with escapes (RULES.md §3), the roles keep their shape and decide who acts first."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from poker_env.episode import holdem as E
from poker_env.games import holdem_kernels as K
from poker_env.games.holdem import HoldemConfig, HoldemGame, get_holdem_tables, replay_json

FRACTIONS = np.array(E.DEFAULT_FRACTIONS)
NUM_BAD = 8


@njit(cache=True)
def _roles_ok(s):  # type: ignore[no-untyped-def]
    """The roles have the shape RULES.md §3 keeps through escapes (shifts, no skips):
    three or more players still seated, dealer, small blind and big blind on
    consecutive ones; two, the dealer holds the small blind, the other the big
    blind; one, he holds all three."""
    n = s[K.NUM_SEATS]
    seated = (
        K.seats_with_status(s, K.ACTIVE)
        | K.seats_with_status(s, K.ALLIN)
        | K.seats_with_status(s, K.FOLDED)
    )
    d = s[K.BUTTON]
    sb = s[K.SB]
    bb = s[K.BB]
    for q in (d, sb, bb):
        if q < 0 or q >= n or (seated >> q) & 1 == 0:
            return False
    cnt = 0
    for q in range(n):
        cnt += (seated >> q) & 1
    if cnt >= 3:
        return K.first_clockwise(seated, d, False, n) == sb and (
            K.first_clockwise(seated, sb, False, n) == bb
        )
    if cnt == 2:
        return sb == d and bb != d
    return sb == d and bb == d


@njit(cache=True)
def _first_to_act_ok(s):  # type: ignore[no-untyped-def]
    """At the start of a round after the flop: the first player still in (with chips)
    from the small blind's seat acts (standard heads-up: from the big blind's)."""
    start = s[K.SB]
    if s[K.RULES] == K.RULES_STANDARD and s[K.HEADS_UP] == 1:
        start = s[K.BB]
    return s[K.TO_ACT] == K.next_with_status(s, start, K.ACTIVE, True)


@njit(cache=True)
def _random_hands(  # type: ignore[no-untyped-def]
    s, rng, num_hands, leave_p, fractions, tables, bad
):
    """Play random hands on table row ``s``; count violations per invariant in ``bad``.

    bad[0]: chips not conserved after an action; bad[1]: pots not paid in full;
    bad[2]: empty mask while a seat must act; bad[3]: a stack went negative;
    bad[4]: the kept counts (players active, all-in, chips committed) differ from
    a count over the seats; bad[5]: the mask's count of legal actions is wrong;
    bad[6]: the roles lost their shape (``_roles_ok``); bad[7]: a round after the
    flop started with another player than the roles say (``_first_to_act_ok``).
    """
    n = s[K.NUM_SEATS]
    stack = 100 * s[K.BASE]
    na = fractions.shape[0] + 4
    mask = np.empty(na, dtype=np.int8)
    amounts = np.empty(na, dtype=np.int64)
    deck = np.empty(52, dtype=np.int64)
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
            s[K.BANK] = 0
            s[K.DEPARTED] = 0
            changed = True
        total = K.table_chips(s)
        button = K.next_button(s, changed, K.rng_below(rng, 0, 1 << 30))
        K.rng_shuffle(rng, 0, deck)
        K.start_hand(s, deck, button, tables)
        pot_penalty = 0
        street = 0
        while s[K.PHASE] == K.PHASE_BETTING:
            if K.table_chips(s) != total:
                bad[0] += 1
            if not _roles_ok(s):
                bad[6] += 1
            if s[K.STREET] != street:
                street = s[K.STREET]
                if not _first_to_act_ok(s):
                    bad[7] += 1
            committed = 0
            for q in range(n):
                committed += s[K.COMMIT + q]
            if (
                s[K.NUM_ACTIVE] != K.count_status(s, K.ACTIVE)
                or s[K.NUM_ALLIN] != K.count_status(s, K.ALLIN)
                or s[K.COMMITTED] != committed
            ):
                bad[4] += 1
            if leave_p > 0.0 and K.rng_uniform(rng, 0) < leave_p:
                q = K.rng_below(rng, 0, n)
                st = s[K.STATUS + q]
                if st == K.ACTIVE or st == K.ALLIN or st == K.FOLDED:
                    before = s[K.STACK + q]
                    K.leave(s, q, tables)
                    if s[K.PENALTY_TO] == K.PENALTY_POT:
                        pot_penalty += before - s[K.STACK + q]
                    continue
            legal_count = E.action_mask(s, fractions, mask, amounts)
            cnt = 0
            for j in range(na):
                cnt += mask[j]
            if cnt != legal_count:
                bad[5] += 1
            if cnt == 0:
                bad[2] += 1
                break
            k = K.rng_below(rng, 0, cnt)
            for j in range(na):
                if mask[j] == 1:
                    if k == 0:
                        E.apply_index(s, j, fractions, tables)
                        break
                    k -= 1
        paid = 0
        put = pot_penalty
        for q in range(n):
            paid += s[K.WON + q]
            put += s[K.COMMIT + q]
            if s[K.STACK + q] < 0:
                bad[3] += 1
        if paid != put:
            bad[1] += 1
        if K.table_chips(s) != total:
            bad[0] += 1
        changed = K.finish_hand(s, True)


def _run(n: int, num_hands: int, seed: int, leave_p: float = 0.01) -> None:
    tables = get_holdem_tables()
    for rules in (K.RULES_SEED, K.RULES_STANDARD):
        for penalty_to in (K.PENALTY_BURN, K.PENALTY_POT):
            s = np.zeros(K.STATE_SIZE, dtype=np.int64)
            K.new_table(s, n, 2, 0, rules, penalty_to)
            rng = np.array([seed * 7 + rules * 2 + penalty_to], dtype=np.uint64)
            bad = np.zeros(NUM_BAD, dtype=np.int64)
            _random_hands(s, rng, num_hands // 4, leave_p, FRACTIONS, tables, bad)
            assert bad.tolist() == [0] * NUM_BAD, (n, rules, penalty_to)


@pytest.mark.parametrize("n", range(2, 11))
def test_invariants_random_hands_quick(n: int) -> None:
    _run(n, 4_000, seed=n)


@pytest.mark.parametrize("n", range(2, 11))
def test_invariants_random_hands_with_many_escapes(n: int) -> None:
    # 5% of the steps an escape: hands with two or more leavers, and tables that go
    # heads-up mid-hand, are common.
    _run(n, 2_000, seed=50 + n, leave_p=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_invariants_100k_random_hands_per_player_count(n: int) -> None:
    _run(n, 100_000, seed=100 + n)


@njit(cache=True)
def _env_driver_hands(s, rng, pr, steps, bad):  # type: ignore[no-untyped-def]
    """Drive one table the way the envs do (``E.reset_table`` / ``E.step_table`` with
    ``escape_p``: opponents leave inside the compiled driver) with random agent
    actions; at every agent turn check the chips and the roles."""
    params, fractions = pr.ints, pr.fractions
    na = fractions.shape[0] + 4
    mask = np.empty(na, dtype=np.int8)
    amounts = np.empty(na, dtype=np.int64)
    total = params[E.P_NUM_PLAYERS] * params[E.P_STACK]
    E.reset_table(s, rng, 0, pr)
    for _ in range(steps):
        if K.table_chips(s) != total:
            bad[0] += 1
        if not _roles_ok(s):
            bad[1] += 1
        cnt = E.action_mask(s, fractions, mask, amounts)
        k = K.rng_below(rng, 0, cnt)
        pick = 0
        for j in range(na):
            if mask[j] == 1:
                if k == 0:
                    pick = j
                    break
                k -= 1
        code, _ = E.step_table(s, rng, 0, pick, pr)
        if code == E.ILLEGAL:
            bad[2] += 1
            return
        if code == E.EPISODE_DONE:
            E.reset_table(s, rng, 0, pr)


@pytest.mark.parametrize("n", [2, 3, 4, 6, 10])
def test_env_driver_escapes_keep_roles_and_chips(n: int) -> None:
    # The envs' escape_prob option goes through K.leave, the same role shift.
    params = np.zeros(E.NUM_PARAMS, dtype=np.int64)
    params[E.P_NUM_PLAYERS] = n
    params[E.P_STACK] = 200
    params[E.P_HANDS] = 5
    params[E.P_SEAT] = -1
    for rules in (K.RULES_SEED, K.RULES_STANDARD):
        s = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.new_table(s, n, 2, 0, rules, K.PENALTY_POT)
        rng = np.array([n * 13 + rules], dtype=np.uint64)
        bad = np.zeros(3, dtype=np.int64)
        pr = E.HoldemParams(params, FRACTIONS, 0.1, get_holdem_tables())
        _env_driver_hands(s, rng, pr, 3000, bad)
        assert bad.tolist() == [0, 0, 0], (n, rules)


@pytest.mark.parametrize("n", [2, 3, 6, 10])
@pytest.mark.parametrize("rules", ["seed", "standard"])
def test_replay_gives_same_stacks(n: int, rules: str) -> None:
    rng = np.random.default_rng(n)
    game = HoldemGame(HoldemConfig(num_seats=n, rules=rules, penalty_to="pot"), rng=n)  # type: ignore[arg-type]
    for _ in range(40):
        game._close_hand()
        if sum(1 for x in game.stacks() if x > 0) < 2:
            for q in range(n):
                if game._status(q) == K.EMPTY:
                    game.join(q)
        game.start_hand()
        while not game.is_hand_over:
            if rng.random() < 0.02:
                seats = [q for q in range(n) if game.can_leave(q)]
                game.leave(int(rng.choice(seats)))
                continue
            la = game.legal_actions()
            r = rng.random()
            if la.can_fold and r < 0.2:
                game.fold()
            elif la.min_raise_to is not None and r < 0.4:
                assert la.max_raise_to is not None
                game.raise_to(int(rng.integers(la.min_raise_to, la.max_raise_to + 1)))
            elif la.can_all_in and r < 0.45:
                game.all_in()
            else:
                game.check_or_call()
        again = replay_json(game.to_json())
        assert again.stacks() == game.stacks()
