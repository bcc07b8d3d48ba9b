"""Training end to end on tiny budgets: artifacts, resume, configs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from poker_env.errors import ConfigError
from poker_env_agents.runtime import load_policy
from poker_env_agents.training.train import TrainConfig, load_config, train

TINY = {
    "timesteps": 1024,
    "num_tables": 16,
    "num_groups": 2,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 1,
    "snapshot_every": 512,
    "checkpoint_every": 512,
    "eval_hands": 256,
    "net_arch": [16],
}


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("draw", {}),
        ("draw-match", {}),
        ("red-dog", {"num_players": 3}),
        ("holdem", {"num_players": 6}),
    ],
)
def test_a_tiny_run_writes_every_artifact(tmp_path: Path, game: str, options: dict) -> None:
    cfg = TrainConfig(game=game, options=options, out=str(tmp_path / "run"), **TINY)
    run = train(cfg, progress_bar=False)
    for name in ("config.toml", "model.zip", "policy.npz", "eval.json"):
        assert (run / name).is_file(), name
    assert sorted(p.name for p in (run / "checkpoints").glob("*.zip")) == [
        "step_0000000512.zip",
        "step_0000001024.zip",
    ]
    assert len(list((run / "pool").glob("snap_*.npz"))) == 2
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    results = json.loads((run / "eval.json").read_text())
    assert [r["opponent"] for r in results] == ["random", "call", "heuristic"]
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] and r["hands"] >= 256 for r in results)
    # The exported policy plays the env it names.
    env = cfg.spec.make_env(cfg.options)
    policy = load_policy(run / "policy.npz", env)
    obs, info = env.reset(seed=0)
    assert info["action_mask"][policy.act(obs, info["action_mask"])] == 1
    assert policy.manifest["provenance"]["seed"] == 0
    assert load_config(run / "config.toml") == cfg


def test_resume_continues_from_the_latest_checkpoint(tmp_path: Path) -> None:
    cfg = TrainConfig(game="holdem", out=str(tmp_path / "r"), **TINY)
    run = train(cfg, progress_bar=False, evaluate=False)
    first = (run / "model.zip").read_bytes()
    with pytest.raises(ConfigError, match="resume"):
        train(cfg, progress_bar=False, evaluate=False)  # the folder holds a run
    longer = load_config(run / "config.toml", timesteps=2048)
    train(longer, resume=True, progress_bar=False, evaluate=False)
    steps = sorted(p.name for p in (run / "checkpoints").glob("*.zip"))
    assert steps[-1] == "step_0000002048.zip" and "step_0000001536.zip" in steps
    assert (run / "model.zip").read_bytes() != first
    assert load_config(run / "config.toml").timesteps == 2048
    with pytest.raises(ConfigError, match="resume"):
        train(TrainConfig(game="holdem", out=str(tmp_path / "none"), **TINY), resume=True)


def test_the_same_seed_trains_the_same_policy(tmp_path: Path) -> None:
    outs = []
    for k in range(2):
        cfg = TrainConfig(game="red-dog", out=str(tmp_path / f"s{k}"), **TINY)
        run = train(cfg, progress_bar=False, evaluate=False)
        outs.append(load_policy(run / "policy.npz"))
    obs = np.random.default_rng(0).random((64, outs[0].observation_size)).astype(np.float32)
    np.testing.assert_array_equal(outs[0].logits(obs), outs[1].logits(obs))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timesteps", 0),
        ("timesteps", 1.5),
        ("num_groups", 3),  # does not divide 64 tables
        ("net_arch", []),
        ("activation", "sigmoid"),
        ("learning_rate", -1.0),
        ("opponents", {"mirror": 1.0}),
        ("options", {"players": 3}),
    ],
)
def test_bad_configs_name_the_field(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field.rstrip("s") if field == "options" else field):
        TrainConfig(game="holdem", **{field: value})  # type: ignore[arg-type]


def test_config_files_round_trip_and_refuse_unknown_keys(tmp_path: Path) -> None:
    cfg = TrainConfig(game="holdem", options={"num_players": 6}, opponents={"random": 1.0})
    p = tmp_path / "c.toml"
    p.write_text(cfg.to_toml())
    assert load_config(p) == cfg
    assert load_config(p, seed=5).seed == 5
    assert load_config(p, options={"num_players": 3}).options == {"num_players": 3}
    (tmp_path / "bad.toml").write_text('game = "holdem"\ntimestep = 5\n')
    with pytest.raises(ConfigError, match="timestep"):
        load_config(tmp_path / "bad.toml")
    (tmp_path / "broken.toml").write_text("game = \n")
    with pytest.raises(ConfigError, match="TOML"):
        load_config(tmp_path / "broken.toml")
    with pytest.raises(ConfigError, match="game"):
        load_config(None)


def test_warm_start_imitates_the_teacher(tmp_path: Path) -> None:
    # Red Dog's reference bets the maximum when p > 1/2, else 1 chip: a rule the
    # network can fit from the observation's p. After the warm start (and before any
    # PPO step) the exported policy's argmax should play the teacher's action.
    from poker_env_agents.baselines.red_dog import ReferencePolicy
    from poker_env_agents.registry import get_game

    cfg = TrainConfig(
        game="red-dog",
        out=str(tmp_path / "run"),
        warm_start="heuristic",
        warm_start_steps=8192,
        warm_start_epochs=30,
        learning_rate=3e-3,
        **{**TINY, "timesteps": 16, "eval_hands": 2},
    )
    run = train(cfg, progress_bar=False, evaluate=False)
    stats = json.loads((run / "warm_start.json").read_text())
    assert stats["accuracy"] > 0.9 and stats["rows"] > 4000
    policy = load_policy(run / "policy.npz")
    env = get_game("red-dog").make_vector(256, {"num_players": 4})
    obs, info = env.reset(seed=99)
    agree = n = 0
    for _ in range(20):
        mine = policy.act_batch(obs, info["action_mask"])
        ref = ReferencePolicy().act_batch(obs, info["action_mask"])
        agree += int((mine == ref).sum())
        n += mine.size
        obs, *_rest, info = env.step(ref)
    assert agree / n > 0.85


def test_features_and_seat_reach_the_env_and_the_export(tmp_path: Path) -> None:
    cfg = TrainConfig(
        game="draw-match", out=str(tmp_path / "run"), features="draw-strength", seat=0, **TINY
    )
    run = train(cfg, progress_bar=False, evaluate=False)
    manifest = load_policy(run / "policy.npz").manifest
    assert manifest["features"] == {"name": "draw-strength", "size": 67}
    assert manifest["network"]["layers"][0]["in"] == 124 + 67
    with pytest.raises(ConfigError, match="seat"):
        TrainConfig(game="draw", seat=2)
    with pytest.raises(ConfigError, match="features"):
        TrainConfig(game="red-dog", features="draw-strength")


def test_red_dog_bet_value_reward_hand_worked() -> None:
    from poker_env_agents.evaluate import RedDogBetValue

    n, total = 4, 200  # 4 players x 50 chips
    obs = np.zeros((4, 162 + n), np.float32)
    obs[:, 156] = 8 / total  # pot 8
    obs[:, 157] = 40 / total  # own chips 40: the largest bet is the pot, 8
    obs[:, 160 + n] = 0.75  # p
    # forfeit -1; 1 chip: 1 x (2p - 1) = 0.5; half the pot: 4 x 0.5; the whole pot: 8 x 0.5
    got = RedDogBetValue(n)(obs, np.array([0, 1, 3, 5]))
    assert np.allclose(got, [-1.0, 0.5, 2.0, 4.0])
    # Short of chips: the largest bet is the own chips (3), p below 1/2 loses.
    obs[:, 157] = 3 / total
    obs[:, 160 + n] = 0.25
    assert np.allclose(RedDogBetValue(n)(obs, np.array([5, 1, 0, 0])), [-1.5, -0.5, -1, -1])
    with pytest.raises(ConfigError, match="bet-value"):
        TrainConfig(game="draw", reward="bet-value")
