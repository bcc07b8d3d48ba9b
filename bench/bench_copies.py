"""Copies of an env, as a search (MCTS, a best response) or a process pool makes them.

Run: ``.venv/bin/python -m bench.bench_copies`` (or ``bench/run.py copies``). For every
Gymnasium id, after a seeded reset and a few random steps (a hand under way), and for
the game objects (``DrawGame``, ``HoldemGame``, ``RedDogGame``, a hand dealt): the
pickled size, and copies per second by a pickle round trip (``pickle.loads(
pickle.dumps(env))``) and by ``copy.deepcopy``. Peer: OpenSpiel's heads-up no-limit
(``universal_poker``, fcpa) state in the middle of a hand, ``state.clone()`` and a
pickle round trip of the state, in the same process.
"""

from __future__ import annotations

import copy
import pickle
import random
import warnings
from typing import Any

import gymnasium as gym
import numpy as np

from bench.common import Row, machine_line, print_table, rate
from bench.peers import openspiel_game_string

SEED = 7
BATCH = 50  # copies per timed call


def _env_mid_hand(env_id: str) -> Any:
    import poker_env  # noqa: F401  (registers the ids)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make(env_id).unwrapped
    _, info = env.reset(seed=SEED)
    rng = random.Random(SEED)
    for _ in range(3):
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[rng.randrange(legal.size)]))
        if terminated or truncated:
            _, info = env.reset()
    return env


def _rows_for(name: str, obj: Any, clone: Any | None = None, peer: bool = False) -> list[Row]:
    def round_trip() -> int:
        for _ in range(BATCH):
            pickle.loads(pickle.dumps(obj))
        return BATCH

    def deep() -> int:
        for _ in range(BATCH):
            copy.deepcopy(obj)
        return BATCH

    rows = [
        Row(f"{name}: pickled size", len(pickle.dumps(obj)) / 1e3, "KB"),
        Row(f"{name}: pickle round trip", rate(round_trip, 0.5), "copies/s"),
    ]
    if not peer:
        rows.append(Row(f"{name}: copy.deepcopy", rate(deep, 0.5), "copies/s"))
    if clone is not None:

        def cloned() -> int:
            for _ in range(BATCH):
                clone()
            return BATCH

        label = "state.clone()" if peer else "clone()"
        rows.append(Row(f"{name}: {label}", rate(cloned, 0.5), "copies/s", "peer" if peer else ""))
    return rows


def _rate_of(make: Any) -> float:
    def batch() -> int:
        for _ in range(BATCH):
            make()
        return BATCH

    return rate(batch, 0.5)


def main() -> None:
    import poker_env  # noqa: F401
    from poker_env.games.draw import DrawGame
    from poker_env.games.holdem import HoldemConfig, HoldemGame
    from poker_env.games.red_dog import RedDogGame

    rows: list[Row] = []
    for env_id in sorted(k for k in gym.registry if k.startswith("poker_env/")):
        rows += _rows_for(env_id, _env_mid_hand(env_id))
    # The game objects (what a search over states would copy), a hand dealt.
    holdem = HoldemGame(HoldemConfig(num_seats=2), rng=SEED)
    holdem.start_hand()
    games = {
        "DrawGame": DrawGame(seed=SEED),
        "HoldemGame heads-up": holdem,
        "RedDogGame": RedDogGame(rng=np.random.default_rng(SEED)),
    }
    for name, game in games.items():
        rows += _rows_for(name, game, clone=game.clone)
    # A search's determinized copy: the cards the seat to act has not seen dealt again.
    search_rng = np.random.default_rng(SEED)
    seat = holdem.to_act

    def resampled() -> HoldemGame:
        return holdem.clone(resample_for=seat, rng=search_rng)

    rows.append(
        Row(f"HoldemGame heads-up: clone(resample_for={seat})", _rate_of(resampled), "copies/s")
    )
    try:
        import pyspiel
    except ImportError:
        rows.append(Row("OpenSpiel HUNL state", float("nan"), "copies/s", "not installed"))
    else:
        game = pyspiel.load_game(openspiel_game_string(2, "fcpa"))
        state = game.new_initial_state()
        rng = random.Random(SEED)
        while state.is_terminal() or state.is_chance_node() or state.move_number() < 6:
            if state.is_terminal():
                state = game.new_initial_state()
                continue
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        rows += _rows_for("OpenSpiel HUNL state (peer)", state, clone=state.clone, peer=True)
    print_table(f"Copies of an env in the middle of a hand ({machine_line()})", rows)


if __name__ == "__main__":
    main()
