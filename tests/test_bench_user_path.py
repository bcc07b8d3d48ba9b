"""The user-path bench suite runs end to end on a tiny budget (no timing is asserted).

What it checks: every row is built through the loops a user writes (gym.make for
every registered id, agent_iter for the AEC envs), the loops really step (a
counting wrapper sees every step), and the table names every row.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

from bench import bench_user_path as up


def test_every_gymnasium_id_has_a_row() -> None:
    ids = {k for k in gym.registry if k.startswith("poker_env/")}
    names = " ".join(c.name for c in up.CASES)
    for env_id in ids:
        assert env_id.removeprefix("poker_env/") in names, env_id
    for aec in ("DrawAECEnv", "RedDogAECEnv", "HoldemAECEnv"):
        assert aec in names


def test_gym_runner_steps_and_resets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop steps n times with legal actions and resets at each episode's end."""
    counts = {"step": 0, "reset": 0, "illegal": 0}
    real_make = gym.make

    def counting_make(env_id: str, **kw: object) -> gym.Env:  # type: ignore[type-arg]
        env = real_make(env_id, **kw)

        class Count(gym.Wrapper):  # type: ignore[type-arg]
            def step(self, action):  # type: ignore[no-untyped-def]
                counts["step"] += 1
                out = self.env.step(action)
                counts["illegal"] += bool(out[4]["illegal_action"])
                return out

            def reset(self, **kwargs):  # type: ignore[no-untyped-def]
                counts["reset"] += 1
                return self.env.reset(**kwargs)

        return Count(env)

    monkeypatch.setattr(up.gym, "make", counting_make)
    run = up.gym_runner("poker_env/FiveCardDraw-v0")
    assert run(300) == 300
    assert counts["step"] == 300
    # A five-card draw pot takes a few decisions: many episodes in 300 steps.
    assert counts["reset"] > 10
    assert counts["illegal"] == 0  # the actions were read from the mask


def test_aec_runner_counts_live_steps() -> None:
    from poker_env.multiagent.draw import DrawAECEnv

    envs: list[DrawAECEnv] = []

    def make() -> DrawAECEnv:
        envs.append(DrawAECEnv())
        return envs[-1]

    run = up.aec_runner(make)
    assert run(200) == 200
    for agent in envs[0].possible_agents:  # legal actions only
        assert not envs[0].infos.get(agent, {}).get("illegal_action", False)


def test_suite_runs_on_a_tiny_budget(capsys: pytest.CaptureFixture[str]) -> None:
    cases = [c for c in up.CASES if c.name.startswith(("RedDog-v0 6", "HoldemAECEnv heads"))]
    results = up.main(rounds=1, seconds=0.005, cases=cases)
    out = capsys.readouterr().out
    assert [r.name for r in results] == [c.name for c in cases]
    for r in results:
        assert r.ours > 0 and r.ours_cpu > 0
        assert r.name in out
    assert "ours / OpenSpiel" in out
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        assert "open_spiel is not installed" in out
    else:
        assert all(r.openspiel > 0 for r in results)
        assert "Gymnasium envs: lowest ratio" in out and "AEC envs: lowest ratio" in out
