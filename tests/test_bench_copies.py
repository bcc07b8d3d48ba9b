"""The copies bench suite runs end to end (no timing is asserted): its env is in the
middle of a hand, and a copy made the way it times plays on as the original."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from bench import bench_copies as bc


def test_the_copies_rows_of_an_env_mid_hand() -> None:
    env = bc._env_mid_hand("poker_env/Holdem-v0")
    assert not env._done  # a hand under way, not a finished episode
    rows = bc._rows_for("Holdem-v0", env)
    assert [r.unit for r in rows] == ["KB", "copies/s", "copies/s"]
    assert 0 < rows[0].value < 64  # the evaluator's tables are not in it
    assert all(r.value > 0 for r in rows[1:])
    # What it times is a real copy: each plays on as its original does.
    for make_copy in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
        env = bc._env_mid_hand("poker_env/Holdem-v0")
        twin = make_copy(env)
        for _ in range(3):
            a = env.step(int(np.flatnonzero(env.action_masks())[0]))
            b = twin.step(int(np.flatnonzero(twin.action_masks())[0]))
            assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
            if a[2] or a[3]:
                break


def test_the_copies_rows_of_a_game_time_its_clone() -> None:
    from poker_env.games.holdem import HoldemConfig, HoldemGame

    game = HoldemGame(HoldemConfig(num_seats=2), rng=bc.SEED)
    game.start_hand()
    rows = bc._rows_for("HoldemGame", game, clone=game.clone)
    assert [r.name.split(": ")[1] for r in rows] == [
        "pickled size",
        "pickle round trip",
        "copy.deepcopy",
        "clone()",
    ]
    assert all(r.value > 0 for r in rows)
