"""The package as users install it: the wheel and the sdist built from this checkout,
the wheel installed into a fresh virtualenv outside the repository, and the installed
package's features run there (README "Installed from the wheel").

The builds use this environment's setuptools (``--no-build-isolation``: no download);
the virtualenv gets its dependencies from the package index pip is configured with
(the pip cache serves what was downloaded before), torch pinned first to the build
this environment runs (the CPU build ``make install`` pins) so that the ``train``
extra does not fetch another.

Time: about 1.5 CPU-minutes when numba's cache of the installed kernels is warm (it
is kept between runs, see the last test), most of it pip unpacking torch; 8 minutes
of wall time on this project's shared 2-core machine at a load of 15. A first run,
or one after the kernels changed, compiles them: a few CPU-minutes more.
"""

from __future__ import annotations

import email.parser
import hashlib
import importlib.metadata
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import pytest
from packaging.requirements import Requirement

import poker_env  # noqa: F401  (registers the ids the installed package must register too)
from poker_env_agents.training.train import load_config

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
VERSION = importlib.metadata.version("poker_env")
DIST_INFO = f"poker_env-{VERSION}.dist-info"

#: The installed commands and the module each runs (pyproject's [project.scripts]).
COMMANDS = {
    "poker-play": "poker_env_agents.cli.play",
    "poker-serve": "poker_env_agents.cli.serve",
    "poker-train": "poker_env_agents.cli.train",
    "poker-evaluate": "poker_env_agents.cli.evaluate",
    "poker-export": "poker_env_agents.cli.export",
    "poker-exploit": "poker_env_agents.cli.exploit",
    "poker-train-rllib": "poker_env_agents.cli.train_rllib",
}


def _run(cmd: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``; on failure, fail with its output."""
    # Generous: a first run compiles every kernel it uses (numba), a couple of CPU
    # minutes that a machine busy with other work can stretch many times over.
    kw.setdefault("timeout", 1800)
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc  # type: ignore[no-any-return]


def _checkout_files() -> list[str]:
    """The checkout's files as git sees them: tracked and untracked-not-ignored ones."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the wheel is built from the checkout's files")
    out = _run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    ).stdout
    return sorted({f for f in out.split("\0") if f and os.path.lexists(ROOT / f)})


def _package_files() -> dict[str, Path]:
    """What the wheel must hold: every checkout file of the two package folders,
    ``agents/`` installed as ``poker_env_agents/``, by the name it has in the wheel."""
    want: dict[str, Path] = {}
    for f in _checkout_files():
        top, _, rest = f.partition("/")
        if top == "poker_env" and rest:
            want[f] = ROOT / f
        elif top == "agents" and rest:
            want[f"poker_env_agents/{rest}"] = ROOT / f
    return want


def _wheel_contents(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as z:
        return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}


@dataclass
class Built:
    wheel: Path  # from the checkout (pip wheel .)
    sdist: Path
    sdist_wheel: Path  # from the sdist


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The wheel from a copy of the checkout, the sdist, and the wheel from the sdist."""
    base = tmp_path_factory.mktemp("build")
    src = base / "src"
    for f in _checkout_files():  # a copy: the build leaves build/ and egg-info in it
        target = src / f
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.path.islink(ROOT / f):
            os.symlink(os.readlink(ROOT / f), target)
        else:
            shutil.copy2(ROOT / f, target)
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    _run([*pip, "-w", str(base / "wheel"), str(src)])
    sdist_name = _run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta; "
            "print(build_meta.build_sdist(sys.argv[1]))",
            str(base / "sdist"),
        ],
        cwd=src,
    ).stdout.split()[-1]
    sdist = base / "sdist" / sdist_name
    _run([*pip, "-w", str(base / "sdist-wheel"), str(sdist)], cwd=base)
    (wheel,) = (base / "wheel").glob("*.whl")
    (sdist_wheel,) = (base / "sdist-wheel").glob("*.whl")
    return Built(wheel, sdist, sdist_wheel)


def test_the_wheel_holds_exactly_the_two_packages_with_their_files(built: Built) -> None:
    """Top-level names of this project's own only (no bare ``agents``, which
    openai-agents installs), and every file of the package folders, byte for byte:
    the shipped models with their evaluations, the configs, the web pages."""
    have = _wheel_contents(built.wheel)
    assert {n.split("/")[0] for n in have} == {"poker_env", "poker_env_agents", DIST_INFO}
    want = _package_files()
    files = {n for n in have if not n.startswith(DIST_INFO + "/")}
    assert files == set(want), (sorted(files - set(want)), sorted(set(want) - files))
    for name, path in want.items():
        assert have[name] == path.read_bytes(), name
    models = sorted(n for n in files if n.startswith("poker_env_agents/models/"))
    stems = {Path(n).name.split(".")[0] for n in models}
    assert stems, "no shipped models in the wheel"
    for stem in stems:  # each policy with its evaluation table
        assert f"poker_env_agents/models/{stem}.npz" in have
        assert f"poker_env_agents/models/{stem}.eval.json" in have
    assert "poker_env_agents/configs/demo.toml" in have
    assert "poker_env_agents/play/web/static/index.html" in have


def test_the_sdist_builds_the_same_wheel(built: Built) -> None:
    """The sdist holds the package folders as files (the link poker_env_agents -> agents
    resolved), and the wheel built from it equals the checkout's, file for file."""
    with tarfile.open(built.sdist) as tar:
        members = tar.getmembers()
    assert not [m.name for m in members if m.issym() or m.islnk()]
    top = f"poker_env-{VERSION}/"
    names = {m.name.removeprefix(top) for m in members if m.isfile()}
    assert {"pyproject.toml", "README.md", "PKG-INFO"} <= names
    assert "poker_env_agents/opponent.py" in names
    assert not [n for n in names if n.startswith("agents/") or n.startswith("tests/")]
    a, b = _wheel_contents(built.wheel), _wheel_contents(built.sdist_wheel)
    record = f"{DIST_INFO}/RECORD"
    assert set(a) == set(b)
    assert [n for n in a if n != record and a[n] != b[n]] == []


def _requirements(wheel: Path) -> dict[str, set[str]]:
    """The wheel's Requires-Dist by extra ('' for the core): the project names."""
    with zipfile.ZipFile(wheel) as z:
        meta = email.parser.Parser().parsestr(z.read(f"{DIST_INFO}/METADATA").decode())
    extras = meta.get_all("Provides-Extra") or []
    out: dict[str, set[str]] = {e: set() for e in ["", *extras]}
    for text in meta.get_all("Requires-Dist") or []:
        req = Requirement(text)
        marker = str(req.marker) if req.marker else ""
        named = [e for e in extras if f'extra == "{e}"' in marker]
        for e in named or [""]:  # no extra named: a core requirement (tomli before 3.11)
            out[e].add(req.name.lower())
    return out


def test_the_core_install_is_numpy_numba_gymnasium_and_each_extra_its_feature(
    built: Built,
) -> None:
    reqs = _requirements(built.wheel)
    assert reqs[""] == {"numpy", "numba", "gymnasium", "tomli"}
    assert reqs["play"] == {"rich", "starlette", "uvicorn"}
    assert {"torch", "stable-baselines3", "sb3-contrib"} <= reqs["train"]
    heavy = {"torch", "stable-baselines3", "sb3-contrib", "starlette", "uvicorn", "ray"}
    assert not heavy & (reqs["export"] | reqs["multiagent"])
    assert not {"starlette", "uvicorn", "playwright", "httpx2"} & reqs["train"]
    with zipfile.ZipFile(built.wheel) as z:
        entry = z.read(f"{DIST_INFO}/entry_points.txt").decode()
    scripts = {
        line.split("=")[0].strip(): line.split("=")[1].strip()
        for line in entry.split("[console_scripts]")[1].split("[")[0].splitlines()
        if "=" in line
    }
    assert scripts == {name: f"{module}:main" for name, module in COMMANDS.items()}


#: What `pip install poker_env` must not bring: the RL and web stacks of the extras.
NOT_IN_THE_CORE = ["torch", "stable_baselines3", "sb3_contrib", "starlette", "uvicorn", "rich"]

# What the fresh virtualenv runs (its own python, cwd outside the repository).
CHECK_INSTALLED = r"""
import importlib.metadata, json, sys
import numpy as np
import gymnasium as gym
import poker_env, poker_env_agents
from poker_env_agents.opponent import MODELS_DIR, ComputerOpponent, shipped_model
from poker_env_agents.registry import GAMES
from poker_env_agents.runtime import PolicyFileError, load_policy

out = {"poker_env": poker_env.__file__, "poker_env_agents": poker_env_agents.__file__,
       "sys_path": sys.path}
dist = importlib.metadata.distribution("poker_env")
out["top_level"] = sorted({f.parts[0] for f in dist.files if f.parts[0] != ".."})
import importlib.util
out["bare_agents"] = importlib.util.find_spec("agents") is not None
steps = {}
for env_id in sorted(k for k in gym.registry if k.startswith("poker_env/")):
    env = gym.make(env_id)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for i in range(100):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            ends += 1
            obs, info = env.reset(seed=i + 1)
    steps[env_id] = {"obs_ok": bool(env.observation_space.contains(obs)), "episodes": ends}
out["steps"] = steps
# Every shipped file through the runtime, for the game and options it was trained for
# (found by trying each game's deck or table size: load_policy refuses the others),
# then as her 'hard' level in that game.
models = {}
for spec in GAMES.values():
    for key, values in (("deck", (52, 32)), ("num_players", range(2, 11))):
        if key not in spec.defaults:
            continue
        for value in values:
            opts = {key: value}
            path = shipped_model(spec.name, opts)
            if not path.is_file():
                continue
            env = spec.make_env(opts)
            try:
                policy = load_policy(path, env)
            except PolicyFileError:
                continue  # made for another table size
            obs, info = env.reset(seed=0)
            act = policy.act(obs, info["action_mask"])
            her = ComputerOpponent(spec.name, "hard", options=opts)
            models.setdefault(path.name, []).append(
                {"game": spec.name, **opts, "legal": bool(info["action_mask"][act]),
                 "her_source": her.source}
            )
out["models"] = models
out["shipped"] = sorted(p.name for p in MODELS_DIR.glob("*.npz"))
out["models_dir"] = str(MODELS_DIR)
out["absent"] = {m: importlib.util.find_spec(m) is None for m in sys.argv[1:]}
print(json.dumps(out))
"""

#: The ``python -m`` form of every command, in one process (runpy runs a module as
#: ``-m`` does): each must answer ``--help`` with status 0.
CHECK_MODULES = r"""
import runpy, sys
for module in sys.argv[1:]:
    sys.argv = [module, "--help"]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        assert exc.code in (0, None), (module, exc.code)
    else:
        raise AssertionError(f"{module} --help did not exit")
    print("ok", module)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stamp_like_the_wheel(wheel: Path, site: Path) -> None:
    """Give the installed files the times they have in the wheel (pip stamps them with
    the install time): numba's on-disk cache (``cache=True``) reads a source file's
    time and size, and a new time each install would recompile every kernel (minutes
    of CPU) although no source changed."""
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            target = site / info.filename
            if target.is_file() and info.filename.endswith(".py"):
                t = time.mktime((*info.date_time, 0, 0, -1))
                os.utime(target, (t, t))


def test_the_installed_wheel_runs_every_feature_outside_the_repository(
    built: Built, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A fresh virtualenv outside the repository gets torch's build first, then
    ``<wheel>[train,play]``; there: every Gymnasium id, every shipped model through
    the runtime and as her hard level, a few piped moves of ``poker-play draw
    --opponent hard``, the browser app's start page and a game against her on
    127.0.0.1, a tiny training run from a shipped config by name and its evaluation,
    every command's ``--help`` as a console script and as ``python -m``.

    The venv is made anew each run in a folder per checkout under the user's cache
    (``$POKER_ENV_CACHE``, default ``~/.cache/poker_env``: ``wheel-test/``), with the
    numba cache beside it (``NUMBA_CACHE_DIR``): the compiled kernels of the last
    run are reused where the sources did not change (the first run compiles them
    all: a few minutes of CPU more).
    """
    try:
        torch_pin = f"torch=={importlib.metadata.version('torch')}"
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("torch is not installed here: make install pins the CPU build first")
    times: dict[str, float] = {}
    clock = time.monotonic()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        times[name] = now - clock
        clock = now

    cache = Path(os.environ.get("POKER_ENV_CACHE", Path.home() / ".cache" / "poker_env"))
    home = cache / "wheel-test" / hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    assert not home.resolve().is_relative_to(ROOT)
    venv, work = home / "venv", tmp_path_factory.mktemp("installed")
    assert not work.resolve().is_relative_to(ROOT)
    shutil.rmtree(venv, ignore_errors=True)
    # No pip of its own: this environment's pip installs into it (`pip --python`), and
    # nothing is byte-compiled ahead (torch's thousands of modules; Python compiles
    # what is imported).
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PYTHONNOUSERSITE="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        NUMBA_CACHE_DIR=str(home / "numba"),
        POKER_ENV_PLAY_DIR=str(work / "games"),
    )
    outer_pip = [sys.executable, "-m", "pip", "--python", str(py)]
    pip = [*outer_pip, "install", "-q", "--no-compile"]
    # The core first: `pip install poker_env` alone.
    _run([*pip, str(built.wheel)], env=env, cwd=work)
    _run([*outer_pip, "check"], env=env, cwd=work)
    site = Path(
        _run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env
        ).stdout.strip()
    )
    _stamp_like_the_wheel(built.wheel, site)
    lap("install the core")

    # With the core alone: the ids, the shipped models through the numpy runtime and
    # as her hard level, an evaluation of a shipped player by name.
    out = json.loads(
        _run([str(py), "-c", CHECK_INSTALLED, *NOT_IN_THE_CORE], env=env, cwd=work).stdout
    )
    assert Path(out["poker_env"]) == site / "poker_env" / "__init__.py"
    assert Path(out["poker_env_agents"]) == site / "poker_env_agents" / "__init__.py"
    assert not [p for p in out["sys_path"] if p and Path(p).resolve().is_relative_to(ROOT)]
    assert out["top_level"] == sorted(["poker_env", DIST_INFO, "poker_env_agents"])
    assert out["bare_agents"] is False
    assert out["absent"] == {m: True for m in NOT_IN_THE_CORE}, out["absent"]
    ids = sorted(k for k in gymnasium.registry if k.startswith("poker_env/"))
    assert sorted(out["steps"]) == ids and len(ids) >= 4
    assert all(s["obs_ok"] for s in out["steps"].values()), out["steps"]
    shipped = sorted(p.name for p in (ROOT / "agents" / "models").glob("*.npz"))
    assert out["models_dir"] == str(site / "poker_env_agents" / "models")
    assert out["shipped"] == shipped and shipped
    assert sorted(out["models"]) == shipped, out["models"]  # each loads for its game
    for name, uses in out["models"].items():
        for use in uses:
            assert use["legal"], (name, use)
            assert use["her_source"] == str(site / "poker_env_agents" / "models" / name)
    report = work / "shipped.json"
    _run(
        ["poker-evaluate", "draw", "shipped:draw52", "random", "--hands", "512", "--json", report],
        env=env,
        cwd=work,
    )
    (match,) = json.loads(report.read_text())["matches"]
    assert match["hands"] >= 512
    # The shipped policy beats random play (its table, draw52.eval.json: +17.7 antes a
    # hand over 131,072 hands; 512 hands measure it within about 2).
    assert match["mean"] > 0, match
    # The commands whose extras are not installed yet name the one to install.
    for argv, extra in (
        (["poker-play", "draw"], "play"),
        (["poker-serve"], "play"),
        (["poker-train", "draw", "--timesteps", "64"], "train"),
    ):
        done = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, timeout=600)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert f"pip install 'poker_env[{extra}]'" in done.stderr, (argv, done.stderr)
        assert "Traceback" not in done.stderr, (argv, done.stderr)
    lap("core: envs, models, poker-evaluate")

    # Then the extras, torch's build first (no other build pulled by `train`).
    _run([*pip, torch_pin], env=env, cwd=work)
    _run([*pip, f"{built.wheel}[train,play]"], env=env, cwd=work)
    _run([*outer_pip, "check"], env=env, cwd=work)
    lap("install train, play")

    # Every command answers --help, as the console script and as python -m.
    for name in COMMANDS:
        _run([str(venv / "bin" / name), "--help"], env=env, cwd=work)
    _run([str(py), "-c", CHECK_MODULES, *COMMANDS.values()], env=env, cwd=work)
    lap("--help")

    # A few piped moves against her shipped policy (s: stay, c: call, d: draw; a
    # button not legal now is refused and the next line read), then q saves.
    save = work / "draw-save.json"
    play = _run(
        ["poker-play", "draw", "--opponent", "hard", "--seed", "7", "--save", str(save)],
        input="s\nc\nd\n" * 8 + "q\n",
        env=env,
        cwd=work,
        timeout=300,
    )
    assert "cannot start" not in play.stdout
    assert f"Saved to {save}" in play.stdout
    saved = json.loads(save.read_text())
    assert saved["opponent"] == "hard" and saved["game"] == "draw"
    assert len(saved["state"]["actions"]) >= 6, saved["state"]["actions"]
    lap("poker-play")

    # The browser app: the start page on 127.0.0.1, a game against her hard level.
    port = _free_port()
    server = subprocess.Popen(
        ["poker-serve", "--port", str(port), "--data", str(work / "games")],
        env=env,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=5) as r:
                    page = r.read()
                break
            except OSError:
                assert server.poll() is None, server.communicate()[0]
                assert time.monotonic() < deadline, "the server did not answer in 120 s"
                time.sleep(0.5)
        pages = _wheel_contents(built.wheel)  # the repository's, byte for byte (above)
        assert page == pages["poker_env_agents/play/web/static/index.html"]
        with urllib.request.urlopen(url + "/static/style.css", timeout=5) as r:
            assert r.read() == pages["poker_env_agents/play/web/static/style.css"]
        req = urllib.request.Request(
            url + "/api/games",
            data=json.dumps({"game": "draw", "opponent": "hard", "seed": 1}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=120) as r:
            assert r.status == 201
            assert json.loads(r.read())["id"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    lap("poker-serve")

    # A tiny training run from a shipped recipe by name, then its evaluation.
    run = work / "run"
    tiny = {
        "--timesteps": 1024,
        "--num-tables": 16,
        "--num-groups": 2,
        "--n-steps": 32,
        "--batch-size": 256,
        "--n-epochs": 1,
        "--snapshot-every": 512,
        "--checkpoint-every": 512,
        "--eval-hands": 256,
        "--net-arch": 16,
        "--torch-threads": 1,
        "--warm-start-steps": 256,  # the recipe's imitation start, on a tiny budget
        "--warm-start-epochs": 1,
        "--features": "",  # without the recipe's exact-equity features (their compile)
    }
    flags = [str(x) for kv in tiny.items() for x in kv]
    _run(
        ["poker-train", "--config", "demo", *flags, "--out", str(run), "--no-progress"],
        env=env,
        cwd=work,
    )
    config = load_config(run / "config.toml")  # the run's config, read here
    recipe = load_config(ROOT / "agents" / "configs" / "demo.toml")
    assert (config.game, config.timesteps, list(config.net_arch)) == ("draw", 1024, [16])
    assert (config.ent_coef, config.opponents) == (recipe.ent_coef, recipe.opponents)
    assert (run / "policy.npz").is_file() and (run / "model.zip").is_file()
    lap("poker-train")
    report = work / "eval.json"
    _run(
        [
            "poker-evaluate",
            "draw",
            str(run / "policy.npz"),
            "random",
            str(site / "poker_env_agents" / "models" / "draw52.npz"),
            "--hands",
            "512",
            "--json",
            str(report),
        ],
        env=env,
        cwd=work,
    )
    matches = json.loads(report.read_text())["matches"]
    assert len(matches) == 2 and all(m["hands"] >= 512 for m in matches), matches
    lap("poker-evaluate")
    print("wheel test (s):", ", ".join(f"{k} {v:.0f}" for k, v in times.items()))
