"""RedDog-v0: docs table vs spaces, API checkers, no leakage, rewards, errors."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding
from gymnasium.utils.env_checker import check_env
from numpy.typing import NDArray

import poker_env  # noqa: F401  (registers the ids)
from poker_env.cards import parse_cards
from poker_env.envs.red_dog import RedDogEnv
from poker_env.episode.red_dog import encode_observation
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.games.red_dog import (
    F_SEATED,
    I_DECK_POS,
    I_HAND_SIZE,
    I_PHASE,
    PHASE_BET,
    PHASE_OVER,
    AnteRecord,
    DealRecord,
    RedDogGame,
)
from poker_env.policy import RandomPolicy


def doc_rows() -> list[tuple[str, str, str]]:
    doc = RedDogEnv.__doc__ or ""
    rows = re.findall(r"^\s*\| (\[[^|]+\]) \| ([^|]+) \| ([^|]+) \|\s*$", doc, flags=re.M)
    return [(a.strip(), b.strip(), c.strip()) for a, b, c in rows]


@pytest.mark.parametrize("num_players", [2, 4, 10])
def test_docstring_observation_table_matches_the_space(num_players: int) -> None:
    env = RedDogEnv(num_players=num_players, rounds=7)
    space = env.observation_space
    names = {"P": num_players, "rounds": 7}
    covered = np.zeros(space.shape[0], int)
    for slc, _meaning, rng in doc_rows():
        start, stop = (eval(x, {}, names) for x in slc.strip("[]").split(":"))
        lo, hi = (eval(x, {}, names) for x in rng.strip("[]").split(","))
        covered[start:stop] += 1
        assert np.all(space.low[start:stop] == lo), slc
        assert np.all(space.high[start:stop] == hi), slc
    assert np.all(covered == 1)  # every element documented exactly once


def test_gymnasium_check_env() -> None:
    check_env(RedDogEnv(num_players=3), skip_render_check=False)


def test_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check

    sb3_check(RedDogEnv(num_players=3), warn=True)


def test_make_by_id() -> None:
    env = gym.make("poker_env/RedDog-v0", num_players=5)
    obs, info = env.reset(seed=0)
    assert obs.shape == (167,)
    assert info["action_mask"].dtype == np.int8


def test_reset_with_a_seed_is_reproducible() -> None:
    env = RedDogEnv()
    a, _ = env.reset(seed=42)
    seq_a = [env.step(2)[0] for _ in range(2)]
    b, _ = env.reset(seed=42)
    seq_b = [env.step(2)[0] for _ in range(2)]
    assert np.array_equal(a, b)
    assert all(np.array_equal(x, y) for x, y in zip(seq_a, seq_b, strict=True))


def shuffle_hidden(env: RedDogEnv, rng: np.random.Generator) -> None:
    """Permute every card the agent cannot see: others' unshown hands and the stock."""
    st = env.state
    agent = env.agent_seat
    size = int(st.ints[0, I_HAND_SIZE])
    slots: list[tuple[str, int, int]] = []
    for s in range(env.config.num_players):
        if s == agent or not st.flags[0, s] & F_SEATED:
            continue
        for k in range(size):
            c = st.hands[0, s, k]
            if c >= 0 and st.public[0, c] == 0:
                slots.append(("h", s, k))
    for i in range(int(st.ints[0, I_DECK_POS]), 52):
        slots.append(("d", i, 0))
    cards = [st.hands[0, a, b] if kind == "h" else st.deck[0, a] for kind, a, b in slots]
    perm = rng.permutation(len(cards))
    for (kind, a, b), j in zip(slots, perm, strict=True):
        if kind == "h":
            st.hands[0, a, b] = cards[j]
        else:
            st.deck[0, a] = cards[j]


def test_observation_does_not_change_when_hidden_cards_are_shuffled() -> None:
    rng = np.random.default_rng(0)
    for seed in range(8):
        env = RedDogEnv(num_players=int(rng.integers(2, 11)))
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            st = env.state
            before = np.zeros_like(obs)
            encode_observation(st, 0, env.agent_seat, before)
            assert np.array_equal(before, obs)
            shuffle_hidden(env, rng)
            after = np.zeros_like(obs)
            encode_observation(st, 0, env.agent_seat, after)
            assert np.array_equal(before, after)
            obs, _, done, _, _ = env.step(int(rng.integers(0, 6)))


def test_rewards_sum_to_chips_won_or_lost_in_antes() -> None:
    for seed in range(10):
        env = RedDogEnv(num_players=3, ante=2, starting_chips=20, agent_seat=seed % 3)
        _, info = env.reset(seed=seed)
        total = 0.0
        done = False
        steps = 0
        while not done:
            assert info["action_mask"].sum() > 0  # never empty before the end
            _, r, done, truncated, info = env.step(steps % 6)
            assert not truncated
            total += float(r)
            steps += 1
        final = int(env.state.chips[0, env.agent_seat])
        assert total == (final - 20) / 2
        assert info["action_mask"].sum() == 0


def test_episode_ends_when_the_game_ends_or_the_agent_leaves() -> None:
    env = RedDogEnv(num_players=2, starting_chips=3, rounds=20, agent_seat=0)
    for seed in range(20):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, done, _, _ = env.step(5)  # always bet all: games end fast
        st = env.state
        assert st.ints[0, 3] != PHASE_BET or not st.flags[0, 0] & F_SEATED


def snapshot(env: RedDogEnv) -> list[NDArray[Any]]:
    return [a.copy() for a in env.state]


def same_state(env: RedDogEnv, before: list[NDArray[Any]]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(before, env.state, strict=True))


def test_stepping_a_finished_or_never_reset_episode_raises_episode_finished() -> None:
    with pytest.raises(EpisodeFinishedError, match="call reset"):
        RedDogEnv().step(1)
    env = RedDogEnv(num_players=2, rounds=1)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(1)
    before = snapshot(env)
    for action in (1, 0, 99):  # the episode check comes first, whatever the action
        with pytest.raises(EpisodeFinishedError, match="RedDog-v0"):
            env.step(action)
    assert same_state(env, before)
    env.reset(seed=1)  # and the env plays again after a reset
    env.step(1)


# Values that are not actions of Discrete(6): issue 12 §3 names env.step(1.7) and
# env.step("1"); a bool, None, a float numpy scalar, a 1-element array, out of range.
NOT_ACTIONS = [1.7, "1", True, False, None, np.float64(2.0), np.array([1]), 6, -1, 2**70]


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize("value", NOT_ACTIONS, ids=repr)
def test_a_value_outside_the_action_space_raises_in_both_modes_and_changes_nothing(
    mode: str, value: object
) -> None:
    env = RedDogEnv(num_players=3, illegal_action=mode)
    twin = RedDogEnv(num_players=3, illegal_action=mode)
    env.reset(seed=4)
    twin.reset(seed=4)
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as err:
        env.step(value)  # type: ignore[arg-type]
    assert "an integer in [0, 6)" in str(err.value)
    assert repr(value) in str(err.value)
    assert same_state(env, before)
    # Nothing changed: the next step plays exactly what a twin env that was never
    # refused plays.
    a = env.step(2)
    b = twin.step(2)
    assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
    assert a[4]["last_bet"] == b[4]["last_bet"]


@pytest.mark.parametrize("value", [np.int64(3), np.int8(3), np.uint16(3), np.array(3)], ids=repr)
def test_numpy_integers_and_0d_integer_arrays_are_actions(value: object) -> None:
    # What Discrete.sample() and SB3 hand over: the same step as the plain int.
    env, twin = RedDogEnv(), RedDogEnv()
    env.reset(seed=2)
    twin.reset(seed=2)
    a = env.step(value)  # type: ignore[arg-type]
    b = twin.step(3)
    assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
    assert a[4]["last_bet"]["action"] == 3


@pytest.mark.parametrize("value", ["call", "Passive", None, 1, True])
def test_illegal_action_option_accepts_passive_or_raise_only(value: object) -> None:
    assert RedDogEnv().illegal_action == "passive"  # the default
    assert RedDogEnv(illegal_action="raise").illegal_action == "raise"
    with pytest.raises(ConfigError, match=r"illegal_action.*'passive'.*'raise'"):
        RedDogEnv(illegal_action=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("num_players", [2, 6, 10])
@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_any_action_of_the_space_never_raises_over_random_play(num_players: int, mode: str) -> None:
    # Checkers, PPO and DQN step random actions of the space. Every action of the
    # space is legal on the agent's turn in Red Dog, so neither mode refuses one and
    # info["illegal_action"] is present and False in every info.
    total = num_players * 5
    for seed in range(4):
        env = RedDogEnv(num_players=num_players, starting_chips=5, rounds=3 * num_players,
                        illegal_action=mode)  # fmt: skip
        env.action_space.seed(seed)
        _, info = env.reset(seed=seed)
        assert info["illegal_action"] is False
        for _ in range(150):
            _, _, done, _, info = env.step(env.action_space.sample())
            assert info["illegal_action"] is False
            st = env.state
            assert int(st.chips[0].sum() + st.ints[0, 0]) == total
            if done:
                _, info = env.reset()
                assert info["illegal_action"] is False


@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_a_masked_out_action_forfeits_in_passive_mode_and_raises_in_raise_mode(mode: str) -> None:
    # Never reached through the public API (no action of the space is masked out in
    # Red Dog), so the mask is changed here to exercise the shared convention: a
    # masked-out action plays FORFEIT (RULES.md §2), info["illegal_action"] True.
    env = RedDogEnv(num_players=4, illegal_action=mode)
    twin = RedDogEnv(num_players=4)
    env.reset(seed=9)
    twin.reset(seed=9)
    env._legal[4] = 0
    env._legal_list[4] = False
    if mode == "raise":
        before = snapshot(env)
        with pytest.raises(IllegalActionError, match="masked out"):
            env.step(4)
        assert same_state(env, before)
        return
    obs, reward, done, _, info = env.step(4)
    t_obs, t_reward, t_done, _, t_info = twin.step(0)  # FORFEIT
    assert np.array_equal(obs, t_obs) and (reward, done) == (t_reward, t_done)
    assert info["illegal_action"] is True and t_info["illegal_action"] is False
    assert info["last_bet"] == t_info["last_bet"]
    assert info["last_bet"]["kind"] == "forfeit" and info["last_bet"]["action"] == 0
    _, _, _, _, info = env.step(1)  # the flag is about the last step only
    assert info["illegal_action"] is False


def test_random_seat_changes_between_episodes() -> None:
    env = RedDogEnv(num_players=4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {0, 1, 2, 3}


def test_python_policy_opponents_and_render() -> None:
    env = RedDogEnv(num_players=5, opponents=RandomPolicy(0), render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "pot" in text
    done = False
    while not done:
        _obs, _, done, _, _ = env.step(3)
    total = int(env.state.chips[0].sum() + env.state.ints[0, 0])
    assert total == 5 * 50


def test_render_after_the_game_ends_says_game_over_not_a_deal_past_the_last() -> None:
    # Seed 3 with small bets: the agent keeps his seat and the game plays all 4 deals.
    env = RedDogEnv(num_players=4, agent_seat=0, render_mode="ansi")
    env.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, _ = env.step(1)
    st = env.state
    assert st.ints[0, I_PHASE] == PHASE_OVER
    text = env.render()
    assert isinstance(text, str)
    lines = text.splitlines()
    chips = [int(c) for c in st.chips[0, :4]]
    winners = [s for s, c in enumerate(chips) if c == max(chips)]
    assert lines[0].startswith("game over after 4/4 deals")
    assert lines[0].endswith(f"seat {winners[0]}") and len(winners) == 1
    assert not re.search(r"deal \d+/", text)
    for s, c in enumerate(chips):
        assert f"  seat {s}: {c} chips" in lines


def test_config_errors() -> None:
    with pytest.raises(ConfigError):
        RedDogEnv(agent_seat=4)
    with pytest.raises(ConfigError):
        RedDogEnv(bet_fractions=(0.5, 2.0))
    with pytest.raises(ConfigError):
        RedDogEnv(opponent_random_share=1.5)


# ---- issue 12 §4: what the agent's bet turned up, in info and in the render


def stock_and_hands(env: RedDogEnv) -> list[tuple[str, int, int]]:
    """Places of the cards not yet turned: (kind, a, b), hand slots and stock positions."""
    st = env.state
    size = int(st.ints[0, I_HAND_SIZE])
    places = [
        ("h", s, k)
        for s in range(env.config.num_players)
        if st.flags[0, s] & F_SEATED
        for k in range(size)
    ]
    return places + [("d", i, 0) for i in range(int(st.ints[0, I_DECK_POS]), 52)]


def rig(env: RedDogEnv, hand: str, turned: str) -> None:
    """Give the agent ``hand`` and put ``turned`` on top of the stock, by swapping
    cards among the hands and the stock (every card stays exactly once; cards
    already turned or shown stay where they are)."""
    st = env.state
    places = [
        pl
        for pl in stock_and_hands(env)
        if pl[0] == "d" or st.public[0, st.hands[0, pl[1], pl[2]]] == 0
    ]

    def get(pl: tuple[str, int, int]) -> int:
        kind, a, b = pl
        return int(st.hands[0, a, b] if kind == "h" else st.deck[0, a])

    def put(pl: tuple[str, int, int], c: int) -> None:
        kind, a, b = pl
        if kind == "h":
            st.hands[0, a, b] = c
        else:
            st.deck[0, a] = c

    targets = [("h", env.agent_seat, k) for k in range(len(parse_cards(hand)))]
    targets.append(("d", int(st.ints[0, I_DECK_POS]), 0))
    for target, card in zip(targets, [*parse_cards(hand), *parse_cards(turned)], strict=True):
        src = next(pl for pl in places if get(pl) == card)
        other = get(target)
        put(src, other)
        put(target, card)


def first_to_act_seed(num_players: int, before: int) -> int:
    """A seed where ``before`` opponents act before seat 0's first turn."""
    env = RedDogEnv(num_players=num_players, agent_seat=0)
    return next(s for s in range(200) if len(env.reset(seed=s)[1]["opponent_actions"]) == before)


def test_last_bet_of_a_bet_that_wins_the_whole_pot() -> None:
    # Four players, 50 chips, ante 1: the first bettor faces a pot of 4 and holds 49.
    # He holds As Ks Qs Js Ts: he beats the eight spades 2s..9s of the 47 cards he has
    # not seen, p = 8/47. Action 5 bets all of min(4, 49) = 4; the turned 2s loses to
    # his spades, he shows the lowest winning one, Ts, and takes 4 from the pot of 4:
    # the pot is empty and everyone antes again.
    env = RedDogEnv(num_players=4, agent_seat=0, render_mode="ansi")
    env.reset(seed=first_to_act_seed(4, 0))
    assert int(env.state.ints[0, 0]) == 4 and int(env.state.chips[0, 0]) == 49
    rig(env, "As Ks Qs Js Ts", "2s")
    _, reward, _, _, info = env.step(5)
    assert info["last_bet"] == {
        "action": 5,
        "p": pytest.approx(8 / 47),
        "seat": 0,
        "kind": "bet",
        "amount": 4,
        "turned_card": parse_cards("2s")[0],
        "won": True,
        "shown": tuple(parse_cards("Ts")),
        "pot_refilled": True,
        "deal_ended": False,
    }
    assert reward == int(env.state.chips[0, 0]) - 50
    text = env.render()
    assert isinstance(text, str)
    assert (
        "your last action: you bet 4, turned 2s: win, showing Ts; "
        "the pot is empty: everyone antes again (p = 0.170)"
    ) in text


def test_last_bet_of_a_losing_bet_and_of_a_forfeit() -> None:
    # 2c 3c 4c 5c 7c beats only the 6c of the 47 unseen cards: p = 1/47. Action 1 bets
    # 1 chip (fraction 0, at least 1); the turned Ah is no club: he shows his hand.
    env = RedDogEnv(num_players=4, agent_seat=0, render_mode="ansi")
    seed = first_to_act_seed(4, 0)
    env.reset(seed=seed)
    rig(env, "2c 3c 4c 5c 7c", "Ah")
    info = env.step(1)[4]
    assert info["last_bet"] == {
        "action": 1,
        "p": pytest.approx(1 / 47),
        "seat": 0,
        "kind": "bet",
        "amount": 1,
        "turned_card": parse_cards("Ah")[0],
        "won": False,
        "shown": tuple(parse_cards("2c 3c 4c 5c 7c")),
        "pot_refilled": False,
        "deal_ended": False,
    }
    assert "your last action: you bet 1, turned Ah: lose, showing 2c 3c 4c 5c 7c" in str(
        env.render()
    )
    env.reset(seed=seed)
    info = env.step(0)[4]
    bet = info["last_bet"]
    assert (bet["kind"], bet["amount"], bet["turned_card"], bet["won"], bet["shown"]) == (
        "forfeit", 1, -1, False, ()
    )  # fmt: skip
    assert "your last action: you forfeit 1 chip" in str(env.render())


def test_the_render_shows_the_dealers_bet_after_the_next_deal_began() -> None:
    # Heads-up, seat 0 deals first and bets last: its bet ends the deal and the next
    # deal is dealt in the same step. The table's "turned:" line shows the new deal
    # (nothing turned yet), the last action line the card turned against the bet.
    env = RedDogEnv(num_players=2, agent_seat=0, rounds=4, render_mode="ansi")
    _, info = env.reset(seed=first_to_act_seed(2, 1))
    # With this seed the opponent bet 1 and won it, showing one card: pot 2 - 1 = 1,
    # two cards public. 9d 8d 7d 6d 4d then beats 2d 3d 5d of the 45 unseen cards,
    # p = 3/45; action 5 bets min(pot 1, chips 49) = 1; the turned 5d loses to the
    # 6d, the pot is empty (everyone antes again), and the deal ends.
    (opp,) = info["opponent_actions"]
    assert (opp["kind"], opp["amount"], opp["won"], len(opp["shown"])) == ("bet", 1, True, 1)
    assert int(env.state.ints[0, 0]) == 1
    rig(env, "9d 8d 7d 6d 4d", "5d")
    info = env.step(5)[4]
    bet = info["last_bet"]
    assert (bet["amount"], bet["won"], bet["pot_refilled"], bet["deal_ended"]) == (
        1,
        True,
        True,
        True,
    )
    assert bet["p"] == pytest.approx(3 / 45)
    assert bet["turned_card"] == parse_cards("5d")[0]
    text = str(env.render())
    assert text.startswith("deal 2/4")
    assert "turned: \n" in text  # the new deal
    assert (
        "your last action: you bet 1, turned 5d: win, showing 6d; the pot is empty: "
        "everyone antes again; the deal ends (p = 0.067)"
    ) in text


def replay_entry(game: RedDogGame, entry: dict[str, Any]) -> None:
    """Play an action the env's info reports on ``game`` and check its record."""
    assert entry["seat"] == game.to_act
    n = len(game.history)
    if entry["kind"] == "forfeit":
        game.forfeit()
        assert (entry["amount"], entry["turned_card"], entry["won"]) == (1, -1, False)
        assert entry["shown"] == ()
    else:
        rec = game.bet(entry["amount"])
        assert (entry["turned_card"], entry["won"]) == (rec.turned, rec.won)
        assert entry["shown"] == rec.shown
    after = game.history[n + 1 :]
    refill = any(isinstance(r, AnteRecord) and r.reason == "empty pot" for r in after)
    assert entry["pot_refilled"] == refill
    # A deal ends when everyone has bet: a new deal follows, or the last deal was
    # played (the game ends with two or more players still seated).
    ended = any(isinstance(r, DealRecord) for r in after) or (
        game.is_over and len(game.seated) >= 2
    )
    assert entry["deal_ended"] == ended


@pytest.mark.parametrize(
    ("kw", "policy"),
    [
        ({"num_players": 4}, None),
        ({"num_players": 6, "starting_chips": 8, "rounds": 12}, None),
        ({"num_players": 3, "starting_chips": 6, "rounds": 9}, RandomPolicy(5)),
    ],
)
def test_info_tells_every_action_as_the_engine_records_it(
    kw: dict[str, int], policy: RandomPolicy | None
) -> None:
    # Replay each episode on RedDogGame with the env's key: feeding it the actions the
    # info reports (the opponents' before the agent's turn, then the agent's, ...)
    # must give records with the same seat, amount, turned card, outcome, shown cards,
    # refill and deal end, the agent's p, and the env's chips after every step. (The
    # default opponent's random choices draw from the table's stream, which also
    # shuffles the next deal: with opponent_random_share=0 it draws nothing, so the
    # game deals the same cards.)
    seen: Counter[str] = Counter()
    for seed in range(6):
        env = RedDogEnv(
            **kw,  # type: ignore[arg-type]
            agent_seat=seed % kw["num_players"],
            opponents=policy,
            opponent_random_share=0.0,
        )
        _, info = env.reset(seed=seed)
        key = int(seeding.np_random(seed)[0].integers(0, 2**63, dtype=np.int64))
        game = RedDogGame(env.config, key=key)
        assert game.hand(env.agent_seat) == tuple(
            int(c) for c in env.state.hands[0, env.agent_seat] if c >= 0
        )

        rng = np.random.default_rng(seed)
        done = False
        while True:
            assert info["num_opponent_actions"] >= len(info["opponent_actions"])
            for entry in info["opponent_actions"]:
                replay_entry(game, entry)
                seen.update(
                    k for k in ("forfeit", "won", "pot_refilled", "deal_ended") if entry.get(k)
                )
                seen[entry["kind"]] += 1
            if done:
                seen["agent left" if env.agent_seat not in game.seated else "game over"] += 1
                assert game.chips == tuple(
                    int(c) for c in env.state.chips[0, : env.config.num_players]
                ) or info["num_opponent_actions"] > len(info["opponent_actions"])
                break
            assert info["num_opponent_actions"] == len(info["opponent_actions"])
            assert game.chips == tuple(int(c) for c in env.state.chips[0, : env.config.num_players])
            p = game.win_probability(env.agent_seat)
            _, _, done, _, info = env.step(int(rng.integers(0, 6)))
            assert info["last_bet"]["p"] == pytest.approx(p)
            replay_entry(game, info["last_bet"])
            seen["agent " + info["last_bet"]["kind"]] += 1
    # The cases the replay met: both kinds from both sides, wins, refills, deal ends.
    assert min(seen[k] for k in ("bet", "won", "pot_refilled", "deal_ended", "agent bet")) > 0
    assert seen["agent forfeit"] > 0 and seen["game over"] > 0


def test_an_opponent_policy_answering_a_non_action_is_refused_naming_its_seat() -> None:
    class Floaty:
        def act(self, observation: object, action_mask: object) -> float:
            return 1.5

    env = RedDogEnv(num_players=3, agent_seat=0, opponents=Floaty())  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match=r"1\.5.*opponent at seat [12]"):
        for seed in range(5):  # some seed has an opponent act before seat 0
            env.reset(seed=seed)
            env.step(1)


def test_own_action_dict_is_action_dict_with_action_and_p_first() -> None:
    # The one-literal last_bet equals the reference: action and p, then action_dict's
    # entries, in that order (the AEC trajectories compare infos key by key).
    from poker_env.episode.red_dog import action_dict, own_action_dict
    from poker_env.games.red_dog_kernels import E_KIND, E_NSHOWN, NUM_EVENTS

    rng = np.random.default_rng(7)
    for _ in range(500):
        row = rng.integers(-1, 52, NUM_EVENTS).tolist()
        row[E_KIND] = int(rng.integers(0, 2))
        row[E_NSHOWN] = int(rng.integers(0, 6))
        a, p = int(rng.integers(0, 6)), float(rng.random())
        want = {"action": a, "p": p, **action_dict(row)}
        assert list(own_action_dict(a, p, row).items()) == list(want.items())
        assert list(own_action_dict(a, p, row).items()) == list(
            {"action": a, "p": p, **action_dict(np.array(row, np.int64))}.items()
        )
