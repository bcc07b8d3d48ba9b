"""DrawVectorEnv: a batch of N tables equals N single envs; same-step autoreset."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.policy import RandomPolicy
from poker_env.vector.draw import DrawVectorEnv
from tests.vector.threads import assert_same_episodes


def pick(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)


@pytest.mark.parametrize(
    ("agent_seat", "rules"), [(0, {}), (1, {"deck": 32, "starting_money": 40})]
)
def test_batch_of_n_equals_n_single_envs(agent_seat: int, rules: dict[str, object]) -> None:
    n, seed = 6, 40
    vec = DrawVectorEnv(n, agent_seat=agent_seat, **rules)  # type: ignore[arg-type]
    singles = [FiveCardDrawEnv(agent_seat=agent_seat, **rules) for _ in range(n)]  # type: ignore[arg-type]
    obs, info = vec.reset(seed=seed)
    for i, e in enumerate(singles):
        o, inf = e.reset(seed=seed + i)
        assert np.array_equal(o, obs[i]) and np.array_equal(
            inf["action_mask"], info["action_mask"][i]
        )
    rng = np.random.default_rng(7)
    episodes = 0
    # Enough steps that every table refills its random buffer at least once.
    for _ in range(1200):
        a = pick(rng, info["action_mask"])
        obs, rew, term, trunc, info = vec.step(a)
        assert not trunc.any()
        for i, e in enumerate(singles):
            o, r, t, _, inf = e.step(int(a[i]))
            assert (r, t) == (rew[i], term[i])
            if t:
                episodes += 1
                assert info["_final_obs"][i]
                assert np.array_equal(o, info["final_obs"][i])
                o, inf = e.reset()
            assert np.array_equal(o, obs[i])
            assert np.array_equal(inf["action_mask"], info["action_mask"][i])
    assert episodes > 100


def test_same_step_autoreset_metadata_and_masks() -> None:
    vec = DrawVectorEnv(4)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = vec.reset(seed=0)
    assert obs.shape == (4, 124) and info["action_mask"].shape == (4, vec.single_action_space.n)
    assert vec.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, _rew, _term, _trunc, info = vec.step(pick(rng, info["action_mask"]))
        # The returned observation is always a live decision: its mask is never empty.
        assert (info["action_mask"].sum(axis=1) > 0).all()
        assert np.array_equal(vec.action_masks(), info["action_mask"])
        assert vec.observation_space.contains(obs)


def _snapshot(vec: DrawVectorEnv) -> list[np.ndarray]:
    return [x.copy() for x in (vec._S, vec._R, vec._REC, vec._obs, vec._masks, vec._illegal)]


def test_strict_mode_masked_out_action_raises_and_nothing_is_applied() -> None:
    vec = DrawVectorEnv(3, illegal_action="raise")
    _obs, info = vec.reset(seed=1)
    a = pick(np.random.default_rng(1), info["action_mask"])
    a[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    before = _snapshot(vec)
    with pytest.raises(IllegalActionError, match="table 2"):
        vec.step(a)
    assert all(np.array_equal(x, y) for x, y in zip(before, _snapshot(vec), strict=True))


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize(
    "bad",
    [
        np.array([1.0, 1.0, 1.0]),
        [1, 1.5, 1],
        ["1", "1", "1"],
        np.array([True, True, True]),
        [1, 39, 1],
        [1, 1, -1],
        np.array([1, 1, 2**63 + 5], dtype=np.uint64),
        [1, 1],
        None,
    ],
)
def test_actions_outside_the_space_raise_in_both_modes(mode: str, bad: object) -> None:
    vec = DrawVectorEnv(3, illegal_action=mode)
    vec.reset(seed=1)
    before = _snapshot(vec)
    with pytest.raises(
        IllegalActionError, match=r"an (integer in|array of 3 integers in) \[0, 39\)"
    ):
        vec.step(bad)
    assert all(np.array_equal(x, y) for x, y in zip(before, _snapshot(vec), strict=True))
    vec.step(np.ones(3, np.int64))  # the env goes on


@pytest.mark.parametrize("deck", [52, 32])
def test_default_mode_plays_the_passive_action_like_the_single_env(deck: int) -> None:
    # Uniform actions of the whole space: a batch in the default mode equals single
    # envs in the default mode, step for step, flags included; and equals a strict
    # batch stepped with the passive action written out by hand.
    n, seed = 5, 20 + deck
    vec = DrawVectorEnv(n, deck=deck)
    strict = DrawVectorEnv(n, deck=deck, illegal_action="raise")
    singles = [FiveCardDrawEnv(deck=deck) for _ in range(n)]
    obs, info = vec.reset(seed=seed)
    strict.reset(seed=seed)
    for i, e in enumerate(singles):
        e.reset(seed=seed + i)
    rng = np.random.default_rng(deck)
    flagged = 0
    for _ in range(300):
        masks = info["action_mask"]
        a = rng.integers(0, 39, n)
        illegal = masks[np.arange(n), a] == 0
        passive = np.where(masks[:, 1] == 1, 1, 6)
        played = np.where(illegal, passive, a)
        obs, rew, term, _trunc, info = vec.step(a)
        sobs, srew, sterm, _st, sinfo = strict.step(played)
        assert info["illegal_action"].dtype == np.bool_
        assert np.array_equal(info["illegal_action"], illegal)
        assert not sinfo["illegal_action"].any()
        assert np.array_equal(obs, sobs) and np.array_equal(rew, srew)
        assert np.array_equal(term, sterm)
        flagged += int(illegal.sum())
        for i, e in enumerate(singles):
            o, r, t, _, inf = e.step(int(a[i]))
            assert inf["illegal_action"] == bool(illegal[i])
            assert (r, t) == (rew[i], term[i])
            if t:
                assert vec.last_hand(i) == inf["last_hand"]
                o, inf = e.reset()
            assert np.array_equal(o, obs[i])
    assert flagged > 500


def test_stepping_before_reset_raises() -> None:
    vec = DrawVectorEnv(2)
    with pytest.raises(EpisodeFinishedError, match="DrawVectorEnv"):
        vec.step(np.ones(2, np.int64))


def test_last_hand_of_a_table() -> None:
    vec = DrawVectorEnv(2)
    vec.reset(seed=0)
    assert vec.last_hand(0) is None
    _o, _r, term, _t, _i = vec.step(np.zeros(2, np.int64))  # both drop
    assert term.all()
    for i in range(2):
        d = vec.last_hand(i)
        # The agent dropped at its first decision: it lost its ante only.
        assert d is not None and (d["how"], d["winner"], d["hands"]) == ("drop", 1, None)
        assert d["stacks"] == (495, 505)
    with pytest.raises(ConfigError):
        vec.last_hand(2)


def test_batch_policy_opponent() -> None:
    vec = DrawVectorEnv(8, opponent=RandomPolicy(2))
    _obs, info = vec.reset(seed=3)
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(150):
        _obs, _rew, term, _trunc, info = vec.step(pick(rng, info["action_mask"]))
        ends += int(term.sum())
        assert (info["action_mask"].sum(axis=1) > 0).all()
    assert ends > 20


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError):
        DrawVectorEnv(0)
    with pytest.raises(ConfigError):
        DrawVectorEnv(2, num_threads=0)
    with pytest.raises(ConfigError):
        DrawVectorEnv(2, opponent=object())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive' or 'raise'"):
        DrawVectorEnv(2, illegal_action="call")


@pytest.mark.parametrize("threads", [2, 3])
def test_two_threads_give_the_same_episodes_as_one(threads: int) -> None:
    # Tables are independent: the thread count must not change any result.
    one = DrawVectorEnv(300, num_threads=1)
    two = DrawVectorEnv(300, num_threads=threads)
    assert_same_episodes(one, two, seed=11, steps=80)


# ----- mode="match": DrawMatch-v0 episodes ------------------------------------------

BUY_BACK = 38  # 2 + K + 32 with the default pot fractions (K = 4)
_HASH_W = np.random.default_rng(9).integers(1, 1000, 124)


class HashPolicy:
    """A deterministic opponent for single and batched envs alike: a legal action
    picked by an integer hash of the observation (so the single env and the batch
    see the same moves, which a shared random stream could not give)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        # Observations hold integers (cards, chips, counts): the hash is exact.
        k = (observations.astype(np.int64) * _HASH_W).sum(axis=1) % 7919
        out = np.empty(len(action_masks), np.int64)
        for j, m in enumerate(action_masks):
            legal = np.flatnonzero(m)
            out[j] = legal[k[j] % legal.size]
        return out


@pytest.mark.parametrize("opponent", ["compiled", "batch_policy"])
@pytest.mark.parametrize("seat", ["computer", "human"])
def test_match_mode_plays_the_episodes_of_single_draw_match_envs(seat: str, opponent: str) -> None:
    # Table i seeded s+i plays exactly DrawMatchEnv(seed=s+i) given the same actions:
    # observations, masks, rewards, terminated, truncated, final observations, hand
    # numbers, over many match ends, truncations and (as the computer) buy-backs.
    n, seed, bonus, max_hands = 8, 100, 250.0, 12
    rules = {"deck": 32, "starting_money": 40, "match_bonus": bonus, "max_hands": max_hands}
    vec = DrawVectorEnv(
        n,
        agent_seat=seat,
        mode="match",
        opponent=HashPolicy() if opponent == "batch_policy" else None,
        **rules,  # type: ignore[arg-type]
    )
    assert vec.env_id == "poker_env/DrawMatch-v0"
    singles = [
        DrawMatchEnv(
            agent_seat=seat,
            opponent=HashPolicy() if opponent == "batch_policy" else None,
            **rules,  # type: ignore[arg-type]
        )
        for _ in range(n)
    ]
    obs, info = vec.reset(seed=seed)
    early = 0  # matches with a pot decided before the agent's first decision
    hand_no = [0] * n
    for i, e in enumerate(singles):
        o, inf = e.reset(seed=seed + i)
        hand_no[i] = inf["hand_no"]
        assert np.array_equal(o, obs[i])
        assert np.array_equal(inf["action_mask"], info["action_mask"][i])
        assert inf["hand_no"] == info["hand_no"][i]
        early += inf["last_hand"] is not None
    # Worth moves between the seats only: no step pays more than all the chips in
    # play (T / ante antes) except the match's end, which adds +-match_bonus.
    most = (2 * 40 + 6 * 100) / 5
    rng = np.random.default_rng(0)
    ends = {"term": 0, "trunc": 0, "buy_back": 0, "skip_buy_back": 0}
    for _ in range(1200):
        masks = info["action_mask"]
        a = pick(rng, masks)
        at_buy_back = masks[:, BUY_BACK] == 1
        ends["buy_back"] += int((at_buy_back & (a == BUY_BACK)).sum())
        ends["skip_buy_back"] += int((at_buy_back & (a == 1)).sum())
        obs, rew, term, trunc, info = vec.step(a)
        assert np.array_equal(info["_final_obs"], term | trunc)
        for i, e in enumerate(singles):
            o, r, t, tr, inf = e.step(int(a[i]))
            assert (r, t, tr) == (rew[i], term[i], trunc[i])
            assert abs(r) >= bonus - most if t else abs(r) <= most
            if t or tr:
                assert np.array_equal(o, info["final_obs"][i])
                if tr:
                    # Cut at the agent's first decision after hand max_hands ended
                    # (DrawMatch-v0's Episode End): the step began within max_hands.
                    assert hand_no[i] <= max_hands < inf["hand_no"]
                    assert inf["last_hand"]["hand_no"] >= max_hands
                o, inf = e.reset()
                early += inf["last_hand"] is not None
            else:
                assert inf["hand_no"] == info["hand_no"][i]
            assert np.array_equal(o, obs[i])
            assert np.array_equal(inf["action_mask"], info["action_mask"][i])
            hand_no[i] = inf["hand_no"]
        ends["term"] += int(term.sum())
        ends["trunc"] += int(trunc.sum())
    assert ends["term"] > 100 and ends["trunc"] > 50
    assert early > 20  # the pots paid with a new match's first step are covered
    if seat == "computer":
        assert ends["buy_back"] > 50 and ends["skip_buy_back"] > 50
    else:
        assert ends["buy_back"] == ends["skip_buy_back"] == 0  # her rule decides


def test_match_mode_threads_and_last_hand() -> None:
    one = DrawVectorEnv(200, mode="match", agent_seat=1, starting_money=40, max_hands=6)
    two = DrawVectorEnv(
        200, mode="match", agent_seat=1, starting_money=40, max_hands=6, num_threads=2
    )
    assert_same_episodes(one, two, seed=5, steps=60)
    for i in range(4):
        d = one.last_hand(i)
        assert d is not None and 1 <= d["hand_no"] <= 6


def test_pot_mode_never_truncates_and_names_its_env() -> None:
    vec = DrawVectorEnv(16, starting_money=20)
    assert vec.env_id == "poker_env/FiveCardDraw-v0" and vec.mode == "pot"
    _obs, info = vec.reset(seed=0)
    assert "hand_no" not in info
    rng = np.random.default_rng(1)
    for _ in range(300):
        _obs, _r, term, trunc, info = vec.step(pick(rng, info["action_mask"]))
        assert not trunc.any()
        assert np.array_equal(info["_final_obs"], term)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"mode": "matches"}, "mode"),
        ({"mode": None}, "mode"),
        ({"agent_seat": 2}, "agent_seat"),
        ({"agent_seat": "her"}, "agent_seat"),
        ({"agent_seat": True}, "agent_seat"),
        ({"max_hands": 0}, "max_hands"),
        ({"max_hands": 2.0}, "max_hands"),
        ({"max_hands": True}, "max_hands"),
        ({"match_bonus": float("nan")}, "match_bonus"),
        ({"match_bonus": "100"}, "match_bonus"),
    ],
)
def test_bad_match_arguments(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as e:
        DrawVectorEnv(2, **kwargs)  # type: ignore[arg-type]
    assert e.value.field == field


def test_the_draw_match_game_trains_the_computer_seat_on_the_match_env() -> None:
    # poker_env_agents.registry "draw-match": the batched env plays DrawMatch-v0 with the agent in
    # the computer's seat (the single env's agent_seat="computer"); a policy file
    # describes it as DrawMatch-v0 with the single env's options.
    from poker_env_agents.registry import get_game
    from poker_env_agents.runtime import describe_env

    spec = get_game("draw-match")
    vec = spec.make_vector(4, {"deck": 32})
    assert isinstance(vec, DrawVectorEnv)
    assert (vec.mode, vec.agent_seat, vec.config.deck_name) == ("match", 1, "short")
    assert spec.make_vector(4, seat=0).agent_seat == 0
    single = spec.make_env({"deck": 32})
    assert describe_env(vec) == describe_env(single)
    assert describe_env(vec).env_id == "poker_env/DrawMatch-v0"
    assert describe_env(DrawVectorEnv(2, deck=32)).env_id == "poker_env/FiveCardDraw-v0"


@pytest.mark.parametrize("threads", [1, 2])
def test_observations_handed_out_stay_the_callers_and_dropped_ones_are_reused(
    threads: int,
) -> None:
    # copy=True hands out each step's observation and final-observation arrays as the
    # compiled step wrote them: what a caller keeps is never written again, and what
    # it dropped is written again (no new memory each step).
    env = DrawVectorEnv(64, mode="match", num_threads=threads)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(2)
    kept = [(obs, obs.copy(), None, None)]
    seen: set[int] = set()
    finished = 0
    for t in range(60):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, _, term, trunc, info = env.step(acts)
        done = info["_final_obs"]
        assert np.array_equal(done, term | trunc)
        finished += int(done.sum())
        if t < 20:
            kept.append((obs, obs.copy(), info["final_obs"], info["final_obs"].copy()))
        else:
            seen.add(id(obs))
    assert finished > 0
    for o, o_copy, f, f_copy in kept:
        assert np.array_equal(o, o_copy)
        assert f is None or np.array_equal(f, f_copy)
    assert len(seen) <= 3  # the steps after 20 kept nothing: a few buffers in turn
