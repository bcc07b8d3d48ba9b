"""How a command the user can type is written in what the programs print ("continue
with: ...", "TensorBoard: ..."): as this process was started, so that the line runs
where it is printed (standard library only: every layer may use it)."""

from __future__ import annotations

import os
import shutil
import sys

__all__ = ["command_for", "tool_command"]


#: Each command's file in the repository's scripts/ and its module (``python -m``).
_FORMS = {
    "poker-play": "play",
    "poker-serve": "serve",
    "poker-train": "train",
    "poker-evaluate": "evaluate",
    "poker-export": "export",
    "poker-exploit": "exploit",
    "poker-train-rllib": "train_rllib",
}


def _short(path: str) -> str:
    # A path as the user can type it from here: relative when under the current folder
    # (absolute on another drive, where Windows has no relative path).
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return os.path.abspath(path)
    return rel if not rel.startswith("..") else os.path.abspath(path)


def _same_file(a: str, b: str) -> bool:
    # The same program: paths compared as the OS does (Windows: any case, and which()
    # names the console script with its .exe where argv[0] may not).
    def norm(p: str) -> str:
        p = os.path.normcase(os.path.abspath(p))
        root, ext = os.path.splitext(p)
        return root if ext in (".exe", ".cmd", ".bat") else p

    return norm(a) == norm(b)


def _python() -> str:
    found = shutil.which("python")
    if found and _same_file(found, sys.executable):
        return "python"
    return _short(sys.executable)


def command_for(prog: str) -> str:
    """How to run the command ``prog`` again from here, for the follow-up lines a
    command prints ("continue with: ..."): as this process was started when it runs
    ``prog`` (``.venv/bin/python scripts/train.py``, ``python -m
    poker_env_agents.cli.train``, the console script by its path when the PATH does not
    find it), else ``prog`` itself. A venv that is not activated has no
    ``poker-train`` on the PATH: the printed ``poker-train --resume ...`` was "command
    not found" (a new-user walkthrough)."""
    name = _FORMS.get(prog)
    if name is None:
        return prog
    orig = list(getattr(sys, "orig_argv", []))
    module = f"poker_env_agents.cli.{name}"
    i = 1
    while i < len(orig) and orig[i].startswith("-"):  # the interpreter's own options
        if orig[i] == "-m":
            if i + 1 < len(orig) and orig[i + 1] == module:
                return f"{_python()} -m {module}"
            return prog
        i += 2 if orig[i] in ("-X", "-W", "-Q") else 1
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if not argv0:
        return prog
    path = os.path.abspath(argv0)
    if os.path.basename(path) == f"{name}.py" and os.path.basename(os.path.dirname(path)) == (
        "scripts"
    ):
        return f"{_python()} {_short(argv0)}"
    if os.path.splitext(os.path.basename(path))[0] == prog:
        found = shutil.which(prog)
        return prog if found and _same_file(found, argv0) else _short(argv0)
    return prog


def tool_command(name: str) -> str:
    """A program of this environment (``tensorboard``) as the user can type it: its
    name where the PATH finds it, else its path beside this Python."""
    if shutil.which(name):
        return name
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return _short(beside) if os.path.isfile(beside) else name
