"""Interleaved A/B of this checkout against another one (an older commit's worktree).

Usage::

    git worktree add /tmp/old665 665eb91
    python bench/ab.py /tmp/old665 [--rounds 7] [--seconds 0.5] [NAME ...]

Two child processes, one per checkout (``PYTHONPATH`` names its ``poker_env``),
each run the same measurement code from this file; the parent asks them in
turns, A B A B ..., for one chunk of about ``--seconds`` each, and prints each
side's best and median and the ratio of the bests; also
each side's best rate per CPU second of its process (``time.process_time``, all
its threads), which other processes on a busy machine move much less than the
wall clock (for the 2-thread vector env the wall figure is the one that counts). A busy
moment of the shared machine therefore hits both sides alike. The last column is
the median over the rounds of each round's new / old CPU ratio: the two chunks of
a round ran seconds apart, so it is the figure least moved by the machine's speed
swings, which last minutes. The loops are the
ones of ``bench/bench_draw.py`` and ``bench/bench_holdem.py`` (the class APIs,
random legal actions), written here once so that both checkouts run the same
driver code; only the library differs.

Measurements (NAME): ``DrawMatch-v0``, ``FiveCardDraw-v0``, ``DrawAECEnv``,
``HoldemGame-6``, ``HoldemVectorEnv-6max-2threads``, ``RedDog-v0``, ``Holdem-v0-2``,
``Holdem-v0-6``, ``DrawVectorEnv``, ``DrawVectorEnv-2threads``, ``RedDogVectorEnv``,
``RedDogVectorEnv-2threads``, ``HoldemVectorEnv-2`` (vector envs of 4096 tables, one thread unless named); default:
all of them. Also, on request, the AEC envs through PettingZoo's ``agent_iter()`` loop
(the user-path suite's): ``HoldemAECEnv-2``, ``HoldemAECEnv-6``, ``RedDogAECEnv-4``,
``DrawAECEnv-iter``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

NAMES = [
    "DrawMatch-v0",
    "FiveCardDraw-v0",
    "DrawAECEnv",
    "HoldemGame-6",
    "HoldemVectorEnv-6max-2threads",
    "RedDog-v0",
    "Holdem-v0-2",
    "Holdem-v0-6",
    "DrawVectorEnv",
    "DrawVectorEnv-2threads",
    "RedDogVectorEnv",
    "RedDogVectorEnv-2threads",
    "HoldemVectorEnv-2",
]

AEC_NAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "HoldemAECEnv-2": ("holdem", {}),
    "HoldemAECEnv-6": ("holdem", {"num_players": 6}),
    "RedDogAECEnv-4": ("red_dog", {}),
    "DrawAECEnv-iter": ("draw", {}),
}


# ----------------------------------------------------------------- child side
def _single_draw(env: Any) -> Callable[[int], int]:
    import numpy as np

    u = np.random.default_rng(0).random(1 << 16)
    state = {"info": env.reset(seed=0)[1], "k": 0}

    def run(steps: int) -> int:
        info, k = state["info"], state["k"]
        for _ in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[int(u[k & 0xFFFF] * legal.size)]))
            k += 1
            if term or trunc:
                _, info = env.reset()
        state["info"], state["k"] = info, k
        return steps

    return run


def _aec_draw() -> Callable[[int], int]:
    import numpy as np

    from poker_env.multiagent.draw import DrawAECEnv

    env = DrawAECEnv()
    env.reset(seed=0)
    u = np.random.default_rng(0).random(1 << 16)
    state = {"k": 0}

    def run(steps: int) -> int:
        k = state["k"]
        for _ in range(steps):
            if any(env.terminations.values()):
                env.reset()
            mask = env.observe(env.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[int(u[k & 0xFFFF] * legal.size)]))
            k += 1
        state["k"] = k
        return steps

    return run


def _agent_iter(module: str, **options: Any) -> Callable[[int], int]:
    """PettingZoo's ``agent_iter()`` loop (bench/bench_user_path.py's); counts actions."""
    import importlib
    import random

    env = importlib.import_module(f"poker_env.multiagent.{module}").env(**options)
    rng = random.Random(0)
    env.reset(seed=0)

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


def _holdem_game() -> Callable[[int], int]:
    from poker_env.games.holdem import HoldemConfig, HoldemGame

    game = HoldemGame(HoldemConfig(num_seats=6), rng=0)

    def run(actions: int) -> int:
        n = 0
        while n < actions:
            game.start_hand()
            while not game.is_hand_over:
                if game.can_fold():
                    game.fold()
                else:
                    game.check_or_call()
                n += 1
        return n

    return run


def _holdem_vector(num_players: int, threads: int) -> Callable[[int], int]:
    from poker_env.vector.holdem import HoldemVectorEnv

    return _vector(HoldemVectorEnv(4096, num_players, num_threads=threads))


def _vector(env: Any) -> Callable[[int], int]:
    from poker_env.policy import RandomPolicy

    num_envs = env.num_envs
    _, info = env.reset(seed=0)
    policy = RandomPolicy(0)
    state = {"mask": info["action_mask"]}

    def run(steps: int) -> int:
        calls = max(1, steps // num_envs)
        mask = state["mask"]
        for _ in range(calls):
            _, _, _, _, info = env.step(policy.act_batch(None, mask))
            mask = info["action_mask"]
        state["mask"] = mask
        return calls * num_envs

    return run


def make_runner(name: str) -> Callable[[int], int]:
    """The measurement ``name``: a callable doing about ``n`` steps, returning how many."""
    if name == "DrawMatch-v0":
        from poker_env.envs.draw import DrawMatchEnv

        return _single_draw(DrawMatchEnv(agent_seat="computer"))
    if name == "FiveCardDraw-v0":
        from poker_env.envs.draw import FiveCardDrawEnv

        return _single_draw(FiveCardDrawEnv())
    if name == "DrawAECEnv":
        return _aec_draw()
    if name == "HoldemGame-6":
        return _holdem_game()
    if name == "HoldemVectorEnv-6max-2threads":
        return _holdem_vector(6, 2)
    if name == "RedDog-v0":
        from poker_env.envs.red_dog import RedDogEnv

        return _single_draw(RedDogEnv())
    if name.startswith("Holdem-v0-"):
        from poker_env.envs.holdem import HoldemEnv

        return _single_draw(HoldemEnv(int(name.rsplit("-", 1)[1])))
    if name.startswith("DrawVectorEnv"):
        from poker_env.vector.draw import DrawVectorEnv

        threads = 2 if name.endswith("2threads") else 1
        return _vector(DrawVectorEnv(4096, num_threads=threads))
    if name.startswith("RedDogVectorEnv"):
        from poker_env.vector.red_dog import RedDogVectorEnv

        threads = 2 if name.endswith("2threads") else None
        return _vector(RedDogVectorEnv(4096, num_threads=threads))
    if name == "HoldemVectorEnv-2":
        return _holdem_vector(2, 1)
    if name in AEC_NAMES:
        module, options = AEC_NAMES[name]
        return _agent_iter(module, **options)
    raise ValueError(f"unknown measurement {name!r}; allowed: {NAMES + list(AEC_NAMES)}")


def child() -> None:
    """Serve measurements: read ``{"name", "seconds"}`` lines, answer steps/s."""
    runners: dict[str, tuple[Callable[[int], int], int]] = {}
    for line in sys.stdin:
        req = json.loads(line)
        name, seconds = req["name"], float(req["seconds"])
        if name not in runners:
            run = make_runner(name)
            n = 64
            run(n)  # compile or load the kernels first: the sizing below is then not thrown
            while True:  # warm up (compile or load the kernels) and size a chunk
                t0 = time.perf_counter()
                done = run(n)
                dt = time.perf_counter() - t0
                if dt > 0.05:
                    break
                n *= 4
            runners[name] = (run, max(1, int(done * seconds / dt)))
        run, n = runners[name]
        c0, t0 = time.process_time(), time.perf_counter()
        done = run(n)
        t1, c1 = time.perf_counter(), time.process_time()
        print(json.dumps({"rate": done / (t1 - t0), "cpu": done / max(c1 - c0, 1e-9)}), flush=True)


# ---------------------------------------------------------------- parent side
class Side:
    """A child process serving measurements from one checkout."""

    def __init__(self, checkout: str) -> None:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
        env.setdefault("NUMBA_NUM_THREADS", "2")
        self.checkout = checkout
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd="/",
        )

    def measure(self, name: str, seconds: float) -> tuple[float, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"name": name, "seconds": seconds}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the child for {self.checkout} stopped")
        answer = json.loads(line)
        return float(answer["rate"]), float(answer["cpu"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _fmt(x: float) -> str:
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.1f} k"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", help="the other checkout (A/B baseline)")
    parser.add_argument("names", nargs="*", default=NAMES)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args(argv)
    new_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    old, new = Side(args.old), Side(new_root)
    load = os.getloadavg()
    print(
        f"# A/B, old = {args.old}, new = {new_root}; {args.rounds} rounds in turns; "
        f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {time.strftime('%Y-%m-%d %H:%M')}"
    )
    print(
        "| measurement | old best | new best | new / old | old median | new median "
        "| old CPU best | new CPU best | new / old (CPU) | pairwise median (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for name in args.names:
            a: list[tuple[float, float]] = []
            b: list[tuple[float, float]] = []
            for r in range(args.rounds):
                # Alternate who goes first, so neither always follows the other.
                if r % 2 == 0:
                    a.append(old.measure(name, args.seconds))
                    b.append(new.measure(name, args.seconds))
                else:
                    b.append(new.measure(name, args.seconds))
                    a.append(old.measure(name, args.seconds))
            aw, bw = [x[0] for x in a], [x[0] for x in b]
            ac, bc = max(x[1] for x in a), max(x[1] for x in b)
            # Each round's two chunks ran next to each other: their ratio is the least
            # moved by the machine's speed swings (minutes long on a shared machine).
            pairwise = statistics.median(y[1] / x[1] for x, y in zip(a, b, strict=True))
            print(
                f"| {name} | {_fmt(max(aw))} | {_fmt(max(bw))} | {max(bw) / max(aw):.2f}x "
                f"| {_fmt(statistics.median(aw))} | {_fmt(statistics.median(bw))} "
                f"| {_fmt(ac)} | {_fmt(bc)} | {bc / ac:.2f}x | {pairwise:.2f}x |",
                flush=True,
            )
    finally:
        old.close()
        new.close()
    load = os.getloadavg()
    print(f"# load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        raise SystemExit(main(sys.argv[1:]))
