"""The follow-up commands the programs print run where they are printed: a command is
written as this process was started (a new-user walkthrough ran `.venv/bin/python
scripts/play.py` in a venv not activated, and was told to continue with `poker-play
...`: "command not found")."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from poker_env_agents import commands
from poker_env_agents.commands import command_for, tool_command


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    for name in ("python", "poker-play", "tensorboard"):
        (venv / name).write_text("")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "play.py").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "executable", str(venv / "python"))
    monkeypatch.setattr(commands.shutil, "which", lambda name: None)  # nothing on the PATH
    return tmp_path


def _started(monkeypatch: pytest.MonkeyPatch, orig: list[str], argv: list[str]) -> None:
    # sys.orig_argv: the interpreter's own command line; sys.argv: the program's.
    monkeypatch.setattr(sys, "orig_argv", orig, raising=False)
    monkeypatch.setattr(sys, "argv", argv)


def test_a_command_is_written_as_this_process_was_started(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    py = ".venv/bin/python"
    _started(monkeypatch, [py, "scripts/play.py", "draw"], ["scripts/play.py", "draw"])
    assert command_for("poker-play") == ".venv/bin/python scripts/play.py"
    module_file = str(here / "site" / "poker_env_agents" / "cli" / "play.py")
    _started(monkeypatch, [py, "-m", "poker_env_agents.cli.play", "draw"], [module_file, "draw"])
    assert command_for("poker-play") == ".venv/bin/python -m poker_env_agents.cli.play"
    # A console script not on the PATH: by its path; on the PATH: by its name.
    script = str(here / ".venv" / "bin" / "poker-play")
    _started(monkeypatch, [py, script, "draw"], [script, "draw"])
    assert command_for("poker-play") == os.path.join(".venv", "bin", "poker-play")
    monkeypatch.setattr(commands.shutil, "which", lambda name: script)
    assert command_for("poker-play") == "poker-play"
    # Anything else (a test runner, a notebook): the command's own name.
    _started(monkeypatch, [py, "/usr/bin/pytest", "-q"], ["/usr/bin/pytest", "-q"])
    assert command_for("poker-play") == "poker-play"


def test_a_tool_of_this_environment_is_named_by_its_path_when_not_on_the_path(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tool_command("tensorboard") == os.path.join(".venv", "bin", "tensorboard")
    assert tool_command("nonesuch") == "nonesuch"
    monkeypatch.setattr(commands.shutil, "which", lambda name: "/usr/bin/" + name)
    assert tool_command("tensorboard") == "tensorboard"


def test_the_python_is_named_python_when_the_path_finds_this_one(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commands.shutil, "which", lambda name: sys.executable)
    _started(monkeypatch, [sys.executable, "scripts/play.py"], ["scripts/play.py"])
    assert command_for("poker-play") == "python scripts/play.py"


def test_only_this_command_s_own_script_or_module_is_named(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A user's own scripts/nightly.py calling a command's main, another command's
    # module, or flags before -m: the command's own form or name, never the other file.
    py = ".venv/bin/python"
    (here / "scripts" / "nightly.py").write_text("")
    _started(monkeypatch, [py, "scripts/nightly.py"], ["scripts/nightly.py"])
    assert command_for("poker-train") == "poker-train"
    _started(monkeypatch, [py, "scripts/play.py"], ["scripts/play.py"])
    assert command_for("poker-train") == "poker-train"
    serve = [py, "-m", "poker_env_agents.cli.serve"]
    _started(monkeypatch, serve, [str(here / "serve.py")])
    assert command_for("poker-play") == "poker-play"
    flags = [py, "-u", "-X", "utf8", "-m", "poker_env_agents.cli.train", "draw"]
    _started(monkeypatch, flags, [str(here / "train.py"), "draw"])
    assert command_for("poker-train") == ".venv/bin/python -m poker_env_agents.cli.train"
    _started(monkeypatch, [py], [""])  # an interactive session
    assert command_for("poker-train") == "poker-train"
    # A program's own "-m" after the script is not the interpreter's.
    _started(monkeypatch, [py, "scripts/train.py", "-m"], ["scripts/train.py", "-m"])
    (here / "scripts" / "train.py").write_text("")
    assert command_for("poker-train") == ".venv/bin/python scripts/train.py"
