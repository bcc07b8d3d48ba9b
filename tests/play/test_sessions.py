"""Play sessions: the person's buttons, checks and amounts; the computer played as the
envs play it; hand results as RULES.md words them; JSON saves that replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poker_env.episode import draw as enc
from poker_env.errors import ConfigError
from poker_env.games import draw_layout as L
from poker_env.games.draw import COMPUTER, HUMAN, DrawAction, HandOutcome
from poker_env.multiagent.draw import DrawAECEnv
from poker_env_agents.play import InputError, SaveFileError, load_session, new_session
from poker_env_agents.play.draw import DrawSession
from poker_env_agents.play.holdem import HoldemSession
from poker_env_agents.play.red_dog import RedDogSession

SEED_WORDS = {"BET", "STAY", "DROP", "RAISE", "DRAW", "CALL"}


def _human_turn(s: DrawSession) -> None:
    assert not s.is_over and s.g.to_act == HUMAN


# ----------------------------------------------------------------- the draw buttons
def test_draw_buttons_are_the_seeds_words_and_exactly_the_legal_actions() -> None:
    s = new_session("draw", seed=3, money=200, items=2)
    assert isinstance(s, DrawSession)
    rng = np.random.default_rng(0)
    for _ in range(120):
        if s.is_over:
            break
        _human_turn(s)
        buttons = s.buttons()
        assert {b.name for b in buttons} <= SEED_WORDS
        legal = {la.action for la in s.g.legal_actions()}
        # DRAW is the seed's word both for the call before the draw and for the draw.
        expected = {DrawAction.DRAW if a == DrawAction.DISCARD else a for a in legal}
        assert {DrawAction[b.name] for b in buttons} == expected
        for b in buttons:
            if b.takes_amount:
                la = next(x for x in s.g.legal_actions() if x.action.name == b.name)
                assert (b.min_amount, b.max_amount) == (la.min_amount, la.max_amount)
        b = buttons[int(rng.integers(len(buttons)))]
        amount = int(rng.integers(b.min_amount, b.max_amount + 1)) if b.takes_amount else None
        cards = [int(c) for c in rng.permutation(5)[: int(rng.integers(0, 4))] + 1]
        s.act(b.name, amount, cards if b.takes_cards else ())


def test_any_legal_amount_is_played_exactly_not_a_pot_fraction() -> None:
    s = new_session("draw", seed=1)
    _human_turn(s)
    bet = next(b for b in s.buttons() if b.name == "BET")
    assert (bet.min_amount, bet.max_amount) == (5, 495)  # min_bet 5; 500 - ante 5
    s.act("BET", 7)  # no pot fraction of the env's gives 7 into a pot of 10
    first = next(r for r in s.g.history if r.seat == HUMAN)
    assert (first.action, first.amount, first.chips_in) == (DrawAction.BET, 7, 7)
    assert s.events[1]["text"] == "You bet 7 (BET)."


@pytest.mark.parametrize(
    ("name", "amount", "cards", "reason"),
    [
        ("CALL", None, (), "'CALL' is not a legal button now; legal: BET 5..495, STAY, DROP"),
        ("BET", 496, (), "BET 496 is out of bounds: from 5 to 495"),
        ("BET", 4, (), "BET 4 is out of bounds: from 5 to 495"),
        ("BET", None, (), "BET needs an amount from 5 to 495"),
        ("BET", 7.5, (), "the amount of BET must be a whole number, not 7.5"),
        ("BET", "7.5", (), "the amount of BET must be a whole number, not '7.5'"),
        ("BET", True, (), "the amount of BET must be a whole number, not True"),
        ("STAY", 5, (), "STAY takes no amount (got 5)"),
        ("STAY", None, (1,), "STAY takes no cards (got [1])"),
        ("xyzzy", None, (), "'xyzzy' is not a legal button now"),
        (None, None, (), "None is not a legal button now"),
    ],
)
def test_bad_input_is_refused_with_the_reason_and_changes_nothing(
    name: Any, amount: Any, cards: Any, reason: str
) -> None:
    s = new_session("draw", seed=1)
    before = (s.to_json(), len(s.events), s.view())
    with pytest.raises(InputError) as exc:
        s.act(name, amount, cards)
    assert str(exc.value).startswith(reason)
    assert (s.to_json(), len(s.events), s.view()) == before


def _to_the_draw(s: DrawSession) -> None:
    # STAY or DRAW (check / call) until the person draws.
    while not any(b.takes_cards for b in s.buttons()):
        names = [b.name for b in s.buttons()]
        s.act("STAY" if "STAY" in names else "DRAW")


def test_draw_replaces_exactly_the_marked_cards() -> None:
    s = new_session("draw", seed=4)
    assert isinstance(s, DrawSession)
    _to_the_draw(s)
    before = s.g.hand(HUMAN).tolist()
    s.act("DRAW", cards=[2, 5])
    rec = next(r for r in reversed(s.g.history) if r.seat == HUMAN)
    assert (rec.action, rec.amount, rec.cards_drawn) == (DrawAction.DISCARD, 0b10010, 2)
    after = s.g.hand(HUMAN).tolist()
    assert [after[i] for i in (0, 2, 3)] == [before[i] for i in (0, 2, 3)]
    assert after[1] not in before and after[4] not in before
    assert "You change 2 cards." in [e["text"] for e in s.events]


@pytest.mark.parametrize(
    ("cards", "reason"),
    [
        ([1, 1], "card 1 is named twice"),
        ([0], "card 0 does not exist: your cards are numbered 1 to 5"),
        ([6], "card 6 does not exist"),
        (["x"], "a card number must be a whole number, not 'x'"),
        ("12", "the marked cards must be a list of card numbers, not '12'"),
    ],
)
def test_bad_card_marks_are_refused(cards: Any, reason: str) -> None:
    s = new_session("draw", seed=4)
    assert isinstance(s, DrawSession)
    _to_the_draw(s)
    before = s.to_json()
    with pytest.raises(InputError, match="^" + reason.replace("(", r"\(").replace(")", r"\)")):
        s.act("DRAW", cards=cards)
    assert s.to_json() == before


# ----------------------------------------------------- the computer, as the envs play it
class _Recorder:
    """Wraps the computer: records each (observation, mask, choice)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[tuple[Any, Any, int]] = []

    def act(self, obs: Any, mask: Any) -> int:
        a = int(self.inner.act(obs, mask))
        self.calls.append((obs.copy(), mask.copy(), a))
        return a


def _env_action_as_button(env: DrawAECEnv, a: int) -> tuple[str, int | None, list[int]]:
    s = env._s
    kind, amount = enc.env_to_engine(s, env._cfg, env._ep, env._fp, a)
    action = DrawAction(kind)
    if action == DrawAction.DISCARD:
        return "DRAW", None, [i + 1 for i in range(5) if amount >> i & 1]
    if action in (DrawAction.BET, DrawAction.RAISE):
        return action.name, amount, []
    return action.name, None, []


@pytest.mark.parametrize("seed", [5, 11])
def test_the_computer_plays_the_match_exactly_as_the_aec_env_drives_it(seed: int) -> None:
    """Session and DrawAECEnv(mode="match") from the same seed: the computer sees the
    same observation and mask at every decision, her index means the same action, and
    the tables stay identical (cards, money, pot, wardrobe) to the end of the match."""
    s = DrawSession(seed=seed, money=60, items=2, _replay=True)
    rec = _Recorder(s.computer)
    s.computer = rec  # type: ignore[assignment]
    env = DrawAECEnv(config=s.config, mode="match")
    env.reset(seed=seed)
    cols = [L.S_POT, L.S_STACK, L.S_STACK + 1, L.S_PHASE, L.S_TO_ACT, L.S_HAND_NO]
    cols += list(range(L.S_HANDS, L.S_HANDS + 10)) + list(range(L.S_ITEMS, L.S_ITEMS + 2))
    rng = np.random.default_rng(seed)
    seen = 0
    ended: list[dict[str, Any]] = []

    def sync() -> None:
        nonlocal seen
        for obs, mask, a in rec.calls[seen:]:
            assert env.agent_selection == "computer"
            o = env.observe("computer")
            np.testing.assert_array_equal(o["observation"], obs)
            np.testing.assert_array_equal(o["action_mask"], mask)
            env.step(a)
            ended.extend(env.infos["human"]["hands_ended"])
        seen = len(rec.calls)
        np.testing.assert_array_equal(env._s[cols], s.g.state[cols])

    s.advance()
    sync()
    while not s.is_over:
        assert env.agent_selection == "human"
        mask = env.observe("human")["action_mask"]
        a = int(rng.choice(np.flatnonzero(mask)))
        name, amount, cards = _env_action_as_button(env, a)
        s.act(name, amount, cards)
        env.step(a)
        ended.extend(env.infos["human"]["hands_ended"])
        sync()
    assert env.terminations["computer"]
    # Each hand's result as the env records it: number, pot, how, winner, hands shown.
    assert len(ended) == len(s.results) > 3
    for d, r in zip(ended, s.results, strict=True):
        assert (r["hand"], r["pot"], r["how"]) == (d["hand_no"], d["pot"], d["how"])
        assert r["winner"] == {None: None, HUMAN: "you", COMPUTER: "she"}[d["winner"]]
        if d["hands"] is not None:
            assert (r["hands"]["you"], r["hands"]["she"]) == tuple(d["hands"])
            assert (r["names"]["you"], r["names"]["she"]) == tuple(d["hand_names"])
    assert s.view()["winner"] == ("you" if s.g.match_winner == HUMAN else "she")


# ------------------------------------------------------------------- hand results
def test_a_tie_says_the_pot_stays_and_settles_no_stake() -> None:
    s = DrawSession(seed=0, _replay=True)
    tie = HandOutcome(
        hand_no=3,
        winner=None,
        how="showdown",
        pot=40,
        hands=("Ah Kd 9c 7s 3h", "As Kc 9d 7h 3c"),
        ranks=(1, 1),
        items_lost=(),
        items_redeemed=(),
    )
    s._log_outcome(tie)
    texts = [e["text"] for e in s.events if e["kind"] == "result"]
    assert texts[0].startswith("You show Ah Kd 9c 7s 3h: ")
    assert texts[-1] == "A tie: the pot of 40 stays for the next hand."
    assert s.results[-1]["winner"] is None


def test_showdown_names_both_hands_with_the_evaluator() -> None:
    s = new_session("draw", seed=2)
    assert isinstance(s, DrawSession)
    while not s.results:
        names = [b.name for b in s.buttons()]
        s.act(next(n for n in ("STAY", "DRAW", "CALL") if n in names))
    r = s.results[0]
    if r["how"] == "showdown":
        from poker_env.cards import parse_cards
        from poker_env.evaluator import describe_hand, evaluate

        for who in ("you", "she"):
            rank = int(evaluate(parse_cards(r["hands"][who])[None])[0])
            assert r["names"][who] == describe_hand(rank)
            assert f"{r['hands'][who]}: {r['names'][who]}" in r["text"]


def test_staked_lost_redeemed_and_bought_back_items_are_shown() -> None:
    """Her wardrobe through a match (seed found by search): every stake, loss,
    redemption and buy-back the game records is on the screen and in the view."""
    s = new_session("draw", seed=27, money=100, items=3)
    assert isinstance(s, DrawSession)
    rng = np.random.default_rng(27)
    states: set[str] = set()
    shown_bought_back = False
    while not s.is_over:
        b = s.buttons()[int(rng.integers(len(s.buttons())))]
        if b.name == "DROP" and rng.random() < 0.7:
            continue
        s.act(b.name, b.max_amount if b.takes_amount else None)
        view = s.view()
        states |= {w["state"] for w in view["wardrobe"]}
        shown_bought_back |= any(w["bought_back"] for w in view["wardrobe"])
    texts = [e["text"] for e in s.events]
    lost = [n for r in s.results for n in r["items_lost"]]
    redeemed = [n for r in s.results for n in r["items_redeemed"]]
    bought = [r.item_bought_back for r in s.g.history if r.action == DrawAction.BUY_BACK]
    assert states == {"worn", "at_stake", "lost"}
    assert (len(lost), len(redeemed), len(bought)) == (1, 2, 1)
    assert f"She loses her {lost[0]}." in texts
    assert f"She buys back her {bought[0]} for 100." in texts
    assert sum(t.startswith("She stakes her") for t in texts) == 3
    assert shown_bought_back


# ------------------------------------------------------------------- other games
def test_red_dog_seat_among_computers_plays_to_the_end() -> None:
    s = new_session("reddog", seed=2, players=3)
    assert isinstance(s, RedDogSession)
    assert {b.name for b in s.buttons()} == {"BET", "FORFEIT"}
    while not s.is_over:
        bet = s.buttons()[0]
        assert bet.min_amount == 1 and bet.max_amount == min(s.g.pot, s.g.chips[0])
        s.act("BET", bet.max_amount)
    view = s.view()
    assert view["over"] and " with " in view["final"]
    assert not view["final"].startswith("Game over")  # the final box's title says it
    # Every computer bet and forfeit is on the screen, with its seat.
    bets = [r for r in s.g.history if type(r).__name__ in ("BetRecord", "ForfeitRecord")]
    assert len(s.results) == len(bets)
    assert {e["seat"] for e in s.events if e["kind"] in ("action", "result")} >= {0, 1, 2}


def test_holdem_seat_plays_hands_until_someone_holds_every_chip() -> None:
    s = new_session("holdem", seed=1, players=3, money=30)
    assert isinstance(s, HoldemSession)
    while not s.is_over:
        names = [b.name for b in s.buttons()]
        assert set(names) <= {"FOLD", "CHECK", "CALL", "RAISE", "ALL_IN"}
        s.act("ALL_IN" if "ALL_IN" in names else ("CALL" if "CALL" in names else "CHECK"))
    stacks = s.g.stacks()
    assert sum(stacks) == 90 and (stacks[0] == 0 or stacks[0] == 90)
    assert len(s.results) >= 1
    assert any("shows" in r["text"] for r in s.results)  # a showdown names the hands


def test_holdem_raise_takes_any_total_between_the_bounds() -> None:
    s = new_session("holdem", seed=3, players=2)
    assert isinstance(s, HoldemSession)
    r = next(b for b in s.buttons() if b.name == "RAISE")
    assert r.min_amount is not None and r.max_amount is not None
    before = s.to_json()
    with pytest.raises(InputError, match="out of bounds"):
        s.act("RAISE", r.max_amount + 1)
    assert s.to_json() == before
    amount = r.min_amount + 1  # not one of the env's pot-fraction sizes
    s.act("RAISE", amount)
    assert any(e["text"] == f"You raise to {amount}." for e in s.events)


# ------------------------------------------------------------------- saves
@pytest.mark.parametrize(
    ("game", "opts"),
    [
        ("draw", {"money": 80, "items": 2}),
        ("reddog", {"players": 4}),
        ("holdem", {"players": 3, "money": 60}),
    ],
)
def test_save_and_load_give_the_same_game(game: str, opts: dict[str, Any]) -> None:
    s = new_session(game, seed=6, **opts)
    rng = np.random.default_rng(2)
    for _ in range(12):
        if s.is_over:
            break
        b = s.buttons()[int(rng.integers(len(s.buttons())))]
        s.act(b.name, b.min_amount if b.takes_amount else None)
    text = s.to_json()
    assert json.loads(text)["format"] == "poker_env.play"
    loaded = load_session(text, game)
    assert loaded.to_json() == text
    view, again = s.view(), loaded.view()
    view.pop("events"), again.pop("events")
    assert again == view
    assert [e["text"] for e in loaded.events] == [e["text"] for e in s.events]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="other"), "not a saved game"),
        (lambda d: d.update(game="chess"), "saved game of 'chess'"),
        (lambda d: d.update(version=9), "saved game version 9"),
        (lambda d: d["state"]["result"].update(stacks=[999, 1]), "tampered or truncated"),
        (lambda d: d["state"]["actions"].append(["CALL", 0]), "refused at this point"),
        (lambda d: d["options"].update(deck=32), "do not match"),
        (lambda d: d["options"].update(evil="../x"), "unknown option 'evil'"),
        (lambda d: d.update(seed=-1), "seed -1"),
    ],
)
def test_a_bad_or_tampered_save_is_refused_with_the_reason(mutate: Any, message: str) -> None:
    s = new_session("draw", seed=6)
    s.act(s.buttons()[0].name, s.buttons()[0].min_amount)
    d = json.loads(s.to_json())
    mutate(d)
    with pytest.raises(SaveFileError, match=message):
        load_session(json.dumps(d))


def test_a_tampered_holdem_save_is_refused() -> None:
    s = new_session("holdem", seed=6, players=2)
    d = json.loads(s.to_json())
    d["state"]["hands"][0]["final_stacks"][0] += 1
    with pytest.raises(SaveFileError, match=r"hands\[0\].*tampered"):
        load_session(json.dumps(d))
    with pytest.raises(SaveFileError, match="holds a holdem game, not draw"):
        load_session(s.to_json(), "draw")
    with pytest.raises(SaveFileError, match="not JSON"):
        load_session("{not json")


def test_missing_shipped_models_are_a_clear_config_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for level in ("normal", "hard"):
        new_session("draw", opponent=level)  # the shipped models play
    monkeypatch.setattr("poker_env_agents.opponent.MODELS_DIR", tmp_path)
    for level in ("normal", "hard"):
        with pytest.raises(ConfigError, match="no shipped model") as info:
            new_session("draw", opponent=level)
        assert info.value.field == "level"
    with pytest.raises(ConfigError, match="deck"):
        new_session("draw", deck=40)
    with pytest.raises(ConfigError, match="players"):
        new_session("holdem", players=11)
    with pytest.raises(ConfigError, match="game"):
        new_session("chess")
    assert COMPUTER == 1


def test_views_never_hold_a_hidden_card() -> None:
    """What a front end is sent: her cards in the draw and the other seats' hole
    cards in Hold'em stay out of the view until shown down."""
    from poker_env.cards import format_cards

    s = new_session("draw", seed=12)
    assert isinstance(s, DrawSession) and not s.results
    text = json.dumps(s.view())
    for card in format_cards(s.g.hand(COMPUTER)).split():
        assert f'"{card}"' not in text
    h = new_session("holdem", seed=12, players=4)
    assert isinstance(h, HoldemSession) and not h.results
    text = json.dumps(h.view())
    for seat in (1, 2, 3):
        for card in h.g.hole_cards(seat).split():
            assert f'"{card}"' not in text and f"{card} " not in text
    r = new_session("reddog", seed=12, players=4)
    assert isinstance(r, RedDogSession)
    text = json.dumps(r.view()["cards"])
    shown = set(r.g.shown_cards) | set(r.g.turned_cards)
    for seat in (1, 2, 3):
        for c in set(r.g.hand(seat)) - shown:
            assert f'"{format_cards([c])}"' not in text


def _pressed(seed: int, lines: list[str]) -> DrawSession:
    """A draw session (money 50, two items) after the person's ``lines``."""
    s = new_session("draw", seed=seed, money=50, items=2)
    assert isinstance(s, DrawSession)
    for line in lines:
        word, *rest = line.split()
        b = s.find_button(word)
        amount = str(b.max_amount) if rest == ["max"] else None
        s.act(b.name, amount)
    return s


def _states(wardrobe: list[dict[str, Any]]) -> dict[str, str]:
    return {w["item"]: w["state"] for w in wardrobe}


def test_a_showdowns_record_holds_her_wardrobe_as_the_hand_left_it() -> None:
    """The showdown pause shows her wardrobe as that hand left it, not as the next
    hand's ante or her buy-back between the hands changed it (read from the log)."""
    # Seed 7: you win hand 1's pot of 100; she is broke and hand 2's ante stakes her
    # hat, logged after hand 2's deal line.
    s = _pressed(7, ["b max", "d", "c"])
    sd = s.view()["showdown"]
    texts = [e["text"] for e in s.events]
    assert texts.index("She stakes her hat (100 in chips).") > texts.index(
        "Hand 2: she acts first."
    )
    assert _states(s.view()["wardrobe"]) == {"hat": "at_stake", "scarf": "worn"}
    assert _states(sd["wardrobe"]) == {"hat": "worn", "scarf": "worn"}
    # Seed 27: she wins hand 7 with both items lost before it, then buys back her
    # scarf for 100 between the hands.
    s = _pressed(
        27,
        [  # what tests/play/test_terminal.py's _pressure plays: raise or bet the most
            *("b max", "r max", "d", "b max", "r max", "b max", "d", "c"),
            *("r max", "d", "b max", "d", "c"),
        ],
    )
    sd = s.view()["showdown"]
    assert sd["hand"] == 7 and "She buys back her scarf for 100." in [e["text"] for e in s.events]
    assert _states(s.view()["wardrobe"]) == {"hat": "lost", "scarf": "worn"}
    assert _states(sd["wardrobe"]) == {"hat": "lost", "scarf": "lost"}
    assert [w["bought_back"] for w in sd["wardrobe"]] == [False, False]


def test_holdem_offers_one_button_where_the_call_takes_every_chip() -> None:
    # "CALL 8" and "ALL-IN (to 8)" were both offered, the same play (a play-test).
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(120):
        s = new_session(
            "holdem", players=int(rng.integers(2, 7)), seed=seed, money=int(rng.integers(3, 60))
        )
        for _ in range(300):
            if s.is_over:
                break
            buttons = s.buttons()
            names = [b.name for b in buttons]
            if "CALL" in names:
                call = next(b for b in buttons if b.name == "CALL")
                takes_all = s.g.legal_actions().call_amount >= s.g.stacks()[s.seat]
                if takes_all:
                    assert "ALL_IN" not in names, names
                assert call.label.endswith("(all-in)") is takes_all, call.label
                seen += takes_all
            b = buttons[int(rng.integers(len(buttons)))]
            s.act(b.name, b.min_amount if b.takes_amount else None)
    assert seen >= 10


def test_red_dog_says_which_bound_holds_the_bet() -> None:
    # "1 to 27 (chips, at most the pot)" with a pot of 57: the bound was your chips.
    rng = np.random.default_rng(1)
    said = set()
    for seed in range(40):
        s = new_session("reddog", players=4, seed=seed, money=int(rng.integers(2, 30)))
        for _ in range(200):
            if s.is_over:
                break
            bet = s.buttons()[0]
            pot, mine = s.g.pot, s.g.chips[s.seat]
            assert bet.max_amount == min(pot, mine)
            if bet.max_amount < pot:
                assert bet.amount_help == f"chips, at most all yours (the pot is {pot})"
            else:
                assert bet.amount_help == "chips, at most the pot"
            said.add(bet.max_amount < pot)
            s.act("BET", int(rng.integers(bet.min_amount, bet.max_amount + 1)))
    assert said == {True, False}
