"""Red Dog baseline policies against the reference rule and the envs."""

from __future__ import annotations

import numpy as np

from agents.red_dog import AlwaysForfeitPolicy, RandomLegalPolicy, ReferencePolicy
from poker_env.envs.red_dog import RedDogEnv
from poker_env.policy import BatchPolicy, Policy


def test_policies_implement_the_protocols() -> None:
    for policy in (ReferencePolicy(), AlwaysForfeitPolicy(), RandomLegalPolicy(0)):
        assert isinstance(policy, Policy)
        assert isinstance(policy, BatchPolicy)


def test_reference_bets_all_above_one_half_else_one_chip() -> None:
    env = RedDogEnv(num_players=3, agent_seat=0)
    obs, _ = env.reset(seed=0)
    policy = ReferencePolicy()
    col = 160 + 3
    for p, expected in ((0.75, 5), (0.5, 1), (0.2, 1)):
        o = obs.copy()
        o[col] = p
        assert policy.act(o, np.ones(6, np.int8)) == expected
    batch = np.stack([obs, obs])
    batch[0, col], batch[1, col] = 0.9, 0.1
    assert policy.act_batch(batch, np.ones((2, 6), np.int8)).tolist() == [5, 1]


def test_reference_never_forfeits_and_matches_the_engine_rule() -> None:
    env = RedDogEnv(num_players=4, agent_seat=1)
    policy = ReferencePolicy()
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            game_p = float(obs[164])
            a = policy.act(obs, info["action_mask"])
            assert a != 0
            assert a == (5 if game_p > 0.5 else 1)
            obs, _, done, _, info = env.step(a)


def test_always_forfeit_loses_one_chip_a_turn() -> None:
    env = RedDogEnv(num_players=2, agent_seat=0, rounds=1, opponent_random_share=0.0)
    obs, info = env.reset(seed=3)
    _, reward, _done, _, _ = env.step(AlwaysForfeitPolicy().act(obs, info["action_mask"]))
    # First ante plus the forfeited chip, unless the opponent emptied the pot (then a new ante).
    assert reward in (-2.0, -3.0)


def test_random_legal_picks_only_legal_actions() -> None:
    policy = RandomLegalPolicy(1)
    mask = np.array([0, 1, 0, 1, 0, 0], np.int8)
    assert {policy.act(None, mask) for _ in range(50)} == {1, 3}
