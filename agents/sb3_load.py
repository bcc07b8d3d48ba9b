"""Loading an SB3 ``.zip`` without running code from it.

A Stable-Baselines3 zip keeps some of its settings (the policy class, its keyword
arguments, the spaces, the schedules, the last observations) as cloudpickle bytes in
its ``data`` entry, and ``MaskablePPO.load`` unpickles them: a crafted zip runs any
code it likes when it is loaded (a player file given to ``evaluate.py``, ``poker-play
--opponent`` or ``poker-export`` did). :func:`load_sb3` reads the file once and:

- reads every such entry with a restricted unpickler that builds only the classes of
  :data:`ALLOWED` (SB3's policies and schedules, this project's feature extractor,
  torch's activations and Adam, gymnasium's Box and Discrete, numpy's numeric arrays,
  dtypes and Generators, a deque), lets the file call only those of
  :data:`CALLABLE` with arguments it checks, never sets a class's attributes, and
  refuses everything else, functions and code among them;
- refuses a ``data`` entry over :data:`MAX_DATA_BYTES`, a setting named like a method
  of the model, and settings whose network the file's weights (read with
  ``torch.load(weights_only=True)``) could not fill, since SB3 builds it first;
- hands the settings to SB3 as ``custom_objects``, so SB3 unpickles nothing, and
  gives SB3 the bytes it checked.

It is the rule ``torch.load(weights_only=True)`` applies to the weights, which SB3
already uses for the ``.pth`` entries.
"""

from __future__ import annotations

import base64
import binascii
import io
import itertools
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any, ClassVar

from poker_env_agents.runtime import PolicyFileError

__all__ = ["ALLOWED", "CALLABLE", "MAX_DATA_BYTES", "load_sb3", "safe_custom_objects"]

_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_NUMPY = [
    ("numpy", "dtype"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("numpy.random._pcg64", "PCG64"),
    ("numpy.random._pcg64", "PCG64DXSM"),
    ("numpy.random._mt19937", "MT19937"),
    ("numpy.random._philox", "Philox"),
    ("numpy.random._sfc64", "SFC64"),
    # numpy 2 keeps these in numpy._core, numpy 1 (older files) in numpy.core. Arrays
    # come only by _frombuffer (numpy 2's pickles; no object or structured dtypes).
    *[
        (f"numpy.{core}.{module}", name)
        for core in ("_core", "core")
        for module, name in (("numeric", "_frombuffer"), ("multiarray", "scalar"))
    ],
]

#: The (module, name) pairs an SB3 zip's pickled settings may name: classes whose
#: construction from the file's data runs no code of the file's choosing.
ALLOWED: frozenset[tuple[str, str]] = frozenset(
    [
        ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"),
        ("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer"),
        ("stable_baselines3.common.policies", "ActorCriticPolicy"),
        ("stable_baselines3.common.buffers", "RolloutBuffer"),
        ("stable_baselines3.common.torch_layers", "FlattenExtractor"),
        ("stable_baselines3.common.utils", "ConstantSchedule"),
        ("stable_baselines3.common.utils", "FloatSchedule"),
        ("stable_baselines3.common.utils", "LinearSchedule"),
        ("poker_env_agents.training.sb3", "ScaledFlatten"),
        ("gymnasium.spaces.box", "Box"),
        ("gymnasium.spaces.discrete", "Discrete"),
        ("collections", "deque"),
        ("collections", "OrderedDict"),
        ("torch.optim.adam", "Adam"),
        *[
            ("torch.nn.modules.activation", name)
            for name in ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")
        ],
        *_NUMPY,
    ]
)

#: Of :data:`ALLOWED`, what a pickle may call with arguments of its own (REDUCE, or
#: protocol 0/1's INST and OBJ), each with its arguments checked (:meth:`_Restricted.
#: _check_call`): numpy's rebuilders of numeric arrays, dtypes and Generators, and a
#: deque. The classes (SB3's policies, torch's activations, Adam, the spaces, the
#: schedules) may only be named or made empty and filled (NEWOBJ and BUILD, as SB3
#: writes them): called with a file's arguments a policy would build the network it
#: describes, of any size.
CALLABLE: frozenset[tuple[str, str]] = frozenset(
    [*_NUMPY, ("collections", "deque"), ("collections", "OrderedDict")]
)

#: The numeric dtypes a file's arrays and scalars may have (no object, void or
#: structured dtype: their bytes would be read as pointers).
_NUMERIC = frozenset("?bBhHiIlLqQefdgFD")
_NUMERIC_CODES = frozenset(
    prefix + code
    for prefix in ("", "<", ">", "|", "=")
    for code in ("b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8")
)
#: The most bytes of a zip's ``data`` entry (the settings as JSON): ours are under 2 MB.
MAX_DATA_BYTES = 64 * 2**20


class _Restricted(pickle._Unpickler):  # the Python unpickler: its steps can be checked
    dispatch: ClassVar[dict[int, Any]] = dict(pickle._Unpickler.dispatch)

    def __init__(self, data: bytes, where: str) -> None:
        super().__init__(io.BytesIO(data))
        self.where = where
        self.names: dict[int, tuple[str, str]] = {}

    def refuse(self, what: str) -> PolicyFileError:
        return PolicyFileError(f"{self.where} {what}, which a model file may not do")

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED:
            raise PolicyFileError(
                f"{self.where} names {module}.{name}, which a model file may not load "
                "(only SB3's policies and schedules, spaces, activations and numpy data: "
                "a pickled object can run code)"
            )
        found = super().find_class(module, name)
        self.names[id(found)] = (module, name)
        return found

    def _numeric(self, dtype: Any) -> bool:
        import numpy as np

        return (
            isinstance(dtype, np.dtype)
            and dtype.char in _NUMERIC
            and dtype.fields is None
            and dtype.subdtype is None
        )

    def _check_call(self, func: Any, args: Any) -> None:
        """A call the file asks for: allowed callables, with arguments of known kinds."""
        import numpy as np

        named = self.names.get(id(func))
        if named is None or named not in CALLABLE:
            what = getattr(func, "__qualname__", type(func).__name__)
            raise self.refuse(f"calls {what} with arguments of its own")
        name = named[1]
        args = tuple(args)
        ok = True
        if name == "dtype":
            ok = (
                bool(args)
                and args[0] in _NUMERIC_CODES
                and all(isinstance(a, bool) for a in args[1:])
            )
        elif name == "_frombuffer":
            ok = (
                len(args) == 4
                and isinstance(args[0], (bytes, bytearray))
                and self._numeric(args[1])
                and isinstance(args[2], tuple)
                and all(isinstance(n, int) and n >= 0 for n in args[2])
            )
        elif name == "scalar":
            ok = len(args) == 2 and self._numeric(args[0]) and isinstance(args[1], bytes)
        elif name in ("__bit_generator_ctor", "__generator_ctor"):
            # A bit generator by name or class, and for a Generator numpy's own
            # rebuilder of one (it calls its second argument with its first).
            first_ok = (
                not args
                or args[0] in _BIT_GENERATORS
                or (
                    self.names.get(id(args[0]), ("", ""))[1] in _BIT_GENERATORS
                    or type(args[0]).__name__ in _BIT_GENERATORS
                )
            )
            second_ok = len(args) < 2 or self.names.get(id(args[1])) == (
                "numpy.random._pickle",
                "__bit_generator_ctor",
            )
            ok = first_ok and second_ok and len(args) <= 2
        elif name == "__pyx_unpickle_SeedSequence":
            ok = bool(args) and args[0] is np.random.SeedSequence
        elif name in ("deque", "OrderedDict"):
            ok = len(args) <= 2
        elif name in _BIT_GENERATORS or name == "SeedSequence":
            ok = len(args) <= 1 and (not args or isinstance(args[0], (int, type(None))))
        if not ok:
            raise self.refuse(f"calls {name} with arguments of another kind")

    def load_reduce(self) -> None:
        # (pickle._Unpickler's steps are not in typeshed's stub of it)
        stack = self.stack  # type: ignore[attr-defined]
        self._check_call(stack[-2], stack[-1])
        super().load_reduce()  # type: ignore[misc]

    dispatch[pickle.REDUCE[0]] = load_reduce

    def _instantiate(self, klass: Any, args: Any) -> None:
        if args or not isinstance(klass, type) or hasattr(klass, "__getinitargs__"):
            self._check_call(klass, args)
        super()._instantiate(klass, args)  # type: ignore[misc]

    def load_build(self) -> None:
        # BUILD sets an object's state: never a class's (that would patch it for the
        # whole process), and a dtype's only to its own canonical state (other flags
        # make numpy read an array's bytes as pointers).
        import numpy as np

        stack = self.stack  # type: ignore[attr-defined]
        inst, state = stack[-2], stack[-1]
        if isinstance(inst, type):
            raise self.refuse(f"sets the attributes of the class {inst.__qualname__}")
        if isinstance(inst, np.dtype):
            if not self._numeric(inst) or state != inst.__reduce__()[2]:
                raise self.refuse("sets a dtype's state to another than its own")
        elif self.names.get(id(type(inst))) is None:
            raise self.refuse(f"sets the state of a {type(inst).__qualname__}")
        super().load_build()  # type: ignore[misc]

    dispatch[pickle.BUILD[0]] = load_build


def _read(path: str | Path) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise PolicyFileError(f"{p}: no such file (an SB3 .zip was expected)")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise PolicyFileError(f"{p}: cannot be read ({exc.strerror})") from None


def safe_custom_objects(path: str | Path, raw: bytes | None = None) -> dict[str, Any]:
    """Every pickled setting of the SB3 zip ``path``, read by the restricted unpickler
    (``custom_objects`` for SB3's ``load``).

    Raises:
        PolicyFileError: not a readable zip with a ``data`` entry of JSON, or a setting
            that names a class outside :data:`ALLOWED` or is not a pickle.
    """
    p = Path(path)
    if raw is None:
        raw = _read(p)
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            if zf.getinfo("data").file_size > MAX_DATA_BYTES:
                raise PolicyFileError(
                    f"{p}: its 'data' entry unpacks to {zf.getinfo('data').file_size:,} "
                    f"bytes (at most {MAX_DATA_BYTES:,})"
                )
            data = json.loads(zf.read("data").decode("utf-8"))
    except KeyError:
        raise PolicyFileError(f"{p}: not an SB3 model (its zip has no 'data' entry)") from None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise PolicyFileError(f"{p}: not a readable zip ({exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PolicyFileError(f"{p}: its 'data' entry is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise PolicyFileError(f"{p}: its 'data' entry is not a JSON object")
    objects: dict[str, Any] = {}
    for key, item in data.items():
        if not (isinstance(item, dict) and ":serialized:" in item):
            continue
        where = f"{p}: setting {key!r}"
        try:
            raw = base64.b64decode(str(item[":serialized:"]).encode(), validate=True)
            objects[key] = _Restricted(raw, where).load()
        except PolicyFileError:
            raise
        except (
            binascii.Error,
            pickle.UnpicklingError,
            EOFError,
            ValueError,
            TypeError,
            IndexError,
            KeyError,
            AttributeError,
            MemoryError,
            RecursionError,
        ) as exc:
            raise PolicyFileError(
                f"{where} is not a readable pickle ({type(exc).__name__}: {exc})"
            ) from None
    return objects


def _check_settings(path: Path, cls: Any, objects: dict[str, Any], raw: bytes) -> None:
    """The settings against what SB3 will do with them before it reads the weights: no
    setting may take the place of a method of the model (SB3 copies the settings onto
    it), and the network the settings describe must be the one the weights are for
    (SB3 builds it first: a few bytes of ``net_arch`` could ask for any size)."""
    import numpy as np
    import torch

    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        names = json.loads(zf.read("data").decode("utf-8"))
        for key in names:
            if callable(getattr(cls, key, None)) and key not in objects:
                raise PolicyFileError(f"{path}: setting {key!r} names a method of {cls.__name__}")
        if "policy.pth" not in zf.namelist():
            raise PolicyFileError(f"{path}: not an SB3 model (no 'policy.pth' entry)")
        try:
            weights = torch.load(
                io.BytesIO(zf.read("policy.pth")), map_location="cpu", weights_only=True
            )
        except Exception as exc:  # torch's own errors for a bad file vary
            raise PolicyFileError(f"{path}: its weights do not load ({exc})") from None
    if not isinstance(weights, dict):
        raise PolicyFileError(f"{path}: its weights are not a state dict")
    have = sum(int(t.numel()) for t in weights.values() if hasattr(t, "numel"))
    kwargs = objects.get("policy_kwargs") or {}
    arch = kwargs.get("net_arch") if isinstance(kwargs, dict) else None
    parts: list[list[Any]] = []
    if isinstance(arch, dict):
        parts = [list(part) for part in arch.values() if isinstance(part, (list, tuple))]
    elif isinstance(arch, (list, tuple)):
        parts = [list(arch)]
    space = objects.get("observation_space")
    inputs = int(np.prod(getattr(space, "shape", None) or (1,)))
    need = 0
    for widths in parts:
        if any(not isinstance(w, int) or w < 1 for w in widths):
            raise PolicyFileError(f"{path}: its settings describe layers {widths}")
        sizes = [inputs, *widths]
        need += sum(a * b for a, b in itertools.pairwise(sizes))
    # The weights of the layers the settings describe must all be in the file: SB3
    # would build them before it reads the file's weights.
    if need > have:
        raise PolicyFileError(
            f"{path}: its settings describe layers {parts} of {need:,} weights, its "
            f"weights hold {have:,}"
        )


def load_sb3(path: str | Path, cls: Any, **kwargs: Any) -> Any:
    """``cls.load(path, **kwargs)`` (``cls``: ``MaskablePPO`` or another SB3 class) with
    its pickled settings read by :func:`safe_custom_objects`.

    Raises:
        PolicyFileError: as :func:`safe_custom_objects`, or the zip's weights do not
            load (a truncated file, a model of another architecture).
    """
    # The file is read once: what is checked is what SB3 loads (a file replaced in
    # between would otherwise be loaded unchecked).
    raw = _read(path)
    objects = safe_custom_objects(path, raw)
    _check_settings(Path(path), cls, objects, raw)
    try:
        return cls.load(io.BytesIO(raw), custom_objects=objects, **kwargs)
    except PolicyFileError:
        raise
    except (
        KeyError,
        ValueError,
        RuntimeError,
        AssertionError,
        zipfile.BadZipFile,
        EOFError,
        TypeError,
        AttributeError,
        IndexError,
    ) as exc:
        raise PolicyFileError(
            f"{path}: does not load as a {cls.__name__} model ({type(exc).__name__}: {exc})"
        ) from None
