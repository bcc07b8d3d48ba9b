"""Files written whole or not at all, and checkpoints that are one unit.

A training run can be killed at any moment (a preempted machine, SIGKILL, a full
disk). Everything a run writes goes through :func:`atomic_write`: the bytes go to a
temporary name in the same folder (``.NAME.<pid>.<hex>.tmp``), are flushed and
fsynced, and the file is renamed over ``NAME`` (``os.replace``, atomic on POSIX); the
folder is fsynced too. A reader sees the old file or the new one, never half of
one; a leftover temporary file is removed by :func:`remove_stale_temporaries`.

A checkpoint made of several files (the model, the opponent mix's state, the pool
snapshots it names) is committed by its *manifest*, written last: a JSON file that
lists every part with its size and sha256 (:func:`part_record`). Until the manifest
is there the checkpoint does not exist; a part that is missing, of another size or
with other bytes than the manifest says makes it incomplete
(:func:`check_parts`), and resuming skips it and says why.

A checkpoint that is a folder (RLlib's) is written under a temporary name, its
files listed in a manifest inside it, then renamed into place
(:func:`commit_folder`); :func:`check_folder` tells a complete one. Ray restores such
a folder by unpickling its files, which can run any code, so its manifest is also
signed: an HMAC-SHA256 under this user's key (:func:`signing_key`, 32 random bytes in
``~/.config/poker_env/checkpoint.key``, made on first use, readable by its owner
only). :func:`check_signature` tells a manifest this user signed from any other
(another user's or machine's, an edited one), and a restore reads the folder only
through :func:`verified_copy`: a private copy of exactly the files the signed manifest
lists, each hashed as it is copied (so that nothing added to the folder, nor changed
after the check, is unpickled).

Files that must change together in one folder (a shipped model and its evaluation
table) are staged (:func:`stage`) and swapped in by :func:`replace_together`: the old
files are kept as hard links and a journal is written before the first rename, and
removed after the last; :func:`undo_unfinished` puts back the old files of a swap
that a kill interrupted, so the folder is as it was before.

Test hook: with ``POKER_ENV_TEST_WRITES=DIR`` in the environment every atomic write
appends ``<n> <path>`` to ``DIR/writes.log``; when ``DIR/pause_at`` holds ``n``, the
n-th write of the process stops after writing its temporary file (before the
rename), creates ``DIR/paused`` and sleeps (up to a minute), so that a test can kill
the process in the middle of a write.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = [
    "FOLDER_MANIFEST",
    "UntrustedCheckpointError",
    "atomic_save",
    "atomic_write",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_folder",
    "check_parts",
    "check_signature",
    "commit_folder",
    "key_path",
    "part_record",
    "pause_point",
    "remove_stale_temporaries",
    "replace_together",
    "sha256_of",
    "signing_key",
    "stage",
    "undo_unfinished",
    "verified_copy",
]

#: The manifest inside a checkpoint folder (written last, before the rename).
FOLDER_MANIFEST = "checkpoint_complete.json"

_TEMP = re.compile(r"^\..+\.\d+\.[0-9a-f]{8}\.tmp$")
_TEMP_FOLDER = re.compile(r"^\..+\.tmp-(old-)?\d+-[0-9a-f]{8}$")
_HOOK_ENV = "POKER_ENV_TEST_WRITES"
_writes = 0


def pause_point(path: Path) -> None:
    """The kill test's hook (see the module docstring); nothing without the variable.

    Called by every atomic write before its rename, and between the renames of
    :func:`replace_together`."""
    global _writes
    folder = os.environ.get(_HOOK_ENV)
    if not folder:
        return
    _writes += 1
    hook = Path(folder)
    with (hook / "writes.log").open("a") as log:
        log.write(f"{_writes} {path}\n")
    pause = hook / "pause_at"
    if pause.is_file() and pause.read_text().strip() == str(_writes):
        # Published by a rename, so a test that sees the file also sees its text.
        (hook / "paused.tmp").write_text(f"{_writes} {path}\n")
        os.replace(hook / "paused.tmp", hook / "paused")
        time.sleep(60.0)


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[bytes]], Any]) -> Path:
    """Write ``path`` whole or not at all: ``write(f)`` fills a temporary file in the
    same folder, which is flushed, fsynced and renamed over ``path``.

    A failure (or a kill) leaves any old ``path`` as it was. Returns ``path``.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with tmp.open("xb") as f:  # created with the umask's permissions, as open() does
            write(f)
            f.flush()
            os.fsync(f.fileno())
        pause_point(out)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_folder(out.parent)
    return out


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """:func:`atomic_write` of ``data``."""
    return atomic_write(path, lambda f: f.write(data))


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`atomic_write` of ``text`` (UTF-8)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_save(path: str | os.PathLike[str], save: Callable[[io.BytesIO], Any]) -> Path:
    """:func:`atomic_write` of what ``save(buffer)`` writes to a memory buffer (for
    writers that close the file they are given, such as SB3's ``model.save``)."""
    buf = io.BytesIO()
    save(buf)
    return atomic_write_bytes(path, buf.getvalue())


def remove_stale_temporaries(folders: Iterable[Path]) -> list[Path]:
    """Remove the temporary files (and folders) a killed writer left in ``folders``."""
    removed = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.is_file() and _TEMP.match(p.name):
                p.unlink(missing_ok=True)
                removed.append(p)
            elif p.is_dir() and _TEMP_FOLDER.match(p.name):
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p)
    return removed


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def part_record(root: Path, path: Path) -> dict[str, Any]:
    """A manifest's entry for the part ``path``: its name relative to ``root``, its
    size and sha256."""
    return {
        "name": path.relative_to(root).as_posix(),
        "size": path.stat().st_size,
        "sha256": sha256_of(path),
    }


def _part_entry(part: Any) -> tuple[Path, int, str]:
    """A manifest entry's path (relative to its folder), size and sha256.

    Raises:
        ValueError: the entry is malformed, or names a path outside its folder.
    """
    try:
        name, size, digest = str(part["name"]), int(part["size"]), str(part["sha256"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"a malformed part entry {part!r}") from None
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ValueError(f"it names {name}, which is not inside its folder")
    return rel, size, digest


def check_parts(root: Path, parts: Iterable[Mapping[str, Any]]) -> str | None:
    """Why the parts a manifest lists are not all there as written (None: they are)."""
    for part in parts:
        try:
            rel, size, digest = _part_entry(part)
        except ValueError as exc:
            return str(exc)
        name = rel.as_posix()
        p = root / rel
        if not p.is_file():
            return f"it names {name}, which is missing"
        have = p.stat().st_size
        if have != size:
            return f"{name} is {have:,} bytes, the manifest says {size:,} (torn or replaced)"
        if sha256_of(p) != digest:
            return f"{name} has other bytes than the manifest's sha256 (replaced or damaged)"
    return None


def commit_folder(
    final: Path, write: Callable[[Path], Any], extra: Mapping[str, Any] | None = None
) -> Path:
    """Write a checkpoint folder as one unit: ``write(tmp)`` fills a temporary folder
    beside ``final``; its files are fsynced and listed (sizes, sha256) in
    :data:`FOLDER_MANIFEST`, and the folder is renamed to ``final`` (an old ``final``
    is replaced); the manifest is signed (:func:`check_signature`). Returns ``final``."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp = final.with_name(f".{final.name}.tmp-{tag}")
    try:
        tmp.mkdir()
        write(tmp)
        parts = []
        for p in sorted(q for q in tmp.rglob("*") if q.is_file()):
            with p.open("rb") as f:
                os.fsync(f.fileno())
            parts.append(part_record(tmp, p))
        for d in sorted({p.parent for p in tmp.rglob("*")} | {tmp}):
            fsync_folder(d)
        manifest: dict[str, Any] = {"parts": parts, **dict(extra or {})}
        manifest["signature"] = _manifest_mac(manifest, signing_key())
        atomic_write_text(tmp / FOLDER_MANIFEST, json.dumps(manifest, indent=1))
        if final.exists():
            old = final.with_name(f".{final.name}.tmp-old-{tag}")
            os.replace(final, old)
            os.replace(tmp, final)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_folder(final.parent)
    return final


def check_folder(folder: Path) -> str | None:
    """Why ``folder`` is not a complete checkpoint folder (None: it is)."""
    manifest = folder / FOLDER_MANIFEST
    if not manifest.is_file():
        return f"no {FOLDER_MANIFEST} (its writing did not finish)"
    try:
        doc = json.loads(manifest.read_text())
        parts = doc["parts"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"{FOLDER_MANIFEST} does not read ({exc})"
    return check_parts(folder, parts)


# ----- the key that signs checkpoint folders --------------------------------------------


class UntrustedCheckpointError(ValueError):
    """A checkpoint folder is complete but not one this user wrote (or it was changed
    since): loading it would unpickle files from elsewhere. Nothing was loaded."""


#: The key's file name, in :func:`key_path`'s folder.
KEY_NAME = "checkpoint.key"
_KEY_BYTES = 32


def key_path() -> Path:
    """Where this user's signing key lives: ``$POKER_ENV_CONFIG_DIR/checkpoint.key``,
    else ``$XDG_CONFIG_HOME/poker_env/checkpoint.key`` (``~/.config`` by default).

    Raises:
        ValueError: none of them is set and there is no home folder.
    """
    folder = os.environ.get("POKER_ENV_CONFIG_DIR")
    if folder:
        return Path(folder) / KEY_NAME
    base = os.environ.get("XDG_CONFIG_HOME")
    if not base:
        try:
            base = str(Path.home() / ".config")
        except RuntimeError as exc:  # no HOME and no passwd entry (some containers)
            raise ValueError(
                f"no home folder to keep the checkpoint key in ({exc}); set "
                "POKER_ENV_CONFIG_DIR to a folder of your own"
            ) from None
    return Path(base) / "poker_env" / KEY_NAME


def _open_regular(path: Path) -> int:
    """A read-only descriptor of the regular file at ``path``, not opened through a
    symbolic link (the last part of the path).

    Raises:
        ValueError: it is a link, a folder, not a regular file, or does not open.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if path.is_symlink():
            raise ValueError(f"{path} is a symbolic link") from None
        raise ValueError(f"{path} does not read ({exc.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ValueError(f"{path} is {'a folder' if stat.S_ISDIR(mode) else 'not a regular file'}")
    return fd


def _read_key(path: Path) -> bytes:
    # The key as a file of this user's own, readable by nobody else: a planted key (or
    # a link to one) in a shared folder would let its planter sign checkpoints.
    try:
        fd = _open_regular(path)
    except ValueError as exc:
        raise ValueError(f"{exc}; the key must be a regular file of yours") from None
    st = os.fstat(fd)
    with os.fdopen(fd, "rb") as f:
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise ValueError(
                f"{path} belongs to user id {st.st_uid}, not to you ({os.getuid()}): "
                "refused (a key someone else put there signs for them)"
            )
        if st.st_mode & 0o077:
            raise ValueError(
                f"{path} can be read or written by others (mode {st.st_mode & 0o777:o}); "
                f"allowed: yours only (chmod 600 {path})"
            )
        data = f.read(_KEY_BYTES + 1)
    if len(data) != _KEY_BYTES:
        raise ValueError(
            f"{path} is {len(data)} bytes, a signing key is {_KEY_BYTES}: not a key "
            "this project wrote (move it away and a new one is made; checkpoints signed "
            "with the old one then need --trust-checkpoint)"
        )
    return data


def signing_key(create: bool = True) -> bytes:
    """This user's 32-byte key for checkpoint signatures, made on first use (from the
    operating system's secure random source: a secret, not a game's draw), a file of
    this user's own with permissions for its owner only (checked at each read).

    Raises:
        FileNotFoundError: there is none and ``create`` is false.
        ValueError: the key cannot be made or read, or the file is not this user's
            key (another length, another owner, open to others, a link, a folder);
            the message names the file and what is allowed.
    """
    path = key_path()
    if not os.path.lexists(path):
        if not create:
            raise FileNotFoundError(f"no signing key at {path}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            remove_stale_temporaries([path.parent])  # a killed maker's half-made key
            tmp = path.with_name(f".{KEY_NAME}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(secrets.token_bytes(_KEY_BYTES))
                    f.flush()
                    os.fsync(f.fileno())
                try:
                    os.link(tmp, path)  # never over a key another process made meanwhile
                except FileExistsError:
                    pass
            finally:
                tmp.unlink(missing_ok=True)
            fsync_folder(path.parent)
        except OSError as exc:
            raise ValueError(
                f"cannot make the checkpoint key {path} ({exc.strerror}); set "
                "POKER_ENV_CONFIG_DIR to a folder of your own that can be written"
            ) from None
    return _read_key(path)


def _manifest_mac(doc: Mapping[str, Any], key: bytes) -> str:
    body = {k: v for k, v in doc.items() if k != "signature"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, text.encode("ascii"), hashlib.sha256).hexdigest()


def _signed_manifest(folder: Path) -> tuple[dict[str, Any] | None, str | None]:
    # The manifest, read once, if its MAC is this user's key's (else why not).
    try:
        key = signing_key(create=False)
    except FileNotFoundError:
        return None, f"this user has no signing key ({key_path()}), so signed no checkpoint"
    except ValueError as exc:
        return None, str(exc)
    try:
        doc = json.loads((folder / FOLDER_MANIFEST).read_bytes())
        if not isinstance(doc, dict) or not isinstance(doc.get("parts"), list):
            raise ValueError("no list of parts")
    except (OSError, ValueError) as exc:
        return None, f"{FOLDER_MANIFEST} does not read ({exc})"
    signature = doc.get("signature")
    if not isinstance(signature, str):
        return None, (
            "its manifest is not signed (written before poker_env signed checkpoints, "
            "or not by poker_env)"
        )
    if not hmac.compare_digest(signature, _manifest_mac(doc, key)):
        return None, (
            f"its manifest is not signed with this user's key ({key_path()}): written "
            "by another user or on another machine, or edited since"
        )
    return doc, None


def check_signature(folder: Path) -> str | None:
    """Why ``folder``'s manifest is not one this user signed (None: it is). The files
    are checked against it by :func:`check_folder`, and read for a restore only
    through :func:`verified_copy`."""
    return _signed_manifest(folder)[1]


@contextmanager
def verified_copy(folder: Path) -> Iterator[Path]:
    """A private copy of the checkpoint ``folder`` (a new folder only this user can
    enter) holding exactly the files its signed manifest lists, each with the bytes
    the manifest's sha256 names; removed at the end of the ``with``.

    What a restore unpickles comes from this copy: each part is opened once (not
    through a symbolic link), hashed as it is copied and refused on a mismatch, so
    nothing added to the folder (a file, a folder, a link), and nothing changed in it
    after the check, reaches the reader.

    Raises:
        UntrustedCheckpointError: the manifest is not signed with this user's key, or a
            part is missing, a link, not a regular file, or has other bytes.
    """
    doc, why = _signed_manifest(folder)
    if doc is None:
        raise UntrustedCheckpointError(f"{folder}: {why}")
    copy = Path(tempfile.mkdtemp(prefix="poker_env_checkpoint_"))
    try:
        for part in doc["parts"]:
            try:
                rel, size, digest = _part_entry(part)
            except ValueError as exc:
                raise UntrustedCheckpointError(f"{folder}: {exc}") from None
            _copy_part(folder, rel, copy / rel, size, digest)
    except BaseException:
        shutil.rmtree(copy, ignore_errors=True)
        raise
    try:
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _copy_part(folder: Path, rel: Path, dst: Path, size: int, digest: str) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = _open_regular(folder / rel)
    except ValueError as exc:
        raise UntrustedCheckpointError(f"{folder}: its part {exc}") from None
    h = hashlib.sha256()
    copied = 0
    with os.fdopen(fd, "rb") as f, dst.open("xb") as out:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            out.write(block)
            copied += len(block)
            if copied > size:
                break
    if copied != size or h.hexdigest() != digest:
        raise UntrustedCheckpointError(
            f"{folder}: its part {rel.as_posix()} has other bytes than its signed manifest "
            "says (changed since it was written)"
        )


# ----- files that change together ------------------------------------------------------

_JOURNAL = ".unit.json"


def stage(folder: Path, name: str, write: Callable[[IO[bytes]], Any]) -> Path:
    """Write the new ``folder/NAME`` under a staging name (for :func:`replace_together`)."""
    return atomic_write(folder / f".staged.{name}", write)


def replace_together(folder: Path, changes: Mapping[str, Path | None], unit: str) -> None:
    """Replace ``folder/NAME`` by its staged file for each ``NAME -> staged`` of
    ``changes`` (``None``: remove ``NAME``), all or none of them.

    The old files are kept (hard links ``.backup.NAME``) and the journal
    ``.UNIT.unit.json`` is written before the first rename; it is removed once the
    last rename is done (the commit). A kill in between leaves the journal, and
    :func:`undo_unfinished` then puts the old files back.
    """
    backups: dict[str, str | None] = {}
    for name in changes:
        old = folder / name
        backup = folder / f".backup.{name}"
        backup.unlink(missing_ok=True)
        if old.exists():
            os.link(old, backup)
            backups[name] = backup.name
        else:
            backups[name] = None
    journal = folder / f".{unit}{_JOURNAL}"
    staged = {n: None if p is None else p.name for n, p in changes.items()}
    atomic_write_text(journal, json.dumps({"changes": staged, "backups": backups}, indent=1))
    for name, new in changes.items():
        if new is None:
            (folder / name).unlink(missing_ok=True)
        else:
            os.replace(new, folder / name)
        pause_point(folder / name)
    fsync_folder(folder)
    journal.unlink()
    fsync_folder(folder)
    for b in backups.values():
        if b is not None:
            (folder / b).unlink(missing_ok=True)


def undo_unfinished(folder: Path) -> list[str]:
    """Put back the old files of every :func:`replace_together` that did not finish in
    ``folder``, remove what staging left; the units undone."""
    undone: list[str] = []
    if not folder.is_dir():
        return undone
    for journal in sorted(folder.glob(f".*{_JOURNAL}")):
        doc = json.loads(journal.read_text())
        names = [*doc["backups"], *doc["backups"].values(), *doc["changes"].values()]
        for name in names:
            # A journal names files of this folder only: never a path elsewhere.
            if name is not None and (
                not isinstance(name, str) or Path(name).name != name or name in ("", ".", "..")
            ):
                raise ValueError(
                    f"{journal}: names {name!r}, not a file of {folder}; nothing was undone"
                )
        for name, backup in doc["backups"].items():
            if backup is not None and (folder / backup).exists():
                os.replace(folder / backup, folder / name)
            elif backup is None:
                (folder / name).unlink(missing_ok=True)  # it was not there before
        for staged in doc["changes"].values():
            if staged is not None:
                (folder / staged).unlink(missing_ok=True)
        fsync_folder(folder)
        journal.unlink()
        undone.append(journal.name[1 : -len(_JOURNAL)])
    for p in list(folder.glob(".staged.*")) + list(folder.glob(".backup.*")):
        p.unlink(missing_ok=True)
    remove_stale_temporaries([folder])
    fsync_folder(folder)
    return undone
