"""RLlib sampling and training speed: stock sampling against the batched EnvRunner.

Run: ``.venv/bin/python bench/bench_rllib.py``. Needs the
``rllib`` extra. Hold'em 6-max self-play, the module a 128x128 tanh MLP, one torch
thread everywhere.

1. **One runner, one thread, in this process** (alternating rounds, best round of
   each): RLlib's stock ``MultiAgentEnvRunner`` over the AEC env (every seat's
   decision a sample) with 1 and 8 envs, :class:`poker_env_agents.training.rllib_batched.BatchedEnvRunner`
   over 256 tables of ``HoldemVectorEnv`` (the learner seat's decisions are the
   samples; the other five seats are played by the same module in batch, counted
   apart), and the bare AEC env under random legal play for scale.
2. **PPO on a local Ray cluster** (``num_cpus=2``), 1 and 2 remote env runners, each
   sampler: env steps per second of wall time over the timed iterations (sampling
   and learning, the learner in the driver) and each runner's sampling rate.
3. **The SB3 path** in the same run: MaskablePPO over ``poker_env_agents.training.sb3.PokerVecEnv``
   (64 tables), steps per second of ``learn``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

os.environ.setdefault("RAY_AUTH_MODE", "disabled")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np
import torch

from bench.common import Row, machine_line, print_table

OPTIONS = {"num_players": 6}
ROUND_S = 4.0


def _runner(sampler: str, num_envs: int) -> Any:
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from poker_env_agents.training.rllib import BatchedEnvRunner, RLlibConfig, build_config

    cfg = RLlibConfig(
        game="holdem",
        options=dict(OPTIONS),
        sampler=sampler,
        num_env_runners=0,
        num_envs_per_env_runner=num_envs,
        train_batch_size=4096,
        minibatch_size=256,
    )
    cls = BatchedEnvRunner if sampler == "batched" else MultiAgentEnvRunner
    return cls(config=build_config(cfg))


def _aec_rate(seconds: float) -> float:
    from poker_env.multiagent.holdem import HoldemAECEnv

    env = HoldemAECEnv(**OPTIONS)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        n += 1
    return n / (time.perf_counter() - t0)


def runner_rates(rounds: int = 3) -> list[Row]:
    """Section 1: one runner in this process, alternating rounds, best of each."""
    torch.set_num_threads(1)
    kinds = {"stock, 1 env": ("stock", 1), "stock, 8 envs": ("stock", 8)}
    kinds["batched, 256 tables"] = ("batched", 256)
    runners = {k: _runner(*v) for k, v in kinds.items()}
    best = dict.fromkeys(runners, 0.0)
    opp = dict.fromkeys(runners, 0.0)
    aec = 0.0
    for r in runners.values():
        r.sample(num_timesteps=512)  # warm-up: compiles, first resets
        r.get_metrics()
    for _ in range(rounds):
        aec = max(aec, _aec_rate(ROUND_S / 2))
        for name, r in runners.items():
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < ROUND_S:
                n += sum(len(e) for e in r.sample(num_timesteps=2048))
            dt = time.perf_counter() - t0
            m = r.get_metrics()
            if n / dt > best[name]:
                best[name] = n / dt
                d = m.get("num_opponent_decisions")
                opp[name] = float(d.peek()) / dt if d is not None else 0.0
    rows = [Row("HoldemAECEnv alone, random legal actions (every seat)", aec, "steps/s")]
    stock = best["stock, 8 envs"]
    for name, v in best.items():
        note = "every seat's decision a sample"
        if name.startswith("batched"):
            note = (
                f"learner-seat samples; + {opp[name]:,.0f} opponent decisions/s in batch; "
                f"{v / stock:.0f}x stock (8 envs)"
            )
        rows.append(Row(f"one runner, {name}", v, "steps/s", note))
    return rows


def cluster_rates(iterations: int = 2) -> list[Row]:
    """Section 2: PPO on a local Ray cluster, 1 and 2 remote env runners."""
    import ray

    from poker_env_agents.training.rllib import RLlibConfig, build_config

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    rows: list[Row] = []
    try:
        for sampler, per_runner in (("stock", 8), ("batched", 256)):
            for runners in (1, 2):
                cfg = RLlibConfig(
                    game="holdem",
                    options=dict(OPTIONS),
                    sampler=sampler,
                    num_env_runners=runners,
                    num_envs_per_env_runner=per_runner,
                    train_batch_size=4096,
                    minibatch_size=1024,
                    num_epochs=4,
                )
                algo = build_config(cfg).build_algo()
                try:
                    algo.train()  # warm-up
                    steps, sample_s, t0 = 0.0, 0.0, time.perf_counter()
                    for _ in range(iterations):
                        er = algo.train()["env_runners"]
                        steps += float(er["num_env_steps_sampled"])
                        sample_s += float(er["sample"])
                    wall = time.perf_counter() - t0
                finally:
                    algo.stop()
                per = steps / runners / sample_s
                rows.append(
                    Row(
                        f"PPO, {sampler} sampling, {runners} runner(s) x {per_runner} envs",
                        steps / wall,
                        "steps/s",
                        f"wall, sampling + learning; each runner samples {per:,.0f} steps/s",
                    )
                )
    finally:
        ray.shutdown()
    return rows


def sb3_rate() -> list[Row]:
    """Section 3: the SB3 path (MaskablePPO over PokerVecEnv) in the same run."""
    from bench.bench_training import training_rates
    from poker_env_agents.training.sb3 import fast_torch_settings

    fast_torch_settings(1)
    real, _ = training_rates("holdem", dict(OPTIONS), rounds=2)
    return [Row("SB3 MaskablePPO over PokerVecEnv, 64 tables", real, "steps/s", "learn()")]


def main() -> None:
    rows = runner_rates()
    print_table(f"RLlib sampling, Hold'em 6-max, one runner, 1 thread ({machine_line()})", rows)
    rows = cluster_rates()
    print_table("RLlib PPO on a local Ray cluster (num_cpus=2), Hold'em 6-max", rows)
    print_table("The SB3 path, Hold'em 6-max, 1 torch thread", sb3_rate())


if __name__ == "__main__":
    main()
