"""HoldemAECEnv: PettingZoo's api_test and seed_test, and a hand-played episode."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from poker_env.cards import parse_cards
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.games import holdem_kernels as K
from poker_env.multiagent.holdem import HoldemAECEnv


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_api_test(n: int) -> None:
    api_test(HoldemAECEnv(n), num_cycles=300)


def test_api_test_several_hands_busted_players_leave() -> None:
    api_test(HoldemAECEnv(4, hands_per_episode=20, starting_stack=10), num_cycles=600)


@pytest.mark.parametrize("n", [2, 6])
def test_seed_test(n: int) -> None:
    seed_test(lambda render_mode=None: HoldemAECEnv(n, render_mode=render_mode), num_cycles=200)


@pytest.mark.parametrize("n", [2, 4])
def test_each_steps_rewards_are_the_nets_of_the_hands_it_ended(n: int) -> None:
    # Over several hands per episode: after every step, each agent's reward is the net
    # of the hands that step decided (their HandResult records), in big blinds, and 0.0
    # after a step that decided none (the rewards of a hand do not linger).
    env = HoldemAECEnv(n, hands_per_episode=6, starting_stack=20)
    bb = env.config.base  # the big blind
    rng = np.random.default_rng(n)
    ended_steps = quiet_steps = 0
    kept: list[tuple[dict[str, float], dict[str, float], int, bool]] = []
    for ep in range(6):
        env.reset(seed=ep)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            ended = env.infos[env.agents[0]]["hands_ended"]
            for a in env.agents:
                seat = env.possible_agents.index(a)
                net = sum(r.net for h in ended for r in h.seats if r.seat == seat)
                assert env.rewards[a] == pytest.approx(net / bb)
            ended_steps += bool(ended)
            quiet_steps += not ended
            kept.append((env.rewards, dict(env.rewards), ep, bool(ended)))
    assert ended_steps > 10 and quiet_steps > 10
    # A rewards dict kept from a step is not written into by later steps of its episode
    # (the dead steps at an episode's end clear and remove entries, as PettingZoo's do).
    for i, (d, copy, ep, ended) in enumerate(kept):
        if i + 1 < len(kept) and kept[i + 1][2] == ep and not ended:
            assert d == copy


def test_rewards_sum_to_zero_and_illegal_action_raises_in_strict_mode() -> None:
    env = HoldemAECEnv(3, render_mode="ansi", illegal_action="raise")
    rng = np.random.default_rng(0)
    for ep in range(20):
        env.reset(seed=ep)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, r, term, trunc, _info = env.last()
            total[agent] += r
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if ep == 0 and not mask.all():
                with pytest.raises(IllegalActionError):
                    env.step(int(np.flatnonzero(mask == 0)[0]))
            env.step(int(rng.choice(np.flatnonzero(mask))))
        assert abs(sum(total.values())) < 1e-9
    assert "player_0" in (env.render() or "")


def test_evaluator_features_api_seed_and_each_seats_category() -> None:
    from poker_env.episode import holdem as E
    from poker_env.evaluator import evaluate, hand_category

    api_test(HoldemAECEnv(3, evaluator_features=True, equity_samples=20), num_cycles=200)
    seed_test(
        lambda render_mode=None: HoldemAECEnv(
            3, evaluator_features=True, equity_samples=20, render_mode=render_mode
        ),
        num_cycles=100,
    )
    env = HoldemAECEnv(3, evaluator_features=True, equity_samples=50)
    env.reset(seed=1)
    base = E.obs_size(3)
    checked = 0
    while env.agents and checked < 40:
        agent = env.agent_selection
        obs = env.observe(agent)["observation"]
        again = env.observe(agent)["observation"]
        assert np.array_equal(obs, again)  # observing twice gives the same numbers
        assert 0.0 <= obs[base + 9] <= 1.0
        cards = np.flatnonzero(obs[:52]).tolist()
        board = np.flatnonzero(obs[52:104]).tolist()
        if len(board) >= 3:
            want = int(hand_category(evaluate(np.array(cards + board))))
            assert np.flatnonzero(obs[base : base + 9]).tolist() == [want]
            checked += 1
        else:
            assert not obs[base : base + 9].any()
        mask = env.infos[agent]["action_mask"]
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(1 if mask[1] else int(np.flatnonzero(mask)[0]))
        if not env.agents:
            env.reset()
    assert checked > 0


# ---------------------------------------------------------------- issue 12: illegal actions


def _snapshot(env: HoldemAECEnv) -> tuple[Any, ...]:
    return (
        env._s.copy(),
        env._rng.bit_generator.state,
        env.agent_selection,
        dict(env._cumulative_rewards),
        {a: dict(i) for a, i in env.infos.items()},
    )


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return (
        bool(np.array_equal(a[0], b[0]))
        and a[1:3] == b[1:3]
        and a[3] == b[3]
        and all(set(x) == set(y) for x, y in zip(a[4].values(), b[4].values(), strict=True))
    )


@pytest.mark.parametrize("n", [2, 6])
def test_masked_action_plays_check_call_by_default_and_info_says_so(n: int) -> None:
    # Two envs on one seed: masked-out actions in one, check/call (index 1) in the
    # other; the same game, and only the first agent's info says it was replaced.
    a, b = HoldemAECEnv(n, hands_per_episode=3), HoldemAECEnv(n, hands_per_episode=3)
    a.reset(seed=4)
    b.reset(seed=4)
    rng = np.random.default_rng(n)
    replaced = 0
    for _ in range(400):
        if not a.agents:
            a.reset()
            b.reset()
        agent = a.agent_selection
        assert agent == b.agent_selection
        if a.terminations[agent] or a.truncations[agent]:
            a.step(None)
            b.step(None)
            continue
        mask = a.observe(agent)["action_mask"]
        masked = np.flatnonzero(mask == 0)
        if masked.size and rng.random() < 0.5:
            act, played = int(rng.choice(masked)), 1
            replaced += 1
        else:
            act = played = int(rng.choice(np.flatnonzero(mask)))
        a.step(act)
        b.step(played)
        assert a.infos[agent]["illegal_action"] is (act != played)
        assert b.infos[agent]["illegal_action"] is False
        assert np.array_equal(a._s, b._s) and a.rewards == b.rewards
    assert replaced > 50


@pytest.mark.parametrize("value", ["call", "ignore"])
def test_illegal_action_modes_are_passive_and_raise_only(value: str) -> None:
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive' or 'raise'"):
        HoldemAECEnv(2, illegal_action=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_values_outside_the_action_space_are_refused_in_both_modes(mode: str) -> None:
    env = HoldemAECEnv(3, illegal_action=mode)  # type: ignore[arg-type]
    env.reset(seed=3)
    for bad in (1.7, np.float64(1.0), "1", True, None, [1], -1, 8, 10**20):
        before = _snapshot(env)
        with pytest.raises(IllegalActionError) as err:
            env.step(bad)  # type: ignore[arg-type]
        assert repr(bad) in str(err.value) and "an integer in [0, 8)" in str(err.value)
        assert _same(before, _snapshot(env))
    agent = env.agent_selection
    env.step(np.int64(1))  # type: ignore[arg-type]  # numpy ints are actions
    assert env.agent_selection != agent and env.infos[agent]["illegal_action"] is False


def test_strict_mode_refuses_a_masked_action_and_changes_nothing() -> None:
    env = HoldemAECEnv(2, illegal_action="raise")
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    while mask.all():
        env.step(1)
        if not env.agents:
            env.reset()
        mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match=rf"illegal action {bad} "):
        env.step(bad)
    assert _same(before, _snapshot(env))


@pytest.mark.parametrize("n", [2, 6, 10])
def test_default_mode_accepts_every_action_of_the_space(n: int) -> None:
    for seed in range(3):
        env = HoldemAECEnv(n, hands_per_episode=3)
        env.reset(seed=seed)
        for agent in env.possible_agents:
            env.action_space(agent).seed(seed)
        steps = replaced = 0
        while steps < 300:
            if not env.agents:
                env.reset()
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            mask = env.observe(agent)["action_mask"]
            act = int(env.action_space(agent).sample())
            env.step(act)
            assert env.infos[agent]["illegal_action"] is bool(mask[act] == 0)
            replaced += env.infos[agent]["illegal_action"]
            steps += 1
        assert replaced > 0


def test_step_before_reset_and_after_every_agent_is_done_raises_episode_finished() -> None:
    env = HoldemAECEnv(2)
    with pytest.raises(EpisodeFinishedError):
        env.step(1)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else 1)
    assert not env.agents
    with pytest.raises(EpisodeFinishedError):
        env.step(1)
    with pytest.raises(EpisodeFinishedError):
        env.step(None)


# ---------------------------------------------------------------- issue 12: hand results


def _rig(s: np.ndarray, holes: dict[int, str], board: str) -> None:
    """Replace the hole cards and the board (not yet shown: pre-flop) of the running hand."""
    assert s[K.PHASE] == K.PHASE_BETTING and s[K.NUM_BOARD] == 0
    for q, text in holes.items():
        s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2] = parse_cards(text)
    s[K.BOARD : K.BOARD + 5] = parse_cards(board)


def test_rigged_showdowns_reach_every_agents_info_and_the_render() -> None:
    env = HoldemAECEnv(3, hands_per_episode=2, render_mode="ansi")
    env.reset(seed=2)
    s = env._s
    # Hand 1 (seed 2): player_1 deals, player_2 posts the small blind, player_0 the big.
    assert (s[K.BUTTON], s[K.SB], s[K.BB]) == (1, 2, 0)
    assert all(env.infos[a]["last_hand"] is None for a in env.agents)
    _rig(s, {0: "As Ks", 1: "9c 9d", 2: "Ah Kd"}, "Qs Js Ts 2h 3d")
    while env.infos["player_0"]["last_hand"] is None:
        env.step(1)  # everyone checks or calls
    hand = env.infos["player_0"]["last_hand"]
    assert all(env.infos[a]["last_hand"] is hand for a in env.agents)
    assert all(env.infos[a]["hands_ended"] == (hand,) for a in env.agents)
    env.step(1)  # the next hand's first action: no hand ended by it
    assert all(env.infos[a]["hands_ended"] == () for a in env.agents)
    assert env.infos["player_1"]["last_hand"] is hand
    # Worked by hand (as the single env's test): a royal flush, a pair of nines and an
    # ace-high straight; every player put in 2, the royal flush takes the 6 chips.
    assert (hand.hand, hand.board, hand.pot, hand.winners) == (1, "Qs Js Ts 2h 3d", 6, (0,))
    assert [(r.seat, r.cards, r.description, r.won, r.net) for r in hand.seats] == [
        (0, "As Ks", "Royal Flush", 6, 4),
        (1, "9c 9d", "Pair, Nines", 0, -2),
        (2, "Ah Kd", "Straight, Ace high", 0, -2),
    ]
    text = env.render() or ""
    assert "hand 1 over (showdown), board Qs Js Ts 2h 3d, pot 6" in text
    assert "player_0 BB shows As Ks, Royal Flush: wins 6 (+4)" in text
    assert "player_2 SB shows Ah Kd, Straight, Ace high (-2)" in text
    # Hand 2: everyone calls again; player_1 and player_2 both play A K Q 8 7 and split
    # the 6 chips (3 each: no odd chip); player_0's king high loses.
    _rig(env._s, {0: "4c 5d", 1: "Ah 3c", 2: "As 3d"}, "Kc Qd 8h 7s 2c")
    while env.infos["player_0"]["last_hand"] is hand:
        env.step(1)
    hand = env.infos["player_2"]["last_hand"]
    assert (hand.hand, hand.pot, hand.winners) == (2, 6, (1, 2))
    assert [(r.seat, r.description, r.won, r.net) for r in hand.seats] == [
        (0, "High Card, King high", 0, -2),
        (1, "High Card, Ace high", 3, 1),
        (2, "High Card, Ace high", 3, 1),
    ]
    assert all(env.terminations.values())  # two hands: the episode is over
    # (the button moved one seat: player_2 deals, player_0 and player_1 post the blinds)
    text = env.render() or ""
    assert "player_0 SB shows 4c 5d, High Card, King high (-2)" in text
    assert "player_1 BB shows Ah 3c, High Card, Ace high: wins 3 (+1)" in text
