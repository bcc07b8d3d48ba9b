"""What the log says is what happened: the deal line names the hand being dealt and who
acts first, every stake is logged before it is settled, and the log survives a save."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np
import pytest

from poker_env.games.draw import HUMAN
from poker_env_agents.play import load_session, new_session
from poker_env_agents.play.draw import DrawSession


@lru_cache(maxsize=2)  # the tests only read the match: played once
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


@pytest.mark.parametrize("seed", [2, 19])
def test_a_stake_on_the_action_that_ends_the_hand_is_logged_before_it_is_settled(
    seed: int,
) -> None:
    # Seed 2: you raise 195, she must stake her hat to call it, the call ends the hand
    # and the pot redeems the hat: the stake is logged with the call, before it.
    s = _play_max(seed)
    texts = [e["text"] for e in s.events]
    if seed == 2:
        i = texts.index("She calls 195 (CALL).")
        assert texts[i - 1] == "She stakes her hat (100 in chips)."
        assert "She redeems her hat (100 back to the bank)." in texts[i:]
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
    assert settled >= 1


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


def test_equal_hand_names_say_which_kicker_decided() -> None:
    from poker_env.cards import parse_cards
    from poker_env.evaluator import evaluate
    from poker_env_agents.play.common import decider

    def rank(text: str) -> int:
        return int(evaluate(parse_cards(text)))

    # Hand-worked: both "Pair, Kings"; the ace beats the queen as the first side card.
    a, b = rank("Kh Kd Ac 7s 2h"), rank("Ks Kc Qd 7h 2c")
    assert decider(a, b) == decider(b, a) == "the Ace kicker beats the Queen"
    # Both "Two Pair, Kings and Sevens": the fifth card decides.
    a, b = rank("Kh Kd 7c 7s 9h"), rank("Ks Kc 7d 7h 4c")
    assert decider(a, b) == "the Nine kicker beats the Four"
    # Different names say nothing more; a tie has no decider.
    assert decider(rank("Kh Kd 7c 7s 9h"), rank("Ks Kc Qd 7h 2c")) is None
    assert decider(rank("Kh Kd Ac 7s 2h"), rank("Ks Kc Ad 7h 2c")) is None


def test_a_draw_showdown_names_the_kicker_and_a_tie_says_the_pot_stays() -> None:
    from poker_env.cards import parse_cards
    from poker_env.evaluator import evaluate
    from poker_env.games.draw import HandOutcome

    s = DrawSession(seed=0, _replay=True)
    you, her = "Kh Kd Ac 7s 2h", "Ks Kc Qd 7h 2c"
    ranks = (int(evaluate(parse_cards(you))), int(evaluate(parse_cards(her))))
    s._log_outcome(
        HandOutcome(
            hand_no=1,
            winner=HUMAN,
            how="showdown",
            pot=40,
            hands=(you, her),
            ranks=ranks,
            items_lost=(),
            items_redeemed=(),
        )
    )
    assert s.results[-1]["lines"] == [
        "You show Kh Kd Ac 7s 2h: Pair, Kings.",
        "She shows Ks Kc Qd 7h 2c: Pair, Kings.",
        "You win the pot of 40 (the Ace kicker beats the Queen).",
    ]


def test_holdem_first_bet_of_a_round_is_a_bet_and_one_hand_is_one_hand() -> None:
    from poker_env_agents.play.holdem import HoldemSession

    s = new_session("holdem", seed=4, players=2)
    assert isinstance(s, HoldemSession)
    # Check and call to the flop: no one has bet there, so the raise button is a BET.
    while s.g.street == "preflop" and not s.is_over:
        names = [b.name for b in s.buttons()]
        s.act("CALL" if "CALL" in names else "CHECK")
    # Seed 4: the flop of hand 1, nothing bet yet, your turn.
    assert (s.g.street, s.g.hand_number, s.g.to_act, max(s.g.bets())) == ("flop", 1, 0, 0)
    raise_button = next(b for b in s.buttons() if b.name == "RAISE")
    assert raise_button.label == "BET"
    s.act("RAISE", raise_button.min_amount)
    texts = [e["text"] for e in s.events]
    assert f"You bet {raise_button.min_amount}." in texts
    assert not any(t.startswith("You raise") for t in texts)
    # "after 1 hand", not "after 1 hands".
    assert s.final_text().endswith(("after 1 hand.", "after 1 hand. You win!"))


def test_one_chip_is_one_chip() -> None:
    """'1 chips' was written at a Red Dog game's end and at a one-chip Hold'em all-in
    (found by playing): the log says '1 chip'."""
    import json

    from poker_env_agents.play.common import chips

    assert (chips(0), chips(1), chips(2)) == ("0 chips", "1 chip", "2 chips")
    red_dog = new_session("reddog", players=6, money=2, seed=26)
    while not red_dog.is_over:
        names = [b.name for b in red_dog.buttons()]
        red_dog.act("BET", "1") if "BET" in names else red_dog.act(names[0])
    holdem = new_session("holdem", players=2, money=3, seed=2)
    while not holdem.is_over:
        names = [b.name for b in holdem.buttons()]
        holdem.act("ALL_IN" if "ALL_IN" in names else "CALL" if "CALL" in names else names[0])
    texts = json.dumps([red_dog.view(), holdem.view()])
    assert "Game over: Seat 1 wins with 1 chip (you hold 0 chips)." in texts
    assert "You go all-in (1 chip, to " in texts
    assert not re.search(r"\b1 chips\b", texts)


def test_a_short_call_says_the_uncalled_chips_go_back() -> None:
    """RULES.md §1: a short all-in call returns the excess to the bettor. Hold'em's log
    said so and the draw's did not (found by playing: money 8, one item, seed 1, she
    bets 5 and you call 3)."""
    s = new_session("draw", money=8, items=1, seed=1)
    assert s.g.stacks == (3, 3)  # 8 less the ante of 5 each
    s.act("STAY")  # she stakes her item (100 in chips) and bets 5
    assert [b.name for b in s.buttons()] == ["DRAW", "DROP"] and s.g.bets == (0, 5)
    stacks = s.g.stacks
    s.act("DRAW", None, [])
    texts = [e["text"] for e in s.view()["events"]]
    assert "You call 3 and go to the draw (DRAW). The uncalled 2 goes back to her." in texts
    assert s.g.history[-1].returned == 2 and s.g.stacks == (stacks[0] - 3, stacks[1] + 2)


def test_you_inside_a_sentence_is_lower_case() -> None:
    """'The uncalled 4 goes back to You.' and 'blinds You 1' (seen on the final
    screen's log): inside a sentence the person is 'you'."""
    import json

    for seed in range(1, 6):
        s = new_session("holdem", players=2, money=20, seed=seed)
        while not s.is_over:
            names = [b.name for b in s.buttons()]
            s.act(next(n for n in ("ALL_IN", "CALL", "CHECK") if n in names))
        text = json.dumps(s.view())
        assert not re.search(r"[a-z,;] You\b", text), re.search(r".{40}[a-z,;] You\b.{20}", text)


@pytest.mark.parametrize(
    ("winners", "chips", "text"),
    [
        ((0,), [60, 0, 0], "You win with 60 chips."),
        ((2,), [20, 0, 40], "Seat 2 wins with 40 chips (you hold 20 chips)."),
        ((0, 1), [30, 30, 0], "You and Seat 1 share the win with 30 chips each."),
        (
            (1, 2),
            [1, 30, 30],
            "Seat 1 and Seat 2 share the win with 30 chips each (you hold 1 chip).",
        ),
    ],
)
def test_red_dog_final_text_reads_as_a_sentence(
    winners: tuple[int, ...], chips: list[int], text: str
) -> None:
    # It read "You win with 60 chips (you hold 60)." and "Seat 1 and Seat 2 wins".
    from types import SimpleNamespace

    session = new_session("reddog", players=3, seed=1)
    session.g = SimpleNamespace(winners=winners, chips=chips)  # type: ignore[attr-defined]
    assert session.final_text() == text  # type: ignore[attr-defined]


def test_a_drop_says_how_much_of_the_pot_was_the_winners_own_uncalled_bet() -> None:
    # "You bet 310. She drops. ... you win the pot of 320" read as if 320 were won from
    # her (a play-test); RULES.md §1: the pot, the uncalled bet in it, goes to the winner.
    s = new_session("draw", seed=0)
    s.act("BET", 300)
    texts = [e["text"] for e in s.view()["events"]]
    assert "You bet 300 (BET)." in texts and "She drops (DROP)." in texts
    assert "She dropped: you win the pot of 310 (300 of it your own bet, not called)." in texts
    s = new_session("draw", seed=1)
    s.act("STAY")
    s.act("DROP")
    texts = [e["text"] for e in s.view()["events"]]
    assert "She bets 10 (BET)." in texts
    assert "You dropped: she wins the pot of 20 (10 of it her own bet, not called)." in texts
    # A loaded save says the same (the log is replayed).
    assert load_session(s.to_json()).view()["events"] == s.view()["events"]
