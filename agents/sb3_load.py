"""Loading an SB3 ``.zip`` without running code from it.

A Stable-Baselines3 zip keeps some of its settings (the policy class, its keyword
arguments, the spaces, the schedules, the last observations) as cloudpickle bytes in
its ``data`` entry, and ``MaskablePPO.load`` unpickles them: a crafted zip runs any
code it likes when it is loaded (a player file given to ``evaluate.py``, ``poker-play
--opponent`` or ``poker-export`` did). Here every such entry is read by a restricted
unpickler first, which builds only the classes listed in :data:`ALLOWED` (the SB3
policies and schedules, this project's feature extractor, torch's activations and
Adam, gymnasium's Box and Discrete, numpy arrays, dtypes and Generators, a deque) and
refuses anything else, functions and code among them, and lets the file call only
numpy's rebuilders and a deque with arguments of its own (:data:`CALLABLE`); the
results go to SB3 as its
``custom_objects``, so SB3 unpickles nothing. It is the rule ``torch.load
(weights_only=True)`` applies to the weights, which SB3 already uses for the
``.pth`` entries.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any, ClassVar

from poker_env_agents.runtime import PolicyFileError

__all__ = ["ALLOWED", "CALLABLE", "load_sb3", "safe_custom_objects"]

_NUMPY = [
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random._pickle", "__randomstate_ctor"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("numpy.random._pcg64", "PCG64"),
    ("numpy.random._pcg64", "PCG64DXSM"),
    ("numpy.random._mt19937", "MT19937"),
    ("numpy.random._philox", "Philox"),
    ("numpy.random._sfc64", "SFC64"),
    # numpy 2 keeps these in numpy._core, numpy 1 (older files) in numpy.core.
    *[
        (f"numpy.{core}.{module}", name)
        for core in ("_core", "core")
        for module, name in (
            ("numeric", "_frombuffer"),
            ("multiarray", "_reconstruct"),
            ("multiarray", "scalar"),
        )
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
#: protocol 0/1's INST and OBJ): numpy's rebuilders and a deque. The classes (SB3's
#: policies, torch's activations, Adam, the spaces, the schedules) may only be named
#: or made empty and filled (NEWOBJ and BUILD, as SB3 writes them): called with a
#: file's arguments a policy would build the network it describes, of any size.
CALLABLE: frozenset[tuple[str, str]] = frozenset(
    [*_NUMPY, ("collections", "deque"), ("collections", "OrderedDict")]
)


class _Restricted(pickle._Unpickler):  # the Python unpickler: its steps can be checked
    dispatch: ClassVar[dict[int, Any]] = dict(pickle._Unpickler.dispatch)

    def __init__(self, data: bytes, where: str) -> None:
        super().__init__(io.BytesIO(data))
        self.where = where
        self.callable_ids: set[int] = set()

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED:
            raise PolicyFileError(
                f"{self.where} names {module}.{name}, which a model file may not load "
                "(only SB3's policies and schedules, spaces, activations and numpy data: "
                "a pickled object can run code)"
            )
        found = super().find_class(module, name)
        if (module, name) in CALLABLE:
            self.callable_ids.add(id(found))
        return found

    def _check_call(self, func: Any) -> None:
        if id(func) not in self.callable_ids:
            name = getattr(func, "__qualname__", type(func).__name__)
            raise PolicyFileError(
                f"{self.where} calls {name} with arguments of its own, which a model file "
                "may not do (only numpy's data and a deque are rebuilt that way)"
            )

    def load_reduce(self) -> None:
        # (pickle._Unpickler's steps are not in typeshed's stub of it)
        self._check_call(self.stack[-2])  # type: ignore[attr-defined]
        super().load_reduce()  # type: ignore[misc]

    dispatch[pickle.REDUCE[0]] = load_reduce

    def _instantiate(self, klass: Any, args: Any) -> None:
        if args or not isinstance(klass, type) or hasattr(klass, "__getinitargs__"):
            self._check_call(klass)
        super()._instantiate(klass, args)  # type: ignore[misc]


def safe_custom_objects(path: str | Path) -> dict[str, Any]:
    """Every pickled setting of the SB3 zip ``path``, read by the restricted unpickler
    (``custom_objects`` for SB3's ``load``).

    Raises:
        PolicyFileError: not a readable zip with a ``data`` entry of JSON, or a setting
            that names a class outside :data:`ALLOWED` or is not a pickle.
    """
    p = Path(path)
    if not p.is_file():
        raise PolicyFileError(f"{p}: no such file (an SB3 .zip was expected)")
    try:
        with zipfile.ZipFile(p) as zf:
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
        except (binascii.Error, pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
            raise PolicyFileError(f"{where} is not a readable pickle ({exc})") from None
    return objects


def load_sb3(path: str | Path, cls: Any, **kwargs: Any) -> Any:
    """``cls.load(path, **kwargs)`` (``cls``: ``MaskablePPO`` or another SB3 class) with
    its pickled settings read by :func:`safe_custom_objects`.

    Raises:
        PolicyFileError: as :func:`safe_custom_objects`, or the zip's weights do not
            load (a truncated file, a model of another architecture).
    """
    objects = safe_custom_objects(path)
    try:
        return cls.load(str(path), custom_objects=objects, **kwargs)
    except PolicyFileError:
        raise
    except (
        KeyError,
        ValueError,
        RuntimeError,
        AssertionError,
        zipfile.BadZipFile,
        EOFError,
    ) as exc:
        raise PolicyFileError(
            f"{path}: does not load as a {cls.__name__} model ({type(exc).__name__}: {exc})"
        ) from None
