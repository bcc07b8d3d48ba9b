"""Runs survive being killed: atomic writes, resume from the newest complete
checkpoint, and a kill test (SIGKILL at random moments and in the middle of writes).

The kill test forks tiny training runs from this (warmed-up) process, so that a
trial costs a second of training rather than the imports of torch and SB3: each
trial kills a run, resumes it to the target step count, and compares the final
model bit for bit with what a resume from the same checkpoint gives when nothing
kills it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poker_env.errors import ConfigError
from poker_env_agents.training.checkpoints import (
    FOLDER_MANIFEST,
    UntrustedCheckpointError,
    atomic_write,
    atomic_write_text,
    check_folder,
    check_signature,
    commit_folder,
    key_path,
    remove_stale_temporaries,
    sha256_of,
    signing_key,
    verified_copy,
)
from poker_env_agents.training.train import TrainConfig, find_checkpoint, load_config, train

pytest.importorskip("sb3_contrib")

#: 10 PPO iterations of 64 steps; checkpoints at 128, 256, ..., 640; snapshots at
#: 192, 384, 576 (the pool keeps two).
TINY: dict[str, Any] = {
    "game": "red-dog",
    "timesteps": 640,
    "num_tables": 4,
    "num_groups": 2,
    "n_steps": 16,
    "batch_size": 64,
    "n_epochs": 1,
    "net_arch": [8],
    "checkpoint_every": 128,
    "snapshot_every": 192,
    "pool_size": 2,
    "opponents": {"random": 1.0, "pool": 1.0},
    "eval_hands": 64,
}
ITERATION = 64
HOOK = "POKER_ENV_TEST_WRITES"
TRIALS = 20


def _config(out: Path, **changes: Any) -> TrainConfig:
    return TrainConfig(out=str(out), **{**TINY, **changes})


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole tiny run (trained in this process, which warms it up for the forks)."""
    out = tmp_path_factory.mktemp("finished") / "run"
    train(_config(out), progress_bar=False, evaluate=True)
    return out


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


def _model_state(run: Path) -> tuple[bytes, bytes, int]:
    """The final model's weights and optimizer state (bytes) and its step count."""
    with zipfile.ZipFile(run / "model.zip") as z:
        data = json.loads(z.read("data"))
        return z.read("policy.pth"), z.read("policy.optimizer.pth"), int(data["num_timesteps"])


# ----- atomic writes -------------------------------------------------------------------


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "eval.json"
    atomic_write_text(target, "old")

    def half_then_fail(f: Any) -> None:
        f.write(b"new but only ha")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, half_then_fail)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.json"]


def test_leftover_temporaries_are_recognised_and_removed(tmp_path: Path) -> None:
    keep = [tmp_path / "policy.npz", tmp_path / ".hidden", tmp_path / "a.tmp"]
    for p in keep:
        p.write_text("x")
    stale = tmp_path / ".policy.npz.1234.0123abcd.tmp"
    stale.write_text("half")
    folder = tmp_path / ".iter_00003.tmp-99-89abcdef"
    folder.mkdir()
    assert sorted(remove_stale_temporaries([tmp_path])) == sorted([stale, folder])
    assert sorted(tmp_path.iterdir()) == sorted(keep)


def test_a_checkpoint_folder_counts_only_when_complete(tmp_path: Path) -> None:
    def write(d: Path) -> None:
        (d / "learner").mkdir()
        (d / "learner" / "weights.bin").write_bytes(bytes(range(200)))
        (d / "state.json").write_text("{}")

    final = commit_folder(tmp_path / "iter_00002", write)
    assert check_folder(final) is None
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    (final / "learner" / "weights.bin").write_bytes(bytes(range(100)))  # torn
    assert "learner/weights.bin is 100 bytes, the manifest says 200" in str(check_folder(final))
    (final / "checkpoint_complete.json").unlink()
    assert "no checkpoint_complete.json" in str(check_folder(final))


def test_a_checkpoint_folder_is_signed_by_its_writer(tmp_path: Path, monkeypatch: Any) -> None:
    # Ray unpickles a checkpoint folder: only a manifest this user signed passes.
    def write(d: Path) -> None:
        (d / "learner").mkdir()
        (d / "learner" / "state.pkl").write_bytes(b"weights")

    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "me"))
    final = commit_folder(tmp_path / "iter_00001", write, {"iteration": 1})
    assert check_folder(final) is None and check_signature(final) is None
    manifest = final / FOLDER_MANIFEST
    doc = json.loads(manifest.read_text())
    assert len(doc["signature"]) == 64  # hex HMAC-SHA256
    # A manifest edited to match replaced bytes: complete again, but the MAC fails.
    (final / "learner" / "state.pkl").write_bytes(b"crafted")
    doc["parts"][0].update(size=7, sha256=sha256_of(final / "learner" / "state.pkl"))
    manifest.write_text(json.dumps(doc))
    assert check_folder(final) is None
    assert "not signed with this user's key" in str(check_signature(final))
    with pytest.raises(UntrustedCheckpointError, match="not signed with this user's key"):
        with verified_copy(final):
            pass
    del doc["signature"]
    manifest.write_text(json.dumps(doc))
    assert "its manifest is not signed" in str(check_signature(final))
    # Another user's (another key's) checkpoint, whole and unchanged.
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "other"))
    theirs = commit_folder(tmp_path / "iter_00002", write)
    assert check_signature(theirs) is None
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "me"))
    assert "not signed with this user's key" in str(check_signature(theirs))
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "nobody"))
    assert "has no signing key" in str(check_signature(theirs))
    assert not (tmp_path / "nobody").exists()  # checking makes no key


def test_a_restore_reads_only_the_signed_bytes(tmp_path: Path, monkeypatch: Any) -> None:
    """What a restore reads is a private copy of the files the signed manifest lists,
    each hashed as copied: a file or a linked folder added to the checkpoint is not in
    it, a part replaced by a link is refused, and so is a part changed after the check
    (the bytes read are the bytes hashed)."""
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "me"))
    scratch = tmp_path / "scratch"  # where the copies are made
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    def write(d: Path) -> None:
        (d / "learner").mkdir()
        (d / "learner" / "state.pkl").write_bytes(b"weights" * 1000)
        (d / "meta.json").write_text("{}")

    final = commit_folder(tmp_path / "iter_00001", write)
    payload = tmp_path / "payload"
    (payload / "rl_module").mkdir(parents=True)
    (payload / "rl_module" / "module_state.pkl").write_bytes(b"code")
    (final / "env_runner").symlink_to(payload, target_is_directory=True)  # Ray would read it
    (final / "learner" / "extra.pkl").write_bytes(b"code")
    with verified_copy(final) as copy:
        files = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
        assert files == ["learner/state.pkl", "meta.json"]
        assert (copy / "learner" / "state.pkl").read_bytes() == b"weights" * 1000
        assert copy.stat().st_mode & 0o077 == 0  # a folder only this user enters
    assert not copy.exists()  # removed after use
    # A listed part that is a link (to bytes that match, even): refused, not followed.
    (tmp_path / "same.pkl").write_bytes(b"weights" * 1000)
    (final / "learner" / "state.pkl").unlink()
    (final / "learner" / "state.pkl").symlink_to(tmp_path / "same.pkl")
    with pytest.raises(UntrustedCheckpointError, match=r"learner/state\.pkl is a symbolic link"):
        with verified_copy(final):
            pass
    # Changed after the check: the copy's own hash refuses it.
    (final / "learner" / "state.pkl").unlink()
    (final / "learner" / "state.pkl").write_bytes(b"weightz" * 1000)  # same size
    assert check_signature(final) is None  # the manifest is still the signed one
    with pytest.raises(UntrustedCheckpointError, match="other bytes than its signed manifest"):
        with verified_copy(final):
            pass
    assert list(scratch.iterdir()) == []  # no copy left behind by a refusal


def test_the_signing_key_is_made_once_for_its_owner_only(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("POKER_ENV_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert key_path() == tmp_path / "cfg" / "poker_env" / "checkpoint.key"
    key = signing_key()
    assert len(key) == 32 and signing_key() == key
    assert key_path().stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in key_path().parent.iterdir()) == ["checkpoint.key"]
    # Open to others: refused, naming the fix.
    key_path().chmod(0o644)
    with pytest.raises(ValueError, match=r"can be read or written by others \(mode 644\)"):
        signing_key()
    key_path().chmod(0o600)
    if os.getuid() == 0:  # (root can give the file away: another user's key)
        os.chown(key_path(), 12345, -1)
        with pytest.raises(ValueError, match="belongs to user id 12345, not to you"):
            signing_key()
        os.chown(key_path(), 0, -1)
    assert signing_key() == key
    # Not a key: refused, not replaced.
    key_path().write_bytes(b"short")
    with pytest.raises(ValueError, match=r"checkpoint.key is 5 bytes, a signing key is 32"):
        signing_key()
    assert key_path().read_bytes() == b"short"
    # A link to someone's key (a planted one), even a dangling link: refused.
    key_path().unlink()
    (tmp_path / "planted").write_bytes(bytes(32))
    (tmp_path / "planted").chmod(0o600)
    key_path().symlink_to(tmp_path / "planted")
    with pytest.raises(ValueError, match="is a symbolic link"):
        signing_key()
    (tmp_path / "planted").unlink()
    with pytest.raises(ValueError, match="is a symbolic link"):
        signing_key()
    key_path().unlink()
    key_path().mkdir()
    with pytest.raises(ValueError, match="is a folder"):
        signing_key()


def test_a_key_that_cannot_be_made_says_where_to_keep_it(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("POKER_ENV_CONFIG_DIR", str(tmp_path / "file" / "sub"))
    with pytest.raises(ValueError, match="set POKER_ENV_CONFIG_DIR to a folder of your own"):
        signing_key()
    monkeypatch.delenv("POKER_ENV_CONFIG_DIR")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)

    def no_home(cls: type) -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", classmethod(no_home))
    with pytest.raises(ValueError, match="no home folder to keep the checkpoint key in"):
        key_path()


# ----- hand-made torn and partial checkpoints ------------------------------------------


def test_a_finished_run_has_complete_checkpoints(finished_run: Path) -> None:
    ckpt, skipped = find_checkpoint(finished_run)
    assert ckpt is not None and ckpt.steps == 640 and skipped == []
    names = [p["name"] for p in ckpt.meta["parts"]]
    # The model and the two pool snapshots the checkpoint names (the pool keeps two).
    assert names == [
        "checkpoints/step_0000000640.zip",
        "pool/snap_0000000384.npz",
        "pool/snap_0000000576.npz",
    ]
    assert ckpt.meta["pool"] == ["384", "576"]
    assert json.loads((finished_run / "eval.json").read_text())[0]["hands"] >= 64
    left = [p for p in finished_run.rglob(".*") if p.name.endswith(".tmp")]
    assert left == []


def test_resume_skips_torn_and_partial_checkpoints(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(finished_run, tmp_path / "run")
    d = run / "checkpoints"

    def step(n: int, ext: str) -> Path:
        return d / f"step_{n:010d}.{ext}"

    (step(768, "json")).write_text('{"steps": 768, "mix_rng"')  # a torn manifest
    z = step(640, "zip").read_bytes()
    step(640, "zip").write_bytes(z[: len(z) // 2])  # a truncated zip
    step(512, "json").unlink()  # a zip without its json
    step(384, "zip").unlink()  # a json without its zip
    (run / "pool" / "snap_0000000192.npz").unlink()  # named by step 256's json
    ckpt, skipped = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 128
    why = dict(skipped)
    assert list(why) == [f"checkpoints/step_{n:010d}" for n in (768, 640, 512, 384, 256)]
    assert (
        "step_0000000768.json does not read as a checkpoint manifest"
        in (why["checkpoints/step_0000000768"])
    )
    assert (
        f"step_0000000640.zip is {len(z) // 2:,} bytes, the manifest says {len(z):,}"
        in (why["checkpoints/step_0000000640"])
    )
    assert why["checkpoints/step_0000000512"] == (
        "step_0000000512.zip without its manifest step_0000000512.json (never committed)"
    )
    assert why["checkpoints/step_0000000384"] == (
        "it names checkpoints/step_0000000384.zip, which is missing"
    )
    assert why["checkpoints/step_0000000256"] == (
        "it names pool/snap_0000000192.npz, which is missing"
    )
    capsys.readouterr()
    train(
        load_config(run / "config.toml", out=str(run)),
        resume=True,
        progress_bar=False,
        evaluate=False,
    )
    out = capsys.readouterr().out
    assert "resuming from checkpoints/step_0000000128 (128 steps)" in out
    for name, reason in skipped:
        assert f"skipped {name}: {reason}" in out
    # Resumed to the target; every checkpoint from 256 on is written again, whole.
    ckpt, skipped = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 640
    assert [name for name, _ in skipped] == ["checkpoints/step_0000000768"]
    assert _model_state(run)[2] == 640


def test_a_first_format_checkpoint_still_resumes(finished_run: Path, tmp_path: Path) -> None:
    run = _copy(finished_run, tmp_path / "run")
    manifest = run / "checkpoints" / "step_0000000640.json"
    meta = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({k: meta[k] for k in ("steps", "mix_rng", "pool")}))
    ckpt, _ = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 640
    (run / "pool" / "snap_0000000576.npz").unlink()
    ckpt, skipped = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 512
    assert skipped == [
        ("checkpoints/step_0000000640", "it names pool/snap_0000000576.npz, which is missing")
    ]


def test_a_resume_that_changes_the_spaces_is_refused(finished_run: Path, tmp_path: Path) -> None:
    run = _copy(finished_run, tmp_path / "run")
    base = load_config(run / "config.toml", out=str(run), timesteps=768)
    config_before = (run / "config.toml").read_text()
    with pytest.raises(ConfigError, match=r"options: \{'num_players': 4\} in the checkpoint, "):
        train(
            load_config(run / "config.toml", out=str(run), options={"num_players": 3}), resume=True
        )
    with pytest.raises(ConfigError, match=r"net_arch: \[8\] in the checkpoint, \[16\] now"):
        train(load_config(run / "config.toml", out=str(run), net_arch=[16]), resume=True)
    with pytest.raises(ConfigError, match=r"algo: 'ppo' in the checkpoint, 'mmd' now"):
        train(load_config(run / "config.toml", out=str(run), algo="mmd"), resume=True)
    # The same config, but the code's encoding changed a bound (as after an edit of
    # the env): named by column.
    manifest = run / "checkpoints" / "step_0000000640.json"
    meta = json.loads(manifest.read_text())
    meta["spaces"]["observation_high"][1] += 1.0
    atomic_write_text(manifest, json.dumps(meta))
    with pytest.raises(ConfigError, match=r"observation high bounds of columns \[1\]"):
        train(base, resume=True, progress_bar=False, evaluate=False)
    with pytest.raises(ConfigError, match="a new folder"):
        train(base, progress_bar=False)  # a fresh run into a run's folder
    # Nothing was changed by the refusals.
    assert find_checkpoint(run)[0] is not None
    assert (run / "config.toml").read_text() == config_before


# ----- the kill test -------------------------------------------------------------------


def _child(out: str, changes: dict[str, Any], resume: bool, hook: str, log: str) -> None:
    """A training run in a forked process (its output to ``log``)."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    # pytest's capture may have replaced sys.stdout by an object of its own.
    sys.stdout = sys.stderr = open(fd, "w", buffering=1, closefd=False)
    if hook:
        os.environ[HOOK] = hook
    else:
        os.environ.pop(HOOK, None)
    code = 0
    try:
        train(_config(Path(out), **changes), resume=resume, progress_bar=False, evaluate=False)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@dataclass
class _Proc:
    process: Any
    log: Path

    @property
    def exitcode(self) -> int | None:
        code: int | None = self.process.exitcode
        return code

    def join(self, timeout: float) -> None:
        self.process.join(timeout)


class _Runs:
    """Forked training runs, killed with SIGKILL where the test says."""

    def __init__(self) -> None:
        self.ctx = multiprocessing.get_context("fork")
        self.started: list[_Proc] = []

    def start(self, out: Path, *, resume: bool, hook: Path | None = None, tag: str = "") -> _Proc:
        log = out.with_name(f"{out.name}{tag}.log")
        p = self.ctx.Process(
            target=_child, args=(str(out), {}, resume, str(hook or ""), str(log)), daemon=True
        )
        p.start()
        proc = _Proc(p, log)
        self.started.append(proc)
        return proc

    def finish(self, out: Path, *, resume: bool, tag: str = "") -> str:
        p = self.start(out, resume=resume, tag=tag)
        p.join(120)
        text = p.log.read_text() if p.log.is_file() else ""
        assert p.exitcode == 0, f"{out} (resume={resume}) exited {p.exitcode}:\n{text}"
        return str(text)

    def kill(self, p: _Proc) -> bool:
        """SIGKILL ``p``; whether it was still running."""
        alive = p.exitcode is None
        if alive:
            os.kill(p.process.pid, signal.SIGKILL)
        p.join(30)
        return alive

    def close(self) -> None:
        for p in self.started:
            if p.exitcode is None:
                os.kill(p.process.pid, signal.SIGKILL)
                p.join(10)


@pytest.fixture
def runs(tmp_path: Path, finished_run: Path) -> Iterator[_Runs]:
    r = _Runs()
    yield r
    r.close()


def _wait_for(path: Path, p: _Proc, limit: float = 60.0) -> bool:
    """Wait until ``path`` exists (True) or ``p`` ends (False)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if path.exists():
            return True
        if p.exitcode is not None:
            return path.exists()
        time.sleep(0.005)
    raise AssertionError(f"{path} did not appear within {limit} s")


def _tb_steps(run: Path, tag: str = "time/fps") -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(run / "tb" / "ppo_1"))
    ea.Reload()
    return [e.step for e in ea.Scalars(tag)]


def test_kills_at_any_moment_leave_a_run_that_resumes_to_the_same_model(
    runs: _Runs, tmp_path: Path
) -> None:
    rng = np.random.default_rng(23)
    # A whole run, timed, with the list of the files it writes (the hook's log).
    hook = tmp_path / "hook0"
    hook.mkdir()
    t0 = time.monotonic()
    p = runs.start(tmp_path / "whole", resume=False, hook=hook)
    p.join(120)
    seconds = time.monotonic() - t0
    assert p.exitcode == 0, p.log.read_text()
    writes = (hook / "writes.log").read_text().splitlines()
    ckpt_writes = [i + 1 for i, w in enumerate(writes) if "/checkpoints/" in w or "/pool/" in w]
    assert len(ckpt_writes) == 2 * 5 + 3  # 5 checkpoints (zip, json), 3 snapshots
    references: dict[int | None, tuple[bytes, bytes, int]] = {
        None: _model_state(tmp_path / "whole")
    }
    landed: dict[str, int] = {"mid-write": 0, "while running": 0, "after the end": 0}
    resumed_from: list[int | None] = []
    inside: dict[str, int] = {}  # the mid-write kills by the kind of file being written
    for trial in range(TRIALS):
        out = tmp_path / f"t{trial:02d}"
        hook = tmp_path / f"hook{trial + 1}"
        hook.mkdir()
        mid_write = trial % 2 == 0
        paused = ""
        if mid_write:
            (hook / "pause_at").write_text(str(int(rng.choice(ckpt_writes))))
            p = runs.start(out, resume=False, hook=hook)
            assert _wait_for(hook / "paused", p), p.log.read_text()
            paused = (hook / "paused").read_text().split()[1]
            inside[Path(paused).suffix] = inside.get(Path(paused).suffix, 0) + 1
            runs.kill(p)
            landed["mid-write"] += 1
        else:
            p = runs.start(out, resume=False)
            _wait_for(out / "config.toml", p)  # before it, there is no run to resume
            time.sleep(float(rng.uniform(0.0, seconds)))
            landed["while running" if runs.kill(p) else "after the end"] += 1
        if trial % 5 == 4:  # kill the resume too, then resume again
            p = runs.start(out, resume=True, tag="-r1")
            time.sleep(float(rng.uniform(0.0, seconds / 2)))
            landed["while running" if runs.kill(p) else "after the end"] += 1
        ckpt, skipped = find_checkpoint(out)
        key: int | None = None if ckpt is None else ckpt.steps
        if trial % 5 == 4 or key not in references:
            # The reference: the same folder, resumed with nothing to kill it.
            ref = _copy(out, tmp_path / f"ref{trial:02d}")
            runs.finish(ref, resume=True)
            state = _model_state(ref)
            if trial % 5 != 4:
                references[key] = state
        else:
            state = references[key]
        text = runs.finish(out, resume=True, tag="-final")
        if ckpt is None:
            assert "no complete checkpoint; starting the run over from step 0" in text
        else:
            assert f"resuming from {ckpt.name} ({ckpt.steps:,} steps)" in text, text
        for name, why in skipped:
            assert f"skipped {name}: {why}" in text
        if paused.endswith(".json") and trial % 5 != 4:  # a zip without its manifest
            stem = Path(paused).stem
            assert f"skipped checkpoints/{stem}: {stem}.zip without its manifest" in text
        final = _model_state(out)
        assert final[2] == TINY["timesteps"]
        assert final == state, f"trial {trial}: the resumed model differs from the reference"
        assert find_checkpoint(out)[0].steps == TINY["timesteps"]  # type: ignore[union-attr]
        assert not [q for q in out.rglob(".*") if q.name.endswith(".tmp")]
        # TensorBoard: every iteration once, none missing, none twice.
        assert _tb_steps(out) == list(range(ITERATION, TINY["timesteps"] + 1, ITERATION))
        resumed_from.append(key)
    print(
        f"\nkill test: {TRIALS} trials, {sum(landed.values())} kills: "
        + ", ".join(f"{v} {k}" for k, v in landed.items())
        + f" (writing {inside})"
        + f"; resumed from steps {resumed_from}; a whole run {seconds:.2f} s"
    )
    assert landed["mid-write"] >= TRIALS // 2


# ----- shipping a model: the .npz and its .eval.json as one unit ---------------------


def _ship_model_module() -> Any:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "ship_model.py"
    spec = importlib.util.spec_from_file_location("ship_model_for_test", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _folder(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_a_killed_ship_leaves_the_models_folder_as_it_was(
    finished_run: Path, tmp_path: Path
) -> None:
    mod = _ship_model_module()
    models = tmp_path / "models"
    models.mkdir()
    (models / "draw52.npz").write_bytes(b"the old model")
    (models / "draw52.eval.json").write_text('{"sha256": "of the old model"}\n')
    (models / "red_dog.npz").write_bytes(b"another model")
    before = _folder(models)
    src = finished_run / "policy.npz"
    doc = {"model": "draw52", "sha256": "of the new one"}
    ctx = multiprocessing.get_context("fork")

    def ship(name: str, hook: Path) -> None:
        os.environ[HOOK] = str(hook)
        mod.ship_files(models, name, mod.stage_model(models, name, src), doc)
        os._exit(0)

    # The pause points of a ship: the staged .npz, the staged table and the journal
    # (each before its rename), then after each of the two swaps.
    pauses = [(k, "draw52") for k in range(1, 6)] + [(4, "holdem_hu")]  # a new one
    for k, name in pauses:
        hook = tmp_path / f"ship{k}{name}"
        hook.mkdir()
        (hook / "pause_at").write_text(str(k))
        p = ctx.Process(target=ship, args=(name, hook), daemon=True)
        p.start()
        end = time.monotonic() + 60
        while not (hook / "paused").exists():
            assert p.exitcode is None and time.monotonic() < end, f"pause {k} never came"
            time.sleep(0.005)
        os.kill(p.pid, signal.SIGKILL)
        p.join(10)
        assert mod.recover(models) == ([name] if k >= 4 else []), k
        assert _folder(models) == before, f"killed at pause {k} of {name}"
    mod.ship_files(models, "draw52", mod.stage_model(models, "draw52", src), doc)
    after = _folder(models)
    assert after["draw52.npz"] == src.read_bytes()
    assert json.loads(after["draw52.eval.json"]) == doc
    assert sorted(after) == ["draw52.eval.json", "draw52.npz", "red_dog.npz"]
    # --no-eval: the file without a table (the old table, of another file, removed).
    mod.ship_files(models, "red_dog", mod.stage_model(models, "red_dog", src), None)
    assert sorted(_folder(models)) == ["draw52.eval.json", "draw52.npz", "red_dog.npz"]
    assert mod.recover(models) == []


def test_the_train_command_killed_in_a_checkpoint_write_resumes(tmp_path: Path) -> None:
    """``scripts/train.py`` as a user runs it: SIGKILL while it writes a checkpoint's
    manifest (the hook through the environment), then ``--resume``."""
    import subprocess

    script = Path(__file__).resolve().parents[2] / "scripts" / "train.py"
    run = tmp_path / "run"
    hook = tmp_path / "hook"
    hook.mkdir()
    # Writes: config.toml, step 128's zip, then its json: the third.
    (hook / "pause_at").write_text("3")
    args = [
        sys.executable,
        str(script),
        "red-dog",
        "--timesteps=256",
        "--num-tables=4",
        "--num-groups=2",
        "--n-steps=16",
        "--batch-size=64",
        "--n-epochs=1",
        "--net-arch=8",
        "--checkpoint-every=128",
        "--snapshot-every=0",
        "--opponents=random",
        f"--out={run}",
        "--no-progress",
        "--no-eval",
    ]
    env = {**os.environ, HOOK: str(hook)}
    with subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as p:
        end = time.monotonic() + 120
        while not (hook / "paused").exists():
            assert p.poll() is None, p.communicate()[0].decode()
            assert time.monotonic() < end, "the pause never came"
            time.sleep(0.01)
        p.send_signal(signal.SIGKILL)
        p.wait(30)
    assert "step_0000000128.json" in (hook / "paused").read_text()
    assert (run / "checkpoints" / "step_0000000128.zip").is_file()
    assert not (run / "checkpoints" / "step_0000000128.json").exists()
    done = subprocess.run(
        [sys.executable, str(script), "--resume", str(run), "--no-progress", "--no-eval"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no complete checkpoint; starting the run over from step 0" in done.stdout
    assert (
        "skipped checkpoints/step_0000000128: step_0000000128.zip without its manifest "
        "step_0000000128.json (never committed)"
    ) in done.stdout
    ckpt, skipped = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 256 and skipped == []
    assert (run / "policy.npz").is_file()


def test_a_journal_naming_a_file_elsewhere_is_refused(tmp_path: Path) -> None:
    """Security review: undo_unfinished unlinked an absolute or '../' name found in a
    journal. Such a journal is refused and nothing is touched."""
    import json as _json

    from poker_env_agents.training.checkpoints import undo_unfinished

    folder = tmp_path / "models"
    folder.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    for name in (str(victim), "../victim.txt"):
        (folder / ".x.unit.json").write_text(_json.dumps({"changes": {}, "backups": {name: None}}))
        with pytest.raises(ValueError, match="not a file of"):
            undo_unfinished(folder)
        assert victim.read_text() == "keep"


def test_a_manifest_naming_a_part_outside_its_folder_is_refused(tmp_path: Path) -> None:
    """Security review: check_parts read (hashed) any path a manifest named."""
    from poker_env_agents.training.checkpoints import check_parts

    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"x")
    folder = tmp_path / "ckpt"
    folder.mkdir()
    for name in ("../outside.bin", str(outside)):
        why = check_parts(folder, [{"name": name, "size": 1, "sha256": "0" * 64}])
        assert why == f"it names {name}, which is not inside its folder"


def test_progress_bar_counts_to_where_the_run_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 600 steps in rollouts of 4 tables x 16 steps: PPO stops after the tenth rollout,
    # at 640. SB3's own bar counted to 600 and ended at "640/600".
    from stable_baselines3.common.callbacks import ProgressBarCallback

    seen: list[tuple[float, float]] = []

    def record(self: ProgressBarCallback) -> None:
        seen.append((self.pbar.n, self.pbar.total))
        self.pbar.close()

    monkeypatch.setattr(ProgressBarCallback, "_on_training_end", record)
    train(_config(tmp_path / "run", timesteps=600), progress_bar=True, evaluate=False)
    assert seen == [(640, 640)]


def test_ctrl_c_says_where_the_run_stands_and_how_to_go_on(
    finished_run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ctrl-C printed a KeyboardInterrupt traceback and exit status 1 (a play-test).
    from poker_env_agents.cli import train as cli
    from poker_env_agents.training import train as training

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "train", interrupted)
    ckpt, _ = training.find_checkpoint(finished_run)
    assert ckpt is not None
    assert cli.main(["--resume", str(finished_run), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == (
        f"poker-train: interrupted; its newest checkpoint is at step {ckpt.steps:,}; "
        f"continue with: poker-train --resume {finished_run}"
    )
    assert "Traceback" not in err


def test_ctrl_c_names_the_default_run_folder_too(
    finished_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Without --out the run goes to runs/<game>-seed<seed>; Ctrl-C named nothing (it
    # looked for ./config.toml: a review).
    from poker_env_agents.cli import train as cli
    from poker_env_agents.training import train as training

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "train", interrupted)
    monkeypatch.chdir(tmp_path)
    _copy(finished_run, tmp_path / "runs" / "red-dog-seed0")
    assert cli.main(["red-dog", "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert err.strip().endswith("continue with: poker-train --resume runs/red-dog-seed0"), err


def test_a_resume_past_its_timesteps_says_there_is_nothing_to_train(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(finished_run, tmp_path / "run")
    train(_config(run, timesteps=320), resume=True, progress_bar=False, evaluate=False)
    out = capsys.readouterr().out
    assert "The run is at step 640, at or past timesteps=320: nothing to train" in out
    ckpt, _ = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 640


def test_a_resume_records_what_it_changed_from_its_step_on(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # config.toml holds the last part's values; resumes.jsonl says from which step each
    # change applies, so a run resumed with another seed does not pass for one seed.
    run = _copy(finished_run, tmp_path / "run")
    assert not (run / "resumes.jsonl").exists()
    train(_config(run, timesteps=768, seed=5), resume=True, progress_bar=False, evaluate=False)
    out = capsys.readouterr().out
    assert "changed from step 640 on: timesteps 640 -> 768; seed 0 -> 5" in out
    # A resume that trains nothing (here to fewer steps) leaves the record alone.
    train(_config(run, timesteps=512, seed=6), resume=True, progress_bar=False, evaluate=False)
    lines = [json.loads(x) for x in (run / "resumes.jsonl").read_text().splitlines()]
    assert [(x["step"], x["changed"]) for x in lines] == [
        (640, {"timesteps": [640, 768], "seed": [0, 5]}),
    ]
    assert (load_config(run / "config.toml").seed, load_config(run / "config.toml").timesteps) == (
        5,
        768,
    )
    # A resume that starts over (no complete checkpoint left) says so in the log.
    shutil.rmtree(run / "checkpoints")
    train(_config(run, timesteps=128, seed=5), resume=True, progress_bar=False, evaluate=False)
    last = json.loads((run / "resumes.jsonl").read_text().splitlines()[-1])
    assert last["started_over"] is True and last["step"] == 0


def test_resume_with_a_recipe_takes_its_fields_and_the_flags_over_them(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The recipe's raised timesteps trains on (it was ignored: "nothing to train", and
    # scripts/ship_model.py never trained a recipe whose timesteps went up); a flag
    # goes over the recipe; a recipe of another game is refused naming both.
    from poker_env_agents.cli import train as cli

    run = _copy(finished_run, tmp_path / "run")
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(TrainConfig(**{**TINY, "timesteps": 768, "out": "elsewhere"}).to_toml())
    assert (
        cli.main(["--resume", str(run), "--config", str(recipe), "--no-progress", "--no-eval"]) == 0
    )
    ckpt, _ = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 768
    flagged = ["--resume", str(run), "--config", str(recipe), "--timesteps", "896"]
    assert cli.main([*flagged, "--no-progress", "--no-eval"]) == 0
    ckpt, _ = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 896
    capsys.readouterr()
    recipe.write_text(TrainConfig(game="holdem", timesteps=2048).to_toml())
    assert cli.main(["--resume", str(run), "--config", str(recipe), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'holdem'" in err and "'red-dog', the game of the run" in err, err
    ckpt, _ = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 896  # nothing trained, nothing written


def test_a_budget_between_rollouts_is_said_to_stop_at_the_next_whole_one(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # PPO collects whole rollouts (4 tables x 16 steps = 64 here): asked for 700 steps
    # from 640, the run stops at 704, and says so before it starts (it said nothing).
    run = _copy(finished_run, tmp_path / "run")
    train(_config(run, timesteps=700), resume=True, progress_bar=False, evaluate=False)
    out = capsys.readouterr().out
    assert (
        "PPO trains in whole rollouts of 64 steps (4 tables x n_steps=16): this run stops at "
        "step 704, the first past timesteps=700." in out
    ), out
    ckpt, _ = find_checkpoint(run)
    assert ckpt is not None and ckpt.steps == 704


def test_resume_with_a_recipe_takes_its_opponent_mix_whole(
    finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The recipe's [opponents] is the mix: a kind the run had and the recipe leaves out
    # is gone (it kept its old weight: a mix neither had); an --option still goes key
    # by key over the options.
    from poker_env_agents.cli import train as cli
    from poker_env_agents.training import train as training

    seen: list[TrainConfig] = []

    def record(config: TrainConfig, **kwargs: Any) -> Path:
        seen.append(config)
        return run

    monkeypatch.setattr(training, "train", record)
    run = _copy(finished_run, tmp_path / "run")
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(TrainConfig(**{**TINY, "opponents": {"pool": 1.0}, "seed": 3}).to_toml())
    assert cli.main(["--resume", str(run), "--config", str(recipe), "--seed", "4"]) == 0
    assert seen[-1].opponents == {"pool": 1.0} and seen[-1].seed == 4
    assert cli.main(["--resume", str(run), "--opponents", "random:0.5"]) == 0
    assert seen[-1].opponents == {"random": 0.5, "pool": 1.0}  # a flag: key by key, as before
