"""SB3 ``.zip`` players load without running code from the file
(``poker_env_agents.sb3_load``), and are refused where they do not fit.

A crafted zip (a real model whose pickled ``lr_schedule`` runs a shell command when
unpickled) ran that command in ``evaluate.py``, ``poker-play --opponent`` and
``poker-export`` (found by a new-user walkthrough). SB3's own ``load`` still runs it
(the test shows the file is real); every loader of this project refuses it, names
the setting and the callable, and runs nothing.
"""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poker_env_agents.registry import SB3Policy, get_game, resolve_policy
from poker_env_agents.runtime import PolicyFileError
from poker_env_agents.sb3_load import load_sb3, safe_custom_objects


class _Touch:
    """Unpickled, it creates the file ``path`` (what an attacker's code would do)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        import os

        return (os.system, (f"touch {self.path}",))


@pytest.fixture(scope="module")
def model_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small MaskablePPO model of the draw's single env, saved by SB3."""
    from sb3_contrib import MaskablePPO

    env = get_game("draw").make_env({})
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0, device="cpu")
    path = tmp_path_factory.mktemp("sb3") / "model.zip"
    model.save(path)
    return path


def _with_setting(src: Path, dst: Path, key: str, value: object) -> Path:
    """A copy of the zip ``src`` whose ``data`` entry pickles ``value`` under ``key``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            body = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(body)
                data[key] = {":serialized:": base64.b64encode(pickle.dumps(value)).decode()}
                body = json.dumps(data).encode()
            zout.writestr(item, body)
    return dst


def test_a_model_loads_as_sb3_loads_it(model_zip: Path) -> None:
    from sb3_contrib import MaskablePPO

    ours = load_sb3(model_zip, MaskablePPO, device="cpu")
    theirs = MaskablePPO.load(model_zip, device="cpu")
    env = get_game("draw").make_env({})
    obs, info = env.reset(seed=1)
    mask = np.asarray(info["action_mask"]) != 0
    for model in (ours, theirs):
        assert model.observation_space == theirs.observation_space
    a, _ = ours.predict(obs, action_masks=mask, deterministic=True)
    b, _ = theirs.predict(obs, action_masks=mask, deterministic=True)
    assert int(a) == int(b)
    for p, q in zip(ours.policy.parameters(), theirs.policy.parameters(), strict=True):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())


def test_a_zip_that_runs_code_is_refused_everywhere(
    model_zip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sb3_contrib import MaskablePPO

    from poker_env_agents.cli import export as export_cli
    from poker_env_agents.cli.evaluate import main as evaluate_main

    marker = tmp_path / "ran"
    evil = _with_setting(model_zip, tmp_path / "evil.zip", "lr_schedule", _Touch(marker))
    MaskablePPO.load(evil, device="cpu")  # SB3's own load runs the file's command
    assert marker.exists()
    marker.unlink()
    with pytest.raises(PolicyFileError, match=r"setting 'lr_schedule' names posix\.system"):
        safe_custom_objects(evil)
    with pytest.raises(PolicyFileError, match="may not load"):
        resolve_policy(str(evil), "draw")
    assert evaluate_main(["draw", str(evil), "random", "--hands", "64"]) != 0
    assert "names posix.system" in capsys.readouterr().err
    out = tmp_path / "out"
    argv = [str(evil), "--env", "poker_env/FiveCardDraw-v0", "--out", str(out)]
    assert export_cli.main(argv) != 0
    assert "names posix.system" in capsys.readouterr().err
    assert not marker.exists() and not out.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a readable zip"),
        (b"not a zip at all", "not a readable zip"),
        (None, "no 'data' entry"),
    ],
)
def test_files_that_are_not_models_are_refused(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    from sb3_contrib import MaskablePPO

    path = tmp_path / "m.zip"
    if content is None:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("other", b"x")
    else:
        path.write_bytes(content)
    with pytest.raises(PolicyFileError, match=message):
        load_sb3(path, MaskablePPO)
    with pytest.raises(PolicyFileError, match="no such file"):
        load_sb3(tmp_path / "missing.zip", MaskablePPO)


def test_a_zip_for_another_table_is_refused(model_zip: Path, tmp_path: Path) -> None:
    """Its spaces against the env's; in a run folder, its config.toml's game and
    options against the ones asked for (a 52-card model at a 32-card table played on
    before: the observation has the same size)."""
    with pytest.raises(PolicyFileError, match="a model for observations"):
        resolve_policy(str(model_zip), "holdem")
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.toml").write_text('game = "draw"\n')
    for place in (run / "model.zip", run / "checkpoints" / "step_0000000064.zip"):
        place.write_bytes(model_zip.read_bytes())
        with pytest.raises(PolicyFileError, match="env option deck: file 'standard', env 'short'"):
            resolve_policy(str(place), "draw", {"deck": "short"})
        with pytest.raises(PolicyFileError, match="trained for draw"):
            resolve_policy(str(place), "draw-match")
        policy = resolve_policy(str(place), "draw")
        assert isinstance(policy, SB3Policy) and policy.deterministic
    sampled = resolve_policy(str(run / "model.zip") + "@sample", "draw")
    assert isinstance(sampled, SB3Policy) and not sampled.deterministic
    with pytest.raises(Exception, match=r"FILE\.zip@sample"):
        resolve_policy(str(run / "model.zip") + "@t=2", "draw")


class _Call:
    """Unpickled, it calls ``func(*args)`` (a REDUCE of an allowed class)."""

    def __init__(self, func: Any, *args: Any) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (self.func, self.args)


def test_allowed_classes_may_not_be_called_with_a_files_arguments(
    model_zip: Path, tmp_path: Path
) -> None:
    """A class SB3 writes by name (a policy, a space) called with the file's own
    arguments would build whatever they describe (a network of any size from a small
    file): only numpy's rebuilders and a deque may be called."""
    import gymnasium as gym
    import torch

    for i, value in enumerate(
        [
            _Call(gym.spaces.Discrete, 5),
            _Call(torch.nn.Tanh),
            _Call(gym.spaces.Box, 0.0, 1.0, (10,)),
        ]
    ):
        bad = _with_setting(model_zip, tmp_path / f"call{i}.zip", "observation_space", value)
        with pytest.raises(PolicyFileError, match="with arguments of its own"):
            safe_custom_objects(bad)

    # Protocol 0 (INST) too.
    class _Old:
        def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
            return (gym.spaces.Discrete, (3,))

    with zipfile.ZipFile(model_zip) as zin:
        data = json.loads(zin.read("data"))
    data["action_space"] = {
        ":serialized:": base64.b64encode(pickle.dumps(_Old(), protocol=0)).decode()
    }
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(model_zip) as zin, zipfile.ZipFile(old, "w") as zout:
        for item in zin.infolist():
            body = json.dumps(data).encode() if item.filename == "data" else zin.read(item.filename)
            zout.writestr(item, body)
    with pytest.raises(PolicyFileError, match="with arguments of its own"):
        safe_custom_objects(old)


def _with_raw(src: Path, dst: Path, key: str, raw: bytes | None, plain: object = None) -> Path:
    """A copy of ``src`` whose ``data`` holds the pickle bytes ``raw`` (or the plain
    JSON value ``plain``) under ``key``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            body = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(body)
                data[key] = (
                    plain if raw is None else {":serialized:": base64.b64encode(raw).decode()}
                )
                body = json.dumps(data).encode()
            zout.writestr(item, body)
    return dst


class _Reduce3:
    """Unpickled: ``func(*args)``, then its state set to ``state`` (BUILD)."""

    def __init__(self, func: Any, args: tuple[Any, ...], state: Any) -> None:
        self.func, self.args, self.state = func, args, state

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.func, self.args, self.state)


def test_the_review_s_crafted_files_are_refused_before_they_do_harm(
    model_zip: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a security review of the first version of the loader: an object-dtype
    array whose bytes numpy read as pointers (a segfault from 164 bytes), a class
    patched for the whole process by BUILD, a Generator rebuilder made to call any
    allowed class, a net_arch that made SB3 build a network of any size before it read
    the weights, a 300 MB 'data' entry in a 300 kB file, a setting that replaced a
    method of the model."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    np_pickle = pytest.importorskip("numpy.random._pickle")
    cases: list[tuple[str, bytes | None, object, str]] = [
        ("_last_obs", pickle.dumps(np.array([object()], dtype=object)), None, "_reconstruct"),
        ("_last_obs", pickle.dumps(_Reduce3(np.dtype, ("O", False, True), None)), None, "dtype"),
        (
            "_last_obs",
            pickle.dumps(
                _Reduce3(np.dtype, ("f4", False, True), (3, "|", None, None, None, -1, -1, 63))
            ),
            None,
            "a dtype's state",
        ),
        (
            "_episode_num",
            b"cstable_baselines3.common.utils\nFloatSchedule\n}S'x'\nI1\nsb.",
            None,
            "attributes of the class FloatSchedule",
        ),
        (
            "_last_obs",
            pickle.dumps(_Call(np_pickle.__generator_ctor, 7, gym.spaces.Discrete)),
            None,
            "__generator_ctor with arguments of another kind",
        ),
        ("policy_kwargs", pickle.dumps({"net_arch": [100_000, 100_000]}), None, "weights hold"),
        ("_setup_model", None, 5, "names a method of MaskablePPO"),
    ]
    for i, (key, raw, plain, message) in enumerate(cases):
        bad = _with_raw(model_zip, tmp_path / f"bad{i}.zip", key, raw, plain)
        with pytest.raises(PolicyFileError, match=message):
            load_sb3(bad, MaskablePPO, device="cpu")
    from stable_baselines3.common.utils import FloatSchedule

    assert "x" not in vars(FloatSchedule)
    monkeypatch.setattr("poker_env_agents.sb3_load.MAX_DATA_BYTES", 100)
    with pytest.raises(PolicyFileError, match="'data' entry unpacks to"):
        load_sb3(model_zip, MaskablePPO, device="cpu")


def test_the_file_checked_is_the_file_loaded(
    model_zip: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zip was opened twice (our check, then SB3's load): a file replaced in
    between was loaded unchecked (security review). It is read once now: replacing
    the file after that read changes nothing."""
    from sb3_contrib import MaskablePPO

    import poker_env_agents.sb3_load as sb3_load

    marker = tmp_path / "ran"
    evil = _with_setting(model_zip, tmp_path / "evil.zip", "lr_schedule", _Touch(marker))
    target = tmp_path / "model.zip"
    target.write_bytes(model_zip.read_bytes())
    checked = sb3_load._check_settings

    def check_then_swap(*args: Any) -> None:
        checked(*args)
        target.write_bytes(evil.read_bytes())  # replaced between the check and the load

    monkeypatch.setattr(sb3_load, "_check_settings", check_then_swap)
    model = load_sb3(target, MaskablePPO, device="cpu")
    assert model is not None and not marker.exists()
