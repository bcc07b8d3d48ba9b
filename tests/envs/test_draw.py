"""FiveCardDraw-v0 and DrawMatch-v0: API checkers, documented spaces, hidden information."""

from __future__ import annotations

import copy
import pickle
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import poker_env  # noqa: F401  (registers the ids)
from poker_env.cards import parse_cards
from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.episode import draw as enc
from poker_env.errors import ConfigError, EpisodeFinishedError, IllegalActionError
from poker_env.evaluator import evaluate
from poker_env.games import draw_layout as L
from poker_env.games.draw import DrawConfig
from poker_env.policy import RandomPolicy

IDS = ["poker_env/FiveCardDraw-v0", "poker_env/DrawMatch-v0"]


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "mask empty before the end"
    return int(legal[rng.integers(legal.size)])


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env(env_id: str) -> None:
    # Defaults only: the checkers step random actions of the space (issue 12 §1).
    env = gym.make(env_id, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_check_env(env_id: str) -> None:
    sb3_check_env(gym.make(env_id).unwrapped, warn=False)


def test_match_env_as_computer_passes_check_env() -> None:
    check_env(DrawMatchEnv(agent_seat="computer"))


def _parse_range(text: str, cfg: DrawConfig) -> tuple[float, float]:
    sym = {
        "T": cfg.total_chips,
        "R": cfg.max_raises,
        "N": len(cfg.wardrobe),
        "V": len(cfg.wardrobe) * cfg.item_value,
    }
    lo, hi = (x.strip() for x in text.split(".."))

    def val(x: str) -> float:
        neg = x.startswith("-")
        x = x.lstrip("-")
        v = float(sym[x]) if x in sym else float(x)
        return -v if neg else v

    return val(lo), val(hi)


@pytest.mark.parametrize("cls", [FiveCardDrawEnv, DrawMatchEnv])
def test_docstring_observation_table_matches_the_space(cls: type) -> None:
    env = cls()
    space = env.observation_space
    doc = cls.__doc__
    rows = re.findall(r"^\s*\|\s*(\d+(?::\d+)?)\s*\|(.*)\|\s*([^|]+?)\s*\|\s*$", doc, re.M)
    covered = np.zeros(space.shape[0], bool)
    for sl, _meaning, rng_text in rows:
        a, b = (int(x) for x in sl.split(":")) if ":" in sl else (int(sl), int(sl) + 1)
        covered[a:b] = True
        if ".." not in rng_text:
            continue  # the history row is described in the text below the table
        lo, hi = _parse_range(rng_text, env.config)
        assert np.all(space.low[a:b] == lo), sl
        assert np.all(space.high[a:b] == hi), sl
    assert covered.all()
    assert space.shape == (enc.OBS_SIZE,) == (124,)
    # The history: who -1..1, action -1..8, amount 0..T.
    h = space.low[76:].reshape(-1, 3), space.high[76:].reshape(-1, 3)
    assert (h[0][:, 0] == -1).all() and (h[1][:, 0] == 1).all()
    assert (h[0][:, 1] == -1).all() and (h[1][:, 1] == 8).all()
    assert (h[0][:, 2] == 0).all() and (h[1][:, 2] == env.config.total_chips).all()


def test_action_space_layout_is_documented() -> None:
    env = FiveCardDrawEnv(pot_fractions=(0.5, 1.0))
    # 2 + K + 33 with K = 2 fractions + all-in.
    assert env.action_space.n == 2 + 3 + 33


def test_observation_unchanged_when_hidden_cards_are_shuffled() -> None:
    env = FiveCardDrawEnv()
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        s = env._s
        # Hidden from the agent: the opponent's hand and the stock not yet dealt.
        opp = 1 - env.agent_seat
        hidden = [L.S_HANDS + 5 * opp + i for i in range(5)] + [
            L.S_DECK + i for i in range(int(s[L.S_DECK_POS]), env.config.num_cards)
        ]
        s2 = s.copy()
        s2[hidden] = s[hidden][rng.permutation(len(hidden))]
        o1 = np.zeros(enc.OBS_SIZE, np.float32)
        o2 = np.zeros(enc.OBS_SIZE, np.float32)
        enc.encode_obs(s, env._cfg, env.agent_seat, o1)
        enc.encode_obs(s2, env._cfg, env.agent_seat, o2)
        assert np.array_equal(o1, o2)
        assert np.array_equal(o1, obs)
        checked += 1
        obs, _r, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term or trunc:
            obs, info = env.reset()
    assert checked == 300


def test_reset_with_a_seed_is_reproducible() -> None:
    def play(seed: int) -> list[tuple[bytes, float]]:
        env = FiveCardDrawEnv()
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = []
        for _ in range(200):
            obs, r, term, _trunc, info = env.step(random_legal(rng, info["action_mask"]))
            out.append((obs.tobytes(), float(r)))
            if term:
                obs, info = env.reset()
        return out

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_rule_drop_at_first_decision_loses_the_ante() -> None:
    # The agent's only chips in the pot are its ante: 5 / ante 5 = -1.
    for seed in range(10):
        env = FiveCardDrawEnv()
        env.reset(seed=seed)
        _, r, term, trunc, _ = env.step(0)
        assert (r, term, trunc) == (-1.0, True, False)


def test_rewards_sum_to_chips_won_over_antes() -> None:
    env = FiveCardDrawEnv(ante=5)
    _obs, info = env.reset(seed=3)
    rng = np.random.default_rng(2)
    for _ in range(500):
        _obs, r, term, _trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term:
            stack = int(env._s[L.S_STACK + env.agent_seat])
            assert r == (stack - 500) / 5
            _obs, info = env.reset()
        else:
            assert r == 0.0


def _table(env: FiveCardDrawEnv) -> list[np.ndarray]:
    # Everything the env's table holds (its state record, the env's parameters, the
    # view and mask), copied.
    pr = env._params
    return [
        np.array(a, copy=True) for a in (*env._state, pr.cfg, pr.ep, pr.fp, env._obs, env._mask)
    ]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_strict_mode_masked_out_action_raises_and_changes_nothing() -> None:
    env = FiveCardDrawEnv(illegal_action="raise")
    _obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = _table(env)
    with pytest.raises(IllegalActionError) as e:
        env.step(bad)
    assert e.value.action == bad and "masked out" in str(e.value)
    assert e.value.legal == np.flatnonzero(info["action_mask"]).tolist()
    assert _same(_table(env), before)
    assert np.array_equal(env.action_masks(), info["action_mask"])


def test_mask_is_exactly_the_legal_set_and_dedups_sizes() -> None:
    # start 8, ante 5: 3 chips each; min_bet 5 > 3: every size is the same all-in of 3.
    env = FiveCardDrawEnv(starting_money=8, ante=5, wardrobe=())
    for seed in range(20):
        _obs, info = env.reset(seed=seed)
        m = info["action_mask"]
        if m[2:6].any():
            assert m[2:6].tolist() == [1, 0, 0, 0]
            assert m[0] == 1 and m[1] == 1 and m[6:].sum() == 0
            return
    raise AssertionError("no state with a bet")


def test_rule_draw_phase_offers_the_32_discards_only() -> None:
    env = FiveCardDrawEnv()
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = info["action_mask"]
        if obs[57] == L.PH_DRAW:
            assert m[6:38].all() and m[:6].sum() == 0 and m[38] == 0
        obs, _r, term, _trunc, info = env.step(random_legal(rng, m))
        if term:
            obs, info = env.reset()


def test_python_policy_opponent() -> None:
    env = gym.make("poker_env/FiveCardDraw-v0", opponent=RandomPolicy(3), agent_seat=1)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(4)
    ends = 0
    for _ in range(300):
        _obs, _r, term, _trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term:
            ends += 1
            _obs, info = env.reset()
    assert ends > 10


def test_render_ansi_shows_own_cards_pot_money_wardrobe() -> None:
    env = FiveCardDrawEnv(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text is not None
    assert "your cards" in text and "pot: 10" in text and "hat" in text and "money" in text


def test_match_env_computer_gets_buy_back_decisions_and_match_bonus() -> None:
    env = DrawMatchEnv(agent_seat="computer", starting_money=60, item_value=20, match_bonus=100.0)
    rng = np.random.default_rng(5)
    saw_buy_back = False
    finals = []
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        total = 0.0
        while True:
            m = info["action_mask"]
            if m[-1]:
                saw_buy_back = True
                assert obs[57] == L.PH_BUY_BACK and m.sum() == 2 and m[1] == 1
            obs, r, term, trunc, info = env.step(random_legal(rng, m))
            total += r
            if term or trunc:
                break
        if term:
            finals.append(r)
            # Worth moves between the two seats only: a finished match sums to the
            # change of her worth (in antes) plus or minus the bonus.
            s = env._s
            worth = int(s[L.S_STACK + 1]) + int(s[L.S_WORN]) * 20
            bonus = 100.0 if int(s[L.S_MATCH_WINNER]) == 1 else -100.0
            assert total == pytest.approx((worth - (60 + 6 * 20)) / 5 + bonus)
    assert saw_buy_back
    assert finals


def test_match_env_human_agent_truncates_at_max_hands() -> None:
    env = DrawMatchEnv(agent_seat="human", max_hands=3)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(6)
    for _ in range(200):
        _obs, _r, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term or trunc:
            break
    assert trunc or term
    assert info["hand_no"] <= 4


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"agent_seat": 2}, "agent_seat"),
        ({"pot_fractions": (1.0, 0.5)}, "pot_fractions"),
        ({"render_mode": "human"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"illegal_action": "call"}, "illegal_action"),
        ({"illegal_action": None}, "illegal_action"),
        ({"ante": 0}, "ante"),
        ({"config": DrawConfig(), "ante": 3}, "rules"),
    ],
)
def test_bad_arguments_raise_config_error(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as e:
        FiveCardDrawEnv(**kwargs)  # type: ignore[arg-type]
    assert e.value.field == field


# ----- issue 12: illegal actions, finished episodes, hand records ------------------

K = 4  # default pot_fractions (0.5, 1, 2) + all-in
KEEP_ALL = 2 + K  # the draw's discard mask 0
N_ACTIONS = 2 + K + 33


def passive_of(mask: np.ndarray) -> int:
    # The documented fallback, written out independently of the env: action 1
    # (STAY / DRAW / CALL / SKIP_BUY_BACK) where legal, else keep all five cards.
    if mask[1]:
        return 1
    assert mask[KEEP_ALL] and mask[:KEEP_ALL].sum() == 0, "only the draw lacks action 1"
    return KEEP_ALL


class PassivePolicy:
    """The other seat: always the passive action, never draws (a scripted opponent)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return passive_of(action_mask)


def rig(env: FiveCardDrawEnv | DrawMatchEnv, human: str, computer: str) -> None:
    # Replace both hands of the current deal (no card is drawn afterwards: both keep).
    env._s[L.S_HANDS : L.S_HANDS + 5] = parse_cards(human)
    env._s[L.S_HANDS + 5 : L.S_HANDS + 10] = parse_cards(computer)


def finish_hand_passively(env: FiveCardDrawEnv | DrawMatchEnv, info: dict) -> tuple:
    # The agent plays passively until a hand ends; returns the last step's result.
    while True:
        out = env.step(passive_of(info["action_mask"]))
        info = out[4]
        if info["hands_ended"] or out[2] or out[3]:
            return out


@pytest.mark.parametrize("mode", ["passive", "raise"])
@pytest.mark.parametrize(
    "bad",
    [1.7, "1", True, False, None, 1.0, np.float64(1.0), 39, -1, np.int64(39), 2**70, [1],
     np.array([1])],
)  # fmt: skip
def test_a_value_outside_the_action_space_raises_in_both_modes(mode: str, bad: object) -> None:
    env = FiveCardDrawEnv(illegal_action=mode)
    env.reset(seed=0)
    env._s[L.S_CURSOR] = L.BUF_SIZE - 1  # a step would refill the random buffer first
    before = _table(env)
    with pytest.raises(IllegalActionError) as e:
        env.step(bad)
    assert "an integer in [0, 39)" in str(e.value) and repr(bad) in str(e.value)
    assert _same(_table(env), before)
    env.step(1)  # the env goes on


@pytest.mark.parametrize("value", [np.int64(1), np.int8(1), np.uint16(1), np.array(1), 1])
def test_integers_of_any_numpy_kind_are_actions(value: object) -> None:
    env, twin = FiveCardDrawEnv(), FiveCardDrawEnv()
    env.reset(seed=2)
    twin.reset(seed=2)
    assert np.array_equal(env.step(value)[0], twin.step(1)[0])


@pytest.mark.parametrize(
    ("make", "deck"),
    [
        (lambda d: FiveCardDrawEnv(deck=d), 52),
        (lambda d: FiveCardDrawEnv(deck=d, agent_seat=1), 32),
        (lambda d: DrawMatchEnv(deck=d, starting_money=60, item_value=20), 32),
        (lambda d: DrawMatchEnv(deck=d, agent_seat="computer", starting_money=60, item_value=20), 52),
        (lambda d: DrawMatchEnv(deck=d, agent_seat="computer", starting_money=60, item_value=20), 32),
    ],
)  # fmt: skip
def test_default_mode_accepts_every_action_of_the_space(make: Any, deck: int) -> None:
    # Uniform actions of the whole space, masked or not, several seeds: never an
    # error; a masked-out action is exactly the passive action stepped on a twin env
    # with the same seed, and only then is info["illegal_action"] True.
    env, twin = make(deck), make(deck)
    total = 2 * env.config.starting_money
    rng = np.random.default_rng(deck)
    flagged = kinds = 0
    seen_phases = set()
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        tobs, tinfo = twin.reset(seed=seed)
        for _ in range(400):
            mask = info["action_mask"]
            a = int(rng.integers(N_ACTIONS))
            illegal = not mask[a]
            played = passive_of(mask) if illegal else a
            if illegal:
                seen_phases.add(int(obs[57]))
                before = env._s[L.S_HANDS : L.S_HANDS + 10].copy()
            obs, r, term, trunc, info = env.step(a)
            tobs, tr, tterm, ttrunc, tinfo = twin.step(played)
            assert info["illegal_action"] is illegal and tinfo["illegal_action"] is False
            flagged += illegal
            assert np.array_equal(obs, tobs) and (r, term, trunc) == (tr, tterm, ttrunc)
            assert np.array_equal(info["action_mask"], tinfo["action_mask"])
            assert info["hands_ended"] == tinfo["hands_ended"]
            if illegal and played == KEEP_ALL and not info["hands_ended"]:
                # The draw: the agent kept its five cards.
                seat = env.agent_seat
                now = env._s[L.S_HANDS + 5 * seat : L.S_HANDS + 5 * seat + 5]
                assert np.array_equal(now, before[5 * seat : 5 * seat + 5])
                kinds += 1
            assert (
                int(env._s[L.S_STACK] + env._s[L.S_STACK + 1] + env._s[L.S_POT])
                + int(env._s[L.S_BANK])
                == total
            )
            if term or trunc:
                obs, info = env.reset()
                tobs, tinfo = twin.reset()
    assert flagged > 300  # most uniform actions are masked out
    assert {L.PH_PRE_DRAW, L.PH_DRAW, L.PH_POST_DRAW} <= seen_phases
    assert kinds > 0


def test_passive_action_between_hands_skips_the_buy_back() -> None:
    # DrawMatch-v0 as the computer: at a buy-back decision a masked-out action
    # (DROP, 0) plays SKIP_BUY_BACK: her lost items and her money stay as they were.
    env = DrawMatchEnv(agent_seat="computer", starting_money=60, item_value=20)
    rng = np.random.default_rng(5)
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        while True:
            m = info["action_mask"]
            if obs[57] == L.PH_BUY_BACK:
                assert m.tolist() == [0, 1] + [0] * 36 + [1]
                lost = int(env._s[L.S_LOST])
                obs, _r, _t, _tr, info = env.step(0)
                assert info["illegal_action"] is True
                # Skipped: the next hand was dealt with the same lost items; her
                # money only paid the ante (or she staked for it).
                assert int(env._s[L.S_LOST]) == lost
                assert int(env._s[L.S_BANK]) <= -20 * lost
                return
            obs, _r, term, trunc, info = env.step(random_legal(rng, m))
            if term or trunc:
                break
    raise AssertionError("no buy-back decision reached")


@pytest.mark.parametrize("mode", ["passive", "raise"])
def test_stepping_a_finished_or_never_reset_episode_raises(mode: str) -> None:
    env = FiveCardDrawEnv(illegal_action=mode)
    with pytest.raises(EpisodeFinishedError, match=r"FiveCardDraw-v0.*call reset"):
        env.step(1)
    env.reset(seed=0)
    _o, _r, term, _t, _i = env.step(0)
    assert term
    before = _table(env)
    with pytest.raises(EpisodeFinishedError):
        env.step(1)
    with pytest.raises(EpisodeFinishedError):
        env.step(2.5)  # the episode check comes first
    assert _same(_table(env), before)
    assert isinstance(EpisodeFinishedError(), RuntimeError)


def test_stepping_a_truncated_match_raises() -> None:
    env = DrawMatchEnv(max_hands=1)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        _o, _r, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        if term or trunc:
            break
    with pytest.raises(EpisodeFinishedError, match="DrawMatch-v0"):
        env.step(1)


def test_info_keys_on_every_step() -> None:
    env = DrawMatchEnv(agent_seat="computer", starting_money=60, item_value=20)
    _obs, info = env.reset(seed=1)
    assert info["illegal_action"] is False and info["hands_ended"] == ()
    rng = np.random.default_rng(1)
    for _ in range(300):
        _o, _r, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        assert {"action_mask", "illegal_action", "hands_ended", "last_hand", "hand_no"} <= set(info)
        assert info["illegal_action"] is False
        if info["hands_ended"]:
            assert info["last_hand"] == info["hands_ended"][-1]
        if term or trunc:
            _obs, info = env.reset()


def _hand(
    hand_no: int, winner: int | None, how: str, pot: int, stacks: tuple[int, int], **kw: Any
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "hand_no": hand_no,
        "winner": winner,
        "how": how,
        "pot": pot,
        "hands": None,
        "hand_names": None,
        "ranks": None,
        "stacks": stacks,
        "items_staked": (),
        "items_lost": (),
        "items_redeemed": (),
        "item_bought_back": None,
        "buy_back_price": 0,
        "match_winner": None,
        "ante_pot": 0,
    }
    d.update(kw)
    if d["hands"] is not None:
        d["ranks"] = tuple(int(evaluate(parse_cards(h))) for h in d["hands"])
    return d


@pytest.mark.parametrize("agent_seat", [0, 1])
def test_showdown_info_and_render_show_both_hands_named_and_the_winner(agent_seat: int) -> None:
    # Rigged deal: the human holds two pair, kings and sevens; the computer a pair
    # of aces. Both check through and keep their cards: the human takes the antes.
    env = FiveCardDrawEnv(agent_seat=agent_seat, opponent=PassivePolicy(), render_mode="ansi")
    _obs, info = env.reset(seed=0)
    rig(env, "Kh Kd 7s 7c 2h", "As Ad 3c 4h 9s")
    _o, r, term, _t, info = finish_hand_passively(env, info)
    assert term and r == (1.0 if agent_seat == 0 else -1.0)
    expected = _hand(
        1, 0, "showdown", 10, (505, 495),
        hands=("Kh Kd 7s 7c 2h", "As Ad 3c 4h 9s"),
        hand_names=("Two Pair, Kings and Sevens", "Pair, Aces"),
    )  # fmt: skip
    assert info["hands_ended"] == (expected,) and info["last_hand"] == expected
    text = env.render()
    assert text is not None
    me, other = ("you", "opponent") if agent_seat == 0 else ("opponent", "you")
    assert re.search(rf"{me}\s+Kh Kd 7s 7c 2h\s+Two Pair, Kings and Sevens", text)
    assert re.search(rf"{other}\s+As Ad 3c 4h 9s\s+Pair, Aces", text)
    assert f"{me} won the pot of 10" in text


def test_tie_carries_the_pot_over_and_says_so() -> None:
    # RULES.md §1: a tie leaves the pot; the next hand, with new antes, is for it.
    env = FiveCardDrawEnv(opponent=PassivePolicy(), render_mode="ansi")
    _obs, info = env.reset(seed=3)
    rig(env, "Kh Kd 7s 7c 2h", "Ks Kc 7h 7d 2d")
    obs, r, term, _t, info = finish_hand_passively(env, info)
    assert not term and r == 0.0
    assert info["hands_ended"] == (
        _hand(
            1, None, "showdown", 10, (495, 495),
            hands=("Kh Kd 7s 7c 2h", "Ks Kc 7h 7d 2d"),
            hand_names=("Two Pair, Kings and Sevens", "Two Pair, Kings and Sevens"),
        ),
    )  # fmt: skip
    assert obs[59] == 20  # the tied pot plus two new antes
    text = env.render()
    assert text is not None
    assert "tie: the pot of 10 carries over to the next hand" in text
    # Hand 2 decides the 20 chips: the human wins it, +10 chips net = +2 antes.
    rig(env, "Ac Ad Ah 2c 3d", "Kc Qd 9h 5s 4c")
    _o, r, term, _t, info = finish_hand_passively(env, info)
    assert term and r == 2.0
    assert info["hands_ended"][0]["pot"] == 20 and info["hands_ended"][0]["winner"] == 0
    assert info["hands_ended"][0]["hand_names"] == ("Three of a Kind, Aces", "High Card, King high")


def test_drop_info_and_render_show_no_cards() -> None:
    env = FiveCardDrawEnv(opponent=PassivePolicy(), render_mode="ansi")
    env.reset(seed=4)
    _o, r, term, _t, info = env.step(0)
    assert term and r == -1.0
    assert info["hands_ended"] == (_hand(1, 1, "drop", 10, (495, 505)),)
    text = env.render()
    assert text is not None
    assert "you dropped: opponent won the pot of 10" in text and "Pair" not in text


def test_match_shows_the_hand_that_ended_before_the_next_deal_with_stakes_and_buy_back() -> None:
    # Hand-worked match: 10 chips each, ante 5, two items worth 10, no reserve.
    env = DrawMatchEnv(
        opponent=PassivePolicy(), render_mode="ansi", starting_money=10, ante=5,
        wardrobe=("hat", "scarf"), item_value=10, buyback_reserve=0,
    )  # fmt: skip
    _obs, info = env.reset(seed=0)
    # Hand 1: the human bets his last 5, she calls with her last 5; he wins 20.
    rig(env, "As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c")
    _obs, r, term, _t, info = env.step(2)
    assert not term
    _o, r, term, _t, info = finish_hand_passively(env, info)
    assert (r, term, info["hand_no"]) == (2.0, False, 2)
    assert info["last_hand"] == _hand(
        1, 0, "showdown", 20, (20, 0),
        hands=("As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c"),
        hand_names=("Three of a Kind, Aces", "High Card, King high"),
    )  # fmt: skip
    text = env.render()
    assert text is not None
    # The render shows the ended hand and, below it, the new deal.
    assert text.index("Last hand (1): showdown") < text.index("hand 2, before the draw")
    # Hand 2: she could not pay the ante and staked the hat (she holds 5, he 15).
    assert env._s[L.S_STACK + 1] == 5 and env._s[L.S_STACK] == 15
    rig(env, "As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c")
    _o, r, term, _t, info = finish_hand_passively(env, info)
    assert r == 1.0
    assert info["hands_ended"][0] == _hand(
        2, 0, "showdown", 10, (25, 5),
        hands=("As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c"),
        hand_names=("Three of a Kind, Aces", "High Card, King high"),
        items_staked=("hat",), items_lost=("hat",),
    )  # fmt: skip
    text = env.render()
    assert text is not None and "she lost: hat" in text
    # Hand 3: she wins 10 (money 10 = item value + reserve 0) and buys the hat back.
    rig(env, "Kc Qd 9h 5s 4c", "As Ah Ad 2c 3d")
    _o, r, term, _t, info = finish_hand_passively(env, info)
    assert r == -1.0
    assert info["hands_ended"][0] == _hand(
        3, 1, "showdown", 10, (20, 10),
        hands=("Kc Qd 9h 5s 4c", "As Ah Ad 2c 3d"),
        hand_names=("High Card, King high", "Three of a Kind, Aces"),
        item_bought_back="hat", buy_back_price=10,
    )  # fmt: skip
    text = env.render()
    assert text is not None and "then she bought back the hat for 10" in text
    # Hand 4's ante: she had 0 after the buy-back and staked the hat again.
    s = env._s
    assert (int(s[L.S_STACK]), int(s[L.S_STACK + 1]), int(s[L.S_BANK])) == (15, 5, -10)


def test_match_end_is_in_the_last_hand() -> None:
    # 10 chips each, no wardrobe: the human wins her 10 and she cannot pay the ante.
    env = DrawMatchEnv(
        opponent=PassivePolicy(), render_mode="ansi", starting_money=10, ante=5, wardrobe=(),
        match_bonus=3.0,
    )  # fmt: skip
    _obs, info = env.reset(seed=0)
    rig(env, "As Ah Ad 2c 3d", "Kc Qd 9h 5s 4c")
    env.step(2)
    _o, r, term, _t, info = finish_hand_passively(env, info)
    assert term and r == 2.0 + 3.0
    assert info["last_hand"]["match_winner"] == 0 and info["last_hand"]["pot"] == 20
    text = env.render()
    assert text is not None
    assert "match over (she cannot pay the ante and has nothing left to stake): you won" in text


def test_docs_action_count_matches_the_space() -> None:
    # docs/draw.md states the default action count; the space is the fact.
    text = (Path(__file__).parents[2] / "docs" / "draw.md").read_text()
    n = int(re.search(r"so (\d+) actions", text).group(1))  # type: ignore[union-attr]
    assert n == FiveCardDrawEnv().action_space.n == N_ACTIONS


def test_hand_records_are_read_only_mappings_that_pickle() -> None:
    env = FiveCardDrawEnv(opponent=PassivePolicy())
    _obs, info = env.reset(seed=0)
    rig(env, "Kh Kd 7s 7c 2h", "As Ad 3c 4h 9s")
    info = finish_hand_passively(env, info)[4]
    rec = info["last_hand"]
    plain = dict(rec)
    assert list(plain) == list(enc.HAND_KEYS) and plain["hand_names"][1] == "Pair, Aces"
    assert pickle.loads(pickle.dumps(rec)) == rec == plain
    assert copy.deepcopy(rec) == plain
    with pytest.raises(TypeError):
        rec["winner"] = 1  # type: ignore[index]
    assert "Two Pair, Kings and Sevens" in repr(rec)


@pytest.mark.parametrize("make", [lambda: DrawMatchEnv(agent_seat="computer"), FiveCardDrawEnv])
def test_every_steps_records_are_the_rings_records(make: Any) -> None:
    # The step reads the record ring through views of its slots (enc.read_records);
    # the reference slices the raw ring by its layout (RC_SLOTS, REC_SIZE, NUM_RECORDS):
    # after every step of random play, hands_ended holds exactly the records written
    # since the last step (several hands in one step, buy-backs and match ends
    # included) and last_hand the newest.
    def record(j: int) -> enc.HandRecord:
        b = enc.RC_SLOTS + enc.REC_SIZE * (j % enc.NUM_RECORDS)
        return enc.HandRecord(env._rec[b : b + enc.REC_SIZE].tolist(), env.config)

    env = make()
    rng = np.random.default_rng(11)
    kinds = {"one": 0, "several": 0, "updated": 0}
    for seed in range(30):
        _, info = env.reset(seed=seed)
        seen, writes = int(env._rec[enc.RC_NUM]), int(env._rec[enc.RC_WRITES])
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(rng.choice(legal)))
            done = term or trunc
            num = int(env._rec[enc.RC_NUM])
            kept = range(max(seen, num - enc.NUM_RECORDS), num)  # the ring keeps four
            assert info["hands_ended"] == tuple(record(j) for j in kept)
            assert info["last_hand"] == (record(num - 1) if num else None)
            assert env.last_hand() == info["last_hand"]
            if num - seen == 1:
                kinds["one"] += 1
            elif num - seen > 1:
                kinds["several"] += 1
            elif int(env._rec[enc.RC_WRITES]) != writes:
                kinds["updated"] += 1
            seen, writes = num, int(env._rec[enc.RC_WRITES])
    assert kinds["one"] >= 30, kinds
    if isinstance(env, DrawMatchEnv):  # a match: several hands a step, buy-backs
        assert kinds["several"] + kinds["updated"] > 0, kinds
