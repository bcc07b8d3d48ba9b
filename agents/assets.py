"""The files the package carries, found through :mod:`importlib.resources`.

The installed package (the wheel) holds, beside its code:

| folder | what |
|---|---|
| ``poker_env_agents/models/`` | the shipped policies (``NAME.npz``) with their evaluations (``NAME.eval.json``) |
| ``poker_env_agents/configs/`` | the training recipes (``NAME.toml``: ``poker-train --config NAME``) |
| ``poker_env_agents/play/web/static/`` | the browser app's pages, script and style |

Code finds them here, never by a path relative to the repository, so they are where
the package is: the repository checkout (``poker_env_agents -> agents``) or an installed
``site-packages``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from poker_env.errors import ConfigError

__all__ = [
    "SHIPPED_PREFIX",
    "config_file",
    "package_dir",
    "shipped_configs",
    "shipped_file",
    "shipped_models",
]

#: A player named ``shipped:NAME`` is the shipped policy ``models/NAME.npz``.
SHIPPED_PREFIX = "shipped:"


def package_dir(package: str, *parts: str) -> Path:
    """The folder ``parts`` inside the installed ``package``, as a file-system path.

    Raises:
        RuntimeError: the package is not installed as files (a zip import): the
            models, configs and pages are opened by path (numpy, Starlette).
    """
    target = resources.files(package)
    for part in parts:
        target = target.joinpath(part)
    if not isinstance(target, Path):
        raise RuntimeError(
            f"{package} is not installed as files on disk ({target!r}); "
            "install it with pip (a wheel or the repository), not as a zip"
        )
    return target


def shipped_configs() -> list[str]:
    """The names of the shipped training configs (``poker_env_agents/configs/NAME.toml``)."""
    folder = package_dir("poker_env_agents", "configs")
    return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []


def config_file(name: str | os.PathLike[str]) -> Path:
    """A training config: an existing TOML file, else a shipped config by name.

    ``draw52`` and ``draw52.toml`` name ``poker_env_agents/configs/draw52.toml`` (the
    recipe of the shipped ``draw52`` model); a path that exists is used as it is.

    Raises:
        ConfigError: neither a file nor a shipped config (the message lists them).
    """
    path = Path(name)
    if path.is_file():
        return path
    text = os.fspath(name)
    stem = text[: -len(".toml")] if text.endswith(".toml") else text
    if stem in shipped_configs():
        return package_dir("poker_env_agents", "configs") / f"{stem}.toml"
    raise ConfigError(
        "config", text, f"a TOML file or a shipped config name, one of {shipped_configs()}"
    )


def shipped_models() -> list[str]:
    """The names of the shipped policies (``poker_env_agents/models/NAME.npz``)."""
    folder = package_dir("poker_env_agents", "models")
    return sorted(p.stem for p in folder.glob("*.npz")) if folder.is_dir() else []


def shipped_file(name: str) -> Path:
    """The shipped policy ``NAME`` (``draw52``, ``holdem_hu``...): its ``.npz`` path.

    Raises:
        ConfigError: no shipped policy of that name (the message lists them).
    """
    stem = name[: -len(".npz")] if name.endswith(".npz") else name
    if stem not in shipped_models():
        raise ConfigError("shipped policy", name, f"one of {shipped_models()}")
    return package_dir("poker_env_agents", "models") / f"{stem}.npz"
