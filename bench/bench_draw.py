"""Five-card draw speed: agent steps per second with random legal actions.

Opponent moves and resets are included in every figure (the opponent is the
default uniformly random policy, played in compiled code). Run alone with
``python bench/bench_draw.py`` or in ``make bench`` (peers are measured by
``bench/bench_peers.py`` in the same run).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Row, print_table, rate
from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.games.draw import DrawAction, DrawConfig, DrawGame
from poker_env.multiagent.draw import DrawAECEnv
from poker_env.vector.draw import DrawVectorEnv


@njit(cache=True)
def _pick(masks: NDArray[np.int8], u: NDArray[np.float64], out: NDArray[np.int64]) -> None:
    # A uniformly random legal action per row: the agent of the vector benchmark.
    for i in range(masks.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[i, a]
        k = int(u[i] * n)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def _single_env_rate(env: FiveCardDrawEnv | DrawMatchEnv, steps: int = 20_000) -> float:
    u = np.random.default_rng(0).random(steps)
    state = {"info": env.reset(seed=0)[1]}

    def run() -> int:
        info = state["info"]
        for k in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[int(u[k] * legal.size)]))
            if term or trunc:
                _, info = env.reset()
        state["info"] = info
        return steps

    return rate(run, min_seconds=2.0)


def _vector_rate(num_envs: int, threads: int, steps: int = 30, **kwargs: Any) -> float:
    vec = DrawVectorEnv(num_envs, num_threads=threads, copy=False, **kwargs)
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    out = np.zeros(num_envs, np.int64)
    state = {"masks": info["action_mask"]}

    def run() -> int:
        masks = state["masks"]
        for _ in range(steps):
            _pick(masks, rng.random(num_envs), out)
            _, _, _, _, info = vec.step(out)
            masks = info["action_mask"]
        state["masks"] = masks
        return steps * num_envs

    return rate(run, min_seconds=2.0)


def _aec_rate(steps: int = 10_000) -> float:
    env = DrawAECEnv()
    env.reset(seed=0)
    u = np.random.default_rng(0).random(steps)

    def run() -> int:
        for k in range(steps):
            if any(env.terminations.values()):
                env.reset()
            mask = env.observe(env.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[int(u[k] * legal.size)]))
        return steps

    return rate(run, min_seconds=2.0)


def _engine_rate(steps: int = 5_000) -> float:
    rng = np.random.default_rng(0)
    state = {"game": DrawGame(DrawConfig(), seed=0), "seed": 0}

    def run() -> int:
        g = state["game"]
        for _ in range(steps):
            if g.is_over:
                state["seed"] += 1
                g = DrawGame(DrawConfig(), seed=state["seed"])
            legal = g.legal_actions()
            la = legal[int(rng.integers(len(legal)))]
            amount = la.min_amount if la.action != DrawAction.DISCARD else int(rng.integers(32))
            g.act(la.action, amount)
        state["game"] = g
        return steps

    return rate(run, min_seconds=2.0)


def main() -> None:
    """Print the five-card draw table."""
    n = 4096
    rows = [
        Row(
            "FiveCardDraw-v0 single env (class)",
            _single_env_rate(FiveCardDrawEnv()),
            "steps/s",
            "target >= 60,000",
        ),
        Row(
            "DrawMatch-v0 single env (class, agent = computer)",
            _single_env_rate(DrawMatchEnv(agent_seat="computer")),
            "steps/s",
            "",
        ),
        Row(f"DrawVectorEnv N={n}, 1 thread", _vector_rate(n, 1), "steps/s", "copy=False"),
    ]
    rows.append(
        Row(f"DrawVectorEnv N={n}, 2 threads", _vector_rate(n, 2), "steps/s", "target >= 3,000,000")
    )
    rows.append(
        Row(
            f"DrawVectorEnv N={n}, mode='match' (agent = computer), 1 thread",
            _vector_rate(n, 1, mode="match", agent_seat="computer"),
            "steps/s",
            "DrawMatch-v0 tables",
        )
    )
    rows += [
        Row("DrawAECEnv (PettingZoo AEC, both seats)", _aec_rate(), "steps/s", "agent steps"),
        Row(
            "DrawGame object API (legal_actions + act)", _engine_rate(), "actions/s", "with records"
        ),
    ]
    print_table("Five-card draw (random legal actions, opponent moves and resets included)", rows)


if __name__ == "__main__":
    main()
