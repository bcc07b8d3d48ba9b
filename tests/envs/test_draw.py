"""FiveCardDraw-v0 and DrawMatch-v0: API checkers, documented spaces, hidden information."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import poker_env  # noqa: F401  (registers the ids)
from poker_env.encoding import draw as enc
from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig
from poker_env.policy import RandomPolicy

IDS = ["poker_env/FiveCardDraw-v0", "poker_env/DrawMatch-v0"]


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "mask empty before the end"
    return int(legal[rng.integers(legal.size)])


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env(env_id: str) -> None:
    env = gym.make(env_id, illegal_action="passive", render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_check_env(env_id: str) -> None:
    sb3_check_env(gym.make(env_id, illegal_action="passive").unwrapped, warn=False)


def test_match_env_as_computer_passes_check_env() -> None:
    check_env(DrawMatchEnv(agent_seat="computer", illegal_action="passive"))


def _parse_range(text: str, cfg: DrawConfig) -> tuple[float, float]:
    sym = {
        "T": cfg.total_chips,
        "R": cfg.max_raises,
        "N": len(cfg.wardrobe),
        "V": len(cfg.wardrobe) * cfg.item_value,
    }
    lo, hi = (x.strip() for x in text.split(".."))

    def val(x: str) -> float:
        neg = x.startswith("-")
        x = x.lstrip("-")
        v = float(sym[x]) if x in sym else float(x)
        return -v if neg else v

    return val(lo), val(hi)


@pytest.mark.parametrize("cls", [FiveCardDrawEnv, DrawMatchEnv])
def test_docstring_observation_table_matches_the_space(cls: type) -> None:
    env = cls()
    space = env.observation_space
    doc = cls.__doc__
    rows = re.findall(r"^\s*\|\s*(\d+(?::\d+)?)\s*\|(.*)\|\s*([^|]+?)\s*\|\s*$", doc, re.M)
    covered = np.zeros(space.shape[0], bool)
    for sl, _meaning, rng_text in rows:
        a, b = (int(x) for x in sl.split(":")) if ":" in sl else (int(sl), int(sl) + 1)
        covered[a:b] = True
        if ".." not in rng_text:
            continue  # the history row is described in the text below the table
        lo, hi = _parse_range(rng_text, env.config)
        assert np.all(space.low[a:b] == lo), sl
        assert np.all(space.high[a:b] == hi), sl
    assert covered.all()
    assert space.shape == (enc.OBS_SIZE,) == (124,)
    # The history: who -1..1, action -1..8, amount 0..T.
    h = space.low[76:].reshape(-1, 3), space.high[76:].reshape(-1, 3)
    assert (h[0][:, 0] == -1).all() and (h[1][:, 0] == 1).all()
    assert (h[0][:, 1] == -1).all() and (h[1][:, 1] == 8).all()
    assert (h[0][:, 2] == 0).all() and (h[1][:, 2] == env.config.total_chips).all()


def test_action_space_layout_is_documented() -> None:
    env = FiveCardDrawEnv(pot_fractions=(0.5, 1.0))
    # 2 + K + 33 with K = 2 fractions + all-in.
    assert env.action_space.n == 2 + 3 + 33


def test_observation_unchanged_when_hidden_cards_are_shuffled() -> None:
    env = FiveCardDrawEnv()
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        s = env._s
        # Hidden from the agent: the opponent's hand and the stock not yet dealt.
        opp = 1 - env.agent_seat
        hidden = [L.S_HANDS + 5 * opp + i for i in range(5)] + [
            L.S_DECK + i for i in range(int(s[L.S_DECK_POS]), env.config.num_cards)
        ]
        s2 = s.copy()
        s2[hidden] = s[hidden][rng.permutation(len(hidden))]
        o1 = np.zeros(enc.OBS_SIZE, np.float32)
        o2 = np.zeros(enc.OBS_SIZE, np.float32)
        enc.encode_obs(s, env._cfg, env.agent_seat, o1)
        enc.encode_obs(s2, env._cfg, env.agent_seat, o2)
        assert np.array_equal(o1, o2)
        assert np.array_equal(o1, obs)
        checked += 1
        obs, _r, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term or trunc:
            obs, info = env.reset()
    assert checked == 300


def test_reset_with_a_seed_is_reproducible() -> None:
    def play(seed: int) -> list[tuple[bytes, float]]:
        env = FiveCardDrawEnv()
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = []
        for _ in range(200):
            obs, r, term, _trunc, info = env.step(random_legal(rng, info["action_mask"]))
            out.append((obs.tobytes(), float(r)))
            if term:
                obs, info = env.reset()
        return out

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_rule_drop_at_first_decision_loses_the_ante() -> None:
    # The agent's only chips in the pot are its ante: 5 / ante 5 = -1.
    for seed in range(10):
        env = FiveCardDrawEnv()
        env.reset(seed=seed)
        _, r, term, trunc, _ = env.step(0)
        assert (r, term, trunc) == (-1.0, True, False)


def test_rewards_sum_to_chips_won_over_antes() -> None:
    env = FiveCardDrawEnv(ante=5)
    _obs, info = env.reset(seed=3)
    rng = np.random.default_rng(2)
    for _ in range(500):
        _obs, r, term, _trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term:
            stack = int(env._s[L.S_STACK + env.agent_seat])
            assert r == (stack - 500) / 5
            _obs, info = env.reset()
        else:
            assert r == 0.0


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = FiveCardDrawEnv()
    _obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env._s.copy()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(env._s, before)
    assert np.array_equal(env.action_masks(), info["action_mask"])


def test_stepping_a_finished_episode_raises() -> None:
    env = FiveCardDrawEnv()
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(RuntimeError):
        env.step(1)


def test_mask_is_exactly_the_legal_set_and_dedups_sizes() -> None:
    # start 8, ante 5: 3 chips each; min_bet 5 > 3: every size is the same all-in of 3.
    env = FiveCardDrawEnv(starting_money=8, ante=5, wardrobe=())
    for seed in range(20):
        _obs, info = env.reset(seed=seed)
        m = info["action_mask"]
        if m[2:6].any():
            assert m[2:6].tolist() == [1, 0, 0, 0]
            assert m[0] == 1 and m[1] == 1 and m[6:].sum() == 0
            return
    raise AssertionError("no state with a bet")


def test_rule_draw_phase_offers_the_32_discards_only() -> None:
    env = FiveCardDrawEnv()
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = info["action_mask"]
        if obs[57] == L.PH_DRAW:
            assert m[6:38].all() and m[:6].sum() == 0 and m[38] == 0
        obs, _r, term, _trunc, info = env.step(random_legal(rng, m))
        if term:
            obs, info = env.reset()


def test_python_policy_opponent() -> None:
    env = gym.make("poker_env/FiveCardDraw-v0", opponent=RandomPolicy(3), agent_seat=1)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(4)
    ends = 0
    for _ in range(300):
        _obs, _r, term, _trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term:
            ends += 1
            _obs, info = env.reset()
    assert ends > 10


def test_render_ansi_shows_own_cards_pot_money_wardrobe() -> None:
    env = FiveCardDrawEnv(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text is not None
    assert "your cards" in text and "pot: 10" in text and "hat" in text and "money" in text


def test_match_env_computer_gets_buy_back_decisions_and_match_bonus() -> None:
    env = DrawMatchEnv(agent_seat="computer", starting_money=60, item_value=20, match_bonus=100.0)
    rng = np.random.default_rng(5)
    saw_buy_back = False
    finals = []
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        total = 0.0
        while True:
            m = info["action_mask"]
            if m[-1]:
                saw_buy_back = True
                assert obs[57] == L.PH_BUY_BACK and m.sum() == 2 and m[1] == 1
            obs, r, term, trunc, info = env.step(random_legal(rng, m))
            total += r
            if term or trunc:
                break
        if term:
            finals.append(r)
            # Worth moves between the two seats only: a finished match sums to the
            # change of her worth (in antes) plus or minus the bonus.
            s = env._s
            worth = int(s[L.S_STACK + 1]) + int(s[L.S_WORN]) * 20
            bonus = 100.0 if int(s[L.S_MATCH_WINNER]) == 1 else -100.0
            assert total == pytest.approx((worth - (60 + 6 * 20)) / 5 + bonus)
    assert saw_buy_back
    assert finals


def test_match_env_human_agent_truncates_at_max_hands() -> None:
    env = DrawMatchEnv(agent_seat="human", max_hands=3)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(6)
    for _ in range(200):
        _obs, _r, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term or trunc:
            break
    assert trunc or term
    assert info["hand_no"] <= 4


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"agent_seat": 2}, "agent_seat"),
        ({"pot_fractions": (1.0, 0.5)}, "pot_fractions"),
        ({"render_mode": "human"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"ante": 0}, "ante"),
        ({"config": DrawConfig(), "ante": 3}, "rules"),
    ],
)
def test_bad_arguments_raise_config_error(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as e:
        FiveCardDrawEnv(**kwargs)  # type: ignore[arg-type]
    assert e.value.field == field
