"""Export a trained policy: a ``.npz`` of weights with its manifest, and ONNX beside it.

- :func:`export_policy` takes a trained stable-baselines3 / sb3-contrib model
  (``MaskablePPO`` or ``PPO`` with ``MlpPolicy``: any ``net_arch``, the
  activations of :data:`poker_env_agents.runtime.ACTIVATIONS`) and writes the policy file that
  :func:`poker_env_agents.runtime.load_policy` runs with numpy alone, plus (``onnx=True``) an
  ONNX model of the same network.
- :func:`write_policy` writes a policy file from plain numpy layers and an env:
  the path for other trainers (RLlib) that produce their own weights.
- :func:`sb3_layers` reads the policy network out of an SB3 model.

The file format is described in :mod:`poker_env_agents.runtime`. The network exported is the
actor only, ``observation -> logits`` (SB3's ``features_extractor`` (Flatten) ->
``mlp_extractor.policy_net`` (Linear + activation)* -> ``action_net`` (Linear));
the value head is left out, and the action mask is applied outside the network
(by the runtime, or by whoever runs the ONNX model).

torch and SB3 are imported inside the functions that need them, so
``import poker_env_agents.training.export`` works without them (:func:`write_policy` needs numpy only).
"""

from __future__ import annotations

import datetime as dt
import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from poker_env_agents.features import make_features
from poker_env_agents.runtime import (
    ACTIVATIONS,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST_KEY,
    DenseLayer,
    EnvDescription,
    describe_env,
    load_policy,
    validate_manifest,
)
from poker_env_agents.training.checkpoints import atomic_write

__all__ = [
    "ExportError",
    "ExportResult",
    "build_manifest",
    "default_provenance",
    "export_onnx",
    "export_policy",
    "sb3_layers",
    "write_policy",
]

#: Name of the ONNX model's input (float32, (batch, observation size)).
ONNX_INPUT = "observation"
#: Name of the ONNX model's output (float32, (batch, actions)): unmasked logits.
ONNX_OUTPUT = "logits"
#: The ONNX metadata key that holds the manifest's JSON.
ONNX_MANIFEST_KEY = "poker_env.manifest"
ONNX_OPSET = 17


class ExportError(ValueError):
    """A model or input that cannot be exported: the message says what and why."""


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export_policy` wrote; as a path (``os.PathLike``) it is the ``.npz``,
    so ``Path(export_policy(...))`` and ``load_policy(export_policy(...))`` work.

    Attributes:
        npz: the policy file (weights + manifest).
        onnx: the ONNX model, or None.
        manifest: the manifest written into both.
    """

    npz: Path
    onnx: Path | None
    manifest: dict[str, Any]

    def __fspath__(self) -> str:
        return str(self.npz)


# ----- layers from plain numpy -----------------------------------------------------------


def _as_layer(layer: DenseLayer | Mapping[str, Any], i: int) -> DenseLayer:
    if isinstance(layer, DenseLayer):
        spec: Mapping[str, Any] = {
            "weight": layer.weight,
            "bias": layer.bias,
            "activation": layer.activation,
            "activation_params": layer.activation_params,
        }
    elif isinstance(layer, Mapping):
        spec = layer
    else:
        raise ExportError(
            f"layers[{i}] is {type(layer).__name__}: a DenseLayer or a mapping with "
            "'weight' (in, out), 'bias' (out,), 'activation' expected"
        )
    for key in ("weight", "bias"):
        if key not in spec:
            raise ExportError(f"layers[{i}] has no {key!r}")
    w = np.asarray(spec["weight"])
    b = np.asarray(spec["bias"])
    if w.dtype.kind not in "fiu" or b.dtype.kind not in "fiu":
        raise ExportError(f"layers[{i}]: weight and bias must be numeric arrays")
    if w.ndim != 2 or b.shape != (w.shape[1],):
        raise ExportError(
            f"layers[{i}]: weight must be (in, out) and bias (out,), got {w.shape} and {b.shape}"
        )
    act = spec.get("activation", "identity")
    if act not in ACTIVATIONS:
        raise ExportError(
            f"layers[{i}]: activation {act!r} unknown; known: {', '.join(ACTIVATIONS)}"
        )
    params = {k: float(v) for k, v in dict(spec.get("activation_params") or {}).items()}
    if sorted(params) != sorted(ACTIVATIONS[act][1]):
        raise ExportError(
            f"layers[{i}]: activation {act!r} takes parameters {list(ACTIVATIONS[act][1])}, "
            f"got {sorted(params)}"
        )
    w32 = np.ascontiguousarray(w, dtype=np.float32)
    b32 = np.ascontiguousarray(b, dtype=np.float32)
    if not (np.all(np.isfinite(w32)) and np.all(np.isfinite(b32))):
        raise ExportError(f"layers[{i}]: weights with NaN or infinite values")
    return DenseLayer(w32, b32, act, params)


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def default_provenance(model: object | None = None) -> dict[str, Any]:
    """Where a policy came from, as far as this process can tell.

    ``command`` (this process's command line), ``date`` (UTC, ISO 8601),
    ``git_commit`` and ``git_dirty`` of the checkout this package runs from (None
    outside git), the library versions; from an SB3 ``model`` also ``algorithm``,
    ``seed`` and ``steps`` (``num_timesteps``).
    """
    from importlib import metadata

    versions: dict[str, str] = {}
    for dist in ("poker_env", "numpy", "torch", "stable_baselines3", "sb3_contrib"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    status = _git("status", "--porcelain", "--untracked-files=no")
    prov: dict[str, Any] = {
        "command": shlex.join(sys.argv),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "versions": versions,
    }
    if model is not None:
        prov["algorithm"] = f"{type(model).__module__.split('.')[0]}.{type(model).__name__}"
        seed = getattr(model, "seed", None)
        prov["seed"] = seed if isinstance(seed, int) else None
        steps = getattr(model, "num_timesteps", None)
        prov["steps"] = int(steps) if steps is not None else None
    return prov


def build_manifest(
    layers: Sequence[DenseLayer | Mapping[str, Any]],
    env: object,
    provenance: Mapping[str, Any] | None = None,
    features: str | None = None,
) -> tuple[dict[str, Any], dict[str, NDArray[np.float32]]]:
    """The manifest and the named arrays of a policy file.

    Args:
        layers: the network, first layer first: :class:`~poker_env_agents.runtime.DenseLayer`
            or mappings ``{"weight": (in, out), "bias": (out,), "activation": name,
            "activation_params": {...}}`` of numpy arrays.
        env: the env the policy plays (an env, batched env or wrapper), or its
            :class:`~poker_env_agents.runtime.EnvDescription`.
        provenance: JSON-serialisable facts about the training (stored as given).
        features: the name of the feature set (:mod:`poker_env_agents.features`) whose columns
            the network reads after the observation, or None.

    Raises:
        ExportError: bad layers (shapes that do not chain, the first layer not taking
            the observation, the last not giving one logit per action, unknown
            activations, non-finite weights) or provenance that is not JSON.
    """
    desc = env if isinstance(env, EnvDescription) else describe_env(env)
    dense = [_as_layer(layer, i) for i, layer in enumerate(layers)]
    if not dense:
        raise ExportError("layers is empty: a network needs at least one layer")
    prev = desc.observation_size
    feature_fields: dict[str, Any] = {}
    if features:
        feature_set = make_features(features, desc.game, desc.options)
        feature_fields = {"features": {"name": feature_set.name, "size": feature_set.size}}
        prev += feature_set.size
    for i, layer in enumerate(dense):
        if layer.weight.shape[0] != prev:
            what = "the observation size" if i == 0 else f"layers[{i - 1}]'s output"
            if i == 0 and features:
                what += " with the features"
            raise ExportError(f"layers[{i}] takes {layer.weight.shape[0]} inputs, {what} is {prev}")
        prev = layer.weight.shape[1]
    if prev != desc.action_count:
        raise ExportError(
            f"the last layer gives {prev} logits, the env {desc.env_id} has "
            f"{desc.action_count} actions"
        )
    arrays: dict[str, NDArray[np.float32]] = {}
    specs = []
    for i, layer in enumerate(dense):
        w_name, b_name = f"layer{i}.weight", f"layer{i}.bias"
        arrays[w_name], arrays[b_name] = layer.weight, layer.bias
        spec: dict[str, Any] = {
            "weight": w_name,
            "bias": b_name,
            "in": int(layer.weight.shape[0]),
            "out": int(layer.weight.shape[1]),
            "activation": layer.activation,
        }
        if layer.activation_params:
            spec["activation_params"] = dict(layer.activation_params)
        specs.append(spec)
    prov = dict(provenance or {})
    try:
        json.dumps(prov, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ExportError(f"provenance is not plain JSON: {exc}") from exc
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **desc.manifest_fields(),
        **feature_fields,
        "network": {"type": "mlp", "output": "logits", "layers": specs},
        "provenance": prov,
    }
    validate_manifest(manifest, "the manifest being written")
    return manifest, arrays


def _resolve(path: str | PathLike[str], default_name: str) -> Path:
    p = Path(path)
    return p / default_name if p.is_dir() else p


def _atomic_write(path: Path, write: Any) -> None:
    """Write through a temporary file in the same folder, flushed, fsynced, then
    renamed: a reader never sees half a file, and a failed (or killed) export leaves
    any old file in place (:func:`poker_env_agents.training.checkpoints.atomic_write`)."""
    atomic_write(path, write)


def write_policy(
    path: str | PathLike[str],
    layers: Sequence[DenseLayer | Mapping[str, Any]],
    env: object,
    *,
    provenance: Mapping[str, Any] | None = None,
    features: str | None = None,
) -> Path:
    """Write a policy file from plain numpy layers (no torch needed).

    Args:
        path: the ``.npz`` file to write (a folder: ``policy.npz`` in it).
        layers, env, provenance, features: as :func:`build_manifest`.

    Returns:
        The path written. The file is read back with the runtime's loader (against
        ``env``) before this returns, so what is written is what loads.

    Raises:
        ExportError: as :func:`build_manifest`.
    """
    manifest, arrays = build_manifest(layers, env, provenance, features)
    out = _resolve(path, "policy.npz")
    text = json.dumps(manifest, indent=1, sort_keys=False, allow_nan=False)
    blob = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    members: dict[str, Any] = {MANIFEST_KEY: blob, **arrays}
    _atomic_write(out, lambda f: np.savez(f, **members))
    load_policy(out, env)
    return out


# ----- SB3 --------------------------------------------------------------------------------


def _activation_of(module: Any) -> tuple[str, dict[str, float]] | None:
    from torch import nn

    if isinstance(module, nn.Tanh):
        return "tanh", {}
    if isinstance(module, nn.ReLU):
        return "relu", {}
    if isinstance(module, nn.LeakyReLU):
        return "leaky_relu", {"negative_slope": float(module.negative_slope)}
    if isinstance(module, nn.ELU):
        return "elu", {"alpha": float(module.alpha)}
    if isinstance(module, nn.Sigmoid):
        return "sigmoid", {}
    if isinstance(module, nn.SiLU):
        return "silu", {}
    if isinstance(module, nn.Identity):
        return "identity", {}
    return None


def _linear(module: Any) -> DenseLayer:
    w = module.weight.detach().cpu().numpy().astype(np.float32)
    if module.bias is None:
        b = np.zeros(w.shape[0], np.float32)
    else:
        b = module.bias.detach().cpu().numpy().astype(np.float32)
    # torch's Linear stores (out, in) and computes x @ W.T + b; the file stores (in, out).
    return DenseLayer(np.ascontiguousarray(w.T), np.ascontiguousarray(b))


def _sb3_policy(model: Any) -> Any:
    policy = getattr(model, "policy", None)
    if policy is None or not hasattr(policy, "mlp_extractor") or not hasattr(policy, "action_net"):
        raise ExportError(
            f"{type(model).__name__} has no actor-critic MLP policy (expected an SB3 / "
            "sb3-contrib PPO or MaskablePPO model with MlpPolicy)"
        )
    return policy


def sb3_layers(model: Any) -> list[DenseLayer]:
    """The actor network of an SB3 (Maskable)PPO ``MlpPolicy`` as dense layers.

    Raises:
        ExportError: the model is not a (Maskable)PPO with a flat Box observation, a
            Discrete action space, a Flatten feature extractor and an MLP of Linear
            layers and supported activations.
    """
    from gymnasium import spaces
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    policy = _sb3_policy(model)
    obs_space = policy.observation_space
    if not isinstance(obs_space, spaces.Box) or len(obs_space.shape) != 1:
        raise ExportError(f"observation space {obs_space} is not a 1-D Box")
    if not isinstance(policy.action_space, spaces.Discrete):
        raise ExportError(f"action space {policy.action_space} is not Discrete")
    extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
    from poker_env_agents.training.sb3 import ScaledFlatten

    input_scale = None
    if isinstance(extractor, ScaledFlatten):
        # A fixed per-entry scale before the first layer: folded into its weights.
        input_scale = extractor.scale.detach().cpu().numpy().astype(np.float32)
    elif not isinstance(extractor, FlattenExtractor):
        raise ExportError(
            f"features extractor {type(extractor).__name__} is not supported "
            "(Flatten or poker_env_agents.training.sb3.ScaledFlatten only)"
        )
    layers: list[DenseLayer] = []
    for k, module in enumerate(policy.mlp_extractor.policy_net):
        if isinstance(module, nn.Linear):
            layers.append(_linear(module))
            continue
        act = _activation_of(module)
        if act is None or not layers or layers[-1].activation != "identity":
            known = ", ".join(a for a in ACTIVATIONS if a != "identity")
            raise ExportError(
                f"policy_net[{k}] is {module!r}: only Linear layers each followed by at most "
                f"one activation ({known}) are supported"
            )
        if act[0] != "identity":
            last = layers[-1]
            layers[-1] = DenseLayer(last.weight, last.bias, act[0], act[1])
    if not isinstance(policy.action_net, nn.Linear):
        raise ExportError(f"action_net {policy.action_net!r} is not a Linear layer")
    layers.append(_linear(policy.action_net))
    if input_scale is not None:
        first = layers[0]
        layers[0] = DenseLayer(
            (first.weight * input_scale[:, None]).astype(np.float32),
            first.bias,
            first.activation,
            first.activation_params,
        )
    return layers


def _onnx_module(model: Any) -> Any:
    """A torch module ``observation -> logits`` sharing nothing with the model."""
    import copy

    import torch
    from torch import nn

    policy = _sb3_policy(model)

    extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
    scale = getattr(
        extractor, "scale", None
    )  # poker_env_agents.training.sb3.ScaledFlatten's factors

    class _Actor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy_net = copy.deepcopy(policy.mlp_extractor.policy_net).cpu()
            self.action_net = copy.deepcopy(policy.action_net).cpu()
            self.register_buffer(
                "scale",
                None if scale is None else scale.detach().clone().cpu(),
            )

        def forward(self, observation: torch.Tensor) -> torch.Tensor:
            x = observation.flatten(1)
            if self.scale is not None:
                x = x * self.scale  # type: ignore[operator]
            return self.action_net(self.policy_net(x))  # type: ignore[no-any-return]

    return _Actor().eval()


def export_onnx(
    model: Any, path: str | PathLike[str], manifest: Mapping[str, Any] | None = None
) -> Path:
    """Write the model's actor as ONNX: input ``observation`` float32 (batch, size),
    output ``logits`` float32 (batch, actions), unmasked; the batch axis is dynamic.

    The manifest (if given) is stored as the model's metadata property
    ``poker_env.manifest``. Uses torch's TorchScript exporter (``dynamo=False``: the
    dynamo exporter needs the onnxscript package) at opset 17.

    Raises:
        ExportError: as :func:`sb3_layers`.
    """
    import onnx
    import torch

    sb3_layers(model)  # the same checks as the npz export
    module = _onnx_module(model)
    size = int(_sb3_policy(model).observation_space.shape[0])
    out = _resolve(path, "policy.onnx")
    dummy = torch.zeros((1, size), dtype=torch.float32)

    def write(f: Any) -> None:
        torch.onnx.export(
            module,
            (dummy,),
            f,
            input_names=[ONNX_INPUT],
            output_names=[ONNX_OUTPUT],
            dynamic_axes={ONNX_INPUT: {0: "batch"}, ONNX_OUTPUT: {0: "batch"}},
            opset_version=ONNX_OPSET,
            dynamo=False,
        )

    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.onnx"
        with raw.open("wb") as f:
            write(f)
        proto = onnx.load(str(raw))
    if manifest is not None:
        entry = proto.metadata_props.add()
        entry.key = ONNX_MANIFEST_KEY
        entry.value = json.dumps(manifest, allow_nan=False)
    proto.producer_name = "poker_env"
    onnx.checker.check_model(proto)
    _atomic_write(out, lambda f: f.write(proto.SerializeToString()))
    return out


def export_policy(
    model: Any,
    path: str | PathLike[str],
    env: object,
    *,
    provenance: Mapping[str, Any] | None = None,
    onnx: bool = False,
    features: str | None = None,
) -> ExportResult:
    """Export a trained SB3 (Maskable)PPO model: the policy file, and ONNX beside it.

    Args:
        model: the trained model (``MlpPolicy``).
        path: the ``.npz`` to write (a folder: ``policy.npz`` in it); the ONNX model
            goes beside it with the suffix ``.onnx``.
        env: the env the model was trained on (an env, batched env, ``PokerVecEnv``
            or any wrapper of them), for the manifest's env fields.
        provenance: facts about the training (``command``, ``seed``, ``steps``, ...);
            they update :func:`default_provenance` of the model.
        onnx: also write the ONNX model (needs the ``export`` extra: onnx).
        features: the feature set the model was trained with (its observations were
            the env's followed by those columns; see :mod:`poker_env_agents.features`).

    Raises:
        ExportError: a model that cannot be exported, or whose spaces differ from
            ``env``'s.
    """
    policy = _sb3_policy(model)
    desc = describe_env(env)
    size = int(np.prod(policy.observation_space.shape))
    count = int(getattr(policy.action_space, "n", -1))
    if features:
        size -= make_features(features, desc.game, desc.options).size
    if (size, count) != (desc.observation_size, desc.action_count):
        raise ExportError(
            f"the model has {size} observations and {count} actions, the env {desc.env_id} "
            f"{desc.observation_size} and {desc.action_count}"
        )
    prov = {**default_provenance(model), **dict(provenance or {})}
    npz = write_policy(path, sb3_layers(model), desc, provenance=prov, features=features)
    manifest = load_policy(npz).manifest
    onnx_path = export_onnx(model, npz.with_suffix(".onnx"), manifest) if onnx else None
    return ExportResult(npz=npz, onnx=onnx_path, manifest=manifest)
