"""ComputerOpponent: levels, files, and her wardrobe decisions (RULES.md §1)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import poker_env  # noqa: F401
from poker_env.errors import ConfigError
from poker_env_agents.opponent import ComputerOpponent, shipped_model

ITEM_VALUE = 100
RESERVE = 10  # 2 x ante


def _export_untrained(path: Path, env_id: str, **kw: object) -> Path:
    from sb3_contrib import MaskablePPO

    from poker_env_agents.training.export import export_policy

    env = gym.make(env_id, disable_env_checker=True, **kw).unwrapped
    model = MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [8]})
    return export_policy(model, path, env).npz


def _play_her_seat(her: ComputerOpponent, seed: int, max_steps: int = 4000) -> list[tuple]:
    """DrawMatch-v0 with her as the agent in the computer seat (so the buy-back is
    her decision); returns (offered, took, money, lost, worn) at every decision."""
    env = gym.make(
        "poker_env/DrawMatch-v0",
        agent_seat="computer",
        starting_money=120,
        disable_env_checker=True,
    ).unwrapped
    obs, info = env.reset(seed=seed)
    buy = env.action_space.n - 1
    seen = []
    for _ in range(max_steps):
        mask = info["action_mask"]
        a = her.act(obs, mask)
        assert mask[a] == 1
        seen.append((bool(mask[buy]), a == buy, float(obs[60]), float(obs[70]), float(obs[68])))
        obs, _r, term, trunc, info = env.step(a)
        if term or trunc:
            obs, info = env.reset()
    return seen


def test_easy_buys_back_whenever_she_may_and_only_then() -> None:
    her = ComputerOpponent("draw-match", "easy", seed=1)
    seen = [s for seed in range(3) for s in _play_her_seat(her, seed)]
    offered = [s for s in seen if s[0]]
    assert len(offered) > 5, "the short matches should reach buy-backs"
    # RULES.md §1: never buys back what she cannot afford (money >= value + reserve)
    # and only an item she lost; the default rule takes every chance.
    for _offered, took, money, lost, _worn in offered:
        assert money >= ITEM_VALUE + RESERVE and lost >= 1
        assert took
    for _offered, took, *_ in seen:
        assert not (took and not _offered)


def test_a_one_pot_policy_falls_back_to_the_rule_book_for_buy_backs(tmp_path: Path) -> None:
    path = _export_untrained(tmp_path / "pot.npz", "poker_env/FiveCardDraw-v0")
    her = ComputerOpponent("draw-match", str(path) + "@sample", seed=2)
    assert not her.learned_buy_back
    offered = [s for s in _play_her_seat(her, seed=5) if s[0]]
    assert offered and all(took for _o, took, *_ in offered)


def test_a_policy_trained_in_her_seat_decides_the_buy_back_itself(tmp_path: Path) -> None:
    path = _export_untrained(
        tmp_path / "match.npz", "poker_env/DrawMatch-v0", agent_seat="computer"
    )
    her = ComputerOpponent("draw-match", str(path) + "@sample", seed=3)
    assert her.learned_buy_back
    offered = [s for seed in range(3) for s in _play_her_seat(her, seed) if s[0]]
    took = [t for _o, t, *_ in offered]
    # An untrained sampled policy picks between BUY_BACK and SKIP: both happen.
    assert any(took) and not all(took)


def test_missing_shipped_models_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("poker_env_agents.opponent.MODELS_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"holdem_6max\.npz"):
        ComputerOpponent("holdem", "hard", options={"num_players": 6})
    assert shipped_model("draw", {"deck": 32}).name == "draw32.npz"
    with pytest.raises(ConfigError, match="policy"):
        ComputerOpponent("draw", "impossible")


@pytest.mark.parametrize(("game", "options"), [("red-dog", {}), ("holdem", {"num_players": 3})])
def test_easy_plays_any_seat_as_an_env_opponent(game: str, options: dict) -> None:
    from poker_env_agents.registry import get_game

    spec = get_game(game)
    her = ComputerOpponent(game, "easy", options=options, seed=4)
    env = spec.make_env(options, opponent=her)
    _obs, info = env.reset(seed=0)
    for _ in range(50):
        _obs, _r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            _obs, info = env.reset()
    vec = spec.make_vector(16, options, opponent=her)
    _obs, info = vec.reset(seed=0)
    for _ in range(20):
        _obs, *_rest, info = vec.step(np.argmax(info["action_mask"], axis=1))


@pytest.mark.parametrize(
    ("game", "env_id", "key"),
    [
        ("draw-match", "poker_env/DrawMatch-v0", "opponent"),
        ("holdem", "poker_env/Holdem-v0", "opponents"),
        ("red-dog", "poker_env/RedDog-v0", "opponents"),
    ],
)
def test_an_env_with_a_sampling_computer_opponent_pickles_and_plays_on_alike(
    game: str, env_id: str, key: str
) -> None:
    # The shipped policy sampled from its softmax: her random stream goes with the copy.
    import copy
    import pickle
    import random

    from tests.envs.test_copies import _play

    env = gym.make(env_id, **{key: ComputerOpponent(game, "normal")})
    _, info = env.reset(seed=1)
    twin = pickle.loads(pickle.dumps(env))
    expected = _play(env, copy.deepcopy(info), random.Random(1), 120)
    assert _play(twin, info, random.Random(1), 120) == expected
