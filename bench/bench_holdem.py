"""Hold'em speed: agent steps per second with random legal actions, opponents and resets included.

Run: ``.venv/bin/python bench/bench_holdem.py`` (or ``make bench`` for every game and the peers).
"""

from __future__ import annotations

import numpy as np

from bench.common import Row, machine_line, print_table, rate
from poker_env.envs.holdem import HoldemEnv
from poker_env.games.holdem import HoldemConfig, HoldemGame
from poker_env.policy import RandomPolicy
from poker_env.vector.holdem import HoldemVectorEnv

STEPS_SINGLE = 20_000
STEPS_VECTOR = 50
NUM_ENVS = 4096


def single_env_rate(num_players: int) -> float:
    """Steps/s of one HoldemEnv, the agent picking uniformly among legal actions."""
    env = HoldemEnv(num_players)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"mask": info["action_mask"]}

    def run() -> int:
        mask = state["mask"]
        u = rng.random(STEPS_SINGLE)
        for k in range(STEPS_SINGLE):
            legal = mask.nonzero()[0]
            _, _, term, _, info = env.step(legal[int(u[k] * legal.size)])
            if term:
                _, info = env.reset()
            mask = info["action_mask"]
        state["mask"] = mask
        return STEPS_SINGLE

    return rate(run, min_seconds=2.0)


def vector_rate(num_players: int, num_threads: int) -> float:
    """Agent steps/s (summed over tables) of HoldemVectorEnv with N = 4096."""
    env = HoldemVectorEnv(NUM_ENVS, num_players, num_threads=num_threads)
    _, info = env.reset(seed=0)
    policy = RandomPolicy(0)
    state = {"mask": info["action_mask"]}

    def run() -> int:
        mask = state["mask"]
        for _ in range(STEPS_VECTOR):
            _, _, _, _, info = env.step(policy.act_batch(None, mask))
            mask = info["action_mask"]
        state["mask"] = mask
        return STEPS_VECTOR * NUM_ENVS

    return rate(run, min_seconds=2.0)


def engine_rate() -> float:
    """Actions/s of the readable HoldemGame API (records included), 6 seats."""
    game = HoldemGame(HoldemConfig(num_seats=6), rng=0)

    def run() -> int:
        n = 0
        for _ in range(200):
            game.start_hand()
            while not game.is_hand_over:
                if game.can_fold():
                    game.fold()
                else:
                    game.check_or_call()
                n += 1
        return n

    return rate(run, min_seconds=1.0)


def main() -> None:
    rows = [
        Row(
            "poker_env Holdem-v0 heads-up (single env)",
            single_env_rate(2),
            "steps/s",
            "target >= 80,000",
        ),
        Row(
            "poker_env Holdem-v0 6-max (single env)",
            single_env_rate(6),
            "steps/s",
            "target >= 80,000",
        ),
        Row(f"HoldemVectorEnv heads-up N={NUM_ENVS}", vector_rate(2, 1), "steps/s", "1 thread"),
        Row(
            f"HoldemVectorEnv heads-up N={NUM_ENVS}",
            vector_rate(2, 2),
            "steps/s",
            "2 threads, target >= 2 M",
        ),
        Row(f"HoldemVectorEnv 6-max N={NUM_ENVS}", vector_rate(6, 1), "steps/s", "1 thread"),
        Row(
            f"HoldemVectorEnv 6-max N={NUM_ENVS}",
            vector_rate(6, 2),
            "steps/s",
            "2 threads, target >= 2 M",
        ),
        Row(
            "HoldemGame object API, 6 seats (fold/check)",
            engine_rate(),
            "actions/s",
            "records included",
        ),
    ]
    print_table(f"Texas Hold'em ({machine_line()})", rows)


if __name__ == "__main__":
    main()
