"""HoldemEnv: API checkers, the documented observation table, masks, hidden cards."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import poker_env  # noqa: F401  (registers the ids)
from poker_env.cards import parse_cards
from poker_env.envs.holdem import HoldemEnv
from poker_env.episode import holdem as E
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.evaluator import evaluate, hand_name
from poker_env.games import holdem_kernels as K
from poker_env.policy import RandomPolicy


def _num(text: str, n: int) -> int:
    """Evaluate the table's arithmetic in n, e.g. ``110+2n``."""
    return int(eval(re.sub(r"(\d)n", r"\1*n", text), {"n": n}))


def _doc_rows(doc: str) -> list[tuple[str, str, str]]:
    section = doc.split("## Observation Space")[1].split("## Action Mask")[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.match(r"^[0-9n+:]+$", cells[0].replace(" ", "")):
            rows.append((cells[0], cells[1], cells[2]))
    return rows


@pytest.mark.parametrize("features", [False, True])
@pytest.mark.parametrize("n", [2, 6, 10])
def test_docstring_observation_table_matches_space(n: int, features: bool) -> None:
    env = HoldemEnv(n, evaluator_features=features)
    space = env.observation_space
    assert isinstance(space, gym.spaces.Box)
    covered = 0
    for slc, meaning, rng in _doc_rows(HoldemEnv.__doc__ or ""):
        if "(evaluator_features)" in meaning and not features:
            continue
        lo_txt, hi_txt = slc.split(":")
        lo, hi = _num(lo_txt, n), _num(hi_txt, n)
        assert lo == covered, f"gap or overlap at {slc}"
        low_v, high_v = (_num(x, n) for x in rng.split(".."))
        assert np.all(space.low[lo:hi] == low_v), slc
        assert np.all(space.high[lo:hi] == high_v), slc
        covered = hi
    assert covered == space.shape[0]


@pytest.mark.parametrize("n", [2, 6])
def test_gymnasium_check_env(n: int) -> None:
    check_env(HoldemEnv(n), skip_render_check=True)


@pytest.mark.parametrize("n", [2, 6])
def test_sb3_check_env(n: int) -> None:
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(HoldemEnv(n))


def test_registered_id_makes_the_env() -> None:
    env = gym.make("poker_env/Holdem-v0", num_players=6)
    obs, info = env.reset(seed=0)
    assert obs.shape == (E.obs_size(6),)
    assert info["action_mask"].dtype == np.int8


def _play(env: HoldemEnv, seed: int, steps: int) -> list[tuple[float, bool]]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        mask = info["action_mask"]
        assert mask.any(), "mask empty before the end"
        assert np.array_equal(mask, env.action_masks())
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        assert not trunc
        out.append((r, term))
        if term:
            assert not info["action_mask"].any()
            obs, info = env.reset()
    return out


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_masks_never_empty_before_end_and_same_seed_same_game(n: int) -> None:
    a = _play(HoldemEnv(n), seed=n, steps=400)
    b = _play(HoldemEnv(n), seed=n, steps=400)
    assert a == b


def test_mask_masks_out_raise_sizes_that_repeat_an_amount() -> None:
    env = HoldemEnv(2, starting_stack=10)  # 5 big blinds: most sizes clip to all-in
    _obs, _info = env.reset(seed=3)
    s = env._states[0]
    mask = np.zeros(8, dtype=np.int8)
    amounts = np.zeros(8, dtype=np.int64)
    E.action_mask(s, env.fractions, mask, amounts)
    legal_amounts = [amounts[i] for i in range(2, 8) if mask[i]]
    assert len(legal_amounts) == len(set(legal_amounts))
    assert mask[7] == 1  # all-in keeps the all-in amount


def _reference_mask(s: np.ndarray, fractions: np.ndarray) -> tuple[list[int], list[int]]:
    """The documented action encoding, written out plainly from the rules' legality query:
    fold, check/call, min-raise, one raise per pot fraction (clipped into the legal
    range), all-in; an index whose amount repeats a legal index before it (or the
    all-in's) is masked out."""
    na = len(fractions) + 4
    lg = np.zeros(K.LEGAL_SIZE, dtype=np.int64)
    K.legal(s, lg)
    mask, amounts = [0] * na, [0] * na
    if lg[K.L_SEAT] < 0:
        return mask, amounts
    mask[0], mask[1] = int(lg[K.L_CAN_FOLD]), 1
    cur = int(s[K.CUR_BET])
    allin = bool(lg[K.L_CAN_ALLIN]) and int(lg[K.L_ALLIN_TO]) > cur
    if allin:
        mask[na - 1], amounts[na - 1] = 1, int(lg[K.L_ALLIN_TO])
    if lg[K.L_CAN_RAISE]:
        lo, hi = int(lg[K.L_MIN_TO]), int(lg[K.L_MAX_TO])
        pot = float(s[K.COMMITTED] + s[K.POT_EXTRA] + lg[K.L_CALL])
        shown: set[int] = {amounts[na - 1]} if allin else set()
        for i in range(2, na - 1):
            to = lo if i == 2 else max(lo, min(hi, cur + int(fractions[i - 3] * pot)))
            amounts[i] = to
            if to not in shown:
                mask[i] = 1
                shown.add(to)
    return mask, amounts


@pytest.mark.parametrize(
    "fractions", [(0.5, 0.75, 1.0, 2.0), (2.0, 0.5, 1.0, 0.75, 0.5), (1.0, 0.33, 3.0, 0.25)]
)
def test_mask_matches_the_documented_encoding_in_random_hands(
    fractions: tuple[float, ...],
) -> None:
    # Short stacks and deep ones, a cap below the stacks, ascending and unordered
    # fractions: masks, amounts, the count and the list of legal indices against the
    # plain reference above.
    checked = 0
    for stack, cap in ((10, None), (37, None), (200, None), (200, 24)):
        env = HoldemEnv(4, starting_stack=stack, raise_fractions=fractions, max_bet=cap)
        rng = np.random.default_rng(stack)
        _, info = env.reset(seed=stack + (cap or 0))
        fr = np.asarray(fractions)
        na = len(fractions) + 4
        for _ in range(300):
            s = env._states[0].copy()
            mask = np.zeros(na, dtype=np.int8)
            amounts = np.zeros(na, dtype=np.int64)
            count = E.action_mask(s, fr, mask, amounts)
            ref_mask, ref_amounts = _reference_mask(s, fr)
            assert mask.tolist() == ref_mask
            assert [int(a) for a, m in zip(amounts, mask, strict=True) if m] == [
                a for a, m in zip(ref_amounts, ref_mask, strict=True) if m
            ]
            assert count == sum(ref_mask)
            assert s[K.SCR_CHOSEN : K.SCR_CHOSEN + count].tolist() == np.flatnonzero(mask).tolist()
            assert np.array_equal(info["action_mask"], mask)
            checked += int(mask[2:].sum() < (mask[2:] >= 0).sum())  # something masked out
            _, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if term:
                _, info = env.reset()
    assert checked > 100


def test_reward_is_chips_in_big_blinds() -> None:
    env = HoldemEnv(3, base=4, hands_per_episode=1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        _, info = env.reset()
        s = env._states[0]
        agent = int(s[E.AGENT])
        start = int(s[K.START_STACK + agent])
        term = False
        total = 0.0
        while not term:
            _obs, r, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += r
        assert total == (int(s[K.STACK + agent]) - start) / 4


def test_observation_unchanged_when_hidden_cards_shuffled() -> None:
    env = HoldemEnv(6)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(200):
        s = env._states[0]
        agent = int(s[E.AGENT])
        seen = {int(s[K.HOLE + 2 * agent]), int(s[K.HOLE + 2 * agent + 1])}
        seen |= {int(c) for c in s[K.BOARD : K.BOARD + s[K.NUM_BOARD]]}
        hidden = [c for c in range(52) if c not in seen]
        other = s.copy()
        perm = dict(zip(hidden, rng.permutation(hidden), strict=True))
        for q in range(6):
            if q != agent:
                for j in range(2):
                    c = int(other[K.HOLE + 2 * q + j])
                    if c >= 0:
                        other[K.HOLE + 2 * q + j] = perm[c]
        for j in range(int(s[K.NUM_BOARD]), 5):
            other[K.BOARD + j] = perm[int(other[K.BOARD + j])]
        a = np.zeros(E.obs_size(6), np.float32)
        b = np.zeros(E.obs_size(6), np.float32)
        E.encode(s, agent, 200.0, a)
        E.encode(other, agent, 200.0, b)
        assert np.array_equal(a, b)
        _, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term:
            _obs, info = env.reset()


def _reference_observation(s: np.ndarray, me: int, scale: float) -> np.ndarray:
    """The module docstring's observation table, written out plainly from the row."""
    n = int(s[K.NUM_SEATS])
    out = np.zeros(E.obs_size(n), dtype=np.float64)
    for j in range(2):
        if s[K.HOLE + 2 * me + j] >= 0:
            out[int(s[K.HOLE + 2 * me + j])] = 1
    for j in range(int(s[K.NUM_BOARD])):
        out[52 + int(s[K.BOARD + j])] = 1
    out[104 + int(s[K.STREET])] = 1
    betting = s[K.PHASE] == K.PHASE_BETTING
    committed = sum(int(s[K.COMMIT + q]) for q in range(n)) if betting else 0
    out[108] = (committed + int(s[K.POT_EXTRA])) / scale
    if betting:
        call = min(int(s[K.CUR_BET] - s[K.BET + me]), int(s[K.STACK + me]))
        out[109] = max(call, 0) / scale
    button = int(s[K.BUTTON])
    for i in range(n):
        q = (me + i) % n
        out[110 + i] = s[K.STACK + q] / scale
        out[110 + n + i] = s[K.BET + q] / scale if betting else 0.0
        out[110 + 2 * n + i] = (q - button) % n / (n - 1) if button >= 0 else 0.0
        out[110 + 3 * n + i] = s[K.STATUS + q] in (K.ACTIVE, K.ALLIN)
        for street in range(4):
            out[110 + (4 + street) * n + i] = s[K.STREET_PUT + street * K.MAX_SEATS + q] / scale
    for street in range(4):
        out[110 + 8 * n + street] = min(int(s[K.STREET_RAISES + street]), 10) / 10
    return out


@pytest.mark.parametrize("n", [2, 5, 9])
def test_observation_values_match_the_documented_table(n: int) -> None:
    # Every entry of the agent's observation, step by step and at each episode's end,
    # against the table computed plainly from the state: through folds, all-ins,
    # escapes with the penalty paid to the pot, and hands after the first.
    class MostlyCalls:  # so that hands reach the river with bets on it
        def __init__(self, seed: int) -> None:
            self.rng = np.random.default_rng(seed)

        def act(self, observation: object, action_mask: np.ndarray) -> int:
            if self.rng.random() < 0.7:
                return 1
            return int(self.rng.choice(np.flatnonzero(action_mask)))

    env = HoldemEnv(
        n, opponents=MostlyCalls(n), hands_per_episode=3, escape_prob=0.05, penalty_to="pot"
    )
    agent = MostlyCalls(n + 1)
    obs, info = env.reset(seed=n)
    seen = np.zeros(E.obs_size(n), dtype=bool)
    for _ in range(1500):
        s = env._states[0]
        ref = _reference_observation(s, int(s[E.AGENT]), 200.0)
        np.testing.assert_allclose(obs, ref, rtol=1e-6, atol=0)
        seen |= obs != 0
        obs, _, term, _, info = env.step(agent.act(obs, info["action_mask"]))
        if term:
            s = env._states[0]
            np.testing.assert_allclose(obs, _reference_observation(s, int(s[E.AGENT]), 200.0))
            obs, info = env.reset()
    # every entry was nonzero at some step (no block is checked only as zeros)
    assert seen.all(), np.flatnonzero(~seen)
    # Rows the game reaches rarely: a hand decided (bets not yet cleared) and more
    # than ten raises in a round.
    s = env._states[0].copy()
    s[K.BET : K.BET + n] = np.arange(1, n + 1)
    s[K.STREET_RAISES : K.STREET_RAISES + 4] = [3, 10, 11, 25]
    for phase in (K.PHASE_BETTING, K.PHASE_OVER):
        s[K.PHASE] = phase
        out = np.zeros(E.obs_size(n), dtype=np.float32)
        E.encode(s, 0, 200.0, out)
        np.testing.assert_allclose(out, _reference_observation(s, 0, 200.0), rtol=1e-6, atol=0)


def test_opponent_policies_and_escapes_keep_chips() -> None:
    env = HoldemEnv(
        4, opponents=RandomPolicy(0), hands_per_episode=5, escape_prob=0.1, render_mode="ansi"
    )
    rng = np.random.default_rng(0)
    left = 0
    for _ in range(20):
        _, info = env.reset(seed=int(rng.integers(1000)))
        term = False
        while not term:
            _obs, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        s = env._states[0]
        left += int(s[K.DEPARTED] > 0 or s[K.BANK] > 0)
        assert K.table_chips(s) == 4 * 200
    assert left > 0
    assert "seat" in (env.render() or "")


def test_config_errors() -> None:
    with pytest.raises(ConfigError):
        HoldemEnv(11)
    with pytest.raises(ConfigError):
        HoldemEnv(2, seat=2)
    with pytest.raises(ConfigError):
        HoldemEnv(2, escape_prob=2.0)
    with pytest.raises(ConfigError):
        HoldemEnv(3, opponents=[RandomPolicy(0)])
    with pytest.raises(ConfigError, match="starting_stack"):
        HoldemEnv(2, starting_stack=2)  # all-in from the blinds: nobody would ever act


def test_evaluator_features_hand_category_and_equity() -> None:
    env = HoldemEnv(2, evaluator_features=True, equity_samples=50)
    check_env(
        HoldemEnv(2, evaluator_features=True, equity_samples=20),
        skip_render_check=True,
    )
    obs, info = env.reset(seed=4)
    base = E.obs_size(2)
    rng = np.random.default_rng(0)
    seen_flop = False
    for _ in range(60):
        assert 0.0 <= obs[base + 9] <= 1.0
        if obs[52:104].sum() >= 3:  # a board: exactly one category is set
            assert obs[base : base + 9].sum() == 1.0
            seen_flop = True
        else:
            assert obs[base : base + 9].sum() == 0.0
        obs, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term:
            obs, info = env.reset()
    assert seen_flop


def _brute_force_equity(hole: list[int], board: list[int]) -> float:
    """Exact equity of ``hole`` against one random hand: every opponent hand and board."""
    from itertools import combinations

    from poker_env.evaluator import evaluate

    unseen = [c for c in range(52) if c not in hole + board]
    total = 0.0
    count = 0
    for rest in combinations(unseen, 5 - len(board)):
        full = board + list(rest)
        left = [c for c in unseen if c not in rest]
        opp = np.array(list(combinations(left, 2)))
        fixed = np.tile(np.array(full), (opp.shape[0], 1))
        mine = int(evaluate(np.array(hole + full)))
        theirs = evaluate(np.concatenate([opp, fixed], axis=1))
        total += float((theirs < mine).sum() + 0.5 * (theirs == mine).sum())
        count += opp.shape[0]
    return total / count


@pytest.mark.parametrize("street", ["flop", "river"])
def test_evaluator_features_equity_agrees_with_brute_force(street: str) -> None:
    # Heads-up, always check/call until the street: the compiled Monte Carlo equity
    # (20,000 samples) against every opponent hand and board counted exactly.
    env = HoldemEnv(2, evaluator_features=True, equity_samples=20_000)
    base = E.obs_size(2)
    want_board = 3 if street == "flop" else 5
    for seed in range(40):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done and int(obs[52:104].sum()) < want_board:
            obs, _, done, _, _ = env.step(1)
        if done or int(obs[52:104].sum()) != want_board:
            continue
        hole = [int(c) for c in np.flatnonzero(obs[:52])]
        board = [int(c) for c in np.flatnonzero(obs[52:104])]
        exact = _brute_force_equity(hole, board)
        se = max(np.sqrt(exact * (1 - exact) / 20_000), 1e-3)
        assert abs(float(obs[base + 9]) - exact) < 5 * se, (hole, board, exact)
        category = int(np.flatnonzero(obs[base : base + 9])[0])
        from poker_env.evaluator import evaluate, hand_category

        assert category == int(hand_category(evaluate(np.array(hole + board))))
        return
    pytest.fail(f"no hand reached the {street} in 40 seeds")


# ---------------------------------------------------------------- illegal actions (issue 12 §1)


def _snapshot(env: HoldemEnv) -> list[np.ndarray]:
    """Everything a step can change."""
    return [env._states.copy(), env._rngs.copy(), env._masks.copy(), env._obs.copy()]


def _assert_unchanged(env: HoldemEnv, before: list[np.ndarray]) -> None:
    for a, b in zip(before, _snapshot(env), strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("n", [2, 6])
def test_masked_action_plays_check_call_by_default_and_info_says_so(n: int) -> None:
    # Two envs on the same seed: one is given masked-out actions, the other check/call
    # (index 1) at those steps. They must play the same game (DESIGN.md: the passive
    # action), and only the first one's info says that an action was replaced.
    a, b = HoldemEnv(n, hands_per_episode=3), HoldemEnv(n, hands_per_episode=3)
    _, info_a = a.reset(seed=5)
    _, info_b = b.reset(seed=5)
    assert info_a["illegal_action"] is False
    rng = np.random.default_rng(n)
    replaced = 0
    for _ in range(300):
        mask = info_a["action_mask"]
        masked = np.flatnonzero(mask == 0)
        if masked.size and rng.random() < 0.5:
            act, played = int(rng.choice(masked)), 1
            replaced += 1
        else:
            act = played = int(rng.choice(np.flatnonzero(mask)))
        obs_a, r_a, term_a, _, info_a = a.step(act)
        obs_b, r_b, term_b, _, info_b = b.step(played)
        assert info_a["illegal_action"] is (act != played)
        assert info_b["illegal_action"] is False
        assert np.array_equal(obs_a, obs_b) and r_a == r_b and term_a == term_b
        assert np.array_equal(a._states, b._states)
        if term_a:
            _, info_a = a.reset()
            _, info_b = b.reset()
    assert replaced > 50


def test_strict_mode_refuses_a_masked_action_and_changes_nothing() -> None:
    env = HoldemEnv(2, illegal_action="raise")
    _, info = env.reset(seed=1)
    while info["action_mask"].all():  # find a decision with something masked out
        _, _, term, _, info = env.step(1)
        if term:
            _, info = env.reset()
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match=rf"illegal action {bad} .*legal: \["):
        env.step(bad)
    _assert_unchanged(env, before)
    env.step(1)  # the env goes on


@pytest.mark.parametrize("value", ["call", "ignore", None])
def test_illegal_action_modes_are_passive_and_raise_only(value: object) -> None:
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive' or 'raise'"):
        HoldemEnv(2, illegal_action=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_values_outside_the_action_space_are_refused_in_both_modes(mode: str) -> None:
    env = HoldemEnv(3, illegal_action=mode)  # type: ignore[arg-type]
    env.reset(seed=3)
    for bad in (
        1.7,
        1.0,
        np.float64(1.0),
        "1",
        True,
        False,
        None,
        [1],
        np.array([1]),
        -1,
        8,
        10**20,
    ):
        before = _snapshot(env)
        with pytest.raises(IllegalActionError) as err:
            env.step(bad)  # type: ignore[arg-type]
        assert repr(bad) in str(err.value) and "an integer in [0, 8)" in str(err.value)
        _assert_unchanged(env, before)
    # Integers of any kind are actions: numpy ints and 0-d integer arrays (what
    # Discrete.sample() and SB3 hand over).
    for good in (np.int64(1), np.uint8(1), np.array(1)):
        _, _, term, _, info = env.step(good)  # type: ignore[arg-type]
        assert info["illegal_action"] is False
        if term:
            env.reset()


@pytest.mark.parametrize("n", [2, 6, 10])
def test_default_mode_accepts_every_action_of_the_space(n: int) -> None:
    # What Gymnasium's and SB3's checkers and plain PPO / DQN do: sample the space.
    for seed in range(3):
        env = HoldemEnv(n, hands_per_episode=2, escape_prob=0.02)
        env.action_space.seed(seed)
        _, info = env.reset(seed=seed)
        replaced = 0
        for _ in range(400):
            mask = info["action_mask"]
            act = int(env.action_space.sample())
            obs, _, term, _, info = env.step(act)
            assert info["illegal_action"] is bool(mask[act] == 0)
            replaced += info["illegal_action"]
            assert env.observation_space.contains(obs)
            if term:
                _, info = env.reset()
        assert replaced > 0


# ---------------------------------------------------------------- finished episodes (§1)


def test_step_before_reset_and_after_the_end_raises_episode_finished() -> None:
    env = HoldemEnv(2)
    with pytest.raises(EpisodeFinishedError, match="call reset"):
        env.step(1)
    _obs, info = env.reset(seed=2)
    term = False
    while not term:
        _, _, term, _, info = env.step(0 if info["action_mask"][0] else 1)
    assert not info["action_mask"].any()
    before = _snapshot(env)
    for action in (1, 0, 99, 1.5):  # whatever the action: the episode is over
        with pytest.raises(EpisodeFinishedError):
            env.step(action)  # type: ignore[arg-type]
    _assert_unchanged(env, before)
    env.reset()
    env.step(1)


# ---------------------------------------------------------------- hand results (§4)


class _Always:
    """An opponent that plays one index when it is legal, else check/call."""

    def __init__(self, index: int) -> None:
        self.index = index

    def act(self, observation: object, action_mask: np.ndarray) -> int:
        return self.index if action_mask[self.index] else 1


def _rig(s: np.ndarray, holes: dict[int, str], board: str) -> None:
    """Replace the hole cards and the board (not yet shown: pre-flop) of the running hand."""
    assert s[K.PHASE] == K.PHASE_BETTING and s[K.NUM_BOARD] == 0
    for q, text in holes.items():
        s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2] = parse_cards(text)
    s[K.BOARD : K.BOARD + 5] = parse_cards(board)


def _rows(hand: object) -> list[tuple[object, ...]]:
    return [
        (r.seat, r.outcome, r.cards, r.name, r.description, r.put_in, r.won, r.net)
        for r in hand.seats  # type: ignore[attr-defined]
    ]


def test_rigged_showdowns_reach_info_and_render_before_the_next_hand() -> None:
    # Three seats, two hands; the opponents check or call, the agent is seat 0.
    env = HoldemEnv(3, seat=0, opponents=_Always(1), hands_per_episode=2, render_mode="ansi")
    _, info = env.reset(seed=3)
    s = env._states[0]
    # Hand 1 (seed 3): seat 1 deals, seat 2 posts the small blind, the agent the big one.
    assert (s[K.BUTTON], s[K.SB], s[K.BB]) == (1, 2, 0)
    assert info["last_hand"] is None and info["hands_ended"] == ()
    _rig(s, {0: "As Ks", 1: "9c 9d", 2: "Ah Kd"}, "Qs Js Ts 2h 3d")
    steps = 0
    while not info["hands_ended"]:
        _, reward, term, _, info = env.step(1)  # the agent checks or calls too
        steps += 1
    assert steps == 4 and not term  # one check per street, then the showdown
    hand = info["last_hand"]
    assert info["hands_ended"] == (hand,)
    # Worked by hand. Board Qs Js Ts 2h 3d; everyone put in the big blind, 2: pot 6.
    # Seat 0, As Ks: As Ks Qs Js Ts, the ace-high straight flush, named a royal flush.
    # Seat 1, 9c 9d: a pair of nines (9 T J Q needs an 8 or a K for a straight).
    # Seat 2, Ah Kd: A K Q J T, a straight, ace high. Seat 0 wins the 6 chips.
    assert (hand.hand, hand.street, hand.board, hand.pot) == (1, "river", "Qs Js Ts 2h 3d", 6)
    assert _rows(hand) == [
        (0, "showdown", "As Ks", "Royal Flush", "Royal Flush", 2, 6, 4),
        (1, "showdown", "9c 9d", "Pair", "Pair, Nines", 2, 0, -2),
        (2, "showdown", "Ah Kd", "Straight", "Straight, Ace high", 2, 0, -2),
    ]
    assert hand.winners == (0,) and hand.is_showdown
    assert [r.seat for r in hand.shown] == [1, 2, 0]  # RULES.md §3: from the dealer clockwise
    assert reward == 4 / 2  # in big blinds
    # The next hand is running; the render shows it, then the last hand's result.
    text = env.render()
    assert isinstance(text, str) and text.splitlines()[0].startswith("preflop")
    assert "hand 1 over (showdown), board Qs Js Ts 2h 3d, pot 6" in text
    assert "seat 0 (you) BB shows As Ks, Royal Flush: wins 6 (+4)" in text
    assert "seat 1 D shows 9c 9d, Pair, Nines (-2)" in text
    assert "seat 2 SB shows Ah Kd, Straight, Ace high (-2)" in text

    # Hand 2: the button moved one seat; the agent posts the small blind and folds it.
    s = env._states[0]
    assert (s[K.BUTTON], s[K.SB], s[K.BB]) == (2, 0, 1)
    assert info["action_mask"][0] == 1
    _rig(s, {0: "4c 5d", 1: "Ah 3c", 2: "As 3d"}, "Kc Qd 8h 7s 2c")
    _, reward, term, _, info = env.step(0)
    assert term  # the second of two hands ends the episode
    hand = info["last_hand"]
    assert info["hands_ended"] == (hand,)
    # Worked by hand. Seats 1 and 2 both play A K Q 8 7 (three clubs at most: no flush):
    # equal, they split the pot of 5 (2 + 2 + the agent's small blind): 2 each, and the
    # odd chip to the first of them clockwise from the dealer (seat 2): seat 1.
    assert (hand.hand, hand.board, hand.pot) == (2, "Kc Qd 8h 7s 2c", 5)
    assert _rows(hand) == [
        (0, "folded", None, None, None, 1, 0, -1),
        (1, "showdown", "Ah 3c", "High Card", "High Card, Ace high", 2, 3, 1),
        (2, "showdown", "As 3d", "High Card", "High Card, Ace high", 2, 2, 0),
    ]
    assert hand.winners == (1, 2)
    assert reward == -1 / 2
    text = env.render()
    assert isinstance(text, str) and text.splitlines()[0] == "episode over"
    assert "hand 2 over (showdown), board Kc Qd 8h 7s 2c, pot 5" in text
    assert "seat 0 (you) SB folded (-1)" in text
    assert "seat 1 BB shows Ah 3c, High Card, Ace high: wins 3 (+1)" in text
    assert "seat 2 D shows As 3d, High Card, Ace high: wins 2 (+0)" in text
    with pytest.raises(EpisodeFinishedError):
        env.step(1)


@pytest.mark.parametrize(("n", "hands", "escape"), [(2, 3, 0.0), (6, 4, 0.03), (10, 2, 0.03)])
def test_every_hand_result_arrives_once_and_adds_up(n: int, hands: int, escape: float) -> None:
    # Random opponents inside the compiled step: each decided hand arrives exactly once,
    # numbered in order, with the step that decided it; the agent's nets add up to the
    # rewards; pots balance; only shown hands carry cards, and those are the evaluator's.
    env = HoldemEnv(n, hands_per_episode=hands, escape_prob=escape, render_mode="ansi")
    rng = np.random.default_rng(n)
    seen_showdown = seen_fold = seen_left = 0
    for episode in range(40):
        _, info = env.reset(seed=1000 * n + episode)
        agent = int(env._states[0, E.AGENT])
        # (hands decided before the agent's first decision come with the reset)
        numbers = [h.hand for h in info["hands_ended"]]
        nets = [r.net for h in info["hands_ended"] for r in h.seats if r.seat == agent]
        term = False
        while not term:
            _, reward, term, _, info = env.step(
                int(rng.choice(np.flatnonzero(info["action_mask"])))
            )
            finished = info["hands_ended"]
            if finished:
                assert info["last_hand"] is finished[-1]
                assert "\n".join(finished[-1].lines(agent=agent)) in (env.render() or "")
            agent_net = sum(r.net for h in finished for r in h.seats if r.seat == agent)
            assert reward == pytest.approx(agent_net / 2, abs=1e-12)
            nets.append(agent_net)
            for h in finished:
                numbers.append(h.hand)
                assert h.pot == sum(r.won for r in h.seats)
                # penalties go to the bank (burn): the pot is what the players put in
                assert h.pot == sum(r.put_in for r in h.seats)
                board = parse_cards(h.board).tolist() if h.board else []
                shown = [r for r in h.seats if r.outcome == "showdown"]
                assert h.is_showdown == (len(shown) >= 2) and len(shown) != 1
                for r in h.seats:
                    assert (r.cards is not None) == (r.outcome == "showdown")
                    if r.cards is not None:
                        rank = int(evaluate(np.array(parse_cards(r.cards).tolist() + board)))
                        assert len(board) == 5 and r.rank == rank and r.name == hand_name(rank)
                if shown:  # the best hand shown is paid (it is in the main pot)
                    assert max(shown, key=lambda r: r.rank).won > 0
                seen_showdown += bool(shown)
                seen_fold += any(r.outcome == "folded" for r in h.seats)
                seen_left += any(r.outcome == "left" for r in h.seats)
        assert info["last_hand"] is not None  # the episode's final hand, in the final info
        assert numbers == list(range(1, len(numbers) + 1)) and numbers[-1] <= hands
        s = env._states[0]
        assert sum(nets) == s[K.STACK + agent] - 200  # the agent's chips over the episode
        assert K.table_chips(s) == n * 200
    assert seen_showdown and seen_fold
    assert seen_left or escape == 0.0
