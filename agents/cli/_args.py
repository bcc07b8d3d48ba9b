"""What the command-line programs share: argument types that refuse a bad value with
the option's name and what is allowed (argparse prints ``PROG: error: argument
--hands: ...`` and exits 2 before any work), an output path checked before the work
that would be lost, and the errors that are the user's (a file, a value) rather than
a bug: printed as one line, exit status 2, no traceback."""

from __future__ import annotations

import argparse
import functools
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from poker_env.errors import PokerEnvError
from poker_env_agents.commands import command_for, tool_command
from poker_env_agents.runtime import PolicyFileError

__all__ = [
    "EXTRA_MODULES",
    "FILE_AND_CONFIG_ERRORS",
    "USER_ERRORS",
    "command_for",
    "float_above",
    "float_at_least",
    "game_name",
    "int_at_least",
    "needs_extras",
    "output_file",
    "say_error",
    "tool_command",
]

#: Errors that name a mistake in what the user gave (a value, a file): one line, exit 2.
USER_ERRORS: tuple[type[BaseException], ...] = (
    PokerEnvError,
    PolicyFileError,
    ValueError,
    OSError,
    UnicodeDecodeError,
)


#: The same, for a command that runs long (training): a ValueError from deep inside is
#: more likely a bug than a user's value, and keeps its traceback.
FILE_AND_CONFIG_ERRORS: tuple[type[BaseException], ...] = (
    PokerEnvError,
    PolicyFileError,
    FileNotFoundError,
    FileExistsError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
    UnicodeDecodeError,
)


#: Other spellings of the games' names: poker-play says ``reddog``, the others ``red-dog``.
GAME_ALIASES = {"reddog": "red-dog", "red_dog": "red-dog", "draw_match": "draw-match"}


def game_name(text: str) -> str:
    """An argparse type for a game's name: its other spellings taken (argparse's
    ``choices`` then names the allowed ones)."""
    return GAME_ALIASES.get(text.strip().lower(), text)


def int_at_least(lo: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``lo``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"an integer >= {lo}, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"an integer >= {lo}, got {v}")
        return v

    return parse


def _float_bound(lo: float, strict: bool) -> Callable[[str], float]:
    word = ">" if strict else ">="

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number {word} {lo:g}, got {text!r}") from None
        if not ((v > lo if strict else v >= lo) and v < float("inf")):
            raise argparse.ArgumentTypeError(f"a finite number {word} {lo:g}, got {text}")
        return v

    return parse


def float_above(lo: float) -> Callable[[str], float]:
    """An argparse type: a finite number > ``lo``."""
    return _float_bound(lo, strict=True)


def float_at_least(lo: float) -> Callable[[str], float]:
    """An argparse type: a finite number >= ``lo``."""
    return _float_bound(lo, strict=False)


def output_file(text: str) -> Path:
    """An argparse type: a file to write, in a folder that exists, and not a folder."""
    p = Path(text)
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name")
    if not p.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no folder {p.parent} to write it in")
    return p


def say_error(prog: str, exc: BaseException) -> int:
    """Print ``PROG: error: ...`` for a user's mistake; returns the exit status 2."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror.lower()}"  # no "[Errno 2]"
    print(f"{prog}: error: {text}", file=sys.stderr)
    return 2


#: The optional dependencies each extra of pyproject.toml brings, by import name
#: (``pip install 'poker_env[EXTRA]'``).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "rich"),
    "play": ("rich", "starlette", "uvicorn"),
    "export": ("onnx", "onnxruntime"),
    "rllib": ("ray", "pandas"),
}


def needs_extras(
    prog: str, *extras: str, install: str | None = None
) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Wrap a command's ``main``: an optional dependency of one of its ``extras`` that is
    not installed (the wheel installs every command, whatever its extras) is one line
    naming the extra to install, exit status 2, instead of a traceback. Only a package
    that is absent as a whole is named so; a part missing from an installed package
    (another version's layout) keeps its traceback. ``install``: what the line says to
    install (default: the extra found)."""
    extra_of = {m: e for e in reversed(extras) for m in EXTRA_MODULES[e]}

    def wrap(main: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(main)
        def run(*args: Any, **kwargs: Any) -> int:
            try:
                return main(*args, **kwargs)
            except ModuleNotFoundError as exc:
                name = exc.name or ""
                if name not in extra_of or _installed(name):
                    raise
                extra = extra_of[name]
                print(
                    f"{prog}: error: this needs the optional {extra!r} dependencies "
                    f"(no module named {name!r}): pip install 'poker_env[{install or extra}]'",
                    file=sys.stderr,
                )
                return 2

        return run

    return wrap


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
