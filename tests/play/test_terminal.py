"""The terminal front end through piped standard input: whole games, refusals with
their reasons, saving and resuming."""

from __future__ import annotations

import io
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from poker_env_agents.play import load_session, new_session
from poker_env_agents.play.common import Button, Session
from poker_env_agents.play.terminal import main

ROOT = Path(__file__).resolve().parents[2]


def _run(
    argv: Sequence[str], lines: Sequence[str], save: Path, width: int = 100
) -> tuple[int, str]:
    """Run ``poker-play`` in-process with ``lines`` as its standard input (a pipe: no
    terminal), returning the exit status and everything it printed."""
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None)
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    code = main([*argv, "--save", str(save)], stdin=stdin, console=console)
    return code, out.getvalue()


Strategy = Callable[[dict[str, Button]], str]


def _lines_for(game: str, options: dict[str, object], strategy: Strategy) -> list[str]:
    """The lines a person following ``strategy`` types in a whole game (worked out on a
    session with the same seed: the game depends on the seed and the lines only)."""
    s: Session = new_session(game, **options)  # type: ignore[arg-type]
    lines = []
    while not s.is_over:
        line = strategy({b.name: b for b in s.buttons()})
        lines.append(line)
        word, *rest = line.split()
        button = s.find_button(word)
        amount = rest[0] if rest and button.takes_amount else None
        if amount == "max":
            amount = str(button.max_amount)
        s.act(button.name, amount, rest if button.takes_cards else ())
    return lines


def _pressure(b: dict[str, Button]) -> str:
    # Raise or bet the most allowed, else call / check; never drop; stand pat.
    for name, line in (("RAISE", "r max"), ("BET", "b max"), ("CALL", "c"), ("DRAW", "d")):
        if name in b:
            return line
    return "s"


def _calling_station(b: dict[str, Button]) -> str:
    for name, line in (("CALL", "c"), ("DRAW", "d"), ("STAY", "s")):
        if name in b:
            return line
    raise AssertionError(b)


def test_a_whole_draw_match_the_person_wins(tmp_path: Path) -> None:
    """Seed 27 (found by search): she runs out of money and items; RULES.md §1, the
    human wins when she has to stake and has no item left."""
    opts = {"seed": 27, "money": 50, "items": 1}
    lines = _lines_for("draw", opts, _pressure)
    code, out = _run(
        ["draw", "--seed", "27", "--money", "50", "--items", "1"], lines, tmp_path / "s.json"
    )
    assert code == 0
    assert "She stakes her hat (100 in chips)." in out
    assert "She loses her hat." in out
    assert "You won the match: she had to stake and had nothing left to stake." in out
    assert "─ Final ─" in out[-600:]  # the final screen
    assert "Not accepted" not in out
    assert not (tmp_path / "s.json").exists()  # a finished match is not saved


def test_a_whole_draw_match_the_computer_wins(tmp_path: Path) -> None:
    opts = {"seed": 5, "money": 20, "items": 1}
    lines = _lines_for("draw", opts, _calling_station)
    code, out = _run(
        ["draw", "--seed", "5", "--money", "20", "--items", "1"], lines, tmp_path / "s.json"
    )
    assert code == 0
    assert "She won the match: you cannot pay the ante." in out
    # Showdowns name both hands (the evaluator's names).
    assert "You show " in out and "She shows " in out
    assert out.count("You show ") >= 2
    # The match ended with a showdown: the final screen's table still shows the money
    # both hold and her wardrobe (nothing of a next hand is paid at the end).
    final = out[out.rindex("╭─ Five-card") :]
    assert "─ Showdown · hand" in final and "─ Final ─" in final
    assert "money 0" in final and "her wardrobe: hat" in final


def test_the_same_lines_as_a_cycle_also_finish_a_match(tmp_path: Path) -> None:
    """A fixed cycle of keys (what a shell pipe gives): illegal ones are refused with
    the reason and the next line is read; the match still ends."""
    lines = list(itertools.islice(itertools.cycle(["c", "d", "s"]), 600))
    code, out = _run(["draw", "--seed", "0", "--money", "20"], lines, tmp_path / "s.json")
    assert code == 0
    assert "won the match" in out
    assert "Not accepted: 'c' is not a legal button now; legal:" in out


def test_bad_input_is_asked_again_with_the_reason_and_changes_nothing(tmp_path: Path) -> None:
    s = new_session("draw", seed=1)
    assert [b.name for b in s.buttons()] == ["BET", "STAY", "DROP"]  # seed 1: you act first
    lines = ["xyzzy", "c", "b 99999", "b 4.5", "b", "3", "abc", "7", "", "q"]
    code, out = _run(["draw", "--seed", "1"], lines, tmp_path / "s.json")
    assert code == 0
    for reason in (
        "Not accepted: 'xyzzy' is not a legal button now; legal: BET 5..495, STAY, DROP",
        "Not accepted: 'c' is not a legal button now",
        "Not accepted: BET 99999 is out of bounds: from 5 to 495 (chips to bet)",
        "Not accepted: the amount of BET must be a whole number, not '4.5'",
        "Not accepted: BET 3 is out of bounds: from 5 to 495",
        "Not accepted: the amount of BET must be a whole number, not 'abc'",
    ):
        assert reason in out
    # Refusals changed nothing: the first action of the match is the BET of 7 given
    # when the amount was asked again (after 3 and abc were refused).
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["state"]["actions"][0] == ["BET", 7]
    assert (
        out.count("BET: how much (5..495, chips to bet; an empty line to choose another button)?")
        == 3
    )


def _lines_to_the_draw(seed: int) -> list[str]:
    """The lines (stay, or go to the draw) that reach the draw of hand 1."""
    s = new_session("draw", seed=seed)
    lines: list[str] = []
    while not any(b.takes_cards for b in s.buttons()):
        names = [b.name for b in s.buttons()]
        lines.append("s" if "STAY" in names else "d")
        s.act("STAY" if "STAY" in names else "DRAW")
    return lines


def test_cards_marked_by_number_then_draw(tmp_path: Path) -> None:
    pre = _lines_to_the_draw(4)
    lines = [*pre, "1 1", "9", "2", "5", "5", "3", "d", "q"]
    code, out = _run(["draw", "--seed", "4"], lines, tmp_path / "s.json")
    assert code == 0
    assert "Not accepted: card 1 is named twice" in out
    assert "Not accepted: card 9 does not exist" in out
    assert "2*" in out  # a marked card is shown marked
    assert "You change 2 cards." in out  # 2 and 3 marked (5 marked and unmarked)
    saved = json.loads((tmp_path / "s.json").read_text())
    assert ["DISCARD", 0b110] in saved["state"]["actions"]


def test_draw_with_numbers_other_than_the_marked_cards_is_refused(tmp_path: Path) -> None:
    """'d 3' with cards 2 and 4 marked once changed card 3 alone and dropped the marks
    without a word (found by playing). Changing cards cannot be undone: it is refused,
    saying how to do either; 'd' with the same numbers as the marks is taken."""
    pre = _lines_to_the_draw(4)
    lines = [*pre, "2 4", "d 3", "d 4 2", "q"]
    code, out = _run(["draw", "--seed", "4"], lines, tmp_path / "s.json", width=200)
    assert code == 0
    assert (
        "Not accepted: 'd 3': cards 2 4 are marked; type 'd' alone to change them, or "
        "unmark them first (type 2 4) to change only what you typed" in out
    )
    assert "You change 2 cards." in out and "You change 1 card" not in out
    saved = json.loads((tmp_path / "s.json").read_text())
    assert ["DISCARD", 0b1010] in saved["state"]["actions"]


def test_an_empty_line_or_help_at_the_amount_prompt_is_not_a_refusal(tmp_path: Path) -> None:
    """The prompt says an empty line chooses another button: doing so is not answered
    in red as a refusal, and '?' there explains the amount instead of refusing it."""
    code, out = _run(["draw", "--seed", "4"], ["b", "?", "", "q"], tmp_path / "s.json", width=200)
    assert code == 0
    assert "A whole number from 5 to 495, 'min' or 'max' ('all')" in out
    assert "No amount given: choose a button again." in out
    assert "Not accepted" not in out


def test_save_with_q_and_resume_continue_the_same_match(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    argv = ["draw", "--seed", "9", "--money", "40", "--items", "2"]
    lines = _lines_for("draw", {"seed": 9, "money": 40, "items": 2}, _calling_station)
    code, out = _run(argv, [*lines[:6], "q"], save)
    assert code == 0 and f"Saved to {save}" in out and "--resume" in out
    text = save.read_text()
    assert json.loads(text)["format"] == "poker_env.play"
    session = load_session(text)
    # The screen after resuming is the one that was left (the table, the buttons).
    i = out.rindex("╭─ Five-card")
    last_table = out[i : out.index("╯", i) + 1]
    code, again = _run(["draw", "--resume", str(save)], ["q"], save)
    assert code == 0
    assert again[again.index("╭") : again.index("╯") + 1] == last_table
    assert load_session(save.read_text()).to_json() == session.to_json()
    # And it plays on to the end; the file then holds the finished match (it held the
    # position before the last action, so a lost match could be resumed and replayed).
    code, end = _run(["draw", "--resume", str(save)], lines[6:], save)
    assert code == 0 and "won the match" in end
    finished = load_session(save.read_text())
    assert finished.is_over and finished.to_json() != session.to_json()
    code, again = _run(["draw", "--resume", str(save)], [], save)
    assert code == 0 and "won the match" in again and "Saved to" not in again


def test_end_of_input_and_ctrl_c_save_the_game(tmp_path: Path) -> None:
    code, _ = _run(["reddog", "--seed", "1"], [], tmp_path / "eof.json")
    assert code == 0 and (tmp_path / "eof.json").exists()

    class CtrlC(io.StringIO):
        def readline(self, size: int = -1) -> str:
            raise KeyboardInterrupt

    out_io = io.StringIO()
    save = tmp_path / "int.json"
    code = main(
        ["holdem", "--seed", "1", "--save", str(save)],
        stdin=CtrlC(),
        console=Console(file=out_io, width=100, color_system=None),
    )
    assert code == 0 and load_session(save.read_text(), "holdem").game == "holdem"


def test_a_whole_red_dog_game_shows_what_each_player_did(tmp_path: Path) -> None:
    lines = ["b max"] * 40
    code, out = _run(["reddog", "--seed", "2", "--players", "4"], lines, tmp_path / "s.json")
    assert code == 0
    assert "Game over: " in out
    for seat in (1, 2, 3):
        assert f"Seat {seat} bets" in out or f"Seat {seat} forfeits" in out
    assert "the dealer turns" in out


def test_a_whole_holdem_game_at_a_table_of_three(tmp_path: Path) -> None:
    lines = list(itertools.islice(itertools.cycle(["a", "c"]), 400))
    code, out = _run(
        ["holdem", "--seed", "1", "--players", "3", "--money", "30"], lines, tmp_path / "s.json"
    )
    assert code == 0
    assert "Game over: You" in out
    assert "Seat 1 " in out and "Seat 2 " in out
    assert "shows" in out  # hands shown down, named


def test_bad_options_and_files_say_why(tmp_path: Path) -> None:
    code, out = _run(["draw", "--items", "9"], [], tmp_path / "s.json")
    assert code == 2 and "cannot start: bad config: items=9" in out
    code, out = _run(["draw", "--resume", str(tmp_path / "missing.json")], [], tmp_path / "s")
    assert code == 2 and "cannot read" in out
    (tmp_path / "bad.json").write_text('{"format": "poker_env.play", "version": 1}')
    code, out = _run(["draw", "--resume", str(tmp_path / "bad.json")], [], tmp_path / "s")
    assert code == 2 and "saved game of None" in out
    import poker_env_agents.opponent

    saved = poker_env_agents.opponent.MODELS_DIR
    poker_env_agents.opponent.MODELS_DIR = tmp_path  # no shipped models: a clear message
    try:
        code, out = _run(["draw", "--opponent", "normal"], [], tmp_path / "s.json")
    finally:
        poker_env_agents.opponent.MODELS_DIR = saved
    assert code == 2 and "no shipped model draw_match52.npz" in out


def test_the_script_plays_through_a_real_pipe(tmp_path: Path) -> None:
    """scripts/play.py as a person's shell runs it, standard input a pipe."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "90"}
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "play.py"),
            *("reddog", "--players", "2", "--seed", "3", "--save", str(tmp_path / "s.json")),
        ],
        input="f\n" * 60,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Red Dog · deal 1 of 2" in proc.stdout
    assert "Game over: " in proc.stdout
    assert "♠" in proc.stdout or "♥" in proc.stdout or "♦" in proc.stdout or "♣" in proc.stdout
    shot = os.environ.get("POKER_ENV_SCREENSHOTS")
    if shot:  # a terminal screen captured to text, for people to look at
        Path(shot).mkdir(parents=True, exist_ok=True)
        (Path(shot) / "terminal-reddog.txt").write_text(proc.stdout, encoding="utf-8")


def _screens(argv: Sequence[str], lines: Sequence[str], save: Path) -> list[str]:
    """The screens ``poker-play`` draws at a terminal (rich's clear splits them)."""
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system=None)
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    assert main([*argv, "--save", str(save)], stdin=stdin, console=console) == 0
    return [s for s in out.getvalue().split("\x1b[2J") if s.strip()]


def _checked_down(seed: int, then: str | None = None) -> dict[str, Any]:
    """The save of a heads-up Hold'em session (``seed``) whose first hand was checked
    down (preflop, flop, turn, river), then ``then`` played in the next hand."""
    s = new_session("holdem", seed=seed)
    for _ in range(4):
        s.act("CHECK")
    if then is not None:
        s.act(then)
    saved: dict[str, Any] = json.loads(s.to_json())
    return saved


def test_at_a_terminal_a_holdem_showdown_waits_with_its_own_table(tmp_path: Path) -> None:
    """Seed 3, heads-up, checked down: the blinds 1 and 2 make a pot of 4 and your pair
    of sevens wins it, so you hold 202 and Seat 1 198 (200 each at the start). The
    showdown stays on the screen with that table (no blinds, bets or cards of hand 2)
    until Enter; another key is refused and plays nothing."""
    screens = _screens(["holdem", "--seed", "3"], ["c"] * 4 + ["c", "", "q"], tmp_path / "s.json")
    pause = [s for s in screens if "hand 1 · showdown" in s]
    assert len(pause) == 2  # drawn again after the refused key
    first = pause[0]
    assert "You     chips   202   wins" in first
    assert "Seat 1  chips   198   shows" in first
    assert "POT       4" in first
    assert "[9h]  [Qs]  [8d]  [Kc]  [7s]" in first  # hand 1's board
    assert "hand 2" not in first.lower() and "Hand 2:" not in first
    assert "D SB" not in first and "BB" not in first and "bet " not in first
    assert "─ Showdown · hand 1 ─" in first and "[Enter] next hand" in first
    assert "Not accepted: 'c': the hand is over; Enter (or n) shows the next hand" in pause[1]
    # Enter: hand 2's table, the showdown no longer drawn below it; the 'c' at the
    # pause was not played (hand 2 waits for your first action).
    after = screens[screens.index(pause[1]) + 1]
    assert "Texas Hold'em · hand 2 · preflop" in after
    assert "─ Showdown" not in after
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["state"] == _checked_down(3)["state"]


def test_at_a_terminal_a_draw_showdown_waits_and_names_both_hands(tmp_path: Path) -> None:
    """Seed 5: you stay, stand pat and call; her pair of fours beats your queen high."""
    screens = _screens(
        ["draw", "--seed", "5", "--money", "20", "--items", "1"],
        ["s", "d", "s", "c", "?", "n", "q"],
        tmp_path / "s.json",
    )
    pause = [s for s in screens if "hand 1 · showdown" in s]
    assert len(pause) == 2  # and again with the help line
    assert "SHE  Pair, Fours (wins)" in pause[0]
    assert "YOU  High Card, Queen high" in pause[0]
    assert "POT  10" in pause[0]
    assert "1:[" not in pause[0]  # not hand 2's cards
    assert "Keys: Enter (or n) shows the next hand; q saves and quits." in pause[1]
    after = screens[screens.index(pause[1]) + 1]
    assert "Five-card draw · hand 2" in after and "─ Showdown" not in after


def test_piped_input_reads_no_pause_line(tmp_path: Path) -> None:
    """Without a terminal the showdown is listed under the next hand's table and the
    next line plays on (a script's lines are the game's actions only)."""
    code, out = _run(["holdem", "--seed", "3"], ["c"] * 5 + ["q"], tmp_path / "s.json")
    assert code == 0
    assert "─ Showdown · hand 1 ─" in out and "[Enter] next hand" not in out
    assert "Not accepted" not in out
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["state"] == _checked_down(3, then="CALL")["state"]  # 5th line: hand 2


def test_a_game_saved_at_the_showdown_pause_resumes_at_it(tmp_path: Path) -> None:
    save = tmp_path / "s.json"
    _screens(["holdem", "--seed", "3"], ["c"] * 4 + ["q"], save)
    screens = _screens(["holdem", "--resume", str(save)], ["", "q"], save)
    assert "Texas Hold'em · hand 1 · showdown" in screens[0]
    assert "Texas Hold'em · hand 2 · preflop" in screens[1]
    # Saved after going past the pause: the resumed game does not stop there again.
    again = _screens(["holdem", "--resume", str(save)], ["q"], save)
    assert "Texas Hold'em · hand 2 · preflop" in again[0]
    assert json.loads(save.read_text())["ui"]["showdown_seen"] == 1


def test_the_draw_pause_shows_her_wardrobe_as_the_hand_left_it(tmp_path: Path) -> None:
    """Seed 7 (money 50, two items): you win hand 1; hand 2's ante then stakes her hat.
    The pause shows the hat still worn; hand 2's table shows it at stake."""
    screens = _screens(
        ["draw", "--seed", "7", "--money", "50", "--items", "2"],
        ["b max", "d", "c", "", "q"],
        tmp_path / "s.json",
    )
    pause = next(s for s in screens if "hand 1 · showdown" in s)
    assert "her wardrobe: hat  scarf" in pause and "(at stake)" not in pause
    after = screens[screens.index(pause) + 1]
    assert "Five-card draw · hand 2" in after and "hat (at stake)" in after


def test_a_showdown_keeps_each_hands_cards_on_one_line_at_any_width() -> None:
    """At 60 columns the draw's showdown box once put the fifth card on a line of its
    own, under the first (the hand looked like four cards; found by playing). Each
    hand's cards now stay on its line at 100, 60 and 40 columns; the name follows or
    goes under them, whole."""
    import re

    from poker_env_agents.play.terminal import _showdown

    s = new_session("draw", seed=3)
    while not s.view().get("showdown"):
        names = [b.name for b in s.buttons()]
        s.act(next(n for n in ("CALL", "DRAW", "STAY") if n in names))
    sd = s.view()["showdown"]
    for width in (100, 60, 56, 40):
        out = io.StringIO()
        Console(file=out, width=width, color_system=None).print(_showdown(s.view(), False))
        text = out.getvalue()
        for who, label in (("she", "SHE"), ("you", "YOU")):
            line = next(x for x in text.splitlines() if f" {label} " in x)
            assert len(re.findall(r"\[[2-9TJQKA][cdhs]\]", line)) == 5, (width, text)
            assert sd["names"][who].split(",")[0] in text, (width, text)
        assert text.count("\n") <= 8, text
        if width >= 56:  # room for the name beside the cards: on the same line
            line = next(x for x in text.splitlines() if " SHE " in x)
            assert sd["names"]["she"].split(",")[0] in line, text


def test_a_short_terminal_keeps_the_table_and_the_buttons_in_view() -> None:
    """At 60x20 and 50x15 the pot, her money and whose turn it was scrolled off the top
    under a long log (found by playing). On a terminal the screen now fits its height
    (the prompt's line kept): the opponent line and the previous hand's summary go
    first, then the oldest lines of what happened, newest kept as room allows. A
    roomy terminal and piped output get everything."""
    from poker_env_agents.play.terminal import render_screen

    draw = new_session("draw", seed=7)
    for _ in range(12):
        names = [b.name for b in draw.buttons()]
        draw.act(next(n for n in ("CALL", "DRAW", "STAY") if n in names))
    holdem = new_session("holdem", players=6, seed=9)
    holdem.act(next(n for n in ("CALL", "CHECK") if n in [b.name for b in holdem.buttons()]))
    assert not draw.is_over and not holdem.is_over
    for session, pot in ((draw, "POT  515"), (holdem, "POT")):
        newest = session.view()["events"][-1]["text"]
        for width, height in ((60, 20), (50, 15), (100, 60)):
            out = io.StringIO()
            console = Console(
                file=out, width=width, height=height, force_terminal=True, color_system=None
            )
            render_screen(session, console)
            text = out.getvalue()
            assert text.count("\n") <= height - 1, (width, height, text)
            assert text.startswith("╭") and pot.split()[0] in text.split("╰")[0], text
            assert "[q] save and quit" in text
            if height >= 20:
                assert newest in text.replace("\n", " "), (width, height, text)
            if height == 60:
                assert "What happened:" in text and "Opponent level" in text
        piped = io.StringIO()
        render_screen(session, Console(file=piped, width=50, height=15, color_system=None))
        assert "What happened:" in piped.getvalue() and "Opponent level" in piped.getvalue()


def test_on_a_short_terminal_the_amount_question_is_one_line_and_room_is_kept() -> None:
    """On a short terminal the screen is drawn to fit; the amount's question, asked
    under it, was long enough to wrap over two or three lines and push the table's top
    off (found in review). There it is one short line, and the screen keeps a line
    for it."""
    from poker_env_agents.play.terminal import _turn, render_screen

    session = new_session("holdem", players=6, seed=9)
    session.act(next(n for n in ("CALL", "CHECK") if n in [b.name for b in session.buttons()]))
    raise_button = next(b for b in session.buttons() if b.name == "RAISE")
    out = io.StringIO()
    console = Console(file=out, width=60, height=20, force_terminal=True, color_system=None)
    render_screen(session, console)
    screen = out.getvalue().count("\n")
    _turn(session, console, io.StringIO("r\n\n"), set())
    text = out.getvalue()
    ask = f"RAISE ({raise_button.min_amount}..{raise_button.max_amount}; empty: back)? "
    assert ask in text and "how much" not in text
    # The screen, the line typed on ("> r") and the question fit in 20 lines.
    assert screen + 2 <= 20
    roomy = io.StringIO()
    _turn(
        session,
        Console(file=roomy, width=200, height=60, force_terminal=True, color_system=None),
        io.StringIO("r\n\n"),
        set(),
    )
    assert "RAISE: how much" in roomy.getvalue()


def test_a_game_killed_mid_hand_resumes_where_it_was(tmp_path: Path) -> None:
    """A terminal game was saved only on q or Ctrl-C: killed with SIGTERM mid-hand it
    left nothing (security review). It is saved after every action now."""
    import signal
    import time

    save = tmp_path / "g.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "poker_env_agents.play.terminal",
            "draw",
            "--seed",
            "4",
            "--save",
            str(save),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write("s\n")  # STAY; she acts; the line is played and saved
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while not save.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    expected = new_session("draw", seed=4)
    expected.act("STAY")
    resumed = load_session(save.read_text())
    assert resumed.to_json() == expected.to_json()


def test_a_new_game_never_overwrites_an_unfinished_save(tmp_path: Path) -> None:
    """A new game wrote over the unfinished game in draw-save.json without a word
    (found by a play-test); a save the game could not write failed at the first key."""
    save = tmp_path / "draw-save.json"
    code, _ = _run(["draw", "--seed", "1"], ["q"], save)
    assert code == 0 and load_session(save.read_text()).seed == 1
    before = save.read_bytes()
    code, out = _run(["draw", "--seed", "99"], ["q"], save)
    assert code == 2
    assert (
        f"cannot start: {save} holds an unfinished draw game (seed 1): continue it with "
        f"poker-play draw --resume {save}, or give this game another file with --save FILE"
    ) in " ".join(out.split())
    assert save.read_bytes() == before
    # A bad option is named first, not the save file in the way (it was the other way).
    code, out = _run(["draw", "--seed", "99", "--money", "-5"], ["q"], save)
    assert code == 2 and "--money=-5" in out and "unfinished" not in out, out
    # Resumed into another file that holds an unfinished game: refused as well.
    other = tmp_path / "other.json"
    other.write_bytes(before)
    code, out = _run(["draw", "--resume", str(save)], ["q"], other)
    assert code == 2 and "holds an unfinished draw game" in out
    # A file that is not a save, a folder, a missing folder: refused before the game.
    junk = tmp_path / "notes.json"
    junk.write_text("my notes")
    for path, says in (
        (junk, "exists and is not a saved game"),
        (tmp_path, "is a folder; give a file name"),
        (tmp_path / "nowhere" / "x.json", "the folder"),
    ):
        code, out = _run(["draw", "--seed", "2"], ["q"], path)
        assert code == 2 and says in " ".join(out.split()), out
    assert junk.read_text() == "my notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "draw-save.json",
        "notes.json",
        "other.json",
    ]
    # A finished game's file may be written over.
    finished = new_session("draw", seed=4, money=20)
    while not finished.is_over:  # she wins: you drop every hand until the ante is gone
        names = [b.name for b in finished.buttons()]
        finished.act("DROP" if "DROP" in names else names[0], cards=[])
    done = tmp_path / "done.json"
    done.write_text(finished.to_json())
    code, _ = _run(["draw", "--seed", "3"], ["q"], done)
    assert code == 0 and load_session(done.read_text()).seed == 3
    # A new game played to its end over a finished game's file leaves no save (only a
    # game resumed from its file keeps it at the end).
    done.write_text(finished.to_json())
    lines = _lines_for("draw", {"seed": 27, "money": 50, "items": 1}, _pressure)
    code, out = _run(["draw", "--seed", "27", "--money", "50", "--items", "1"], lines, done)
    assert code == 0 and "won the match" in out and not done.exists()


def test_the_keys_line_never_splits_a_key_from_its_word(tmp_path: Path) -> None:
    # At 80 columns rich wrapped "[?] help" between the key and the word (a play-test).
    import re

    for width in (50, 64, 80, 100):
        code, out = _run(["holdem", "--seed", "3"], ["q"], tmp_path / f"{width}.json", width)
        assert code == 0
        lines = out.splitlines()
        assert not [ln for ln in lines if re.search(r"\[[a-z?]\]\s*$", ln)], (width, out)
        assert any("[q] save and quit" in ln for ln in lines)
        assert any(ln.startswith("[?] help") or "   [?] help" in ln for ln in lines)


def test_large_stacks_keep_their_columns_and_a_folded_seat_says_so() -> None:
    # 1e12-chip stacks pushed the columns out of line, without separators; a folded
    # seat showed a bare "-" (a play-test).
    from poker_env_agents.play.terminal import _players_table

    def seat(q: int, chips: int, bet: int, in_hand: bool = True) -> dict[str, Any]:
        return {
            "seat": q, "name": "You" if q == 0 else f"Seat {q}", "to_act": q == 0,
            "chips": chips, "bet": bet, "in_hand": in_hand, "seated": True, "roles": [],
        }  # fmt: skip

    view = {
        "game": "holdem",
        "players": [seat(0, 10**12, 0), seat(1, 999_999_999_998, 2), seat(2, 7, 12_345, False)],
        "pot": 12_347,
        "board": [],
        "hand": 2,
        "street": "flop",
        "cards": [],
    }
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(_players_table(view, False))
    rows = [ln for ln in out.getvalue().splitlines() if "chips" in ln]
    assert "chips 1,000,000,000,000   bet      0" in rows[0]
    assert "chips   999,999,999,998   bet      2" in rows[1]
    assert "chips                 7   bet 12,345    folded" in rows[2]
    assert len({ln.index("bet") for ln in rows}) == 1


def test_cards_named_in_what_happened_read_as_on_the_table() -> None:
    """On a UTF-8 console the log's cards ("Kd") carry the table's suit symbols and its
    colours (red for diamonds and hearts); a console without UTF-8 keeps letters, as its
    table does."""
    import re

    from poker_env_agents.play.terminal import _with_cards, render_screen

    s = new_session("holdem", players=2, seed=5)
    while not any(re.search(r"Your cards: \w\w \w\w", e["text"]) for e in s.events):
        s.act(s.buttons()[0].name)
    deal = next(e["text"] for e in s.events if "Your cards:" in e["text"])
    mine = deal.split("Your cards: ")[1].rstrip(".").split()
    symbols = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
    raw = io.BytesIO()
    utf8 = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    render_screen(s, Console(file=utf8, width=120, color_system=None))
    shown = raw.getvalue().decode("utf-8")
    assert "Your cards: " + " ".join(c[0] + symbols[c[1]] for c in mine) in shown
    plain = io.StringIO()
    render_screen(s, Console(file=plain, width=120, color_system=None))
    assert "Your cards: " + " ".join(mine) in plain.getvalue()
    t = _with_cards("She shows Kd Qs: Pair, Kings", "bold", True)
    assert t.plain == "She shows K♦ Q♠: Pair, Kings"
    styles = {t.plain[span.start : span.end]: str(span.style) for span in t.spans}
    assert styles["K♦"] == "bold bold red" and styles["Q♠"] == "bold bold"
    assert _with_cards("Kd", "", False).plain == "Kd"
    # Words that look like cards stay words; a card list after the game's words does not.
    for words in ("As you like it, Ah well, Ad hoc.", "You 2, Seat 4 1.", "Kd alone"):
        assert _with_cards(words, "", True).plain == words
    draw = "Draw for the first dealer: You Jd, Seat 1 Qd, Seat 5 As. Seat 5 deals."
    assert _with_cards(draw, "", True).plain == (
        "Draw for the first dealer: You J♦, Seat 1 Q♦, Seat 5 A♠. Seat 5 deals."
    )
    assert _with_cards("the dealer turns Tc: it wins", "", True).plain == (
        "the dealer turns T♣: it wins"
    )


def test_every_card_the_texts_name_follows_a_word_the_card_rule_knows() -> None:
    """The log shows a card with its symbol only after the words the texts name cards
    with (terminal._CARD_LIST, the page's CARD_LIST): in whole random games of each
    game every card-like word of every text (events, results, the final line) is one
    the rule finds, so none is left in letters. A new text that names a card after
    another word fails here."""
    import random
    import re

    from poker_env_agents.play.terminal import _CARD_LIST

    loose = re.compile(r"\b[2-9TJQKA][cdhs]\b")
    tables: list[tuple[str, dict[str, Any]]] = [
        ("draw", {}),
        ("draw", {"deck": 32}),
        ("reddog", {"players": 10}),
        ("holdem", {"players": 2}),
        ("holdem", {"players": 10}),
    ]
    found = 0
    for game, options in tables:
        for seed in range(3):
            s = new_session(game, seed=seed, **options)
            rng = random.Random(seed)
            for _ in range(300):
                buttons = s.buttons()
                if s.is_over or not buttons:
                    break
                b = rng.choice(buttons)
                amount = rng.randint(b.min_amount, b.max_amount) if b.takes_amount else None
                cards = rng.sample(range(1, 6), rng.randint(0, 3)) if b.takes_cards else ()
                s.act(b.name, amount=amount, cards=cards)
            view = s.view()
            texts = [e["text"] for e in s.events] + [view["final"] or ""]
            texts += [line for r in view["results"] for line in (r.get("lines") or [r["text"]])]
            for text in texts:
                listed = sum(len(m[2].split()) for m in _CARD_LIST.finditer(text))
                assert listed == len(loose.findall(text)), text
                found += listed
    assert found > 1000


def test_the_page_reads_cards_by_the_same_rule() -> None:
    """game.js's CARD_LIST is the terminal's _CARD_LIST, character for character (the
    test above checks the rule against every text)."""
    from poker_env_agents.play.terminal import _CARD_LIST

    js = (ROOT / "agents" / "play" / "web" / "static" / "game.js").read_text()
    source = js.split("const CARD_LIST = /", 1)[1].split("/g;", 1)[0]
    assert source == _CARD_LIST.pattern


def test_red_dog_is_also_taken_as_the_other_commands_spell_it(tmp_path: Path) -> None:
    # poker-play says reddog, poker-train and poker-evaluate red-dog: each takes both.
    save = tmp_path / "rd.json"
    code, out = _run(["red-dog", "--seed", "3"], ["q"], save)
    assert code == 0 and load_session(save.read_text()).game == "reddog"
    assert "--resume" in out and " reddog --resume" in " ".join(out.split())
