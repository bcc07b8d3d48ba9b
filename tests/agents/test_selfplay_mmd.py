"""Self-play with the MMD term: the config, the live copy of the learner, dominated
folds, and exact exploitability on Kuhn poker (OpenSpiel)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poker_env.errors import ConfigError
from poker_env_agents.runtime import DenseLayer, NumpyPolicy, without_dominated_folds
from poker_env_agents.training.train import TrainConfig, load_config, train

TINY = {
    "timesteps": 1024,
    "num_tables": 16,
    "num_groups": 2,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 2,
    "snapshot_every": 512,
    "checkpoint_every": 512,
    "eval_hands": 256,
    "net_arch": [16],
}


def test_config_validates_the_algorithm_fields() -> None:
    with pytest.raises(ConfigError, match="algo"):
        TrainConfig(game="draw", algo="nfsp")
    with pytest.raises(ConfigError, match="kl_coef"):
        TrainConfig(game="draw", kl_coef=0.05)  # the MMD term without algo = "mmd"
    with pytest.raises(ConfigError, match="both_seats"):
        TrainConfig(game="draw-match", both_seats=True, num_groups=3, num_tables=6)
    cfg = TrainConfig(game="draw", algo="mmd", kl_coef=0.05, opponents={"self": 1.0})
    assert cfg.opponents == {"self": 1.0}


def test_the_configs_train_by_self_play_with_mmd() -> None:
    root = Path(__file__).resolve().parents[2] / "agents" / "configs"
    for name in ("draw52", "draw32", "draw_match52", "holdem_hu", "demo"):
        cfg = load_config(root / f"{name}.toml")
        assert cfg.algo == "mmd" and cfg.kl_coef > 0, name
        assert set(cfg.opponents) <= {"self", "pool"}, (name, cfg.opponents)
    assert load_config(root / "draw_match52.toml").both_seats


def test_a_self_play_mmd_run_trains_both_match_seats(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from poker_env_agents.training.mmd import MMDMaskablePPO

    cfg = TrainConfig(
        game="draw-match",
        algo="mmd",
        kl_coef=0.1,
        ent_coef=0.05,
        clip_range=0.05,
        both_seats=True,
        opponents={"self": 0.7, "pool": 0.3},
        out=str(tmp_path / "run"),
        **TINY,
    )
    run = train(cfg, progress_bar=False)
    model = MMDMaskablePPO.load(run / "model.zip", device="cpu")
    assert isinstance(model, MaskablePPO) and model.kl_coef == pytest.approx(0.1)
    # Half the groups trained the human seat (0), half hers (1): the observation's
    # "this seat is the computer" entry (75) is 0 on some rows and 1 on others.
    from poker_env_agents.training.train import _Run

    # (random opponents: the live copy plays only once a model is attached)
    r = _Run(dataclasses.replace(cfg, opponents={"random": 1.0}), "test")
    obs = r.venv.reset()
    seats = obs[:, 75]
    per = cfg.num_tables // cfg.num_groups
    assert set(seats[:per].tolist()) == {1.0} and set(seats[per : 2 * per].tolist()) == {0.0}
    # A resumed run loads the MMD class again and trains on.
    more = load_config(run / "config.toml", timesteps=1536)
    train(more, resume=True, progress_bar=False, evaluate=False)


def test_the_live_copy_plays_the_learners_current_distribution() -> None:
    import torch

    from poker_env_agents.training.train import _Run

    cfg = TrainConfig(
        game="draw",
        algo="mmd",
        kl_coef=0.05,
        opponents={"self": 1.0},
        out="",
        **{**TINY, "num_tables": 8, "num_groups": 1},
    )
    r = _Run(cfg, "test")
    r.dir = Path(__import__("tempfile").mkdtemp())
    model = r.new_model()
    with torch.no_grad():  # move the weights away from the copy attached at creation
        for p in model.policy.parameters():
            p.add_(0.3 * torch.randn_like(p))
    obs = r.venv.reset()
    masks = r.venv.action_masks()
    live = r.live_self
    before = live.policy.probabilities(obs, masks)
    live.refresh(model)
    after = live.policy.probabilities(obs, masks)
    with torch.no_grad():
        dist = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0], action_masks=masks)
        expected = dist.distribution.probs.numpy()
    np.testing.assert_allclose(after, expected, atol=1e-5)
    assert np.abs(before - expected).max() > 1e-3


def _fold_loving_policy(env_id: str, size: int, actions: int) -> NumpyPolicy:
    # logits: fold (action 0) far above everything else, whatever the observation.
    bias = np.zeros(actions, np.float32)
    bias[0] = 10.0
    layer = DenseLayer(np.zeros((size, actions), np.float32), bias)
    manifest = {
        "observation": {"size": size},
        "actions": {"count": actions, "names": [f"A{k}" for k in range(actions)]},
        "env": {"id": env_id, "options": {}},
        "game": "draw",
    }
    return NumpyPolicy(manifest, [layer])


def test_no_fold_with_nothing_to_call_in_draw() -> None:
    from poker_env_agents.registry import get_game

    env = get_game("draw").make_vector(64)
    obs, info = env.reset(seed=3)
    masks = info["action_mask"]
    free = (obs[:, 64] == 0) & (masks[:, 1] == 1)
    # The env's rules allow the fold there (a dominated action, issue 25)...
    assert free.any() and masks[free, 0].all()
    policy = _fold_loving_policy("poker_env/FiveCardDraw-v0", obs.shape[1], masks.shape[1])
    acts = policy.act_batch(obs, masks)
    # ...the runtime never plays it: the fold-loving network checks instead.
    assert (acts[free] != 0).all()
    # Facing a bet the fold stays: step the tables where the agent bets are not ours,
    # so build the case by hand: the same observation with chips to call.
    facing = obs[free].copy()
    facing[:, 64] = 2.0
    assert (policy.act_batch(facing, masks[free]) == 0).all()
    # The flag keeps the env's mask as it is.
    keep = _fold_loving_policy("poker_env/FiveCardDraw-v0", obs.shape[1], masks.shape[1])
    keep.dominated_folds = True
    assert (keep.act_batch(obs[free], masks[free]) == 0).all()
    # Red Dog has no such fold: its masks come back unchanged.
    np.testing.assert_array_equal(without_dominated_folds("poker_env/RedDog-v0", obs, masks), masks)


def test_the_training_masks_have_no_dominated_fold() -> None:
    from poker_env_agents.training.train import _Run

    cfg = TrainConfig(game="draw", **{**TINY, "num_tables": 64, "num_groups": 1})
    r = _Run(cfg, "test")
    obs = r.venv.reset()
    masks = r.venv.action_masks()
    free = obs[:, 64] == 0
    assert free.any() and not masks[free & (masks[:, 1] == 1), 0].any()
    for _ in range(6):
        acts = np.array([np.flatnonzero(m)[-1] for m in masks])  # bet big: bets to call
        obs, _r, _d, _i = r.venv.step(acts)
        masks = r.venv.action_masks()
        assert not masks[(obs[:, 64] == 0) & (masks[:, 1] == 1), 0].any()


# ----- OpenSpiel: exact exploitability ----------------------------------------------------

pyspiel = pytest.importorskip("pyspiel")


def test_kuhn_env_pays_the_kuhn_stakes_in_both_seats() -> None:
    from poker_env_agents.training.openspiel import OpenSpielVectorEnv, RandomLegal

    env = OpenSpielVectorEnv("kuhn_poker", 32, RandomLegal(1), seed=0)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    rewards: list[float] = []
    seats: set[int] = set()
    for _ in range(200):
        m = info["action_mask"]
        acts = np.array([rng.choice(np.flatnonzero(row)) for row in m])
        seats.update(env.seats.tolist())
        _obs, r, done, _t, info = env.step(acts)
        rewards += r[done].tolist()
        assert (r[~done] == 0).all()
    # Kuhn poker: the ante is 1 and one bet of 1, so a hand pays +-1 or +-2.
    assert set(np.abs(rewards)) == {1.0, 2.0}
    assert seats == {0, 1}


def test_the_uniform_policy_has_kuhns_known_exploitability() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from poker_env_agents.training.openspiel import (
        CallPolicy,
        OpenSpielVectorEnv,
        exploitability,
        load_game,
    )
    from poker_env_agents.training.sb3 import PokerVecEnv

    venv = PokerVecEnv([OpenSpielVectorEnv("kuhn_poker", 4, CallPolicy())], seed=0)  # type: ignore[list-item]
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, device="cpu")
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.zero_()
    # Uniform play in Kuhn poker: NashConv 11/12, exploitability 11/24 (OpenSpiel's
    # exploitability_test and the game's known best responses).
    assert exploitability(model, load_game("kuhn_poker")) == pytest.approx(11 / 24, abs=1e-6)


def test_mmd_self_play_beats_the_baseline_mix_on_kuhn() -> None:
    from poker_env_agents.training.openspiel import BASELINE_MIX, NEW_RECIPE, train_curve

    steps = 60_000
    new = train_curve("kuhn_poker", NEW_RECIPE, steps, steps, seed=0, average_every=steps // 8)
    old = train_curve("kuhn_poker", BASELINE_MIX, steps, steps, seed=0)
    assert new[0].exploitability == pytest.approx(old[0].exploitability)  # the same start
    assert new[-1].exploitability < 0.2
    assert new[-1].exploitability < old[-1].exploitability - 0.05
    # The average of the iterates is read out too, and it is no worse than uniform
    # play's 11/24 by far: the readout of a learning run, not of the start alone.
    assert new[0].average is None and new[-1].average is not None
    assert new[-1].average < 0.25


# ----- the moving magnet, the entropy schedule, the average of the iterates ----------------


def test_config_validates_the_magnet_and_the_schedule() -> None:
    from poker_env_agents.training import mmd
    from poker_env_agents.training import train as train_mod

    assert train_mod.MAGNETS == mmd.MAGNETS
    with pytest.raises(ConfigError, match="magnet"):
        TrainConfig(game="draw", algo="mmd", magnet="average")
    with pytest.raises(ConfigError, match="magnet"):
        TrainConfig(game="draw", magnet="ema")  # a magnet needs the MMD learner
    with pytest.raises(ConfigError, match="magnet_tau"):
        TrainConfig(game="draw", algo="mmd", magnet="ema", magnet_tau=0.0)
    with pytest.raises(ConfigError, match="ent_coef_final"):
        TrainConfig(game="draw", algo="mmd", ent_coef_final=1.5)
    with pytest.raises(ConfigError, match="ent_coef_final"):
        TrainConfig(game="draw", ent_coef_final=0.01)  # the schedule is the MMD learner's
    cfg = TrainConfig(game="draw", algo="mmd", magnet="ema", magnet_tau=0.02, ent_coef_final=0.0)
    assert (cfg.magnet, cfg.magnet_tau, cfg.ent_coef_final) == ("ema", 0.02, 0.0)


def test_masked_kl_is_the_kl_over_the_legal_actions() -> None:
    import torch

    from poker_env_agents.training.mmd import masked_kl

    rng = np.random.default_rng(5)
    masks = np.array([[1, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0]], np.int8)
    a, b = rng.normal(size=(2, 3, 4))
    expected = []
    log_p, log_q = [], []
    for row in range(3):
        legal = masks[row] != 0
        p = np.exp(a[row][legal]) / np.exp(a[row][legal]).sum()
        q = np.exp(b[row][legal]) / np.exp(b[row][legal]).sum()
        expected.append(float((p * np.log(p / q)).sum()))
        # as the masked distribution hands them over: illegal entries at about -1e8
        lp = np.full(4, -1e8)
        lq = np.full(4, -3e8)
        lp[legal], lq[legal] = np.log(p), np.log(q)
        log_p.append(lp)
        log_q.append(lq)
    got = masked_kl(torch.tensor(np.array(log_p)), torch.tensor(np.array(log_q)), masks)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-9, atol=1e-12)
    assert expected[2] == 0.0 and min(expected[:2]) > 0


def _kuhn_model(**kwargs: object) -> object:
    from poker_env_agents.training.mmd import MMDMaskablePPO
    from poker_env_agents.training.openspiel import OpenSpielVectorEnv, RandomLegal
    from poker_env_agents.training.sb3 import PokerVecEnv

    venv = PokerVecEnv([OpenSpielVectorEnv("kuhn_poker", 8, RandomLegal(2), seed=1)], seed=0)  # type: ignore[list-item]
    return MMDMaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=16,
        batch_size=64,
        n_epochs=2,
        learning_rate=1e-2,
        policy_kwargs={"net_arch": [8]},
        device="cpu",
        seed=0,
        **kwargs,
    )


def test_the_entropy_weight_decays_linearly_to_its_final_value() -> None:
    model: Any = _kuhn_model(kl_coef=0.1, ent_coef=0.2, ent_coef_final=0.05)
    for left, want in ((1.0, 0.2), (0.5, 0.125), (0.0, 0.05)):
        model._current_progress_remaining = left
        assert model.current_ent_coef() == pytest.approx(want)
    constant: Any = _kuhn_model(kl_coef=0.1, ent_coef=0.2)
    constant._current_progress_remaining = 0.0
    assert constant.current_ent_coef() == pytest.approx(0.2)
    with pytest.raises(ValueError, match="magnet"):
        _kuhn_model(magnet="average")
    with pytest.raises(ValueError, match="magnet_tau"):
        _kuhn_model(magnet="ema", magnet_tau=1.5)


def test_the_moving_magnet_follows_the_weights_and_is_saved(tmp_path: Path) -> None:
    import torch

    from poker_env_agents.training.mmd import MMDMaskablePPO

    tau = 0.25
    model: Any = _kuhn_model(kl_coef=0.1, ent_coef=0.1, magnet="ema", magnet_tau=tau)
    start = [p.detach().clone() for p in model.policy.parameters()]
    for q, p in zip(model.magnet_policy.parameters(), start, strict=True):
        assert torch.equal(q, p)  # the magnet starts as the initial policy
    model.learn(128)  # one rollout of 8 x 16 steps, one update
    after = [p.detach().clone() for p in model.policy.parameters()]
    moved = 0.0
    for q, p0, p1 in zip(model.magnet_policy.parameters(), start, after, strict=True):
        torch.testing.assert_close(q, p0 + tau * (p1 - p0))
        moved = max(moved, float((p1 - p0).abs().max()))
    assert moved > 1e-4  # the update moved the weights, so the check above can fail
    # The magnet is part of the saved model: a load restores it, not the policy's copy.
    model.save(tmp_path / "m.zip")
    back: Any = MMDMaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert back.magnet == "ema" and back.magnet_tau == tau
    for q, q0 in zip(
        back.magnet_policy.parameters(), model.magnet_policy.parameters(), strict=True
    ):
        assert torch.equal(q, q0)
    assert any(
        not torch.equal(q, p)
        for q, p in zip(back.magnet_policy.parameters(), back.policy.parameters(), strict=True)
    )


def test_a_train_config_with_the_moving_magnet_trains_and_resumes(tmp_path: Path) -> None:
    from poker_env_agents.training.mmd import MMDMaskablePPO

    cfg = TrainConfig(
        game="draw",
        algo="mmd",
        kl_coef=0.1,
        ent_coef=0.1,
        ent_coef_final=0.01,
        magnet="ema",
        magnet_tau=0.1,
        opponents={"self": 1.0},
        out=str(tmp_path / "run"),
        **TINY,
    )
    run = train(cfg, progress_bar=False, evaluate=False)
    model: Any = MMDMaskablePPO.load(run / "model.zip", device="cpu")
    assert (model.magnet, model.magnet_tau, model.ent_coef_final) == ("ema", 0.1, 0.01)
    saved = load_config(run / "config.toml")
    assert (saved.magnet, saved.ent_coef_final) == ("ema", 0.01)
    train(
        load_config(run / "config.toml", timesteps=1536),
        resume=True,
        progress_bar=False,
        evaluate=False,
    )
    # A resume may not change the magnet (the checkpoint holds the moving one's weights).
    with pytest.raises(ConfigError, match="magnet"):
        train(
            load_config(run / "config.toml", timesteps=2048, magnet="uniform"),
            resume=True,
            progress_bar=False,
            evaluate=False,
        )


def test_the_average_of_iterates_weighs_each_by_its_own_reach() -> None:
    from open_spiel.python import policy as os_policy

    from poker_env_agents.training.openspiel import PolicyAverage, load_game

    game = load_game("kuhn_poker")
    # Kuhn: actions 0 = pass (check/fold), 1 = bet (bet/call). Iterate A always bets
    # first as player 0; iterate B always checks first and, checked to then bet into,
    # always calls. Player 0's decision after "check, bet" is reached by B only.
    a, b = os_policy.TabularPolicy(game), os_policy.TabularPolicy(game)
    for t in (a, b):
        t.action_probability_array[:] = 0.5
    for k, s in enumerate(a.states):
        key = s.information_state_string()
        history = key[1:]  # the card, then the actions: "0", "0p", "0pb", ...
        if history == "":
            a.action_probability_array[k] = [0.0, 1.0]
            b.action_probability_array[k] = [1.0, 0.0]
        elif history == "pb":
            a.action_probability_array[k] = [1.0, 0.0]  # A never gets here
            b.action_probability_array[k] = [0.0, 1.0]
    avg = PolicyAverage(game)
    avg.add(a, 1.0)
    avg.add(b, 3.0)
    out = avg.policy()
    for k, s in enumerate(out.states):
        history = s.information_state_string()[1:]
        probs = out.action_probability_array[k]
        if history == "":
            np.testing.assert_allclose(probs, [0.75, 0.25])  # the weights 1 : 3
        elif history == "pb":
            np.testing.assert_allclose(probs, [0.0, 1.0])  # B's alone, not the mean
        else:
            np.testing.assert_allclose(probs, [0.5, 0.5])
    # The average of one iterate is that iterate.
    one = PolicyAverage(game)
    one.add(b)
    np.testing.assert_allclose(one.policy().action_probability_array, b.action_probability_array)


def test_the_learning_rate_decays_linearly_when_asked() -> None:
    from poker_env_agents.training.train import _Run

    with pytest.raises(ConfigError, match="learning_rate_final"):
        TrainConfig(game="draw", learning_rate_final=2.0)
    cfg = TrainConfig(
        game="draw",
        learning_rate=1e-3,
        learning_rate_final=1e-4,
        out="",
        **{**TINY, "num_tables": 8, "num_groups": 1},
    )
    r = _Run(cfg, "test")
    r.dir = Path(__import__("tempfile").mkdtemp())
    model = r.new_model()
    for left, want in ((1.0, 1e-3), (0.5, 5.5e-4), (0.0, 1e-4)):
        assert model.lr_schedule(left) == pytest.approx(want)
    model.learn(cfg.n_steps * cfg.num_tables * 2)  # two updates: the optimizer follows
    lr = model.policy.optimizer.param_groups[0]["lr"]
    assert 1e-4 < lr < 1e-3
    constant = _Run(dataclasses.replace(cfg, learning_rate_final=-1.0), "test")
    constant.dir = r.dir
    assert constant.new_model().lr_schedule(0.0) == pytest.approx(1e-3)
