"""What the log says is what happened: the deal line names the hand being dealt and who
acts first, every stake is logged before it is settled, and the log survives a save."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from poker_env.games.draw import HUMAN
from poker_env_agents.play import load_session, new_session
from poker_env_agents.play.draw import DrawSession


def _play_max(seed: int, money: int = 200, items: int = 3) -> DrawSession:
    """A match where the person bets and raises the most half the time (seed 19: she
    stakes, loses and buys back items, and stakes on the call that ends a hand)."""
    s = new_session("draw", seed=seed, money=money, items=items)
    assert isinstance(s, DrawSession)
    rng = np.random.default_rng(seed)
    checks: list[tuple[int, str, int]] = []
    while not s.is_over:
        names = {b.name: b for b in s.buttons()}
        if "RAISE" in names and rng.random() < 0.5:
            s.act("RAISE", names["RAISE"].max_amount)
        elif "BET" in names and rng.random() < 0.5:
            s.act("BET", names["BET"].max_amount)
        else:
            s.act(next(n for n in ("CALL", "DRAW", "STAY") if n in names))
        if not s.is_over:
            deal = [e["text"] for e in s.events if e["kind"] == "deal"][-1]
            first = "you" if s.g.first_seat == HUMAN else "she"
            checks.append((s.g.hand_no, deal, first == "you"))
    s.checks = checks  # type: ignore[attr-defined]
    return s


def test_the_deal_line_names_the_hand_dealt_and_who_acts_first_after_a_buy_back() -> None:
    s = _play_max(19)
    texts = [e["text"] for e in s.events]
    assert any("buys back" in t for t in texts)  # the case of the defect
    for hand_no, deal, you_first in s.checks:  # type: ignore[attr-defined]
        assert deal == f"Hand {hand_no}: {'you act' if you_first else 'she acts'} first."
    # Each hand is announced once, in order.
    numbers = [int(m.group(1)) for t in texts if (m := re.match(r"Hand (\d+):", t))]
    assert numbers == list(range(1, len(numbers) + 1))


def test_a_stake_on_the_action_that_ends_the_hand_is_logged_before_it_is_settled() -> None:
    s = _play_max(19)
    staked: set[str] = set()
    settled = 0
    for e in s.events:
        t = e["text"]
        if m := re.match(r"She stakes her (\w+)", t):
            staked.add(m.group(1))
        elif m := re.match(r"She (redeems|loses) her (\w+)", t):
            assert m.group(2) in staked, f"{t!r} with no stake logged before it"
            staked.discard(m.group(2))
            settled += 1
    assert settled >= 4


def _log(view: dict[str, Any]) -> list[str]:
    return [e["text"] for e in view["events"]]


def test_the_event_log_survives_a_save_and_load() -> None:
    for game, opts in (
        ("draw", {"seed": 4}),
        ("reddog", {"seed": 4, "players": 3}),
        ("holdem", {"seed": 4, "players": 3}),
    ):
        s = new_session(game, **opts)
        b = s.buttons()
        name = next(x.name for x in b if x.name in ("STAY", "CALL", "CHECK", "FORFEIT"))
        s.act(name)
        before = s.view()
        assert _log(before), game
        again = load_session(s.to_json())
        assert again.view() == before, game
