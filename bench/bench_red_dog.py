"""Red Dog benchmark: env speeds and the reference policy's expected chips per decision.

Run: ``.venv/bin/python -m bench.bench_red_dog`` (or ``make bench``, which runs every
``bench_*`` module). Prints one table with :func:`bench.common.print_table`.

Figures:

- single env ``poker_env/RedDog-v0`` (4 players, default opponents), random legal
  actions, opponents' turns and resets included;
- ``RedDogVectorEnv`` with 4096 tables: the default serial loop, and the threaded
  step (``num_threads``, tables shared out dynamically) at 1 and at 2 threads;
- the reference policy's expected chips per decision: exactly, for the first
  decision of a game (every five-card hand enumerated, pot 4, bets up to 4); and
  in ``RedDog-v0`` play, the mean over the agent's decisions of the exact
  expectation b·(2p − 1) of each decision (so only the positions are sampled).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bench.common import Row, machine_line, print_table, rate
from poker_env.envs.red_dog import RedDogEnv
from poker_env.vector.red_dog import RedDogVectorEnv

NUM_TABLES = 4096


def single_env_rate() -> float:
    env = RedDogEnv(num_players=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    n_actions = int(env.action_space.n)
    done = [False]

    def run() -> int:
        # Every action is legal on the agent's turn, so uniform indices are random legal actions.
        actions = rng.integers(0, n_actions, 20_000).tolist()
        finished = done[0]
        for a in actions:
            if finished:
                env.reset()
            _, _, finished, _, _ = env.step(a)
        done[0] = finished
        return len(actions)

    return rate(run, min_seconds=2.0)


def vector_rate(num_threads: int | None) -> float:
    vec = RedDogVectorEnv(NUM_TABLES, num_players=4, num_threads=num_threads)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 6, (16, NUM_TABLES))

    def run() -> int:
        for a in actions:
            vec.step(a)
        return int(actions.size)

    return rate(run, min_seconds=2.0)


@njit(cache=True)
def _first_decision_value(pot: int, chips: int) -> tuple[float, float]:  # pragma: no cover
    """Exact expected chips of the reference decision for the first bettor of a game,
    and its win probability's mean, over all C(52, 5) hands."""
    largest = min(pot, chips)
    total = 0.0
    total_p = 0.0
    n = 0
    top = np.empty(4, np.int64)
    cnt = np.empty(4, np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        top[:] = -1
                        cnt[:] = 0
                        for x in (a, b, c, d, e):
                            u = x & 3
                            cnt[u] += 1
                            if x > top[u]:
                                top[u] = x
                        # Unseen cards below each suit's top: its rank, less own lower cards.
                        wins = 0
                        for u in range(4):
                            if top[u] >= 0:
                                wins += (top[u] >> 2) - (cnt[u] - 1)
                        p = wins / 47.0
                        bet = largest if p > 0.5 else 1
                        total += bet * (2.0 * p - 1.0)
                        total_p += p
                        n += 1
    return total / n, total_p / n


def reference_in_play(num_steps: int = 200) -> tuple[float, float, int]:
    """Mean exact expectation b·(2p − 1) of the agent's reference decisions in RedDog-v0."""
    vec = RedDogVectorEnv(NUM_TABLES, num_players=4)
    obs, _ = vec.reset(seed=12345)
    p_col, pot_col, own_col = 164, 156, 157
    total_chips = 4 * 50
    values = []
    for _ in range(num_steps):
        p = obs[:, p_col].astype(np.float64)
        largest = np.rint(np.minimum(obs[:, pot_col], obs[:, own_col]) * total_chips)
        bet = np.where(p > 0.5, largest, 1.0)
        values.append(bet * (2 * p - 1))
        obs, _, _, _, _ = vec.step(np.where(p > 0.5, 5, 1))
    v = np.concatenate(values)
    return float(v.mean()), float(v.std() / np.sqrt(v.size)), int(v.size)


def main() -> None:
    rows = [
        Row("RedDog-v0 single env (4 players)", single_env_rate(), "steps/s", "target >= 60,000"),
        Row(
            f"RedDogVectorEnv N={NUM_TABLES}, serial loop", vector_rate(None), "steps/s", "default"
        ),
        Row(f"RedDogVectorEnv N={NUM_TABLES}, num_threads=1", vector_rate(1), "steps/s", ""),
        Row(
            f"RedDogVectorEnv N={NUM_TABLES}, num_threads=2",
            vector_rate(2),
            "steps/s",
            "target >= 3,000,000",
        ),
    ]
    exact, mean_p = _first_decision_value(4, 49)
    rows.append(
        Row(
            "reference E[chips], first decision, pot 4 (exact)",
            exact,
            "chips",
            f"mean p = {mean_p:.6f}",
        )
    )
    mean, se, n = reference_in_play()
    rows.append(
        Row(
            "reference E[chips] per decision in RedDog-v0",
            mean,
            "chips",
            f"± {se:.4f} (1 s.e., {n:,} decisions)",
        )
    )
    print_table(f"Red Dog ({machine_line()})", rows)


if __name__ == "__main__":
    main()
