"""The loop a user writes, against OpenSpiel's heads-up no-limit hold'em stepped the same way.

Ours: ``env = gym.make(id, **options)`` (Gymnasium's default wrappers included),
``env.reset(seed=0)``, each step a uniformly random legal action read from
``info["action_mask"]`` (``legal = mask.nonzero()[0]``, then
``legal[int(rng.random() * legal.size)]``), ``env.reset()`` at the episode's end; the AEC envs through
PettingZoo's usual ``agent_iter()`` loop (``env.last()``, the mask from the
observation dict, ``step(None)`` for a finished agent, ``reset()`` once every agent
is gone). A step is one call of ``step`` with an action (the opponents of the
single envs play inside it).

OpenSpiel: ``universal_poker`` no-limit hold'em, 2 players, blinds 1/2, stacks 200,
the ``fcpa`` action abstraction (:func:`bench.peers.openspiel_game_string`):
``game.new_initial_state()``; chance outcomes sampled (uniform over
``legal_actions()``, which is the deal's distribution); at each decision
``legal_actions()``, ``observation_tensor()``, a random legal action,
``apply_action``. A step is one decision.

Both draw their uniforms from one seeded ``random.Random`` each. Every row times
ours and OpenSpiel in turns in this one process, ``ROUNDS`` rounds of about
``CHUNK_SECONDS`` each, and keeps the best round of each: the ratio ours /
OpenSpiel is the figure to quote (this machine's load moves both alike).

Run: ``make bench SUITES=user-path`` or ``python bench/run.py user-path``.
"""

from __future__ import annotations

import os
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym

import poker_env  # noqa: F401  (registers the Gymnasium ids)
from bench.common import machine_line
from bench.peers import _version, openspiel_game_string

ROUNDS = 9
CHUNK_SECONDS = 0.2
SEED = 0
TARGET = 1.0  # issue 24: every single env (Gymnasium and AEC) at >= 1.0x OpenSpiel

# A runner plays `n` steps (continuing where its previous call stopped) and returns n.
Runner = Callable[[int], int]


@dataclass(frozen=True)
class Case:
    """One row: what it is and how to build its runner."""

    name: str
    make: Callable[[], Runner]


def gym_runner(env_id: str, **options: Any) -> Runner:
    """The Gymnasium loop on ``gym.make(env_id, **options)``."""
    env = gym.make(env_id, **options)
    rng = random.Random(SEED)
    _, info = env.reset(seed=SEED)
    state = {"info": info}

    def run(n: int) -> int:
        info = state["info"]
        for _ in range(n):
            legal = info["action_mask"].nonzero()[0]
            _, _, terminated, truncated, info = env.step(legal[int(rng.random() * legal.size)])
            if terminated or truncated:
                _, info = env.reset()
        state["info"] = info
        return n

    return run


def aec_runner(make_env: Callable[[], Any]) -> Runner:
    """PettingZoo's ``agent_iter()`` loop; counts the steps with an action."""
    env = make_env()
    rng = random.Random(SEED)
    env.reset(seed=SEED)

    def run(n: int) -> int:
        done = 0
        while done < n:
            if not env.agents:
                env.reset()
            for _agent in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = observation["action_mask"].nonzero()[0]
                env.step(int(legal[int(rng.random() * legal.size)]))
                done += 1
                if done == n:
                    break
        return n

    return run


def openspiel_runner() -> Runner | None:
    """OpenSpiel's HUNL (fcpa) loop; None when open_spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(openspiel_game_string(2, "fcpa"))
    rng = random.Random(SEED)
    holder = [game.new_initial_state()]

    def run(n: int) -> int:
        state = holder[0]
        done = 0
        while done < n:
            if state.is_terminal():
                state = game.new_initial_state()
                continue
            legal = state.legal_actions()
            if state.is_chance_node():
                state.apply_action(legal[int(rng.random() * len(legal))])
                continue
            state.observation_tensor()
            state.apply_action(legal[int(rng.random() * len(legal))])
            done += 1
        holder[0] = state
        return n

    return run


def _aec(module: str, **options: Any) -> Callable[[], Any]:
    def make() -> Any:
        import importlib

        return importlib.import_module(f"poker_env.multiagent.{module}").env(**options)

    return make


CASES = [
    Case("FiveCardDraw-v0", lambda: gym_runner("poker_env/FiveCardDraw-v0")),
    Case("DrawMatch-v0", lambda: gym_runner("poker_env/DrawMatch-v0")),
    Case("RedDog-v0 (4 players)", lambda: gym_runner("poker_env/RedDog-v0")),
    Case("RedDog-v0 6 players", lambda: gym_runner("poker_env/RedDog-v0", num_players=6)),
    Case("Holdem-v0 heads-up", lambda: gym_runner("poker_env/Holdem-v0")),
    Case("Holdem-v0 6 players", lambda: gym_runner("poker_env/Holdem-v0", num_players=6)),
    Case("DrawAECEnv (agent_iter)", lambda: aec_runner(_aec("draw"))),
    Case("RedDogAECEnv 4 players (agent_iter)", lambda: aec_runner(_aec("red_dog"))),
    Case("HoldemAECEnv heads-up (agent_iter)", lambda: aec_runner(_aec("holdem"))),
    Case("HoldemAECEnv 6 players (agent_iter)", lambda: aec_runner(_aec("holdem", num_players=6))),
]


def _steps_for(run: Runner, seconds: float) -> int:
    """How many steps of ``run`` take about ``seconds`` (a short calibration call).

    A first, untimed call compiles or loads the kernels: on a fresh machine that takes
    seconds, and timing it would leave rounds of a few steps (their figures mostly the
    per-round overhead: 0.2x instead of 1.3x on a first run).
    """
    run(200)
    n = 200
    while True:
        t0 = time.perf_counter()
        run(n)
        dt = time.perf_counter() - t0
        if dt >= 0.02 or n >= 1 << 22:
            return max(1, int(n * seconds / max(dt, 1e-9)))
        n *= 4


@dataclass(frozen=True)
class Result:
    """Best steps/s of ours and OpenSpiel's over the rounds (NaN: not measured).

    ``*_cpu``: steps per second of this thread's CPU time (``time.thread_time``),
    which other processes on a busy machine move much less than the wall clock.
    """

    name: str
    ours: float
    openspiel: float
    ours_cpu: float
    openspiel_cpu: float

    @property
    def ratio(self) -> float:
        return self.ours / self.openspiel

    @property
    def ratio_cpu(self) -> float:
        return self.ours_cpu / self.openspiel_cpu


def _timed(run: Runner, n: int) -> tuple[float, float]:
    """Steps per wall second and per CPU second of one call ``run(n)``."""
    c0, t0 = time.thread_time(), time.perf_counter()
    run(n)
    t1, c1 = time.perf_counter(), time.thread_time()
    return n / (t1 - t0), n / max(c1 - c0, 1e-9)


def measure(
    case: Case, yardstick: Runner | None, rounds: int = ROUNDS, seconds: float = CHUNK_SECONDS
) -> Result:
    """Ours and the yardstick in turns, ``rounds`` chunks of about ``seconds`` each."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's env checker on the first reset/step
        ours = case.make()
        n_ours = _steps_for(ours, seconds)
    n_os = _steps_for(yardstick, seconds) if yardstick is not None else 0
    best = [0.0, 0.0, 0.0, 0.0]  # ours wall, ours cpu, OpenSpiel wall, OpenSpiel cpu
    for _ in range(rounds):
        wall, cpu = _timed(ours, n_ours)
        best[0], best[1] = max(best[0], wall), max(best[1], cpu)
        if yardstick is not None:
            wall, cpu = _timed(yardstick, n_os)
            best[2], best[3] = max(best[2], wall), max(best[3], cpu)
    if yardstick is None:
        best[2] = best[3] = float("nan")
    return Result(case.name, best[0], best[2], best[1], best[3])


def _k(value: float) -> str:
    return "n/a" if value != value else f"{value / 1e3:,.1f} k"


def _x(value: float) -> str:
    return "n/a" if value != value else f"{value:.2f}x"


def format_table(results: list[Result]) -> str:
    """The rows as a markdown table (the README quotes it)."""
    w = max([len(r.name) for r in results] + [len("env")])
    lines = [
        f"| {'env':<{w}} | ours steps/s | OpenSpiel HUNL | ours / OpenSpiel | (CPU time) |",
        f"|{'-' * (w + 2)}|-------------:|---------------:|-----------------:|-----------:|",
    ]
    for r in results:
        lines.append(
            f"| {r.name:<{w}} | {_k(r.ours):>12} | {_k(r.openspiel):>14} "
            f"| {_x(r.ratio):>16} | {_x(r.ratio_cpu):>10} |"
        )
    return "\n".join(lines)


def main(
    rounds: int = ROUNDS, seconds: float = CHUNK_SECONDS, cases: list[Case] | None = None
) -> list[Result]:
    """Print the user-path table; return its rows."""
    yardstick = openspiel_runner()
    load0 = os.getloadavg()
    results = [measure(c, yardstick, rounds, seconds) for c in (cases or CASES)]
    load = os.getloadavg()
    print(
        f"\n### User path: gym.make / agent_iter loops against OpenSpiel "
        f"{_version('open_spiel')} universal_poker HUNL fcpa, best of {rounds} interleaved "
        f"rounds ({machine_line()}; load average {load0[0]:.2f} before, {load[0]:.2f} after)\n"
    )
    print(format_table(results))
    if yardstick is None:
        print("\nopen_spiel is not installed: no ratios (pip install open_spiel==2.0.2)")
    else:
        # The target is on every row: the Gymnasium envs and the AEC envs alike.
        for label, rows in (
            ("Gymnasium envs", [r for r in results if "agent_iter" not in r.name]),
            ("AEC envs", [r for r in results if "agent_iter" in r.name]),
        ):
            if not rows:
                continue
            worst = min(rows, key=lambda r: r.ratio)
            worst_cpu = min(rows, key=lambda r: r.ratio_cpu)
            verdict = "met" if worst.ratio >= TARGET else "missed"
            print(
                f"\n{label}: lowest ratio {worst.ratio:.2f}x ({worst.name}), by CPU time "
                f"{worst_cpu.ratio_cpu:.2f}x ({worst_cpu.name}); target >= {TARGET:.1f}x {verdict}"
            )
    print(flush=True)
    return results


if __name__ == "__main__":
    # python bench/bench_user_path.py [WORD ...]: only the rows whose name contains a WORD
    words = sys.argv[1:]
    main(cases=[c for c in CASES if not words or any(w in c.name for w in words)])
