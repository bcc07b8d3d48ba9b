"""How a command the user can type is written in what the programs print ("continue
with: ...", "TensorBoard: ..."): as this process was started, so that the line runs
where it is printed (standard library only: every layer may use it)."""

from __future__ import annotations

import os
import shutil
import sys

__all__ = ["command_for", "tool_command"]


def _short(path: str) -> str:
    # A path as the user can type it from here: relative when under the current folder.
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else os.path.abspath(path)


def _python() -> str:
    found = shutil.which("python")
    if found and os.path.abspath(found) == os.path.abspath(sys.executable):
        return "python"
    return _short(sys.executable)


def command_for(prog: str) -> str:
    """How to run this command again from here, for the follow-up lines a command
    prints ("continue with: ..."): as this process was started (``.venv/bin/python
    scripts/train.py``, ``python -m poker_env_agents.cli.train``, a console script
    not on the PATH by its path), else ``prog`` itself. A venv that is not activated
    has no ``poker-train`` on the PATH: the printed ``poker-train --resume ...`` was
    "command not found" (a new-user walkthrough)."""
    orig = getattr(sys, "orig_argv", sys.argv)
    if len(orig) > 2 and orig[1] == "-m" and orig[2].startswith("poker_env_agents.cli."):
        return f"{_python()} -m {orig[2]}"
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0.endswith(".py") and os.path.basename(os.path.dirname(os.path.abspath(argv0))) == (
        "scripts"
    ):
        return f"{_python()} {_short(argv0)}"
    if os.path.basename(argv0) == prog:
        found = shutil.which(prog)
        if found and os.path.abspath(found) == os.path.abspath(argv0):
            return prog
        return _short(argv0)
    return prog


def tool_command(name: str) -> str:
    """A program of this environment (``tensorboard``) as the user can type it: its
    name where the PATH finds it, else its path beside this Python."""
    if shutil.which(name):
        return name
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return _short(beside) if os.path.isfile(beside) else name
