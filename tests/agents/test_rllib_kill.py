"""An RLlib run killed with SIGKILL, in the middle of writing a checkpoint and at a
random moment, resumes from its newest complete checkpoint and finishes.

``scripts/train_rllib.py`` runs in its own process group (its Ray cluster with it), a
checkpoint every iteration; the test kills the whole group. Marked ``rllib``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

from poker_env_agents.training.checkpoints import check_folder
from poker_env_agents.training.rllib import find_rllib_checkpoint

pytestmark = pytest.mark.rllib

REPO = Path(__file__).resolve().parents[2]
ARGS = [
    "holdem",
    "--players",
    "2",
    "--num-env-runners",
    "0",
    "--num-envs-per-env-runner",
    "32",
    "--train-batch-size",
    "256",
    "--minibatch-size",
    "128",
    "--num-epochs",
    "1",
    "--checkpoint-every",
    "1",
    "--num-cpus",
    "2",
    "--seed",
    "3",
]


def _start(out: Path, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, RAY_AUTH_MODE="disabled", PYTHONUNBUFFERED="1")
    with log.open("ab") as f:
        return subprocess.Popen(
            [
                sys.executable,
                str(REPO / "scripts" / "train_rllib.py"),
                *ARGS,
                "--out",
                str(out),
                *extra,
            ],
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own group: the Ray processes die with it
        )


def _kill(p: subprocess.Popen[bytes]) -> bool:
    """SIGKILL ``p``'s whole process group; whether it was still running."""
    alive = p.poll() is None
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait(30)
    return alive


def _iteration(folder: Path) -> int:
    return int(folder.name.removeprefix("iter_"))


def _wait(cond: object, p: subprocess.Popen[bytes], log: Path, limit: float = 180.0) -> None:
    end = time.monotonic() + limit
    while not cond():  # type: ignore[operator]
        if p.poll() is not None and not cond():  # type: ignore[operator]
            pytest.fail(f"the run ended ({p.returncode}) first:\n{log.read_text()[-3000:]}")
        if time.monotonic() > end:
            _kill(p)
            pytest.fail(f"timed out:\n{log.read_text()[-3000:]}")
        time.sleep(0.001)


def test_a_killed_rllib_run_resumes_from_its_newest_complete_checkpoint(tmp_path: Path) -> None:
    rng = random.Random(7)
    run, log = tmp_path / "run", tmp_path / "train.log"
    checkpoints = run / "checkpoints"

    def complete(n: int) -> bool:
        return (checkpoints / f"iter_{n:05d}" / "checkpoint_complete.json").exists()

    def writing() -> bool:
        return checkpoints.is_dir() and any(
            d.name.startswith(".iter_") for d in checkpoints.iterdir()
        )

    # 1. Killed while a checkpoint after the first is being written (its temporary
    #    folder there), or as soon after as the poll sees it.
    p = _start(run, log, "--iterations", "200")
    _wait(lambda: complete(1), p, log)
    _wait(writing, p, log)
    assert _kill(p)
    found, skipped = find_rllib_checkpoint(run)
    assert check_folder(found) is None and _iteration(found) >= 1
    assert all("did not finish" in why or "torn" in why for _, why in skipped)
    # 2. Resumed into the same run folder, then killed at a random moment after its
    #    first new checkpoint.
    p = _start(run, log, "--iterations", "200", "--resume", str(run))
    _wait(lambda: complete(_iteration(found) + 1), p, log)
    time.sleep(rng.uniform(0.0, 0.5))
    assert _kill(p)
    again, _ = find_rllib_checkpoint(run)
    assert check_folder(again) is None and _iteration(again) > _iteration(found)
    # 3. Resumed to the end: two more iterations, numbered on from the checkpoint.
    p = _start(run, log, "--iterations", "2", "--resume", str(run))
    assert p.wait(300) == 0, log.read_text()[-3000:]
    last, _ = find_rllib_checkpoint(run)
    assert check_folder(last) is None
    assert _iteration(last) == _iteration(again) + 2
    assert (run / "policy.npz").is_file()
    # What the killed writers left behind was cleared when a run started again.
    assert not [d.name for d in checkpoints.iterdir() if d.name.startswith(".")]
