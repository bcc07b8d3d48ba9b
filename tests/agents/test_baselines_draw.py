"""Five-card draw baselines: legality, act == act_batch, hand-worked play, strength."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from poker_env.cards import format_cards, parse_cards
from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.evaluator import draw_equity
from poker_env.policy import BatchPolicy, Policy, RandomPolicy
from poker_env.vector.draw import DrawVectorEnv
from poker_env_agents.baselines.draw import DrawCallStation, DrawHeuristic

K = 4  # bet sizes of the default pot fractions (0.5, 1, 2) plus all-in
DRAW0 = 2 + K  # action of discard mask 0
BUY_BACK = 2 + K + 32


def _states(
    env: FiveCardDrawEnv | DrawMatchEnv, seeds: range, agent: Policy
) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """Every (observation, mask) the agent decides on over a few episodes, the agent
    under test choosing (the env refuses a masked action: a legality check)."""
    rows, masks = [], []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            rows.append(obs)
            masks.append(info["action_mask"])
            obs, _, term, trunc, info = env.step(agent.act(obs, info["action_mask"]))
            done = term or trunc
    return np.array(rows), np.array(masks)


def _envs() -> list[FiveCardDrawEnv | DrawMatchEnv]:
    return [
        FiveCardDrawEnv(agent_seat=0),
        FiveCardDrawEnv(agent_seat=1, deck=32, pot_fractions=(0.25, 1.0, 3.0, 5.0)),
        # Short money: she stakes, loses and buys back items (BUY_BACK offered).
        DrawMatchEnv(agent_seat="computer", starting_money=50, item_value=25, max_hands=150),
        DrawMatchEnv(agent_seat="human", starting_money=60, max_hands=60),
    ]


def _policies(env: FiveCardDrawEnv | DrawMatchEnv, seed: int) -> list[Policy]:
    deck = env.config.deck
    return [
        DrawHeuristic(seed, deck=deck, pot_fractions=env.pot_fractions),
        DrawCallStation(),
        RandomPolicy(seed),
    ]


def test_protocols() -> None:
    for policy in (DrawHeuristic(0), DrawCallStation()):
        assert isinstance(policy, Policy)
        assert isinstance(policy, BatchPolicy)


@pytest.mark.parametrize("env_index", range(4))
def test_only_legal_actions_and_act_equals_act_batch(env_index: int) -> None:
    env = _envs()[env_index]
    for seed in (0, 1):
        for policy in _policies(env, seed):
            # The policy plays the agent seat; the env raises on a masked action.
            obs, masks = _states(env, range(10 * seed, 10 * seed + 4), policy)
            assert {int(p) for p in obs[:, 57]} <= {0, 1, 2, 4}
            # Replayed on the recorded states: act row by row equals act_batch, given
            # the same seed, and every pick is legal.
            fresh = _policies(env, 100 + seed)
            again = _policies(env, 100 + seed)
            for one, batch in zip(fresh, again, strict=True):
                singles = np.array([one.act(o, m) for o, m in zip(obs, masks, strict=True)])
                batched = batch.act_batch(obs, masks)  # type: ignore[attr-defined]
                assert batched.dtype == np.int64
                assert (singles == batched).all()
                assert (masks[np.arange(len(masks)), batched] == 1).all()


def test_buy_back_states_are_reached_and_taken() -> None:
    env = _envs()[2]
    obs, masks = _states(env, range(12), RandomPolicy(5))
    offered = (obs[:, 57] == 4) & (masks[:, BUY_BACK] == 1)
    assert offered.sum() >= 3
    for policy in (DrawHeuristic(0), DrawCallStation()):
        assert (policy.act_batch(obs[offered], masks[offered]) == BUY_BACK).all()


def _obs(
    cards: str, phase: int, *, pot: int = 10, to_call: int = 0, raises: int = 0
) -> NDArray[np.float32]:
    """An observation built from the documented layout (the rest zero)."""
    o = np.zeros(124, np.float32)
    hand = parse_cards(cards)
    o[0:5] = hand
    o[5 + hand.astype(np.int64)] = 1
    o[57] = phase
    o[59] = pot
    o[60] = o[61] = 400
    o[64] = to_call
    o[65] = raises
    o[66] = o[67] = -1
    return o


def _betting_mask() -> NDArray[np.int8]:
    m = np.zeros(2 + K + 33, np.int8)
    m[0 : 2 + K] = 1  # DROP, the passive action, every size
    return m


def _draw_mask() -> NDArray[np.int8]:
    m = np.zeros(2 + K + 33, np.int8)
    m[DRAW0 : DRAW0 + 32] = 1
    return m


# Hands whose best discard is clear (draw_equity's Monte Carlo leader by >= 2.5 of its
# standard errors at 20,000 samples), with the cards to throw, worked by hand.
CLEAR_DRAWS = [
    ("5c 6d 7h 8s 9c", ""),  # pat straight
    ("2h 5h 9h Jh Kh", ""),  # pat flush
    ("Kc Kd Ks 4h 4d", ""),  # full house
    ("4c 4d 4h 9s 9d", ""),  # full house
    ("Th 9h 8h 7h 6h", ""),  # straight flush
    ("2c 2d 9h 6s Kd", "9h 6s Kd"),  # a low pair: draw three
    ("5h 5c Jd 8s 3c", "Jd 8s 3c"),  # a low pair: draw three
    ("Jc Jd 5h 5s 9c", "9c"),  # two pair: draw one
    ("Ah Kh Qh Jh 3c", "3c"),  # four to a flush
    ("9s Ts Js Qs 2d", "2d"),  # four to a straight flush
    ("Ac 7d 4h 3s 2c", "7d 4h 3s 2c"),  # nothing: keep the ace
    ("Ks Qd 9h 6c 3d", "9h 6c 3d"),  # nothing: keep king-queen
]


@pytest.mark.parametrize(("cards", "thrown"), CLEAR_DRAWS)
def test_discard_is_draw_equity_best(cards: str, thrown: str) -> None:
    a = DrawHeuristic(0).act(_obs(cards, 1), _draw_mask())
    mask = a - DRAW0
    hand = parse_cards(cards)
    assert format_cards([c for j, c in enumerate(hand) if mask >> j & 1]) == thrown
    assert mask == draw_equity(cards, rng=0).best()


def test_discards_three_to_a_pair_and_keeps_a_pat_straight_short_deck() -> None:
    policy = DrawHeuristic(0, deck=32)
    assert policy.act(_obs("7c 8d 9h Ts Jc", 1), _draw_mask()) == DRAW0  # pat straight
    a = policy.act(_obs("8c 8d Qh Ks 7c", 1), _draw_mask())
    hand = parse_cards("8c 8d Qh Ks 7c")
    assert format_cards([c for j, c in enumerate(hand) if (a - DRAW0) >> j & 1]) == "Qh Ks 7c"


def test_bets_and_raises_by_strength() -> None:
    policy = DrawHeuristic(0, bluff=0.0)
    open_mask, facing_mask = _betting_mask(), _betting_mask()
    # Pre-draw, nothing to call: trash checks, a pat straight bets big, trips bet.
    assert policy.act(_obs("7c 5d 4h 3s 9c", 0), open_mask) == 1
    straight = policy.act(_obs("5c 6d 7h 8s 9c", 0), open_mask)
    trips = policy.act(_obs("8c 8d 8h Kc 3d", 0), open_mask)
    assert straight >= 2 and trips >= 2
    assert straight >= trips  # sizes grow with strength (in amount order here)
    # Facing a pot-size bet (price 1/3): trash drops, a pat straight raises.
    assert policy.act(_obs("7c 5d 4h 3s 9c", 0, pot=30, to_call=10, raises=1), facing_mask) == 0
    assert policy.act(_obs("5c 6d 7h 8s 9c", 0, pot=30, to_call=10, raises=1), facing_mask) >= 2
    # After the draw: a flush bets, a queen-high hand checks (the passive CALL shows down).
    assert policy.act(_obs("2h 5h 9h Jh Kh", 2), open_mask) >= 2
    assert policy.act(_obs("Qc 9d 6h 4s 2c", 2), open_mask) == 1
    # A cheap call (price 1/11) with a middle pair is taken, not dropped.
    assert policy.act(_obs("9c 9d Kh 4s 2h", 2, pot=100, to_call=10, raises=1), facing_mask) == 1


def test_bluffs_at_the_given_rate_with_a_seeded_generator() -> None:
    trash = np.stack([_obs("7c 5d 4h 3s 9c", 0)] * 4000)
    masks = np.stack([_betting_mask()] * 4000)
    acts = DrawHeuristic(3, bluff=0.05).act_batch(trash, masks)
    rate = float((acts >= 2).mean())
    assert 0.035 < rate < 0.065  # 0.05 +- 4.3 standard errors
    assert (acts[acts >= 2] == 2).all()  # a bluff bets the smallest size
    again = DrawHeuristic(3, bluff=0.05).act_batch(trash, masks)
    assert (acts == again).all()


def test_call_station_checks_calls_and_keeps_every_card() -> None:
    station = DrawCallStation()
    env = FiveCardDrawEnv(agent_seat=0)
    obs, masks = _states(env, range(6), RandomPolicy(2))
    acts = station.act_batch(obs, masks)
    assert (acts != 0).all()  # never drops
    betting = obs[:, 57] != 1
    assert (acts[betting] == 1).all()
    assert (acts[~betting] == DRAW0).all()


def test_refuses_mismatched_options() -> None:
    mask = _betting_mask()
    with pytest.raises(ValueError, match="pot_fractions"):
        DrawHeuristic(0, pot_fractions=(0.5, 1.0)).act(_obs("7c 5d 4h 3s 9c", 0), mask)
    with pytest.raises(ValueError, match="outside the short deck"):
        DrawHeuristic(0, deck=32).act(_obs("2c 5d 4h 3s 9c", 0), mask)
    with pytest.raises(ValueError, match="124 entries"):
        DrawHeuristic(0).act(np.zeros(100, np.float32), mask)
    with pytest.raises(ValueError, match="bluff"):
        DrawHeuristic(0, bluff=1.5)


def _match(agent: BatchPolicy, opponent: BatchPolicy, **rules: object) -> tuple[float, float, int]:
    """Mean antes per pot for the agent, its 95% half-width and the pots played."""
    env = DrawVectorEnv(256, opponent=opponent, **rules)  # type: ignore[arg-type]
    obs, info = env.reset(seed=11)
    results: list[float] = []
    for _ in range(40):
        obs, reward, term, _, info = env.step(agent.act_batch(obs, info["action_mask"]))
        results.extend(reward[term].tolist())
    x = np.array(results)
    return float(x.mean()), float(1.96 * x.std() / np.sqrt(x.size)), int(x.size)


@pytest.mark.parametrize("deck", [52, 32])
def test_heuristic_beats_random_and_the_call_station(deck: int) -> None:
    for opponent in (RandomPolicy(7), DrawCallStation()):
        mean, half, pots = _match(DrawHeuristic(1, deck=deck), opponent, deck=deck)
        assert pots > 2000
        assert mean - half > 0, (type(opponent).__name__, mean, half)


def test_heuristic_and_call_station_play_inside_the_vector_env() -> None:
    # As the env's opponent= (a BatchPolicy called on every waiting table at once; the
    # env refuses a masked action), against a random agent, both seats.
    for seat in (0, 1):
        for opponent in (DrawHeuristic(2, deck=32), DrawCallStation()):
            env = DrawVectorEnv(64, agent_seat=seat, opponent=opponent, deck=32)
            obs, info = env.reset(seed=seat)
            agent = RandomPolicy(seat)
            ends = 0
            for _ in range(30):
                obs, _, term, _, info = env.step(agent.act_batch(obs, info["action_mask"]))
                ends += int(term.sum())
            assert ends > 100
