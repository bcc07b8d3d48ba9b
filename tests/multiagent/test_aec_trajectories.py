"""Differential test: the AEC envs replay the trajectories recorded before their rewrite.

Every observe(), last(), reward, termination, truncation, info, the agent order,
the render and every refusal's type and text, step by step, against the digests in
``data/aec_trajectories.json`` recorded from commit 0394413 (the envs on the
Python game object and their own option checks); see ``aec_trajectory.py``.
"""

from __future__ import annotations

import json

import pytest

from tests.multiagent.aec_trajectory import CASES, FIXTURE, digest, episodes

_RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_replays_the_recorded_trajectories(case: tuple) -> None:  # type: ignore[type-arg]
    recorded = _RECORDED[case[0]]
    assert len(recorded) == case[3]
    for e, (episode, want) in enumerate(zip(episodes(case), recorded, strict=True)):
        want_steps = want.split()
        got = [digest(step) for step in episode]
        for i, (g, w) in enumerate(zip(got, want_steps, strict=False)):
            assert g == w, (
                f"{case[0]} episode {e} step {i} differs "
                f"(python -m tests.multiagent.aec_trajectory dump {case[0]} {e})"
            )
        assert len(got) == len(want_steps), f"{case[0]} episode {e}: {len(got)} steps"


def test_the_cases_cover_seat_counts_modes_and_refusals() -> None:
    # The fixture is only worth its digests if the episodes reach what they should.
    modes = {c[2].get("illegal_action", "passive") for c in CASES}
    assert modes == {"passive", "raise"}
    for game in ("red_dog", "holdem"):
        seats = {
            c[2].get("num_players", 4 if game == "red_dog" else 2) for c in CASES if c[1] == game
        }
        assert {2, 6, 10} <= seats
    events: dict[str, int] = {}
    for case in CASES[:1] + CASES[6:8]:
        for episode in episodes(case):
            for step in episode:
                events[step[0][0]] = events.get(step[0][0], 0) + 1
                if step[0][0] == "refused":
                    events[step[0][3]] = events.get(step[0][3], 0) + 1
    assert events["step"] > 200 and events["refused"] > 10 and events["dead"] > 0
    assert events["IllegalActionError"] > 10
