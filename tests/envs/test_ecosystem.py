"""A new user's first calls, on default settings (issue 12 §1), and the table pictures.

Gymnasium's and SB3's checkers step random actions of the space, SB3's
``make_vec_env`` asks for ``render_mode="rgb_array"`` first, ``MaskablePPO`` trains
on the masks, ``RecordVideo`` writes the pictures to a video. Each registered id is
tried with no extra keyword, then in several configurations (a 32-card deck; 2, 6
and 10 players), with several seeds. The pictures show the agent's table from its
seat: a hidden card must never be drawn face up.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordVideo
from numpy.typing import NDArray
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.env_util import make_vec_env

import poker_env  # noqa: F401  (registers the ids)
from poker_env.errors import ConfigError
from poker_env.games import draw_layout as L
from poker_env.games import holdem_kernels as K
from poker_env.games.red_dog import PUB_SHOWN, PUB_TURNED
from poker_env.render.canvas import HEIGHT, WIDTH

IDS = (
    "poker_env/FiveCardDraw-v0",
    "poker_env/DrawMatch-v0",
    "poker_env/RedDog-v0",
    "poker_env/Holdem-v0",
)
# (id, keywords): every id on defaults, then the configurations of issue 12 §1.
CONFIGS: tuple[tuple[str, dict[str, Any]], ...] = (
    *((env_id, {}) for env_id in IDS),
    ("poker_env/FiveCardDraw-v0", {"deck": 32}),
    ("poker_env/DrawMatch-v0", {"deck": 32}),
    ("poker_env/DrawMatch-v0", {"agent_seat": "computer"}),
    *(("poker_env/RedDog-v0", {"num_players": n}) for n in (2, 6, 10)),
    *(("poker_env/Holdem-v0", {"num_players": n}) for n in (2, 6, 10)),
)
SEEDS = (0, 1, 2)


def _name(case: tuple[str, dict[str, Any]]) -> str:
    env_id, kw = case
    return env_id.split("/")[1] + "".join(f"-{k}={v}" for k, v in kw.items())


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    # The checkers' advice (e.g. "observations not normalized") is not under test.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ---------------------------------------------------------------------- checkers
@pytest.mark.parametrize("case", CONFIGS, ids=_name)
@pytest.mark.parametrize("seed", SEEDS)
def test_checkers_on_defaults(case: tuple[str, dict[str, Any]], seed: int) -> None:
    env_id, kw = case
    env = gym.make(env_id, render_mode="rgb_array", **kw)
    env.action_space.seed(seed)
    env.reset(seed=seed)
    # Unwrapped (the checkers' advice) and through gym.make's wrappers.
    check_env(env.unwrapped)
    check_env(gym.make(env_id, **kw))
    sb3_check_env(gym.make(env_id, render_mode="rgb_array", **kw).unwrapped, warn=True)


@pytest.mark.parametrize("case", CONFIGS, ids=_name)
def test_random_actions_of_the_space_never_raise(case: tuple[str, dict[str, Any]]) -> None:
    # What plain PPO / DQN do: any action of the space, masks ignored. A masked-out
    # action plays the passive one and info says so (issue 12 §1).
    env_id, kw = case
    env = gym.make(env_id, **kw)
    for seed in SEEDS:
        env.action_space.seed(seed)
        _, info = env.reset(seed=seed)
        replaced = 0
        for _ in range(300):
            a = int(env.action_space.sample())
            masked_out = not info["action_mask"][a]
            _, reward, terminated, truncated, info = env.step(a)
            assert np.isfinite(reward)
            assert bool(info["illegal_action"]) == masked_out
            replaced += masked_out
            if terminated or truncated:
                _, info = env.reset()
        if env_id != "poker_env/RedDog-v0":  # every Red Dog action is legal on its turn
            assert replaced > 0, "no masked-out action was tried: the test would prove nothing"


@pytest.mark.parametrize("case", CONFIGS, ids=_name)
def test_render_modes(case: tuple[str, dict[str, Any]]) -> None:
    env_id, kw = case
    env = gym.make(env_id, **kw)
    assert env.metadata["render_modes"] == ["ansi", "rgb_array"]
    # (gym.make itself turns "human" into "rgb_array" under its HumanRendering wrapper.)
    for mode in ("human", "rgb", "RGB_ARRAY", 3):
        with pytest.raises(ConfigError, match="render_mode"):
            type(env.unwrapped)(render_mode=mode, **kw)
    text_env = gym.make(env_id, render_mode="ansi", **kw)
    text_env.reset(seed=0)
    assert isinstance(text_env.render(), str)
    plain = gym.make(env_id, **kw)
    plain.reset(seed=0)
    assert plain.render() is None


# ---------------------------------------------------------------------- SB3
@pytest.mark.parametrize(
    ("env_id", "n_envs"),
    [
        ("poker_env/FiveCardDraw-v0", 2),
        ("poker_env/DrawMatch-v0", 3),
        ("poker_env/RedDog-v0", 5),
        ("poker_env/Holdem-v0", 8),
    ],
)
def test_make_vec_env_and_maskable_ppo(env_id: str, n_envs: int) -> None:
    from sb3_contrib import MaskablePPO

    # make_vec_env asks for render_mode="rgb_array" and falls back only on TypeError.
    vec = make_vec_env(env_id, n_envs=n_envs, seed=0)
    assert vec.get_attr("render_mode") == ["rgb_array"] * n_envs
    vec.reset()
    frames = vec.get_images()
    assert len(frames) == n_envs
    assert all(f.shape == (HEIGHT, WIDTH, 3) and f.dtype == np.uint8 for f in frames)
    model = MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=16, n_epochs=1, seed=0)
    model.learn(total_timesteps=16 * n_envs)  # one rollout and one update
    assert model.num_timesteps >= 16 * n_envs
    vec.close()


# ---------------------------------------------------------------------- video
@pytest.mark.parametrize("env_id", IDS)
def test_record_video_writes_a_file(env_id: str, tmp_path: Path) -> None:
    env = RecordVideo(
        gym.make(env_id, render_mode="rgb_array"),
        video_folder=str(tmp_path),
        episode_trigger=lambda episode: episode == 0,
        disable_logger=True,
    )
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(40):
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            break
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1
    assert videos[0].stat().st_size > 1000


# ---------------------------------------------------------------------- pictures
def _play(env: gym.Env[Any, Any], seed: int, steps: int) -> dict[str, Any]:
    # Random legal actions for `steps` steps (fewer if the episode ends).
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        if terminated or truncated:
            break
    return info


@pytest.mark.parametrize("case", CONFIGS, ids=_name)
def test_picture_shape_and_change(case: tuple[str, dict[str, Any]]) -> None:
    env_id, kw = case
    env = gym.make(env_id, render_mode="rgb_array", **kw)
    for seed in SEEDS:
        env.reset(seed=seed)
        first = env.render()
        assert isinstance(first, np.ndarray)
        assert first.shape == (HEIGHT, WIDTH, 3)
        assert first.dtype == np.uint8
        again = env.render()
        assert np.array_equal(first, again), "rendering twice must draw the same picture"
        mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
        env.step(int(np.flatnonzero(mask)[0]))
        after = env.render()
        assert not np.array_equal(first, after), "a step changed the table, not the picture"


def _used_cards_draw(s: NDArray[np.int64], seat: int) -> set[int]:
    return {int(c) for c in s[L.S_HANDS + 5 * seat : L.S_HANDS + 5 * seat + 5]}


def _swap_hidden_draw(env: Any, rng: np.random.Generator) -> Callable[[], None]:
    """Give the other seat five other cards (none of the agent's); returns an undo."""
    s = env.unwrapped._s
    other = 1 - env.unwrapped.agent_seat
    sl = slice(L.S_HANDS + 5 * other, L.S_HANDS + 5 * other + 5)
    old = s[sl].copy()
    deck = 52 if env.unwrapped.config.deck in ("standard", 52) else 32
    free = sorted(
        set(range(52 - deck, 52))
        - _used_cards_draw(s, env.unwrapped.agent_seat)
        - set(old.tolist())
    )
    s[sl] = rng.choice(free, 5, replace=False)

    def undo() -> None:
        s[sl] = old

    return undo


def _swap_hidden_red_dog(env: Any, rng: np.random.Generator) -> Callable[[], None]:
    """Replace every opponent's card that is not public by another unused card."""
    st = env.unwrapped.state
    seat = env.unwrapped.agent_seat
    old = st.hands.copy()
    hands, public = st.hands[0], st.public[0]
    in_use = {int(c) for c in hands.ravel() if c >= 0} | set(np.flatnonzero(public).tolist())
    pool = [c for c in range(52) if c not in in_use]
    rng.shuffle(pool)
    hidden = [(q, k) for q in range(hands.shape[0]) for k in range(hands.shape[1])
              if q != seat and hands[q, k] >= 0 and public[hands[q, k]] == 0]  # fmt: skip
    for (q, k), c in zip(hidden, pool, strict=False):
        hands[q, k] = c

    def undo() -> None:
        st.hands[...] = old

    return undo


def _swap_hidden_holdem(env: Any, rng: np.random.Generator) -> Callable[[], None]:
    """Replace the hole cards of every seat not shown down by other unused cards."""
    s = env.unwrapped._states[0]
    agent = int(s[K.ENV_FIELDS])  # the env's AGENT field
    old = s.copy()
    n = env.unwrapped.num_players
    in_use = {int(c) for c in s[K.HOLE : K.HOLE + 2 * n] if c >= 0}
    in_use |= {int(c) for c in s[K.BOARD : K.BOARD + int(s[K.NUM_BOARD])]}
    pool = [c for c in range(52) if c not in in_use]
    rng.shuffle(pool)
    for q in range(n):
        if q != agent and s[K.HOLE + 2 * q] >= 0 and s[K.RANK + q] < 0:
            s[K.HOLE + 2 * q : K.HOLE + 2 * q + 2] = [pool.pop(), pool.pop()]

    def undo() -> None:
        s[...] = old

    return undo


_SWAPS = {
    "poker_env/FiveCardDraw-v0": _swap_hidden_draw,
    "poker_env/DrawMatch-v0": _swap_hidden_draw,
    "poker_env/RedDog-v0": _swap_hidden_red_dog,
    "poker_env/Holdem-v0": _swap_hidden_holdem,
}


def _hidden_exists(env_id: str, env: Any) -> bool:
    # Is any other player's card hidden now (so that the swap tests something)?
    u = env.unwrapped
    if env_id in ("poker_env/FiveCardDraw-v0", "poker_env/DrawMatch-v0"):
        return bool(u._s[L.S_RANK + 1 - u.agent_seat] < 0)
    if env_id == "poker_env/RedDog-v0":
        st = u.state
        return any(
            c >= 0 and st.public[0, c] == 0
            for q in range(st.hands.shape[1])
            if q != u.agent_seat
            for c in st.hands[0, q]
        )
    s = u._states[0]
    agent = int(s[K.ENV_FIELDS])
    return any(
        q != agent and s[K.HOLE + 2 * q] >= 0 and s[K.RANK + q] < 0 for q in range(u.num_players)
    )


@pytest.mark.parametrize("case", CONFIGS, ids=_name)
def test_picture_never_shows_hidden_cards(case: tuple[str, dict[str, Any]]) -> None:
    env_id, kw = case
    env = gym.make(env_id, render_mode="rgb_array", **kw)
    swap = _SWAPS[env_id]
    tried = 0
    for seed in SEEDS:
        for steps in (0, 1, 3):
            _play(env, seed, steps)
            if not _hidden_exists(env_id, env):
                continue
            before = env.render()
            undo = swap(env, np.random.default_rng(seed))
            after = env.render()
            undo()
            assert np.array_equal(before, after), (
                f"a hidden card shows (seed {seed}, {steps} steps)"
            )
            assert np.array_equal(before, env.render())
            tried += 1
    assert tried > 0


def test_picture_shows_own_cards_and_showdown_hands() -> None:
    # The counterpart of the test above: the same swap on cards that are public
    # changes the picture (own cards; both hands after a draw showdown, RULES.md §1).
    env = gym.make("poker_env/FiveCardDraw-v0", render_mode="rgb_array")
    u: Any = env.unwrapped
    env.reset(seed=0)
    before = env.render()
    seat = u.agent_seat
    u._s[L.S_HANDS + 5 * seat] = 51 - int(u._s[L.S_HANDS + 5 * seat]) % 4  # another ace
    assert not np.array_equal(before, env.render())
    showdowns = 0
    for seed in range(20):
        env.reset(seed=seed)
        terminated = False
        while not terminated:  # the passive action all the way: a showdown unless she drops
            _, _, terminated, _, _ = env.step(1)
        if u._s[L.S_RANK + 1 - u.agent_seat] < 0:
            continue
        before = env.render()
        undo = _swap_hidden_draw(env, np.random.default_rng(seed))
        assert not np.array_equal(before, env.render()), "the opponent's shown hand is not drawn"
        undo()
        showdowns += 1
    assert showdowns > 0


def test_red_dog_picture_shows_turned_and_shown_cards() -> None:
    # A card turned or shown in Red Dog is public (RULES.md §2): the picture changes with it.
    env = gym.make("poker_env/RedDog-v0", render_mode="rgb_array", num_players=4)
    u: Any = env.unwrapped
    env.reset(seed=0)
    public, hands = u.state.public[0], u.state.hands[0]
    before = env.render()
    free = next(c for c in range(52) if public[c] == 0 and c not in hands.ravel())
    public[free] = PUB_TURNED
    assert not np.array_equal(before, env.render()), "a turned card is not drawn"
    public[free] = 0
    other = next(q for q in range(4) if q != u.agent_seat and hands[q, 0] >= 0)
    hidden = next(int(c) for c in hands[other] if c >= 0 and public[c] == 0)
    public[hidden] = PUB_SHOWN
    assert not np.array_equal(before, env.render()), "a card shown from a hand is not drawn"
    public[hidden] = 0
    assert np.array_equal(before, env.render())


@pytest.mark.parametrize("module", ["draw", "red_dog", "holdem"])
def test_multiagent_pictures(module: str) -> None:
    import importlib

    mod = importlib.import_module(f"poker_env.multiagent.{module}")
    aec = mod.env(render_mode="rgb_array")
    assert "rgb_array" in aec.metadata["render_modes"]
    aec.reset(seed=0)
    first = aec.render()
    assert first.shape == (HEIGHT, WIDTH, 3) and first.dtype == np.uint8
    rng = np.random.default_rng(0)
    for _ in range(3):
        agent = aec.agent_selection
        if aec.terminations[agent] or aec.truncations[agent]:
            break
        obs = aec.observe(agent)
        mask = obs["action_mask"] if isinstance(obs, dict) else aec.infos[agent]["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
    assert not np.array_equal(first, aec.render())
    with pytest.raises(ConfigError, match="render_mode"):
        mod.env(render_mode="human")
