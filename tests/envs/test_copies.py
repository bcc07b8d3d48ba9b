"""A pickled or deep-copied env plays on exactly as the original: every Gymnasium id
and the batched envs (the AEC envs: tests/multiagent/test_aec_copies.py).

The envs call their kernels through :class:`poker_env.fastcall.KernelEntry`, whose
compiled entry point does not pickle: a copy names the kernel by module and name, and
a new process finds it there (not numba's by-value pickle of the dispatcher).
"""

from __future__ import annotations

import copy
import pickle
import random
import subprocess
import sys
import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import poker_env  # noqa: F401  (registers the ids)
from poker_env.fastcall import KernelEntry

IDS = sorted(k for k in gym.registry if k.startswith("poker_env/"))


def _make(env_id: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the env checker's notes on a first reset
        return gym.make(env_id)


def plain(x: Any) -> Any:
    """``x`` with arrays, mappings (hand records, ``last_bet``) and sequences of them as
    plain lists and dicts, to compare two envs' infos."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) or type(x).__name__ == "ActionLog":
        return [plain(v) for v in x]
    if hasattr(x, "lines") and callable(x.lines):  # Hold'em's HandResult
        return x.lines()
    return x


def _play(env: Any, info: dict[str, Any], rng: random.Random, steps: int) -> list[Any]:
    out = []
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.randrange(legal.size)]))
        # The infos too: some views feed only them (the hand records, last_bet, walks).
        out.append((np.asarray(obs).tobytes(), float(reward), terminated, truncated, plain(info)))
        if terminated or truncated:
            obs, info = env.reset()
            out.append((np.asarray(obs).tobytes(), plain(info)))
    return out


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_gymnasium_env_plays_on_as_the_original(env_id: str, how: str) -> None:
    env = _make(env_id)
    _, info = env.reset(seed=3)
    rng = random.Random(0)
    for _ in range(5):  # into a game, not at its start
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[rng.randrange(legal.size)]))
        if terminated or truncated:
            _, info = env.reset()
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    twin_info = copy.deepcopy(info)
    assert _play(twin, twin_info, random.Random(1), 80) == _play(env, info, random.Random(1), 80)


@pytest.mark.parametrize("module", ["draw", "holdem", "red_dog"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_vector_env_steps_as_the_original(module: str, threads: int, how: str) -> None:
    import importlib
    import inspect

    mod = importlib.import_module(f"poker_env.vector.{module}")
    cls = next(getattr(mod, n) for n in mod.__all__ if n.endswith("VectorEnv"))
    if "num_threads" not in inspect.signature(cls).parameters and threads > 1:
        pytest.skip(f"{cls.__name__} has no num_threads")
    kwargs = {"num_threads": threads} if threads > 1 else {}
    env = cls(num_envs=40, **kwargs)
    env.reset(seed=5)
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in env.action_masks()])
        a = env.step(actions)
        b = twin.step(actions)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(a[2], b[2])


def test_a_kernel_entry_pickles_by_name_and_a_new_process_plays_the_copy() -> None:
    env = _make("poker_env/RedDog-v0")
    _, info = env.reset(seed=9)
    data = pickle.dumps(env)
    # By name, not numba's by-value pickle of each dispatcher (~30 KB of code apiece).
    assert len(data) < 40_000, len(data)
    entry = env.unwrapped._step_fn
    assert isinstance(entry, KernelEntry)
    assert pickle.loads(pickle.dumps(entry)).dispatcher is entry.dispatcher
    expected = _play(env, copy.deepcopy(info), random.Random(2), 40)
    code = (
        "import pickle, random, sys, copy\n"
        "from tests.envs.test_copies import _play\n"
        "env, info = pickle.loads(sys.stdin.buffer.read())\n"
        "sys.stdout.buffer.write(pickle.dumps(_play(env, info, random.Random(2), 40)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps((pickle.loads(data), info)),
        capture_output=True,
        check=True,
        timeout=300,
    )
    assert pickle.loads(done.stdout) == expected


def test_a_kernel_entry_of_a_kernel_made_in_a_function_refuses_to_pickle() -> None:
    from numba import njit

    def make() -> Any:
        @njit
        def local(x: int) -> int:
            return x + 1

        return local

    entry = KernelEntry(make())
    assert entry.call(1) == 2
    with pytest.raises(pickle.PicklingError, match="only module-level kernels"):
        pickle.dumps(entry)


def _tables_in(obj: Any, found: list[Any], depth: int = 0) -> None:
    """Every EvalTables reachable from ``obj`` through attributes, tuples and lists."""
    from poker_env.evaluator.tables import EvalTables

    if isinstance(obj, EvalTables):
        found.append(obj)
    elif depth < 4 and isinstance(obj, (tuple, list)):
        for v in obj:
            _tables_in(v, found, depth + 1)
    elif depth < 2 and hasattr(obj, "__dict__"):
        for v in vars(obj).values():
            _tables_in(v, found, depth + 1)


@pytest.mark.parametrize("env_id", IDS)
def test_a_copy_shares_the_processs_evaluator_tables(env_id: str) -> None:
    """The evaluator's tables (about 400 KB, read-only) pickle as the call that made
    them: a copy (pickle or deepcopy) uses the process's own set, the same object."""
    from poker_env.evaluator import get_tables

    env = _make(env_id).unwrapped
    env.reset(seed=3)
    found: list[Any] = []
    _tables_in(env, found)
    data = pickle.dumps(env)
    if not found:  # this env ranks no hand with them (Red Dog)
        assert len(data) < 64_000
        return
    assert all(t is get_tables() for t in found)
    # Without the tables a copy weighs what the env's own state does.
    assert len(data) < 64_000, len(data)
    for twin in (pickle.loads(data), copy.deepcopy(env)):
        again: list[Any] = []
        _tables_in(twin, again)
        assert len(again) == len(found)
        assert all(t is get_tables() for t in again)


def test_tables_made_otherwise_pickle_with_their_arrays() -> None:
    from poker_env.evaluator import get_tables
    from poker_env.evaluator.tables import EvalTables

    own = EvalTables(*[a.copy() if isinstance(a, np.ndarray) else a for a in get_tables()])
    back = pickle.loads(pickle.dumps(own))
    assert back is not own and back is not get_tables()
    for a, b in zip(own, back, strict=True):
        assert np.array_equal(a, b)
    short = get_tables("short", flush_beats_full_house=True)
    assert pickle.loads(pickle.dumps(short)) is short
    assert copy.deepcopy(short) is short
