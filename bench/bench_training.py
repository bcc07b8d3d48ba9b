"""Training speed: MaskablePPO over the batched envs against a no-op ``VecEnv``.

Run: ``.venv/bin/python bench/run.py training``.

For each game, MaskablePPO with the project's training defaults (64 tables,
``n_steps=128``, ``batch_size=2048``, ``n_epochs=4``, one torch thread, distribution
validation off) learns on

- the real thing: :class:`poker_env_agents.training.sb3.PokerVecEnv` over the game's vector env;
- a no-op ``VecEnv`` with the same spaces whose episodes end with the same mean
  length and whose masks have the same mean number of legal actions, measured
  from the real env first (SB3's cost per finished episode and per mask pattern is
  part of what a step costs, so like is compared with like).

The two are timed in alternating rounds in the same process (the machine's speed
swings); the figure is the best round of each, and the ratio real / no-op is the
one to read: the adapter and the env cost what the learner does not.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray
from stable_baselines3.common.vec_env import VecEnv

from bench.common import Row, machine_line, print_table
from poker_env_agents.registry import get_game
from poker_env_agents.training.sb3 import PokerVecEnv, fast_torch_settings

NUM_TABLES = 64
HYPER = {"n_steps": 128, "batch_size": 2048, "n_epochs": 4}
GAMES: list[tuple[str, dict[str, Any]]] = [
    ("draw", {}),
    ("draw-match", {}),
    ("red-dog", {}),
    ("holdem", {"num_players": 2}),
    ("holdem", {"num_players": 6}),
]


class NoopVecEnv(VecEnv):
    """Zero observations; episodes end with probability 1/mean_length each step;
    each step's masks have ``legal`` actions on, drawn once per table per step
    from a fixed cycle of patterns."""

    def __init__(self, real: PokerVecEnv, mean_length: float, legal: float, seed: int = 0) -> None:
        self.render_mode = None
        super().__init__(real.num_envs, real.observation_space, real.action_space)
        n, a = real.num_envs, int(real.action_space.n)  # type: ignore[attr-defined]
        rng = np.random.default_rng(seed)
        self._obs = np.zeros((n, *real.observation_space.shape), np.float32)  # type: ignore[misc]
        # 64 mask patterns with round(legal) legal actions (at least one).
        k = max(1, round(legal))
        pats = np.zeros((64, a), np.int8)
        for j in range(64):
            pats[j, rng.choice(a, k, replace=False)] = 1
        self._pats = pats
        self._p_end = 1.0 / max(mean_length, 1.0)
        self._rng = rng
        self._masks = pats[rng.integers(0, 64, n)]
        self._ret = np.zeros(n)
        self._len = np.zeros(n, np.int64)

    def reset(self) -> NDArray[np.float32]:
        return self._obs.copy()

    def step_async(self, actions: NDArray[Any]) -> None:
        self._a = actions

    def step_wait(self) -> Any:
        n = self.num_envs
        dones = self._rng.random(n) < self._p_end
        rewards = np.where(dones, self._rng.standard_normal(n), 0.0).astype(np.float32)
        self._masks = self._pats[self._rng.integers(0, 64, n)]
        self._len += 1
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for i in np.flatnonzero(dones).tolist():
            infos[i] = {
                "terminal_observation": self._obs[i],
                "TimeLimit.truncated": False,
                "episode": {"r": float(rewards[i]), "l": int(self._len[i]), "t": 0.0},
            }
        self._len[dones] = 0
        return self._obs.copy(), rewards, dones, infos

    def action_masks(self) -> NDArray[np.int8]:
        return self._masks.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * self.num_envs

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kw: Any) -> Any:
        if method_name == "action_masks":
            return self._masks.copy()
        return [getattr(self, method_name)(*args, **kw)] * self.num_envs

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs


def env_statistics(venv: PokerVecEnv, steps: int = 2000) -> tuple[float, float]:
    """Mean episode length (agent steps) and mean legal actions per step, random play."""
    rng = np.random.default_rng(0)
    venv.reset()
    ends = 0
    legal = 0.0
    for _ in range(steps):
        m = venv.action_masks()
        legal += m.sum(1).mean()
        u = rng.random(m.shape)
        a = np.argmax(np.where(m == 1, u, -1.0), axis=1)
        venv.step_async(a)
        _, _, dones, _ = venv.step_wait()
        ends += int(dones.sum())
    return steps * venv.num_envs / max(ends, 1), legal / steps


def training_rates(game: str, options: dict[str, Any], rounds: int = 3) -> tuple[float, float]:
    """Best-round steps/s of MaskablePPO on the real env and on the no-op twin."""
    from sb3_contrib import MaskablePPO

    spec = get_game(game)
    real = PokerVecEnv([spec.make_vector(NUM_TABLES, options)], seed=0)
    mean_len, legal = env_statistics(real)
    noop = NoopVecEnv(real, mean_len, legal)
    chunk = NUM_TABLES * HYPER["n_steps"] * 2
    models = [
        MaskablePPO("MlpPolicy", env, seed=0, verbose=0, device="cpu", **HYPER)  # type: ignore[arg-type]
        for env in (real, noop)
    ]
    for m in models:
        m.learn(chunk // 2)  # warm-up: compiles, allocations
    best = [0.0, 0.0]
    for _ in range(rounds):
        for k, m in enumerate(models):
            t0 = time.perf_counter()
            m.learn(chunk, reset_num_timesteps=False)
            best[k] = max(best[k], chunk / (time.perf_counter() - t0))
    real.close()
    return best[0], best[1]


def main() -> None:
    fast_torch_settings(1)
    rows: list[Row] = []
    for game, opts in GAMES:
        label = game + "".join(f" {k}={v}" for k, v in opts.items())
        real, noop = training_rates(game, opts)
        rows.append(Row(f"MaskablePPO on {label} (PokerVecEnv, 64 tables)", real, "steps/s"))
        rows.append(
            Row(
                f"MaskablePPO on a no-op VecEnv like {label}",
                noop,
                "steps/s",
                f"ratio {real / noop:.2f}, target >= 0.9",
            )
        )
    secs, hands = evaluation_rate()
    rows.append(
        Row(
            f"evaluate.head_to_head, draw, two exported 128x128 MLPs ({hands:,} hands)",
            secs,
            "s",
            f"{hands / secs:,.0f} hands/s; target < 120 s for 1 M",
        )
    )
    print_table(f"Training speed, 1 torch thread ({machine_line()})", rows)


if __name__ == "__main__":
    main()


def evaluation_rate(
    hands: int = 1_000_000, path: str = "/tmp/poker_env_bench_policy"
) -> tuple[float, int]:
    """Seconds for ``hands`` duplicate five-card draw hands between two exported MLP
    policies (128x128 tanh, as trained by default; untrained weights play as fast)."""
    import os

    from sb3_contrib import MaskablePPO

    from poker_env_agents.evaluate import head_to_head
    from poker_env_agents.runtime import load_policy
    from poker_env_agents.training.export import export_policy

    spec = get_game("draw")
    venv = PokerVecEnv([spec.make_vector(8)], seed=0)
    files = []
    for k in range(2):
        model = MaskablePPO(
            "MlpPolicy", venv, seed=k, device="cpu", policy_kwargs={"net_arch": [128, 128]}
        )
        os.makedirs(path, exist_ok=True)
        files.append(export_policy(model, f"{path}/p{k}.npz", spec.make_env()).npz)
    a, b = (load_policy(f, seed=k) for k, f in enumerate(files))
    head_to_head(a, b, game="draw", hands=20_000, num_tables=4096, episodes_per_table=1)  # warm-up
    t0 = time.perf_counter()
    r = head_to_head(a, b, game="draw", hands=hands, num_tables=4096, episodes_per_table=16)
    return time.perf_counter() - t0, r.hands


def sweep(game: str = "draw", rounds: int = 3) -> list[Row]:
    """MaskablePPO steps/s for a few table counts, batch sizes and torch thread counts,
    measured in alternating rounds in one process (``bench/run.py`` does not run it:
    ``python -c 'from bench.bench_training import sweep; sweep()'``)."""
    import torch
    from sb3_contrib import MaskablePPO

    fast_torch_settings(1)
    spec = get_game(game)
    settings = [
        (32, 1024, 1),
        (64, 2048, 1),
        (128, 4096, 1),
        (64, 1024, 1),
        (64, 4096, 1),
        (64, 2048, 2),
    ]
    models = []
    for tables, batch, _threads in settings:
        venv = PokerVecEnv([spec.make_vector(tables)], seed=0)
        m = MaskablePPO(
            "MlpPolicy", venv, n_steps=128, batch_size=batch, n_epochs=4, seed=0, device="cpu"
        )
        m.learn(tables * 128)
        models.append(m)
    best = [0.0] * len(settings)
    for _ in range(rounds):
        for k, ((tables, _b, threads), m) in enumerate(zip(settings, models, strict=True)):
            torch.set_num_threads(threads)
            chunk = tables * 128 * max(1, 128 // tables)
            t0 = time.perf_counter()
            m.learn(chunk, reset_num_timesteps=False)
            best[k] = max(best[k], chunk / (time.perf_counter() - t0))
    torch.set_num_threads(1)
    rows = [
        Row(f"{game}: {t} tables, batch_size={b}, torch threads={th}", r, "steps/s")
        for (t, b, th), r in zip(settings, best, strict=True)
    ]
    print_table(f"MaskablePPO settings sweep ({machine_line()})", rows)
    return rows
