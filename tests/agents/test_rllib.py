"""poker_env_agents.training.rllib and scripts/train_rllib.py: self-play PPO on a local Ray cluster.

Marked ``rllib`` (``make test`` runs them; ``-m "not rllib"`` leaves them out). The
cluster is started once for the file with 2 CPUs and no dashboard. Hold'em 6-max
self-play trains a few iterations with each sampler; every sampled action is checked
against the observation's mask; the checkpoint is restored into a fresh algorithm;
the export runs in the numpy runtime and plays the RLlib module's masked argmax on
1,000 observations of the real env.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")

import ray
import torch

from poker_env.errors import ConfigError
from poker_env.vector.holdem import HoldemVectorEnv
from poker_env_agents.registry import get_game
from poker_env_agents.runtime import load_policy
from poker_env_agents.training.checkpoints import (
    UntrustedCheckpointError,
    check_folder,
    signing_key,
)
from poker_env_agents.training.rllib import (
    BatchedEnvRunner,
    PokerMultiAgentEnv,
    RLlibConfig,
    build_config,
    export_module,
    find_rllib_checkpoint,
    learner_module,
    make_aec_env,
    masked_argmax,
    train,
)
from poker_env_agents.training.rllib_batched import sample_masked

pytestmark = pytest.mark.rllib

REPO = Path(__file__).resolve().parents[2]
from poker_env_agents.cli import train_rllib as cli  # noqa: E402  (scripts/train_rllib.py runs it)

SIX = {"num_players": 6}


def _small(sampler: str, out: Path, **kw: Any) -> RLlibConfig:
    per_runner = 64 if sampler == "batched" else 4
    fields: dict[str, Any] = {
        "game": "holdem",
        "options": dict(SIX),
        "sampler": sampler,
        "num_env_runners": 1,
        "num_envs_per_env_runner": per_runner,
        "iterations": 2,
        "seed": 3,
        "train_batch_size": 512 if sampler == "batched" else 256,
        "minibatch_size": 128,
        "num_epochs": 1,
        "hidden": [32, 32],
        "out": str(out),
    }
    fields.update(kw)
    return RLlibConfig(**fields)


@pytest.fixture(scope="module")
def cluster() -> Any:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def batched_run(cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return train(_small("batched", tmp_path_factory.mktemp("batched")), log=lambda s: None)


def _observations(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and masks of Hold'em 6-max seen by a seat to act, from
    random legal play (the batched env with random opponents)."""
    env = HoldemVectorEnv(64, 6)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows, masks = [], []
    while sum(len(r) for r in rows) < count:
        m = info["action_mask"]
        rows.append(obs.copy())
        masks.append(m.copy())
        legal = [np.flatnonzero(r) for r in m]
        obs, _, _, _, info = env.step(np.array([rng.choice(x) for x in legal]))
    return np.concatenate(rows)[:count], np.concatenate(masks)[:count]


# ----- a training run: masking, metrics, checkpoint, export ---------------------------------


def test_batched_selfplay_samples_no_illegal_action(batched_run: Any) -> None:
    assert len(batched_run.metrics) == 2
    for m in batched_run.metrics:
        assert m["env_runners/illegal_actions"] == 0
        # Every learner step was checked (the runner counts on the whole arrays) and the
        # other five seats were played by the same module.
        assert m["env_runners/num_env_steps_sampled"] >= 512
        assert m["env_runners/checked_actions"] == m["env_runners/num_env_steps_sampled"]
        assert m["env_runners/num_opponent_decisions"] > m["env_runners/num_env_steps_sampled"]


def test_metrics_reach_tensorboard_and_the_log(batched_run: Any) -> None:
    m = batched_run.metrics[-1]
    for key in ("env_runners/episode_return_mean", "learner/policy_loss", "learner/entropy"):
        assert np.isfinite(m[key]), key
    assert list((batched_run.run_dir / "tb").glob("events.out.tfevents.*"))
    lines = (batched_run.run_dir / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["iteration"] for x in lines] == [1, 2]


def test_checkpoint_restores_the_learner_weights(batched_run: Any, tmp_path: Path) -> None:
    ckpt = batched_run.checkpoint
    assert (ckpt / "learner_group").is_dir()
    saved = learner_module(ckpt, "batched").state_dict()
    cfg = _small("batched", tmp_path, num_env_runners=0)
    algo = build_config(cfg).build_algo()
    try:
        fresh = algo.learner_group.get_weights()["default_policy"]
        assert any(not np.array_equal(fresh[k], saved[k].numpy()) for k in saved)
        algo.restore_from_path(str(ckpt.resolve()))
        restored = algo.learner_group.get_weights()["default_policy"]
        for k, v in saved.items():
            np.testing.assert_array_equal(np.asarray(restored[k]), v.numpy(), err_msg=k)
        algo.train()  # and it trains on from there
    finally:
        algo.stop()


def test_resume_continues_the_run(batched_run: Any, tmp_path: Path) -> None:
    cfg = _small("batched", tmp_path / "more", num_env_runners=0, iterations=1)
    more = train(cfg, resume=batched_run.checkpoint, log=lambda s: None)
    assert more.checkpoint.name == "iter_00003"  # numbered on from the checkpoint's 2
    lifetime = [m["env_runners/num_env_steps_sampled_lifetime"] for m in batched_run.metrics]
    assert more.metrics[0]["env_runners/num_env_steps_sampled_lifetime"] > lifetime[-1]
    with pytest.raises(FileNotFoundError, match="not an RLlib checkpoint"):
        train(cfg, resume=tmp_path)


def test_resume_takes_the_newest_complete_checkpoint(
    batched_run: Any, tmp_path: Path, capsys: Any
) -> None:
    import shutil

    last = batched_run.checkpoint
    assert check_folder(last) is None  # committed whole: manifest, sizes, sha256
    assert not [p for p in last.parent.iterdir() if p.name.startswith(".")]
    run = tmp_path / "run"
    d = run / "checkpoints"
    d.mkdir(parents=True)
    shutil.copytree(last, d / "iter_00001")  # complete (its manifest names relative paths)
    torn = shutil.copytree(last, d / "iter_00002")
    big = max((p for p in torn.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    size = big.stat().st_size
    big.write_bytes(big.read_bytes()[: size // 2])
    unfinished = shutil.copytree(last, d / "iter_00003")
    (unfinished / "checkpoint_complete.json").unlink()
    shutil.copytree(last, d / ".iter_00004.tmp-7-0123abcd")  # a killed writer's temporary
    found, skipped = find_rllib_checkpoint(run)
    assert found == d / "iter_00001"
    rel = big.relative_to(torn).as_posix()
    assert skipped == [
        ("checkpoints/iter_00003", "no checkpoint_complete.json (its writing did not finish)"),
        (
            "checkpoints/iter_00002",
            f"{rel} is {size // 2:,} bytes, the manifest says {size:,} (torn or replaced)",
        ),
    ]
    with pytest.raises(FileNotFoundError, match="an incomplete RLlib checkpoint"):
        find_rllib_checkpoint(torn)
    # A resume that changes the module is refused before anything starts.
    with pytest.raises(ConfigError, match=r"hidden: \[32, 32\] in the checkpoint, \[16\] now"):
        train(_small("batched", tmp_path / "other", hidden=[16]), resume=run)
    assert cli.main(["holdem", "--resume", str(torn), "--out", str(tmp_path / "x")]) == 2
    assert "incomplete RLlib checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "other").exists() and not (tmp_path / "x").exists()


def test_a_checkpoint_not_signed_by_this_user_is_not_unpickled(
    batched_run: Any, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    import shutil

    mine = batched_run.checkpoint
    assert find_rllib_checkpoint(mine)[0] == mine  # written, and signed, by this user
    copy = shutil.copytree(mine, tmp_path / "run" / "checkpoints" / "iter_00002")
    assert find_rllib_checkpoint(tmp_path / "run")[0] == copy  # a copy keeps its signature
    # Another user (another key) finds it complete and refuses to let Ray unpickle it.
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "other-user"))
    signing_key()
    with pytest.raises(UntrustedCheckpointError, match="not signed with this user's key"):
        find_rllib_checkpoint(tmp_path / "run")
    with pytest.raises(UntrustedCheckpointError, match="Ray would unpickle"):
        learner_module(copy, "batched")
    rc = cli.main(["holdem", "--resume", str(copy), "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2 and "--trust-checkpoint" in err and "resume only checkpoints you wrote" in err
    assert not (tmp_path / "x").exists()
    # Trusted on purpose: found, and its module loads.
    assert find_rllib_checkpoint(copy, trust=True)[0] == copy
    assert learner_module(copy, "batched", trust=True) is not None
    # train() refuses it itself (not only the command line's early check).
    with pytest.raises(UntrustedCheckpointError, match="not signed with this user's key"):
        train(_small("batched", tmp_path / "y", iterations=1), resume=copy, log=lambda s: None)
    assert not (tmp_path / "y").exists()


class _Payload:
    """Unpickled, it creates the file it names (what a crafted checkpoint's code does)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def test_ray_restores_only_the_files_the_signed_manifest_lists(
    batched_run: Any, tmp_path: Path
) -> None:
    """A copy of your own signed checkpoint with a folder added by a link: Ray restores
    any component whose folder exists (env_runner/rl_module, which a save never
    writes), and the link hid it from a scan of the folder. The resume reads a private
    copy of the listed files, so the added pickle is never opened."""
    import pickle
    import shutil

    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil_module"
    evil.mkdir()
    (evil / "module_state.pkl").write_bytes(pickle.dumps(_Payload(marker)))
    pickle.loads((evil / "module_state.pkl").read_bytes()).close()  # (it works)
    assert marker.exists()
    marker.unlink()
    run = tmp_path / "run"
    crafted = shutil.copytree(batched_run.checkpoint, run / "checkpoints" / "iter_00002")
    (crafted / "env_runner").mkdir(exist_ok=True)
    (crafted / "env_runner" / "rl_module").symlink_to(evil, target_is_directory=True)
    assert find_rllib_checkpoint(run)[0] == crafted  # complete and signed, as listed
    more = train(_small("batched", run, num_env_runners=0, iterations=1), resume=run, log=print)
    assert more.checkpoint.name == "iter_00003"
    assert not marker.exists()
    assert learner_module(crafted, "batched") is not None and not marker.exists()


def test_export_plays_the_module_masked_argmax(batched_run: Any) -> None:
    env = get_game("holdem").make_env(SIX)
    policy = load_policy(batched_run.policy, env)
    assert policy.manifest["env"]["id"] == "poker_env/Holdem-v0"
    assert policy.manifest["env"]["options"]["num_players"] == 6
    module = learner_module(batched_run.checkpoint, "batched")
    obs, masks = _observations(1000, seed=11)
    expected = masked_argmax(module, obs, masks)
    got = policy.act_batch(obs, masks)
    np.testing.assert_array_equal(got, expected)
    assert np.all(masks[np.arange(len(got)), got] == 1)
    with torch.no_grad():
        logits = module.pi(torch.from_numpy(obs)).numpy()
    np.testing.assert_allclose(policy.logits(obs), logits, atol=1e-5)
    # Not a constant policy: the check would pass for one otherwise.
    assert len(np.unique(expected)) >= 2


def test_exported_policy_plays_in_evaluate(batched_run: Any, capsys: Any) -> None:
    from poker_env_agents.cli import evaluate as evaluate_cli

    rc = evaluate_cli.main(
        [
            "holdem",
            "--option",
            "num_players=6",
            str(batched_run.policy),
            "call",
            "--hands",
            "600",
            "--tables",
            "64",
        ]
    )
    assert rc == 0
    assert "call" in capsys.readouterr().out


def test_stock_sampler_masks_every_seat(cluster: Any, tmp_path: Path) -> None:
    cfg = _small("stock", tmp_path)
    result = train(cfg, log=lambda s: None)
    for m in result.metrics:
        assert m["env_runners/illegal_actions"] == 0
        # Agent steps of the returned episodes (an action still waiting for that
        # agent's next observation is checked in the next rollout).
        assert m["env_runners/checked_actions"] >= 200
    # Every seat is an agent of the one shared policy.
    returns = [k for k in result.metrics[-1] if k.startswith("agent_return/")]
    assert {k.split("/")[1] for k in returns} <= {f"player_{i}" for i in range(6)}
    assert len(returns) == 6
    policy = load_policy(result.policy, get_game("holdem").make_env(SIX))
    module = learner_module(result.checkpoint, "stock")
    obs, masks = _observations(200, seed=5)
    np.testing.assert_array_equal(policy.act_batch(obs, masks), masked_argmax(module, obs, masks))


def test_array_learner_batch_equals_rllib_pipeline(cluster: Any) -> None:
    """BatchedLearnerConnector builds, from the same episodes, exactly the batch of
    RLlib's default PPO learner pipeline (AddOneTsToEpisodesAndTruncate, the column
    connectors, GeneralAdvantageEstimation), advantages and value targets included."""
    import copy

    from poker_env_agents.training.rllib_batched import BatchedLearnerConnector

    cfg = _small(
        "batched",
        Path("unused"),
        num_env_runners=0,
        num_envs_per_env_runner=32,
        array_learner=False,
        gamma=0.9,
        lambda_=0.8,
    )
    algo = build_config(cfg).build_algo()
    try:
        episodes = algo.env_runner.sample(num_timesteps=32 * 7)
        assert any(e.is_terminated for e in episodes) and any(not e.is_done for e in episodes)
        learner = algo.learner_group._learner
        expected = learner._learner_connector(
            rl_module=learner.module,
            batch={},
            episodes=copy.deepcopy(episodes),
            shared_data={},
            metrics=learner.metrics,
        )["default_policy"]
        got = BatchedLearnerConnector(gamma=0.9, lambda_=0.8)(
            rl_module=learner.module, batch={}, episodes=copy.deepcopy(episodes), shared_data={}
        )["default_policy"]
    finally:
        algo.stop()
    assert sorted(got) == sorted(expected)
    for key in ("observations", "action_mask"):
        torch.testing.assert_close(got["obs"][key], expected["obs"][key], rtol=0, atol=0)
    for key, value in expected.items():
        if key != "obs":
            # Values from one forward pass over all rows (RLlib: the same rows, another
            # batching): float32 rounding apart.
            torch.testing.assert_close(got[key], value, rtol=1e-5, atol=1e-5)


# ----- pieces, without a cluster -----------------------------------------------------------


def test_unmasked_module_would_be_caught() -> None:
    """The illegal-action count is not vacuous: a runner whose module ignores the mask
    samples masked-out actions and says so."""
    cfg = _small("batched", Path("unused"), num_env_runners=0, num_envs_per_env_runner=32)
    runner = BatchedEnvRunner(config=build_config(cfg))
    runner.sample(num_timesteps=256)
    assert runner.get_metrics()["illegal_actions"].peek() == 0
    pi = runner.module.pi
    runner.module._masked_logits = lambda obs: pi(obs["observations"])
    # The opponents' seats stay legal (the batched env refuses their illegal actions).
    runner._opponent.act_batch = lambda obs, masks: np.argmax(masks, axis=1)
    runner.sample(num_timesteps=256)
    assert runner.get_metrics()["illegal_actions"].peek() > 0


def test_batched_episodes_follow_the_tables() -> None:
    cfg = _small("batched", Path("unused"), num_env_runners=0, num_envs_per_env_runner=16)
    runner = BatchedEnvRunner(config=build_config(cfg))
    first = runner.sample(num_timesteps=16 * 6)
    second = runner.sample(num_timesteps=16 * 6)
    assert sum(len(e) for e in first) == sum(len(e) for e in second) == 96
    done = [e for e in first if e.is_done]
    assert done and all(e.is_terminated for e in done)
    for e in done:
        # A hand's rewards come at its end (HoldemEnv): none before the last step.
        r = np.asarray(e.get_rewards())
        assert np.all(r[:-1] == 0)
        obs = e.get_observations()
        # Observations: one more than actions; the mask of the final one is empty.
        assert len(obs["observations"]) == len(e) + 1
        assert obs["action_mask"][-1].sum() == 0
        assert np.all(obs["action_mask"][:-1].sum(axis=1) >= 1)
    # A hand cut at the end of a rollout goes on under the same id in the next one.
    cut = {e.id_: e for e in first if not e.is_done}
    assert cut
    cont = [e for e in second if e.id_ in cut]
    assert len(cont) == len(cut)
    for e in cont:
        prev = cut[e.id_]
        assert e.t_started == prev.t_started + len(prev)
        np.testing.assert_array_equal(
            e.get_observations(0)["observations"], prev.get_observations(-1)["observations"]
        )


@pytest.mark.parametrize(
    ("game", "options"),
    [("draw", {}), ("draw-match", {}), ("red-dog", {"num_players": 4}), ("holdem", {})],
)
def test_batched_runner_every_game(game: str, options: dict[str, Any]) -> None:
    cfg = _small(
        "batched",
        Path("unused"),
        game=game,
        options=options,
        num_env_runners=0,
        num_envs_per_env_runner=16,
    )
    runner = BatchedEnvRunner(config=build_config(cfg))
    episodes = runner.sample(num_timesteps=16 * 8)
    assert sum(len(e) for e in episodes) == 128
    metrics = runner.get_metrics()
    assert metrics["illegal_actions"].peek() == 0
    assert metrics["checked_actions"].peek() == 128
    size = get_game(game).make_env(options).observation_space.shape[0]
    assert all(e.get_observations()["observations"].shape[1] == size for e in episodes)


def test_sampling_follows_the_masked_softmax() -> None:
    rng = np.random.default_rng(0)
    logits = np.array([[0.0, 1.0, -3.4e38, 2.0]] * 40_000, np.float32)
    acts, logp = sample_masked(logits, rng)
    assert not np.any(acts == 2)
    p = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    freq = np.bincount(acts, minlength=4)[[0, 1, 3]] / len(acts)
    np.testing.assert_allclose(freq, p, atol=0.01)
    np.testing.assert_allclose(np.exp(logp[:3]), p[[0, 1, 2]][np.searchsorted([0, 1, 3], acts[:3])])
    again, _ = sample_masked(logits, np.random.default_rng(0))
    np.testing.assert_array_equal(acts, again)


@pytest.mark.parametrize(
    ("game", "options"),
    [("draw", {}), ("draw-match", {}), ("red-dog", {"num_players": 3}), ("holdem", SIX)],
)
def test_multi_agent_env_every_game(game: str, options: dict[str, Any]) -> None:
    env = PokerMultiAgentEnv({"game": game, "options": options})
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=1)
    space = env.observation_spaces[env.possible_agents[0]]
    finished = 0
    for _ in range(400):
        (agent,) = obs
        assert space.contains(obs[agent])
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, rew, term, _, _ = env.step({agent: int(rng.choice(legal))})
        if term["__all__"]:
            finished += 1
            if game == "holdem":
                # Chips change hands: the seats' results sum to zero (RULES.md §3).
                assert abs(sum(rew.values())) < 1e-9
            obs, _ = env.reset()
    assert finished >= 1
    assert env.num_illegal == 0
    # The observation is the single env's (what the export's manifest names).
    single = get_game(game).make_env(options).observation_space
    assert space["observations"].shape == single.shape
    np.testing.assert_array_equal(space["observations"].high, single.high)


def test_illegal_action_is_counted() -> None:
    env = PokerMultiAgentEnv({"game": "holdem", "options": SIX})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    masked_out = np.flatnonzero(obs[agent]["action_mask"] == 0)
    assert masked_out.size
    env.step({agent: int(masked_out[0])})
    assert env.num_illegal == 1


def test_export_refuses_another_layout(batched_run: Any, tmp_path: Path) -> None:
    from poker_env_agents.training.export import ExportError

    module = learner_module(batched_run.checkpoint, "batched")
    with pytest.raises(ExportError, match="not the same layout"):
        export_module(module, tmp_path / "p.npz", "holdem", {"num_players": 2})
    assert not (tmp_path / "p.npz").exists()


# ----- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"game": "poker"}, "game"),
        ({"options": {"num_players": 11}}, "num_players"),
        ({"options": {"num_players": 1}}, "num_players"),
        ({"options": {"seats": 6}}, "seats"),
        ({"sampler": "fast"}, "sampler"),
        ({"num_env_runners": -1}, "num_env_runners"),
        ({"iterations": 0}, "iterations"),
        ({"minibatch_size": 4096, "train_batch_size": 512}, "minibatch_size"),
        ({"hidden": []}, "hidden"),
        ({"num_learners": -1}, "num_learners"),
        ({"num_gpus_per_learner": -0.5}, "num_gpus_per_learner"),
    ],
)
def test_bad_config_is_refused(kw: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        RLlibConfig(**kw).validate()


def test_unknown_game_in_make_aec_env() -> None:
    with pytest.raises(ConfigError, match="poker"):
        make_aec_env("poker")


def test_script_refuses_a_bad_signing_key(capsys: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "cfg"))
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "checkpoint.key").write_text("not a key\n")
    assert cli.main(["holdem", "--out", str(tmp_path / "run")]) == 2
    assert "checkpoint signing key: " in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["poker"], "invalid choice"),
        (["holdem", "--players", "11"], "num_players"),
        (["draw", "--players", "4"], "heads-up"),
        (["holdem", "--iterations", "0"], "an integer >= 1"),
        (["holdem", "--num-env-runners", "x"], "an integer >= 0"),
        (["holdem", "--resume", "/nonexistent"], "not an RLlib checkpoint"),
    ],
)
def test_script_bad_input(argv: list[str], message: str, capsys: Any, tmp_path: Path) -> None:
    try:
        rc = cli.main([*argv, "--out", str(tmp_path / "run")])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
