"""The terminal as a person plays it: tables without a trained opponent refused with the
reason (and named in --help), the whole hand kept under "What happened", the uncalled
part of a Hold'em bet out of the pot, help that is not a refusal, an amount prompt that
says how to leave it, and a resumed game that shows what happened and the marked cards."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from poker_env_agents.play import load_session, new_session
from poker_env_agents.play.holdem import HoldemSession
from poker_env_agents.play.sessions import trained_summary, trained_tables
from poker_env_agents.play.terminal import main


def _run(argv: Sequence[str], lines: Sequence[str], save: Path) -> tuple[int, str]:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    code = main([*argv, "--save", str(save)], stdin=stdin, console=console)
    return code, out.getvalue()


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_red_dog_without_a_trained_opponent_for_the_table_says_why(
    tmp_path: Path, level: str
) -> None:
    code, out = _run(["reddog", "--players", "6", "--opponent", level], [], tmp_path / "s.json")
    assert code == 2
    assert "Traceback" not in out and "PolicyFileError" not in out
    assert "cannot start" in out and "red_dog.npz was trained for 4 players, not 6" in out
    assert "/agents/models" not in out


def test_help_names_the_tables_with_trained_opponents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert trained_summary() in text
    assert "Red Dog: 4 players" in trained_summary()  # what agents/models/ holds now


def test_what_happened_keeps_the_whole_hand_at_six_players(tmp_path: Path) -> None:
    # Six players, calling every bet: a hand's log runs past 14 lines; every line of
    # the hand in which you last acted is on the screen.
    s = new_session("holdem", seed=3, players=6)
    assert isinstance(s, HoldemSession)
    longest = 0
    for _ in range(40):
        if s.is_over:
            break
        names = [b.name for b in s.buttons()]
        s.act("CALL" if "CALL" in names else "CHECK")
        view = s.view()
        start = max(i for i in s.hand_starts if i <= s.mark)
        assert [e["text"] for e in view["events"]] == [e["text"] for e in s.events[start:]]
        longest = max(longest, len(view["events"]))
    assert longest > 14


def test_the_uncalled_part_of_a_bet_is_neither_in_the_pot_nor_won() -> None:
    # Hand-worked: two seats of 100, blinds 1 and 2. Seat 0 (dealer, small blind) goes
    # all-in to 100, seat 1 folds. Only 2 of the 100 were called: 98 go back, the pot is
    # the 2 + 2 matched, and seat 0 wins 4 of it (+2 over the hand), not "wins 100".
    import numpy as np

    from poker_env.cards import parse_cards
    from poker_env.episode.holdem_result import hand_result
    from poker_env.games import holdem_kernels as K
    from poker_env.games.holdem import get_holdem_tables

    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_table(st, 2, 2, 0, K.RULES_SEED, K.PENALTY_BURN)
    st[K.STATUS : K.STATUS + 2] = K.SEATED
    st[K.STACK : K.STACK + 2] = 100
    top = parse_cards("As 9c Ks 9d Qs Js Ts 2h 3d")
    deck = np.concatenate([top, np.setdiff1d(np.arange(52), top)]).astype(np.int64)
    tables = get_holdem_tables()
    K.start_hand(st, deck, 0, tables)
    assert K.act(st, K.ALL_IN, 0, tables) == 0 and K.act(st, K.FOLD, 0, tables) == 0
    s = new_session("holdem", seed=0, players=2)
    assert isinstance(s, HoldemSession)
    lines = s._result_lines(hand_result(st, 1))
    assert lines == [
        "Hand 1 over (decided before the flop): the pot is 4.",
        "The uncalled 98 goes back to you.",
        "You take it without showing, and win 4 (+2).",
        "Seat 1 folded (-2).",
    ]


def test_help_is_shown_plainly_and_the_amount_prompt_says_how_to_leave(tmp_path: Path) -> None:
    code, out = _run(["draw", "--seed", "1"], ["?", "b", "", "q"], tmp_path / "s.json")
    assert code == 0
    assert "Not accepted: keys" not in out and "Keys: b BET" in out
    assert "an empty line to choose another button" in out


def test_a_resumed_game_shows_what_happened_and_the_marked_cards(tmp_path: Path) -> None:
    save = tmp_path / "s.json"
    # Seed 2: she stays, you go to the draw (d), then mark cards 1 and 3 and quit.
    code, out = _run(["draw", "--seed", "2"], ["d", "1 3", "q"], save)
    assert code == 0 and "1*" in out
    resumed = load_session(save.read_text())
    assert resumed.marked == [1, 3]
    code, again = _run(["draw", "--resume", str(save)], ["q"], save)
    assert code == 0
    screen = again[: again.index("Saved to")]
    assert "What happened:" in screen and "You go to the draw (DRAW)." in screen
    assert "1*" in screen and "3*" in screen and "2:" in screen


def test_docs_play_table_of_trained_tables_is_what_agents_models_holds() -> None:
    # docs/play.md's "Which tables have trained opponents" table is written by hand:
    # each row's tables must be exactly those trained_tables() finds a model for, and
    # each file it names the shipped model of one of those tables.
    import re

    from poker_env_agents.opponent import shipped_model
    from poker_env_agents.play.sessions import _OPPONENT_GAME

    doc = (Path(__file__).resolve().parents[2] / "docs" / "play.md").read_text(encoding="utf-8")
    start = doc.index("| game | `normal` and `hard` play | file |")
    rows = [line for line in doc[start:].splitlines()[2:] if line.startswith("|")]
    names = {"five-card draw": "draw", "Red Dog": "reddog", "Hold'em": "holdem"}
    found = {}
    for row in rows:
        title, plays, files = (cell.strip() for cell in row.strip("|").split("|"))
        game = names[title]
        listed = [int(n) for n in re.findall(r"\d+", re.sub(r"\(.*?\)", "", plays))]
        ok = [v for v, problem in trained_tables()[game].items() if problem is None]
        assert listed == ok, f"docs/play.md says {title}: {plays}; agents/models/ has {ok}"
        option_game, key = _OPPONENT_GAME[game]
        shipped = {shipped_model(option_game, {key: v}).name for v in ok}
        named = set(re.findall(r"`([\w.]+\.npz)`", files))
        assert named == shipped, f"docs/play.md names {named} for {title}; shipped: {shipped}"
        found[game] = ok
    assert set(found) == set(trained_tables())
