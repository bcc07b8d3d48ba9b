"""Seeded random-action AEC episodes reduced to one digest per step (the differential test).

Each case is an env (game and options); each episode plays PettingZoo's
``agent_iter()`` loop with a seeded ``random.Random``: mostly a uniformly random
legal action, sometimes a masked-out action of the space (played passively or
refused, by ``illegal_action``), sometimes a value outside the space (refused).
After every reset and every step (or refusal) it reads everything a user can:
``observe()`` of every possible agent, ``last()``, ``rewards``,
``_cumulative_rewards``, ``terminations``, ``truncations``, ``infos``,
``agents``, ``agent_selection``, the render, and the refusal's type and text.
That is written canonically (types kept: a tuple is not a list, a numpy int64 not
an int) and hashed, one 16-hex digest per step.

The fixture ``data/aec_trajectories.json`` holds the digests recorded from the
implementation before the AEC envs were moved onto the compiled entries
(commit 0394413); ``test_aec_trajectories.py`` replays the cases and compares.
Recorded again once, for two intended changes: ``DrawAECEnv``'s infos carry
``action_mask``, and Red Dog's ``last_bet`` is a ``BetRecord`` mapping, not a dict.
Before that, with ``action_mask`` left out of the draw infos and ``BetRecord``
written as ``dict``, the new implementation matched the 0394413 digests in all
fifteen cases.
Record again (only when a behaviour change is intended) with
``python -m tests.multiagent.aec_trajectory record``; ``dump CASE EPISODE`` prints
one episode's canonical steps, to diff two checkouts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

FIXTURE = Path(__file__).parent / "data" / "aec_trajectories.json"

#: (name, module of poker_env.multiagent, options, episodes, max steps per episode)
CASES: list[tuple[str, str, dict[str, Any], int, int]] = [
    ("red_dog_2p_small", "red_dog", {"num_players": 2, "starting_chips": 3, "rounds": 8}, 30, 200),
    ("red_dog_4p", "red_dog", {}, 20, 200),
    (
        "red_dog_4p_raise",
        "red_dog",
        {"starting_chips": 6, "rounds": 10, "illegal_action": "raise"},
        8,
        200,
    ),
    (
        "red_dog_6p",
        "red_dog",
        {"num_players": 6, "starting_chips": 8, "rounds": 12, "bet_fractions": (0.0, 0.5, 1.0)},
        6,
        300,
    ),
    ("red_dog_10p", "red_dog", {"num_players": 10, "starting_chips": 5, "ante": 2}, 4, 300),
    ("red_dog_3p_rgb", "red_dog", {"num_players": 3, "render_mode": "rgb_array"}, 2, 100),
    ("holdem_hu", "holdem", {}, 40, 200),
    ("holdem_hu_raise", "holdem", {"illegal_action": "raise"}, 40, 200),
    (
        "holdem_3p_hands",
        "holdem",
        {"num_players": 3, "hands_per_episode": 4, "starting_stack": 12},
        16,
        300,
    ),
    (
        "holdem_6p_standard",
        "holdem",
        {"num_players": 6, "rules": "standard", "penalty_to": "pot", "hands_per_episode": 2},
        6,
        300,
    ),
    (
        "holdem_6p_raise_hands",
        "holdem",
        {"num_players": 6, "hands_per_episode": 5, "starting_stack": 9, "illegal_action": "raise"},
        5,
        300,
    ),
    (
        "holdem_10p_fracs",
        "holdem",
        {"num_players": 10, "raise_fractions": (0.5, 2.0), "max_bet": 60, "base": 4},
        4,
        300,
    ),
    (
        "holdem_3p_features",
        "holdem",
        {
            "num_players": 3,
            "evaluator_features": True,
            "equity_samples": 16,
            "hands_per_episode": 2,
        },
        4,
        200,
    ),
    ("holdem_4p_rgb", "holdem", {"num_players": 4, "render_mode": "rgb_array"}, 2, 100),
]

_OUT_OF_SPACE: tuple[Any, ...] = (-1, 99, 1.5, "1", True, None, np.float32(1.0), 2**70)


def canonical(x: Any) -> Any:
    """``x`` as plain JSON-able values with every type named (exact floats)."""
    if x is None or isinstance(x, (bool, str)):
        return [type(x).__name__, x]
    if isinstance(x, int) and type(x) is int:
        return ["int", x]
    if isinstance(x, float) and type(x) is float:
        return ["float", repr(x)]
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            data = x.tobytes().hex()
        else:
            data = (
                hashlib.blake2b(x.tobytes(), digest_size=16).hexdigest()
                if x.size > 4096
                else x.tolist()
            )
        return ["ndarray", str(x.dtype), list(x.shape), data]
    if isinstance(x, np.generic):
        return [type(x).__name__, canonical(x.item())]
    if isinstance(x, Mapping):
        return [type(x).__name__, [[canonical(k), canonical(v)] for k, v in x.items()]]
    if type(x).__name__ == "HandResult":
        return [
            "HandResult",
            x.hand,
            x._row.tolist(),
            repr(x),
            x.lines(),
            [dataclasses.astuple(seat) for seat in x.seats],
        ]
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return [type(x).__name__, canonical(dataclasses.asdict(x))]
    if isinstance(x, Sequence):
        # Sequence views (ActionLog) by their type and items.
        return [type(x).__name__, [canonical(v) for v in x]]
    raise TypeError(f"no canonical form for {type(x).__name__}: {x!r}")


def _snapshot(env: Any, event: Any) -> Any:
    obs = {}
    for a in env.possible_agents:
        try:
            obs[a] = canonical(env.observe(a))
        except Exception as exc:  # recorded, not hidden
            obs[a] = ["error", type(exc).__name__, str(exc)]
    last = canonical(env.last()) if env.agents else None
    return [
        event,
        obs,
        last,
        canonical(env.rewards),
        canonical(env._cumulative_rewards),
        canonical(env.terminations),
        canonical(env.truncations),
        canonical(env.infos),
        canonical(list(env.agents)),
        canonical(env.agent_selection),
        canonical(env.render()),
    ]


def make_env(module: str, options: dict[str, Any]) -> Any:
    mod = importlib.import_module(f"poker_env.multiagent.{module}")
    return mod.env(**options)


def episodes(case: tuple[str, str, dict[str, Any], int, int]) -> Iterator[Iterator[Any]]:
    """Each episode of ``case``: an iterator over its canonical steps."""
    name, module, options, count, max_steps = case
    env = make_env(module, options)
    rng = random.Random(name)
    for episode in range(count):

        def play(episode: int = episode) -> Iterator[Any]:
            # Every third episode continues the env's own stream (reset without a seed).
            env.reset(seed=None if episode % 3 == 2 else 1000 * episode + 7)
            yield _snapshot(env, ["reset"])
            steps = 0
            for agent in env.agent_iter():
                if steps >= max_steps:
                    return
                steps += 1
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    yield _snapshot(env, ["dead", agent])
                    continue
                mask = obs["action_mask"]
                legal = np.flatnonzero(mask).tolist()
                masked = np.flatnonzero(mask == 0).tolist()
                r = rng.random()
                if r < 0.06:
                    action: Any = _OUT_OF_SPACE[rng.randrange(len(_OUT_OF_SPACE))]
                elif r < 0.18 and masked:
                    action = masked[rng.randrange(len(masked))]
                else:
                    action = legal[rng.randrange(len(legal))]
                try:
                    env.step(action)
                    event = ["step", agent, canonical(action)]
                except Exception as exc:  # the refusal is part of the record
                    event = ["refused", agent, canonical(action), type(exc).__name__, str(exc)]
                yield _snapshot(env, event)

        yield play()


def digest(step: Any) -> str:
    text = json.dumps(step, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def record() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for case in CASES:
        out[case[0]] = [" ".join(digest(s) for s in ep) for ep in episodes(case)]
    return out


def main(argv: list[str]) -> None:
    if argv[:1] == ["record"]:
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(record(), indent=0) + "\n")
        print(f"wrote {FIXTURE}")
    elif argv[:1] == ["dump"]:
        case = next(c for c in CASES if c[0] == argv[1])
        for i, ep in enumerate(episodes(case)):
            if i == int(argv[2]):
                for step in ep:
                    print(json.dumps(step))
                return
            for _ in ep:
                pass
    else:
        raise SystemExit(
            "usage: python -m tests.multiagent.aec_trajectory record | dump CASE EPISODE"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
