"""RedDog-v0: docs table vs spaces, API checkers, no leakage, rewards, errors."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import poker_env  # noqa: F401  (registers the ids)
from poker_env.encoding.red_dog import encode_observation
from poker_env.envs.red_dog import RedDogEnv
from poker_env.errors import ConfigError, IllegalActionError
from poker_env.games.red_dog import (
    F_SEATED,
    I_DECK_POS,
    I_HAND_SIZE,
    I_PHASE,
    PHASE_BET,
    PHASE_OVER,
)
from poker_env.policy import RandomPolicy


def doc_rows() -> list[tuple[str, str, str]]:
    doc = RedDogEnv.__doc__ or ""
    rows = re.findall(r"^\s*\| (\[[^|]+\]) \| ([^|]+) \| ([^|]+) \|\s*$", doc, flags=re.M)
    return [(a.strip(), b.strip(), c.strip()) for a, b, c in rows]


@pytest.mark.parametrize("num_players", [2, 4, 10])
def test_docstring_observation_table_matches_the_space(num_players: int) -> None:
    env = RedDogEnv(num_players=num_players, rounds=7)
    space = env.observation_space
    names = {"P": num_players, "rounds": 7}
    covered = np.zeros(space.shape[0], int)
    for slc, _meaning, rng in doc_rows():
        start, stop = (eval(x, {}, names) for x in slc.strip("[]").split(":"))
        lo, hi = (eval(x, {}, names) for x in rng.strip("[]").split(","))
        covered[start:stop] += 1
        assert np.all(space.low[start:stop] == lo), slc
        assert np.all(space.high[start:stop] == hi), slc
    assert np.all(covered == 1)  # every element documented exactly once


def test_gymnasium_check_env() -> None:
    check_env(RedDogEnv(num_players=3), skip_render_check=False)


def test_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check

    sb3_check(RedDogEnv(num_players=3), warn=True)


def test_make_by_id() -> None:
    env = gym.make("poker_env/RedDog-v0", num_players=5)
    obs, info = env.reset(seed=0)
    assert obs.shape == (167,)
    assert info["action_mask"].dtype == np.int8


def test_reset_with_a_seed_is_reproducible() -> None:
    env = RedDogEnv()
    a, _ = env.reset(seed=42)
    seq_a = [env.step(2)[0] for _ in range(2)]
    b, _ = env.reset(seed=42)
    seq_b = [env.step(2)[0] for _ in range(2)]
    assert np.array_equal(a, b)
    assert all(np.array_equal(x, y) for x, y in zip(seq_a, seq_b, strict=True))


def shuffle_hidden(env: RedDogEnv, rng: np.random.Generator) -> None:
    """Permute every card the agent cannot see: others' unshown hands and the stock."""
    st = env.state
    agent = env.agent_seat
    size = int(st.ints[0, I_HAND_SIZE])
    slots: list[tuple[str, int, int]] = []
    for s in range(env.config.num_players):
        if s == agent or not st.flags[0, s] & F_SEATED:
            continue
        for k in range(size):
            c = st.hands[0, s, k]
            if c >= 0 and st.public[0, c] == 0:
                slots.append(("h", s, k))
    for i in range(int(st.ints[0, I_DECK_POS]), 52):
        slots.append(("d", i, 0))
    cards = [st.hands[0, a, b] if kind == "h" else st.deck[0, a] for kind, a, b in slots]
    perm = rng.permutation(len(cards))
    for (kind, a, b), j in zip(slots, perm, strict=True):
        if kind == "h":
            st.hands[0, a, b] = cards[j]
        else:
            st.deck[0, a] = cards[j]


def test_observation_does_not_change_when_hidden_cards_are_shuffled() -> None:
    rng = np.random.default_rng(0)
    for seed in range(8):
        env = RedDogEnv(num_players=int(rng.integers(2, 11)))
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            st = env.state
            before = np.zeros_like(obs)
            encode_observation(
                st.ints, st.chips, st.flags, st.hands, st.public, 0, env.agent_seat, before
            )
            assert np.array_equal(before, obs)
            shuffle_hidden(env, rng)
            after = np.zeros_like(obs)
            encode_observation(
                st.ints, st.chips, st.flags, st.hands, st.public, 0, env.agent_seat, after
            )
            assert np.array_equal(before, after)
            obs, _, done, _, _ = env.step(int(rng.integers(0, 6)))


def test_rewards_sum_to_chips_won_or_lost_in_antes() -> None:
    for seed in range(10):
        env = RedDogEnv(num_players=3, ante=2, starting_chips=20, agent_seat=seed % 3)
        _, info = env.reset(seed=seed)
        total = 0.0
        done = False
        steps = 0
        while not done:
            assert info["action_mask"].sum() > 0  # never empty before the end
            _, r, done, truncated, info = env.step(steps % 6)
            assert not truncated
            total += float(r)
            steps += 1
        final = int(env.state.chips[0, env.agent_seat])
        assert total == (final - 20) / 2
        assert info["action_mask"].sum() == 0


def test_episode_ends_when_the_game_ends_or_the_agent_leaves() -> None:
    env = RedDogEnv(num_players=2, starting_chips=3, rounds=20, agent_seat=0)
    for seed in range(20):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, done, _, _ = env.step(5)  # always bet all: games end fast
        st = env.state
        assert st.ints[0, 3] != PHASE_BET or not st.flags[0, 0] & F_SEATED


def test_stepping_a_finished_episode_raises() -> None:
    env = RedDogEnv(num_players=2, rounds=1)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(1)
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(1)


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = RedDogEnv()
    env.reset(seed=0)
    before = [a.copy() for a in env.state]
    with pytest.raises(IllegalActionError, match="legal"):
        env.step(6)
    assert all(np.array_equal(a, b) for a, b in zip(before, env.state, strict=True))


def test_random_seat_changes_between_episodes() -> None:
    env = RedDogEnv(num_players=4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {0, 1, 2, 3}


def test_python_policy_opponents_and_render() -> None:
    env = RedDogEnv(num_players=5, opponents=RandomPolicy(0), render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "pot" in text
    done = False
    while not done:
        _obs, _, done, _, _ = env.step(3)
    total = int(env.state.chips[0].sum() + env.state.ints[0, 0])
    assert total == 5 * 50


def test_render_after_the_game_ends_says_game_over_not_a_deal_past_the_last() -> None:
    # Seed 3 with small bets: the agent keeps his seat and the game plays all 4 deals.
    env = RedDogEnv(num_players=4, agent_seat=0, render_mode="ansi")
    env.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, _ = env.step(1)
    st = env.state
    assert st.ints[0, I_PHASE] == PHASE_OVER
    text = env.render()
    assert isinstance(text, str)
    lines = text.splitlines()
    chips = [int(c) for c in st.chips[0, :4]]
    winners = [s for s, c in enumerate(chips) if c == max(chips)]
    assert lines[0].startswith("game over after 4/4 deals")
    assert lines[0].endswith(f"seat {winners[0]}") and len(winners) == 1
    assert not re.search(r"deal \d+/", text)
    for s, c in enumerate(chips):
        assert f"  seat {s}: {c} chips" in lines


def test_config_errors() -> None:
    with pytest.raises(ConfigError):
        RedDogEnv(agent_seat=4)
    with pytest.raises(ConfigError):
        RedDogEnv(bet_fractions=(0.5, 2.0))
    with pytest.raises(ConfigError):
        RedDogEnv(opponent_random_share=1.5)
