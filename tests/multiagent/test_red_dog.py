"""RedDog AEC env: PettingZoo api_test and seed_test, chips and rewards."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from pettingzoo.test import api_test, seed_test

from poker_env.cards import format_card, format_cards
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.games.red_dog import BetRecord, ForfeitRecord
from poker_env.multiagent.red_dog import RedDogAECEnv


@pytest.mark.parametrize(
    "kw",
    [{}, {"num_players": 2, "starting_chips": 3, "rounds": 8}, {"num_players": 10}],
)
def test_pettingzoo_api_test(kw: dict[str, int]) -> None:
    api_test(RedDogAECEnv(**kw), num_cycles=200)  # type: ignore[arg-type]


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_infos_are_updated_in_place_and_every_agents_mask_is_its_own(num_players: int) -> None:
    # The documented contract: one info dict per agent for the episode, updated in
    # place; after every step each agent's mask equals what observe() says (ones for
    # the seat to act only), and no two agents share a mask array.
    rng = np.random.default_rng(num_players)
    env = RedDogAECEnv(num_players=num_players, starting_chips=5, rounds=6)
    steps = 0
    for seed in range(4):
        env.reset(seed=seed)
        dicts = {a: env.infos[a] for a in env.agents}
        for agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            assert info is dicts[agent]
            for a in env.agents:
                assert env.infos[a] is dicts[a]
                mask = env.infos[a]["action_mask"]
                np.testing.assert_array_equal(mask, env.observe(a)["action_mask"])
                assert mask.sum() in (0, mask.size)
            # Ones for the seat to act only (a done agent may be selected before it).
            acting = [a for a in env.agents if env.infos[a]["action_mask"].any()]
            assert len(acting) <= 1
            if not (terminated or truncated):
                assert acting == [agent]
            masks = [id(env.infos[a]["action_mask"]) for a in env.agents]
            assert len(set(masks)) == len(masks)
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.integers(0, env.action_space(agent).n)))
            steps += 1
    assert steps > 20


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: RedDogAECEnv(num_players=3), num_cycles=100)


def test_rewards_sum_to_chips_won_or_lost_and_chips_are_conserved() -> None:
    rng = np.random.default_rng(0)
    for seed in range(5):
        env = RedDogAECEnv(num_players=4, starting_chips=6, rounds=6)
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.sum() > 0
            env.step(int(rng.choice(np.flatnonzero(mask))))
            assert env.game is not None
            assert sum(env.game.chips) + env.game.pot == 24
        assert env.game is not None
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == env.game.chips[i] - 6


def test_only_the_seat_to_act_has_a_mask() -> None:
    env = RedDogAECEnv(num_players=3)
    env.reset(seed=1)
    masks = {a: env.observe(a)["action_mask"].sum() for a in env.possible_agents}
    assert [a for a, m in masks.items() if m > 0] == [env.agent_selection]


def last_action_of(env: RedDogAECEnv, seat: int) -> BetRecord | ForfeitRecord:
    assert env.game is not None
    return next(
        r
        for r in reversed(env.game.history)
        if isinstance(r, BetRecord | ForfeitRecord) and r.seat == seat
    )


def snapshot(env: RedDogAECEnv) -> tuple[list[NDArray[Any]], int, str]:
    assert env.game is not None
    return [a.copy() for a in env.game.state], len(env.game.history), env.agent_selection


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize(
    "value", [1.7, "1", True, None, np.float32(1.0), np.array([2]), 6, -1, 2**70], ids=repr
)
def test_a_value_outside_the_action_space_raises_in_both_modes_and_changes_nothing(
    mode: str, value: object
) -> None:
    env = RedDogAECEnv(num_players=3, illegal_action=mode)
    env.reset(seed=2)
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as err:
        env.step(value)  # type: ignore[arg-type]
    assert repr(value) in str(err.value) and "an integer in [0, 6)" in str(err.value)
    after = snapshot(env)
    assert all(np.array_equal(a, b) for a, b in zip(before[0], after[0], strict=True))
    assert before[1:] == after[1:]
    env.step(np.int64(2))  # numpy integers are actions


def test_stepping_before_reset_or_after_every_agent_is_done_raises_episode_finished() -> None:
    with pytest.raises(EpisodeFinishedError, match="call reset"):
        RedDogAECEnv().step(1)
    env = RedDogAECEnv(num_players=2, rounds=1)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else 1)
    assert env.agents == []
    with pytest.raises(EpisodeFinishedError, match="RedDogAECEnv"):
        env.step(1)
    env.reset(seed=1)  # a reset starts a new game
    env.step(1)


@pytest.mark.parametrize("value", ["call", None, "RAISE"])
def test_illegal_action_option_accepts_passive_or_raise_only(value: object) -> None:
    assert RedDogAECEnv().illegal_action == "passive"
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive'.*'raise'"):
        RedDogAECEnv(illegal_action=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("num_players", [2, 6, 10])
def test_random_actions_of_the_space_never_raise(num_players: int) -> None:
    # Every action of the space is legal for the seat to act: random actions (also
    # unmasked ones) never raise, in either mode; the flag is present and False.
    for seed in range(3):
        for mode in ("passive", "raise"):
            env = RedDogAECEnv(num_players=num_players, starting_chips=5, illegal_action=mode)
            env.reset(seed=seed)
            space = env.action_space(env.possible_agents[0])
            space.seed(seed)
            for _agent in env.agent_iter(max_iter=400):
                _, _, terminated, truncated, info = env.last()
                assert info["illegal_action"] is False
                env.step(None if terminated or truncated else space.sample())


@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_a_masked_out_action_forfeits_in_passive_mode_and_raises_in_raise_mode(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not reachable through the public API (the seat to act may play every index), so
    # the mask is changed here to exercise the shared convention.
    env = RedDogAECEnv(num_players=3, illegal_action=mode)
    env.reset(seed=5)
    # The mask of the seat to act (_mask's, and the one observe and the infos copy).
    ones = env._ones.copy()
    ones[4] = 0
    monkeypatch.setattr(env, "_ones", ones)
    agent = env.agent_selection
    assert env.observe(agent)["action_mask"].tolist() == [1, 1, 1, 1, 0, 1][: ones.size]
    if mode == "raise":
        before = snapshot(env)
        with pytest.raises(IllegalActionError, match="masked out"):
            env.step(4)
        assert before[1:] == snapshot(env)[1:]
        return
    env.step(4)
    assert isinstance(last_action_of(env, env.agent_name_mapping[agent]), ForfeitRecord)
    info = env.infos[agent]
    assert info["illegal_action"] is True
    assert info["last_bet"]["kind"] == "forfeit" and info["last_bet"]["action"] == 0


def test_info_holds_each_agents_last_bet_and_the_others_actions_since() -> None:
    # Checked against the game's own records: each agent's last_bet is its last
    # BetRecord / ForfeitRecord, and opponent_actions are the other seats' records
    # after it, in order.
    rng = np.random.default_rng(3)
    env = RedDogAECEnv(num_players=4, starting_chips=6, rounds=8, render_mode="ansi")
    env.reset(seed=3)
    assert env.infos["player_0"]["last_bet"] is None
    checked = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        assert env.game is not None
        seat = env.agent_name_mapping[agent]
        actions = [r for r in env.game.history if isinstance(r, BetRecord | ForfeitRecord)]
        own = [i for i, r in enumerate(actions) if r.seat == seat]
        if own:
            rec = actions[own[-1]]
            last = info["last_bet"]
            assert (last["seat"], last["kind"]) == (
                seat, "bet" if isinstance(rec, BetRecord) else "forfeit"
            )  # fmt: skip
            if isinstance(rec, BetRecord):
                assert (last["amount"], last["turned_card"], last["won"], last["shown"]) == (
                    rec.amount, rec.turned, rec.won, rec.shown
                )  # fmt: skip
            since = actions[own[-1] + 1 :]
        else:
            assert info["last_bet"] is None
            since = actions
        assert [(d["seat"], d["amount"]) for d in info["opponent_actions"]] == [
            (r.seat, r.amount if isinstance(r, BetRecord) else 1) for r in since
        ]
        checked += 1
        if terminated or truncated:
            env.step(None)
            continue
        p = env.game.win_probability(seat)
        env.step(int(rng.integers(0, 6)))
        assert env.infos[agent]["last_bet"]["p"] == pytest.approx(p)
        rec = last_action_of(env, seat)
        if isinstance(rec, BetRecord):
            # The render names the turned card and the outcome, also after a new deal.
            verb = "wins" if rec.won else "loses"
            assert (
                f"seat {seat} bets {rec.amount}, turned {format_card(rec.turned)}: {verb}, "
                f"showing {format_cards(rec.shown)}"
            ) in str(env.render())
    assert checked > 20
