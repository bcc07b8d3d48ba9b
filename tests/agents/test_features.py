"""poker_env_agents.features: hand-strength columns computed from observations, and policy files
that read them (the runtime computes them; training appends them)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import poker_env  # noqa: F401  (registers the ids)
from poker_env.cards import parse_cards
from poker_env.envs.draw import FiveCardDrawEnv
from poker_env.envs.holdem import HoldemEnv
from poker_env.errors import ConfigError
from poker_env_agents.baselines.draw import DrawHeuristic
from poker_env_agents.features import DrawStrength, HoldemEquity, make_features
from poker_env_agents.registry import get_game
from poker_env_agents.runtime import PolicyFileError, load_policy
from poker_env_agents.training.export import write_policy
from poker_env_agents.training.sb3 import PokerVecEnv
from tests.agents.test_runtime import draw_observations

DRAW_OBS, DRAW_ACTIONS = 124, 39
FIRST_DISCARD = 2 + 4  # DROP, passive, 3 pot fractions, all-in


def draw_obs(cards: str, phase: int) -> np.ndarray:
    obs = np.zeros(DRAW_OBS, np.float32)
    obs[0:5] = parse_cards(cards)
    obs[57] = phase
    return obs


def test_draw_strength_hand_worked_discards() -> None:
    f = DrawStrength(52)
    rows = np.stack(
        [
            draw_obs("As Ad 7c 8h 2s", 1),  # keep the aces: replace slots 2, 3, 4 (mask 28)
            draw_obs("As Ks Qs Js Ts", 1),  # royal flush: stand pat (mask 0)
            draw_obs("2c 7d 9h Jh Qh", 3),  # hand over: no columns
        ]
    )
    x = f(rows)
    assert x.shape == (3, 67) and x.dtype == np.float32
    assert np.flatnonzero(x[0, 32:64]).tolist() == [28] and x[0, 28] == 0.0
    assert np.flatnonzero(x[1, 32:64]).tolist() == [0]
    assert x[1, 65] > 0.99  # a royal flush beats nearly every final hand
    assert np.all(x[:2, :32] <= 0) and np.all(x[:2, :32] >= -1)
    assert not x[2].any()
    # After the draw, column 66 is the pat strength; before it, the draw strength.
    post = f(draw_obs("As Ad 7c 8h 2s", 2)[None])[0]
    pre = f(draw_obs("As Ad 7c 8h 2s", 0)[None])[0]
    assert post[66] == post[65] and pre[66] == pre[64]


@pytest.mark.parametrize("deck", [52, 32])
def test_draw_strength_best_discard_is_the_heuristic_s(deck: int) -> None:
    # The heuristic discards by the exact equities; the one-hot names the same mask.
    obs, masks = draw_observations(600, seed=deck, deck=deck)
    draw_rows = obs[:, 57] == 1
    assert draw_rows.sum() > 50
    x = DrawStrength(deck)(obs[draw_rows])
    heur = DrawHeuristic(0, deck=deck).act_batch(obs[draw_rows], masks[draw_rows])
    assert np.array_equal(heur - FIRST_DISCARD, x[:, 32:64].argmax(axis=1))


def test_holdem_equity_matches_the_env_s_evaluator_features() -> None:
    # The env's evaluator_features are the outside reference: the same categories,
    # equities within Monte Carlo error (the env uses 200 boards, these 2,000).
    for n in (2, 6):
        env = HoldemEnv(num_players=n, evaluator_features=True)
        f = HoldemEquity(n, num_samples=2000, seed=1)
        base = 114 + 8 * n
        rng = np.random.default_rng(n)
        obs, info = env.reset(seed=n)
        diffs, rows = [], 0
        while rows < 200:
            mine = f(obs[None, :base])[0]
            if obs[:52].sum() == 2:
                rows += 1
                assert np.array_equal(mine[1:], obs[base : base + 9])
                diffs.append(mine[0] - obs[base + 9])
            a = int(rng.choice(np.flatnonzero(info["action_mask"][:2])))
            obs, _r, term, trunc, info = env.step(a)
            if term or trunc:
                obs, info = env.reset()
        d = np.abs(np.asarray(diffs))
        assert d.mean() < 0.04 and d.max() < 0.16, (n, d.mean(), d.max())


def test_holdem_equity_is_seeded_and_zero_without_cards() -> None:
    env = HoldemEnv(num_players=3)
    obs, _ = env.reset(seed=0)
    a = HoldemEquity(3, seed=5)(np.stack([obs, np.zeros_like(obs)]))
    b = HoldemEquity(3, seed=5)(np.stack([obs, np.zeros_like(obs)]))
    assert np.array_equal(a, b) and not a[1].any() and 0 < a[0, 0] < 1


def test_make_features_refuses_unknown_names_and_other_games() -> None:
    with pytest.raises(ConfigError, match="one of"):
        make_features("card-counting", "draw", {})
    with pytest.raises(ConfigError, match="game 'red-dog'"):
        make_features("draw-strength", "red-dog", {})
    assert make_features("draw-strength", "draw-match", {"deck": 32}).deck == "short"  # type: ignore[attr-defined]
    assert make_features("holdem-equity", "holdem", {"num_players": 6}).num_players == 6  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"\(rows, 124\)"):
        DrawStrength()(np.zeros((2, 100), np.float32))


def layers(rng: np.random.Generator, sizes: list[int]) -> list[dict[str, Any]]:
    out = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        out.append(
            {
                "weight": rng.normal(0, 0.3, (a, b)).astype(np.float32),
                "bias": rng.normal(0, 0.1, b).astype(np.float32),
                "activation": "tanh" if i < len(sizes) - 2 else "identity",
            }
        )
    return out


@pytest.fixture(scope="module")
def feature_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("features") / "draw.npz"
    net = layers(np.random.default_rng(0), [DRAW_OBS + 67, 16, DRAW_ACTIONS])
    return write_policy(path, net, FiveCardDrawEnv(), features="draw-strength")


def test_a_policy_with_features_computes_them_from_the_plain_observation(
    feature_file: Path,
) -> None:
    policy = load_policy(feature_file, FiveCardDrawEnv())
    assert policy.manifest["features"] == {"name": "draw-strength", "size": 67}
    obs, _masks = draw_observations(200, seed=3)
    x = np.concatenate([obs, DrawStrength(52)(obs)], axis=1).astype(np.float64)
    w0, b0, w1, b1 = (
        np.asarray(layer.weight, np.float64) if k % 2 == 0 else np.asarray(layer.bias, np.float64)
        for layer in policy.layers
        for k in (0, 1)
    )
    want = np.tanh(x @ w0 + b0) @ w1 + b1
    assert np.allclose(policy.logits(obs), want, atol=1e-4)
    # It plays as any env's opponent, from the plain observation.
    env = FiveCardDrawEnv(opponent=policy)
    _o, info = env.reset(seed=0)
    for _ in range(50):
        _o, _r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if term or trunc:
            _o, info = env.reset()


def _rewrite(src: Path, dst: Path, change: Any) -> Path:
    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    manifest = json.loads(arrays.pop("manifest").tobytes().decode("utf-8"))
    change(manifest)
    blob = np.frombuffer(json.dumps(manifest).encode("utf-8"), np.uint8)
    with dst.open("wb") as f:
        np.savez(f, manifest=blob, **arrays)
    return dst


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["features"].update(name="card-counting"), "unknown feature set"),
        (lambda m: m["features"].update(size=66), "takes 191 inputs"),
        (lambda m: m.pop("features"), "takes 191 inputs"),
        (lambda m: m["features"].update(size="67"), "features.size"),
    ],
)
def test_bad_feature_manifests_are_refused(
    feature_file: Path, tmp_path: Path, change: Any, message: str
) -> None:
    with pytest.raises(PolicyFileError, match=message):
        load_policy(_rewrite(feature_file, tmp_path / "bad.npz", change))


def test_training_vec_env_appends_the_columns() -> None:
    spec = get_game("draw")
    plain = PokerVecEnv([spec.make_vector(4, {"deck": 52})], seed=3)
    with_f = PokerVecEnv([spec.make_vector(4, {"deck": 52})], seed=3, features=DrawStrength(52))
    assert with_f.observation_space.shape == (DRAW_OBS + 67,)
    a, b = plain.reset(), with_f.reset()
    assert np.array_equal(b[:, :DRAW_OBS], a) and np.array_equal(
        b[:, DRAW_OBS:], DrawStrength(52)(a)
    )
    rng = np.random.default_rng(0)
    for _ in range(30):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in plain.action_masks()])
        a, _, done_a, info_a = plain.step(acts)
        b, _, done_b, info_b = with_f.step(acts)
        assert np.array_equal(b[:, :DRAW_OBS], a) and np.array_equal(done_a, done_b)
        for i in np.flatnonzero(done_b):
            term = info_b[i]["terminal_observation"]
            assert term.shape == (DRAW_OBS + 67,)
            assert np.array_equal(term[:DRAW_OBS], info_a[i]["terminal_observation"])
