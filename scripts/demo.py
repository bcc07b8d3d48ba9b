"""`make demo`: a short tour of poker_env on a fresh machine.

Ranks hands with the numba evaluator, computes an exact equity, then plays one
episode of every registered game with random legal actions, rendered as text.
(Training, evaluating and exporting agents joins this demo when `agents/` lands.)
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

import poker_env  # noqa: F401  (registers the env ids)
from poker_env.cards import format_cards, parse_cards
from poker_env.evaluator import describe_hand, evaluate, holdem_equity


def evaluator_tour() -> None:
    print("== Hand evaluator ==")
    for text in ["As Ks Qs Js Ts", "Kh Kd 7s 7c 2h 3d 9c", "Ac 2d 3h 4s 5c", "7c 7d 7h 2s 2c"]:
        print(f"  {text:<22} -> {describe_hand(evaluate(parse_cards(text)))}")
    short = evaluate(parse_cards("Ac 7d 8h 9s Tc"), deck="short")
    print(
        f"  {'Ac 7d 8h 9s Tc (32)':<22} -> {describe_hand(short)} (the lowest straight of the 32-card deck)"
    )
    rng = np.random.default_rng(0)
    hands = np.array([rng.choice(52, 7, replace=False) for _ in range(20_000)], dtype=np.int8)
    hands = np.tile(hands, (100, 1))
    evaluate(hands[:10])
    t0 = time.perf_counter()
    evaluate(hands, validate=False, num_threads=1)
    dt = time.perf_counter() - t0
    print(
        f"  ranked {len(hands):,} seven-card hands in {dt * 1e3:.0f} ms ({len(hands) / dt / 1e6:.0f} M hands/s, one thread)"
    )
    holdem_equity(["As Ah", "Ks Kh"])
    t0 = time.perf_counter()
    r = holdem_equity(["As Ah", "Ks Kh"])
    dt = time.perf_counter() - t0
    print(
        f"  AsAh vs KsKh, all {r.num_boards:,} boards: {r.wins[0]:,} wins, {r.ties[0]:,} ties, "
        f"equity {r.equity[0]:.6f} ({dt * 1e3:.1f} ms)"
    )


def play_one(env_id: str, seed: int, max_frames: int = 6, **kwargs: object) -> None:
    print(f"\n== {env_id} (random legal actions) ==")
    env = gym.make(env_id, render_mode="ansi", **kwargs)
    _obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, done = 0.0, 0, False
    while not done:
        if steps < max_frames:
            print(env.render())
        legal = np.flatnonzero(info["action_mask"])
        _obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += float(reward)
        steps += 1
        done = terminated or truncated
    print(env.render())
    print(f"-- episode over after {steps} agent steps, reward {total:+.2f}")
    env.close()


def main() -> None:
    evaluator_tour()
    play_one("poker_env/FiveCardDraw-v0", seed=1)
    play_one("poker_env/RedDog-v0", seed=2, max_frames=3)
    play_one("poker_env/Holdem-v0", seed=3, num_players=3)
    print(
        "\nNext: `make test` runs the test suite, `make bench` measures speed against peers,\n"
        "and docs/ has a page per game. Example cards: " + format_cards(parse_cards("As Td 7c"))
    )


if __name__ == "__main__":
    main()
