"""The PettingZoo AEC env of five-card draw: API, seeding, rewards, errors."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from poker_env.cards import parse_cards
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.games import draw_layout as L
from poker_env.multiagent.draw import DrawAECEnv


@pytest.mark.parametrize("kwargs", [{}, {"mode": "match", "starting_money": 60, "item_value": 20}])
def test_pettingzoo_api_test(kwargs: dict[str, object]) -> None:
    api_test(DrawAECEnv(**kwargs), num_cycles=300)  # type: ignore[arg-type]


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: DrawAECEnv(), num_cycles=100)


def play(env: DrawAECEnv, rng: np.random.Generator) -> dict[str, float]:
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, term, trunc, _info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_pot_rewards_are_zero_sum_in_antes() -> None:
    env = DrawAECEnv()
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        totals = play(env, rng)
        assert totals["human"] == -totals["computer"]
        assert totals["human"] != 0.0  # a pot moves at least one ante


def test_match_mode_the_computer_decides_buy_backs() -> None:
    env = DrawAECEnv(mode="match", starting_money=60, item_value=20)
    rng = np.random.default_rng(1)
    saw = False
    for seed in range(20):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=5000):
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if obs["action_mask"][-1]:
                saw = True
                assert agent == "computer"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert saw


def _snapshot(env: DrawAECEnv) -> tuple[np.ndarray, np.ndarray, str]:
    # The table's int arrays and float arrays (its state record), copied.
    st = env._state
    ints = np.concatenate([st.rows.ravel(), st.legal.ravel(), st.records.ravel()])
    floats = np.concatenate([st.randoms.ravel(), st.owed.ravel()])
    return ints, floats, env.agent_selection


def test_strict_mode_masked_out_action_raises_and_changes_nothing() -> None:
    env = DrawAECEnv(illegal_action="raise")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match="masked out"):
        env.step(bad)
    after = _snapshot(env)
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
    assert before[2] == after[2]


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize("bad", [1.7, "1", True, 39, -1, [1]])
def test_a_value_outside_the_action_space_raises_in_both_modes(mode: str, bad: object) -> None:
    env = DrawAECEnv(illegal_action=mode)
    env.reset(seed=0)
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match=r"an integer in \[0, 39\)"):
        env.step(bad)
    after = _snapshot(env)
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
    env.step(1)


@pytest.mark.parametrize(("mode", "deck"), [("pot", 52), ("match", 32)])
def test_default_mode_plays_the_passive_action(mode: str, deck: int) -> None:
    # Uniform actions of the whole space, both decks: never an error, and the same
    # game as a strict twin stepped with the passive action written out by hand
    # (action 1 where legal, else the draw's discard mask 0 = action 6).
    kw = {"mode": mode, "deck": deck, "starting_money": 60, "item_value": 20}
    env = DrawAECEnv(**kw)  # type: ignore[arg-type]
    twin = DrawAECEnv(illegal_action="raise", **kw)  # type: ignore[arg-type]
    rng = np.random.default_rng(deck)
    flagged = 0
    # A pot is a few steps: many episodes; a match is hundreds.
    for seed in range(10 if mode == "match" else 80):
        env.reset(seed=seed)
        twin.reset(seed=seed)
        for agent in env.agent_iter(max_iter=600):
            obs, reward, term, trunc, _info = env.last()
            assert (obs["observation"] == twin.last()[0]["observation"]).all()
            assert reward == twin.last()[1]
            if term or trunc:
                env.step(None)
                twin.step(None)
                continue
            mask = obs["action_mask"]
            a = int(rng.integers(39))
            played = a if mask[a] else (1 if mask[1] else 6)
            env.step(a)
            twin.step(played)
            assert env.infos[agent]["illegal_action"] is (not mask[a])
            assert not any(env.infos[x]["illegal_action"] for x in env.agents if x != agent)
            assert env.infos[agent]["hands_ended"] == twin.infos[agent]["hands_ended"]
            flagged += not mask[a]
    assert flagged > 200


def test_stepping_a_finished_or_never_reset_episode_raises() -> None:
    env = DrawAECEnv()
    with pytest.raises(EpisodeFinishedError, match="DrawAECEnv"):
        env.step(1)
    env.reset(seed=0)
    env.step(0)  # the first to act drops: the pot is decided
    assert all(env.terminations.values())
    with pytest.raises(EpisodeFinishedError):
        env.step(1)  # a done agent takes None only
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(EpisodeFinishedError):
        env.step(None)


def test_showdown_render_and_infos_name_both_hands() -> None:
    # Rigged: the human's two pair against her pair of aces; both check through.
    env = DrawAECEnv(render_mode="ansi")
    env.reset(seed=0)
    env._s[L.S_HANDS : L.S_HANDS + 10] = parse_cards("Kh Kd 7s 7c 2h As Ad 3c 4h 9s")
    while not any(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(1 if mask[1] else 6)
    d = env.infos["human"]["last_hand"]
    assert env.infos["computer"]["hands_ended"] == (d,)
    assert (d["winner"], d["how"], d["pot"]) == (0, "showdown", 10)
    assert d["hand_names"] == ("Two Pair, Kings and Sevens", "Pair, Aces")
    text = env.render()
    assert text is not None
    assert "Kh Kd 7s 7c 2h  Two Pair, Kings and Sevens" in text
    assert "As Ad 3c 4h 9s  Pair, Aces" in text


def test_only_the_agent_to_act_has_a_mask() -> None:
    env = DrawAECEnv()
    env.reset(seed=2)
    other = next(a for a in env.agents if a != env.agent_selection)
    assert env.observe(other)["action_mask"].sum() == 0
    assert env.observe(env.agent_selection)["action_mask"].sum() > 0


def test_bad_illegal_action_option() -> None:
    with pytest.raises(ConfigError) as e:
        DrawAECEnv(illegal_action="call")
    assert e.value.field == "illegal_action"


def test_infos_and_rewards_kept_from_an_earlier_step_never_change() -> None:
    # A step that changes neither keeps the env's infos and all-zero rewards dicts (the
    # same values); a step that changes them makes new dicts: a dict kept from an
    # earlier step still shows that step (until the episode's end, where PettingZoo's
    # dead steps remove the done agents' entries).
    rng = np.random.default_rng(3)
    ends = paid = steps = 0
    for seed in range(30):
        # Pot mode: an episode is a hand; match mode: hands until a player is broke.
        env = DrawAECEnv(mode="pot" if seed % 2 else "match", max_hands=40)
        env.reset(seed=seed)
        kept: list[tuple[str, str, dict[str, dict[str, object]], dict[str, float]]] = []
        for _agent in env.agent_iter(max_iter=3000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            ends += any(info["hands_ended"] for info in env.infos.values())
            paid += any(env.rewards.values())
            kept.append((repr(env.infos), repr(env.rewards), env.infos, env.rewards))
        steps += len(kept)
        for infos_text, rewards_text, infos, rewards in kept:
            assert repr(infos) == infos_text and repr(rewards) == rewards_text
    assert ends > 50 and paid > 50 and steps > 300, (ends, paid, steps)
