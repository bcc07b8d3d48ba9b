"""A user's mistake on a command line is one line naming what was wrong, exit status
2, no traceback, and nothing written (found by a new-user walkthrough: missing or
folder player files, random bytes for a config or a save, negative counts and
out-of-range ports gave Python tracebacks, ZeroDivisionError or a silent run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from poker_env_agents.cli import evaluate, exploit, export, train, train_rllib
from poker_env_agents.play import terminal
from poker_env_agents.play.web import app


def _run(main: Callable[[list[str]], int], argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse refuses a value before any work
        return int(exc.code or 0)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "folder.npz").mkdir()
    (tmp_path / "random.toml").write_bytes(bytes(range(256)) * 3)
    (tmp_path / "a_file").write_text("x")
    return {
        "missing": str(tmp_path / "missing.npz"),
        "folder": str(tmp_path / "folder.npz"),
        "random": str(tmp_path / "random.toml"),
        "file": str(tmp_path / "a_file"),
        "dir": str(tmp_path),
    }


CASES: list[tuple[str, Callable[[list[str]], int], list[str], str]] = [
    (
        "hands 0",
        evaluate.main,
        ["draw", "random", "call", "--hands", "0"],
        "--hands: an integer >= 1, got 0",
    ),
    (
        "width 0",
        evaluate.main,
        ["draw", "random", "call", "--target-width", "0"],
        "--target-width: a finite number > 0",
    ),
    (
        "value -5",
        evaluate.main,
        ["red-dog", "random", "call", "--decision-value", "-5"],
        "--decision-value: an integer >= 0",
    ),
    (
        "discards -3",
        evaluate.main,
        ["draw", "random", "call", "--discards", "-3"],
        "--discards: an integer >= 0",
    ),
    (
        "seed -1",
        evaluate.main,
        ["draw", "random", "call", "--seed", "-1"],
        "--seed: an integer >= 0",
    ),
    (
        "missing",
        evaluate.main,
        ["draw", "{missing}", "call", "--hands", "8"],
        "{missing}: no such file or directory",
    ),
    (
        "folder",
        evaluate.main,
        ["draw", "{folder}", "call", "--hands", "8"],
        "{folder}: is a directory",
    ),
    (
        "json folder",
        evaluate.main,
        ["draw", "random", "call", "--json", "{dir}"],
        "is a folder; give a file name",
    ),
    (
        "lbr missing",
        exploit.main,
        ["lbr", "{missing}", "--hands", "8"],
        "{missing}: no such file or directory",
    ),
    (
        "config bytes",
        train.main,
        ["draw", "--config", "{random}", "--out", "{dir}/run"],
        "a TOML text file (UTF-8)",
    ),
    (
        "warm start",
        train.main,
        ["draw", "--warm-start", "{missing}", "--out", "{dir}/run2"],
        "{missing}: no such file",
    ),
    (
        "bad deck",
        train.main,
        ["draw", "--option", "deck=31", "--out", "{dir}/run", "--no-progress"],
        "bad config: deck=31; allowed: 'standard' or 52, 'short' or 32",
    ),
    (
        "net arch",
        train.main,
        ["draw", "--net-arch", "abc", "--out", "{dir}/run"],
        "--net-arch: the hidden layers' widths, positive integers separated by commas",
    ),
    (
        "export env id",
        export.main,
        ["{file}", "--env", "FiveCardDraw", "--out", "{dir}/run"],
        "poker-export: error: unknown env id 'FiveCardDraw'; allowed: poker_env/DrawMatch-v0,",
    ),
    (
        "export option",
        export.main,
        [
            "{file}",
            "--env",
            "poker_env/FiveCardDraw-v0",
            "--env-option",
            "bogus=1",
            "--out",
            "{dir}/run",
        ],
        "draw option='bogus'; allowed: one of ['deck']",
    ),
    (
        "play money",
        terminal.main,
        ["holdem", "--money", "2", "--save", "{dir}/run"],
        "--money=2; allowed: at least 3 in Texas Hold'em",
    ),
    (
        "lbr six seats",
        exploit.main,
        ["lbr", "shipped:holdem_6max", "--hands", "10"],
        "LBR measures heads-up Hold'em (num_players=2) only, and shipped:holdem_6max is a "
        "6-seat Hold'em policy",
    ),
    (
        "out is a file",
        train.main,
        ["draw", "--out", "{file}", "--no-progress"],
        "out='{file}'; allowed: a run folder (new or existing), not a file",
    ),
    (
        "resume bytes",
        terminal.main,
        ["draw", "--resume", "{random}"],
        "is not a saved game (not text)",
    ),
    (
        "opponent",
        terminal.main,
        ["draw", "--opponent", "{missing}"],
        "{missing}: no such file or directory",
    ),
    (
        "port",
        terminal.main,
        ["web", "--port", "99999"],
        "--port: a port number 1..65535, got 99999",
    ),
    ("lr", train_rllib.main, ["draw", "--lr", "-1"], "--lr: a finite number > 0, got -1"),
    (
        "entropy",
        train_rllib.main,
        ["draw", "--entropy-coeff", "-5"],
        "--entropy-coeff: a finite number >= 0",
    ),
    ("data file", app.main, ["--data", "{file}"], "is a file; give a folder for the saved games"),
]


@pytest.mark.parametrize(("name", "main", "argv", "message"), CASES, ids=[c[0] for c in CASES])
def test_a_mistake_is_one_line_and_exit_2(
    name: str,
    main: Callable[[list[str]], int],
    argv: list[str],
    message: str,
    files: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [a.format(**files) for a in argv]
    assert _run(main, argv) == 2
    captured = capsys.readouterr()
    text = captured.err + captured.out
    assert message.format(**files) in text, text
    assert "Traceback" not in text
    assert not (Path(files["dir"]) / "run").exists() and not (Path(files["dir"]) / "run2").exists()


def test_holdem_num_players_is_named_as_the_env_names_it() -> None:
    """'num_players=11' was refused as 'num_seats=11' (the table's name for it)."""
    import gymnasium as gym

    import poker_env  # noqa: F401
    from poker_env.errors import ConfigError

    for value in (11, 1, "x"):
        with pytest.raises(ConfigError, match=r"num_players=.*allowed: an int from 2 to 10"):
            gym.make("poker_env/Holdem-v0", num_players=value)


def test_resuming_a_run_as_another_game_names_the_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'train.py holdem --resume RUN' of a draw run complained about the option deck."""
    (tmp_path / "config.toml").write_text('game = "draw"\n')
    assert _run(train.main, ["holdem", "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"game='holdem'; allowed: 'draw', the game of the run {tmp_path}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('game = "red-dog"\noptions = "x"\n', "options='x'; allowed: a table"),
        (
            'game = "red-dog"\n[options]\nnum_players = "x"\n',
            "num_players='x'; allowed: an int from 2 to 10",
        ),
        (
            'game = "draw"\n[opponents]\nself = nan\n',
            "opponents.self=nan; allowed: a finite weight",
        ),
    ],
)
def test_a_config_file_of_the_wrong_types_is_one_line(
    toml: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """From the security review: these gave AttributeError, ValueError or TypeError
    tracebacks (or passed TrainConfig, for the weights)."""
    config = tmp_path / "bad.toml"
    config.write_text(toml)
    assert _run(train.main, ["--config", str(config), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_deeply_nested_phh_is_a_history_error() -> None:
    from poker_env.errors import HistoryError
    from poker_env.games.holdem_phh import from_phh

    with pytest.raises(HistoryError, match="nests its arrays too deeply"):
        from_phh("actions = " + "[" * 3000 + "]" * 3000)


# Each command without the extra it needs (the wheel installs every command whatever
# its extras): the modules made unimportable in a fresh process, as if not installed.
MISSING_EXTRAS = [
    ("play", "rich", ["draw"], "poker-play", "play"),
    ("play", "starlette", ["web"], "poker-play", "play"),
    ("serve", "starlette", [], "poker-serve", "play"),
    ("train", "stable_baselines3", ["draw", "--timesteps", "64"], "poker-train", "train"),
    ("train", "torch", ["draw", "--timesteps", "64"], "poker-train", "train"),
    ("evaluate", "sb3_contrib", ["draw", "{zip}", "random"], "poker-evaluate", "train"),
    ("train_rllib", "torch", ["holdem", "--iterations", "1"], "poker-train-rllib", "train"),
    ("train_rllib", "ray", ["holdem", "--iterations", "1"], "poker-train-rllib", "rllib"),
]


@pytest.mark.parametrize(("command", "module", "argv", "prog", "extra"), MISSING_EXTRAS)
def test_a_command_without_its_extra_names_the_extra_to_install(
    command: str, module: str, argv: list[str], prog: str, extra: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    (tmp_path / "m.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    argv = [a.replace("{zip}", str(tmp_path / "m.zip")) for a in argv]
    code = (
        "import sys\n"
        "class Absent:\n"  # the package not installed: no finder finds it
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] == {module!r}:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Absent())\n"
        f"for m in [k for k in sys.modules if k.split('.')[0] == {module!r}]:\n"
        "    del sys.modules[m]\n"
        f"from poker_env_agents.cli.{command} import main\n"
        f"raise SystemExit(main({argv!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 2, done.stderr
    install = "train,rllib" if prog == "poker-train-rllib" else extra  # (it needs both)
    assert done.stderr.strip() == (
        f"{prog}: error: this needs the optional {extra!r} dependencies "
        f"(no module named {module!r}): pip install 'poker_env[{install}]'"
    ), done.stderr
    assert list(tmp_path.iterdir()) == [tmp_path / "m.zip"]  # nothing written


def test_the_commands_take_red_dog_as_poker_play_spells_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert evaluate.main(["reddog", "random", "call", "--hands", "64"]) == 0
    assert "| random | call | red-dog |" in capsys.readouterr().out
    assert _run(evaluate.main, ["red dog", "random", "call"]) == 2  # still refused, listed
    assert "invalid choice: 'red dog' (choose from draw, draw-match, holdem, red-dog)" in (
        capsys.readouterr()
        .err.replace("'draw'", "draw")
        .replace("'draw-match'", "draw-match")
        .replace("'holdem'", "holdem")
        .replace("'red-dog'", "red-dog")
    )


def test_a_part_missing_from_an_installed_package_keeps_its_traceback() -> None:
    # Only a package absent as a whole names an extra: a module missing from an
    # installed one (another version's layout) is not "install the extra" (it was).
    from poker_env_agents.cli._args import needs_extras

    @needs_extras("poker-x", "train")
    def main(argv: list[str] | None = None) -> int:
        import tqdm.no_such_part  # noqa: F401

        return 0

    with pytest.raises(ModuleNotFoundError, match=r"tqdm\.no_such_part"):
        main()


@pytest.mark.parametrize(
    "script", ["play", "serve", "train", "evaluate", "export", "exploit", "train_rllib"]
)
def test_each_script_of_the_repository_answers_help(script: str) -> None:
    # The README runs the commands as `.venv/bin/python scripts/NAME.py` (scripts/serve.py
    # passed an argument its main no longer took, and crashed on every start).
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "scripts" / f"{script}.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: "), done.stdout


def test_the_extras_the_commands_name_are_pyproject_s() -> None:
    # The guard's table of extras and their packages is pyproject.toml's (a package
    # added to an extra there and not here would be a traceback again).
    import re

    import tomllib

    from poker_env_agents.cli._args import EXTRA_MODULES

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for extra, modules in EXTRA_MODULES.items():
        listed = {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in extras[extra]}
        named = {m.replace("_", "-") for m in modules}
        assert named <= listed, (extra, named - listed)
        if extra != "rllib":  # (Ray's extra lists what RLlib imports itself, too)
            assert named == listed, (extra, listed - named)
