"""The packaged files through importlib.resources: the shipped models and configs by
name, and a clear error where the package is not files on disk."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from poker_env.errors import ConfigError
from poker_env_agents import assets
from poker_env_agents.cli.train import main as train_main
from poker_env_agents.opponent import MODELS_DIR, ComputerOpponent
from poker_env_agents.registry import resolve_policy
from poker_env_agents.runtime import load_policy

REPO = Path(__file__).resolve().parents[2]


def test_the_package_folders_are_the_repository_folders_here() -> None:
    # From the checkout, poker_env_agents is the link to agents/.
    assert MODELS_DIR.resolve() == (REPO / "agents" / "models").resolve()
    static = assets.package_dir("poker_env_agents.play.web", "static")
    assert (static / "index.html").read_bytes() == (
        REPO / "agents" / "play" / "web" / "static" / "index.html"
    ).read_bytes()


def test_shipped_names_are_the_files_in_the_folders() -> None:
    models = sorted(p.name.removesuffix(".npz") for p in (REPO / "agents" / "models").glob("*.npz"))
    configs = sorted(p.stem for p in (REPO / "agents" / "configs").glob("*.toml"))
    assert assets.shipped_models() == models and "draw52" in models
    assert assets.shipped_configs() == configs and "demo" in configs


def test_a_config_by_name_or_file(tmp_path: Path) -> None:
    demo = assets.config_file("demo")
    assert demo.read_bytes() == (REPO / "agents" / "configs" / "demo.toml").read_bytes()
    assert assets.config_file("demo.toml") == demo
    mine = tmp_path / "mine.toml"
    mine.write_text('game = "draw"\n')
    assert assets.config_file(mine) == mine
    with pytest.raises(ConfigError, match=r"config='nope'.*a TOML file or a shipped config.*demo"):
        assets.config_file("nope")


def test_train_refuses_an_unknown_config_naming_the_shipped_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert train_main(["--config", "no-such-recipe", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "no-such-recipe" in err and "draw52" in err


def test_a_shipped_player_is_its_file() -> None:
    path = REPO / "agents" / "models" / "draw32.npz"
    assert assets.shipped_file("draw32") == MODELS_DIR / "draw32.npz"
    by_name = resolve_policy("shipped:draw32", "draw", {"deck": 32})
    by_path = load_policy(path)
    assert by_name.manifest == by_path.manifest  # type: ignore[attr-defined]
    assert by_name.deterministic  # type: ignore[attr-defined]
    assert not resolve_policy("shipped:draw32@sample", "draw", {"deck": 32}).deterministic  # type: ignore[attr-defined]
    her = ComputerOpponent("draw", "shipped:draw32", options={"deck": 32})
    assert her.source == "shipped:draw32"
    with pytest.raises(ConfigError, match=r"shipped policy='draw99'.*draw52"):
        resolve_policy("shipped:draw99", "draw")


def test_a_package_imported_from_a_zip_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped_pkg/__init__.py", "")
        z.writestr("zipped_pkg/models/a.npz", b"")
    monkeypatch.syspath_prepend(str(archive))
    try:
        with pytest.raises(RuntimeError, match="zipped_pkg is not installed as files on disk"):
            assets.package_dir("zipped_pkg", "models")
    finally:
        sys.modules.pop("zipped_pkg", None)
