"""poker_env_agents.runtime: the numpy-only loader and policy.

Policies here are written from hand-made numpy layers (poker_env_agents.training.export.write_policy),
so these tests need no torch; the SB3 / ONNX parity is in test_export.py.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import poker_env  # noqa: F401  (registers the ids)
from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.envs.holdem import HoldemEnv
from poker_env.envs.red_dog import RedDogEnv
from poker_env.policy import BatchPolicy, Policy
from poker_env_agents.runtime import (
    FORMAT1_LAYOUTS,
    FORMAT_VERSION,
    NumpyPolicy,
    PolicyFileError,
    describe_env,
    load_policy,
    observation_layout_sha256,
    read_manifest,
)
from poker_env_agents.training.export import ExportError, write_policy

REPO = Path(__file__).resolve().parents[2]
DRAW_OBS, DRAW_ACTIONS = 124, 39


def random_layers(rng: np.random.Generator, sizes: list[int], act: str = "relu") -> list[Any]:
    layers = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(
            {
                "weight": rng.normal(0, 0.3, (a, b)).astype(np.float32),
                "bias": rng.normal(0, 0.1, b).astype(np.float32),
                "activation": act if i < len(sizes) - 2 else "identity",
            }
        )
    return layers


def bias_only(logits: list[float], obs_size: int = DRAW_OBS) -> list[dict[str, Any]]:
    """A one-layer network whose logits are ``logits`` whatever the observation."""
    return [
        {
            "weight": np.zeros((obs_size, len(logits)), np.float32),
            "bias": np.asarray(logits, np.float32),
            "activation": "identity",
        }
    ]


@pytest.fixture(scope="module")
def draw_env() -> FiveCardDrawEnv:
    return FiveCardDrawEnv()


@pytest.fixture(scope="module")
def draw_file(tmp_path_factory: pytest.TempPathFactory, draw_env: FiveCardDrawEnv) -> Path:
    path = tmp_path_factory.mktemp("policy") / "draw.npz"
    layers = random_layers(np.random.default_rng(0), [DRAW_OBS, 16, 8, DRAW_ACTIONS])
    provenance = {"command": "hand-made", "seed": 0, "steps": 0}
    return write_policy(path, layers, draw_env, provenance=provenance)


def draw_observations(n: int, seed: int = 0, deck: int = 52) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of FiveCardDraw-v0 under random legal play."""
    env = FiveCardDrawEnv(deck=deck)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out_o, out_m = [], []
    while len(out_o) < n:
        out_o.append(obs)
        out_m.append(info["action_mask"])
        obs, _r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    return np.stack(out_o), np.stack(out_m)


# ----- the network and play ------------------------------------------------------------------


def test_logits_match_a_plain_python_forward_pass(draw_file: Path) -> None:
    policy = load_policy(draw_file)
    with np.load(draw_file, allow_pickle=False) as z:
        w = [z[f"layer{i}.weight"].tolist() for i in range(3)]
        b = [z[f"layer{i}.bias"].tolist() for i in range(3)]
    obs, _ = draw_observations(5)
    for x in obs:
        h = [float(v) for v in x]
        for layer in range(3):
            rows, cols = len(w[layer]), len(w[layer][0])
            h = [sum(h[i] * w[layer][i][j] for i in range(rows)) + b[layer][j] for j in range(cols)]
            if layer < 2:
                h = [max(v, 0.0) for v in h]
        np.testing.assert_allclose(policy.logits(x), h, rtol=1e-5, atol=1e-4)
    assert policy.logits(obs).shape == (5, DRAW_ACTIONS)
    assert policy.logits(obs).dtype == np.float32


@pytest.mark.parametrize(
    ("name", "params", "ref"),
    [
        ("tanh", {}, math.tanh),
        ("relu", {}, lambda v: max(v, 0.0)),
        ("leaky_relu", {"negative_slope": 0.1}, lambda v: v if v >= 0 else 0.1 * v),
        ("elu", {"alpha": 0.5}, lambda v: v if v > 0 else 0.5 * (math.exp(v) - 1)),
        ("sigmoid", {}, lambda v: 1 / (1 + math.exp(-v))),
        ("silu", {}, lambda v: v / (1 + math.exp(-v))),
    ],
)
def test_each_activation_against_its_formula(
    tmp_path: Path, draw_env: FiveCardDrawEnv, name: str, params: dict[str, float], ref: Any
) -> None:
    # Hidden pre-activations = obs[0] * k for k in -40..37 (obs[0] = 1): both tails and 0.
    w1 = np.zeros((DRAW_OBS, DRAW_ACTIONS), np.float32)
    w1[0] = np.arange(-20, 19) * 0.5
    layers = [
        {"weight": w1, "bias": np.zeros(DRAW_ACTIONS, np.float32), "activation": name},
        {
            "weight": np.eye(DRAW_ACTIONS, dtype=np.float32),
            "bias": np.zeros(DRAW_ACTIONS, np.float32),
        },
    ]
    if params:
        layers[0]["activation_params"] = params
    policy = load_policy(write_policy(tmp_path / "a.npz", layers, draw_env))
    x = np.zeros(DRAW_OBS, np.float32)
    x[0] = 1.0
    expected = [ref(float(v)) for v in w1[0]]
    np.testing.assert_allclose(policy.logits(x), expected, rtol=1e-6, atol=1e-6)


def test_policy_implements_the_protocols(draw_file: Path) -> None:
    policy = load_policy(draw_file)
    assert isinstance(policy, Policy)
    assert isinstance(policy, BatchPolicy)


def test_deterministic_play_is_the_masked_argmax(draw_file: Path) -> None:
    policy = load_policy(draw_file)
    obs, masks = draw_observations(2000, seed=3)
    z = policy.logits(obs)
    acts = policy.act_batch(obs, masks)
    assert acts.dtype == np.int64
    assert np.all(masks[np.arange(len(acts)), acts] == 1)
    # The runtime plays over the legal actions less the dominated folds (a DROP with
    # nothing to call, docs/agents.md "Self-play with MMD").
    from poker_env_agents.runtime import without_dominated_folds

    played = without_dominated_folds(policy.env_id, obs, masks)
    assert (played != masks).any()  # some rows offered a fold with nothing to call
    for i in range(0, 2000, 97):
        legal = np.flatnonzero(played[i])
        assert acts[i] == legal[np.argmax(z[i, legal])]
        assert policy.act(obs[i], masks[i]) == acts[i]
    # The unmasked argmax is often illegal here: the mask is doing the work.
    assert np.any(masks[np.arange(2000), z.argmax(axis=1)] == 0)


def test_ties_go_to_the_first_legal_index(tmp_path: Path, draw_env: FiveCardDrawEnv) -> None:
    logits = [0.0] * DRAW_ACTIONS
    logits[3] = logits[7] = 1.0
    policy = load_policy(write_policy(tmp_path / "t.npz", bias_only(logits), draw_env))
    mask = np.ones(DRAW_ACTIONS, np.int8)
    assert policy.act(np.zeros(DRAW_OBS, np.float32), mask) == 3
    mask[3] = 0
    assert policy.act(np.zeros(DRAW_OBS, np.float32), mask) == 7


# ----- sampled play ----------------------------------------------------------------------------

# Legal actions and their logits; masked-out actions get larger logits so that a
# sampler ignoring the mask would pick them often.
LEGAL = {1: 0.0, 2: 1.0, 5: -0.5, 10: 2.0, 38: 0.3}
CHI2_DF4_P001 = 18.467  # chi-square critical value, 4 degrees of freedom, p = 0.001


def sampling_policy(tmp_path: Path, env: FiveCardDrawEnv, **kw: Any) -> NumpyPolicy:
    logits = [5.0] * DRAW_ACTIONS
    for a, v in LEGAL.items():
        logits[a] = v
    return load_policy(write_policy(tmp_path / "s.npz", bias_only(logits), env), **kw)


def mask_of_legal() -> np.ndarray:
    mask = np.zeros(DRAW_ACTIONS, np.int8)
    mask[list(LEGAL)] = 1
    return mask


@pytest.mark.parametrize("temperature", [1.0, 2.0, 0.5])
def test_sampled_play_follows_the_masked_softmax(
    tmp_path: Path, draw_env: FiveCardDrawEnv, temperature: float
) -> None:
    policy = sampling_policy(
        tmp_path, draw_env, deterministic=False, temperature=temperature, seed=12
    )
    n = 20_000
    obs = np.zeros((n, DRAW_OBS), np.float32)
    masks = np.tile(mask_of_legal(), (n, 1))
    counts = np.bincount(policy.act_batch(obs, masks), minlength=DRAW_ACTIONS)
    assert counts.sum() == n
    assert counts[mask_of_legal() == 0].sum() == 0
    # Expected frequencies from the formula, computed here by hand.
    weights = {a: math.exp(v / temperature) for a, v in LEGAL.items()}
    total = sum(weights.values())
    expected = {a: n * w / total for a, w in weights.items()}
    chi2 = sum((counts[a] - e) ** 2 / e for a, e in expected.items())
    assert chi2 < CHI2_DF4_P001, (chi2, counts[list(LEGAL)], expected)
    np.testing.assert_allclose(
        policy.probabilities(obs[:1], masks[:1])[0, list(LEGAL)],
        [weights[a] / total for a in LEGAL],
        rtol=1e-6,  # the logits are stored as float32
    )


def test_sampled_play_is_reproducible_with_a_seed(
    tmp_path: Path, draw_env: FiveCardDrawEnv
) -> None:
    obs, masks = draw_observations(500, seed=5)
    layers = random_layers(np.random.default_rng(1), [DRAW_OBS, 8, DRAW_ACTIONS], "tanh")
    path = write_policy(tmp_path / "r.npz", layers, draw_env)
    a = load_policy(path, deterministic=False, seed=7).act_batch(obs, masks)
    b = load_policy(path, deterministic=False, seed=7).act_batch(obs, masks)
    c = load_policy(path, deterministic=False, seed=8).act_batch(obs, masks)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.all(masks[np.arange(500), a] == 1)
    # One act() per row draws what act_batch draws for the rows in order.
    single = load_policy(path, deterministic=False, seed=7)
    assert [single.act(o, m) for o, m in zip(obs, masks, strict=True)] == a.tolist()
    # A Generator may be passed instead of a seed.
    g = load_policy(path, deterministic=False, seed=np.random.default_rng(7))
    assert np.array_equal(g.act_batch(obs, masks), a)


def test_bad_play_arguments_are_refused(draw_file: Path) -> None:
    policy = load_policy(draw_file)
    obs, masks = draw_observations(3)
    with pytest.raises(ValueError, match=r"shape \(rows, 124\)"):
        policy.logits(obs[:, :100])
    with pytest.raises(ValueError, match=r"action_masks must have shape \(3, 39\)"):
        policy.act_batch(obs, masks[:, :10])
    empty = masks.copy()
    empty[1] = 0
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        policy.act_batch(obs, empty)
    for t in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="temperature"):
            load_policy(draw_file, temperature=t)


# ----- the env description -----------------------------------------------------------------


def test_vector_and_wrapped_envs_describe_as_their_single_env() -> None:
    from poker_env.vector.draw import DrawVectorEnv
    from poker_env.vector.holdem import HoldemVectorEnv
    from poker_env.vector.red_dog import RedDogVectorEnv

    pairs = [
        (FiveCardDrawEnv(pot_fractions=(0.5, 1.0)), DrawVectorEnv(2, pot_fractions=(0.5, 1.0))),
        (HoldemEnv(6), HoldemVectorEnv(2, num_players=6)),
        (RedDogEnv(num_players=3), RedDogVectorEnv(2, num_players=3)),
        (HoldemEnv(6), gym.make("poker_env/Holdem-v0", num_players=6)),
    ]
    for single, other in pairs:
        assert describe_env(other) == describe_env(single)
    d = describe_env(HoldemEnv(6, raise_fractions=(0.5, 1.0)))
    assert d.env_id == "poker_env/Holdem-v0" and d.version == 0 and d.game == "holdem"
    assert d.options == {
        "num_players": 6,
        "raise_fractions": [0.5, 1.0],
        "evaluator_features": False,
    }
    assert d.action_names == (
        "FOLD",
        "CHECK_CALL",
        "MIN_RAISE",
        "RAISE_0.5_POT",
        "RAISE_1_POT",
        "ALL_IN",
    )
    assert d.observation_size == 114 + 8 * 6
    draw = describe_env(FiveCardDrawEnv())
    assert draw.action_names[:6] == (
        "DROP",
        "PASSIVE",
        "BET_0.5_POT",
        "BET_1_POT",
        "BET_2_POT",
        "ALL_IN",
    )
    # Action 2+K+m discards slots whose bits are set in m (FiveCardDrawEnv docstring).
    assert draw.action_names[6] == "DISCARD_NONE"
    assert draw.action_names[6 + 0b10101] == "DISCARD_0_2_4"
    assert draw.action_names[-1] == "BUY_BACK"
    assert describe_env(RedDogEnv()).action_names[:3] == ("FORFEIT", "BET_0_MAX", "BET_0.25_MAX")
    with pytest.raises(ValueError, match="not a poker_env env"):
        describe_env(gym.make("CartPole-v1"))


def test_layout_hash_is_the_layout_not_the_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    from poker_env.episode import draw as draw_episode
    from poker_env.episode.layout import ObsField

    fields = draw_episode.observation_fields()
    h = describe_env(FiveCardDrawEnv()).layout_sha256
    assert h == observation_layout_sha256(fields, DRAW_OBS)
    # The docs' wording is not the layout: a reworded table changes nothing.
    doc = FiveCardDrawEnv.__doc__ or ""
    assert "phase: 0 pre-draw" in doc
    monkeypatch.setattr(
        FiveCardDrawEnv, "__doc__", doc.replace("phase: 0 pre-draw", "phase: 0 predraw")
    )
    assert describe_env(FiveCardDrawEnv()).layout_sha256 == h
    # The layout is: a renamed field, two fields swapped, a moved slice, the size.
    renamed = (ObsField("own_money_chips", *fields[5][1:]), *fields[6:])
    assert observation_layout_sha256((*fields[:5], *renamed), DRAW_OBS) != h
    own, opp = fields[5], fields[6]
    swapped = (*fields[:5], own._replace(name=opp.name), opp._replace(name=own.name), *fields[7:])
    assert observation_layout_sha256(swapped, DRAW_OBS) != h
    longer = (*fields[:-1], fields[-1]._replace(stop=DRAW_OBS + 1))
    assert observation_layout_sha256(longer, DRAW_OBS + 1) != h
    with pytest.raises(ValueError, match="cover 0:124, the observation has 125"):
        observation_layout_sha256(fields, DRAW_OBS + 1)
    with pytest.raises(ValueError, match="expected to start at 57"):
        observation_layout_sha256((*fields[:2], *fields[3:]), DRAW_OBS)


def test_format1_files_are_migrated(draw_file: Path, tmp_path: Path) -> None:
    # A format-1 file (as the shipped models are) recorded the hash of the draw envs'
    # documented table on the day format 2 came; it reads as format 2 with the layout's hash.
    format1 = "4397aa0db13d7c349cfa8d54f892dbeb2e34d0430404995a261b00da39142e87"
    env = FiveCardDrawEnv()

    def as_format1(m: dict[str, Any], a: dict[str, np.ndarray]) -> None:
        m["format_version"] = 1
        m["observation"]["layout_sha256"] = format1

    old = rewrite(draw_file, tmp_path / "format1.npz", as_format1)
    policy = load_policy(old, env)
    assert policy.manifest["format_version"] == FORMAT_VERSION == 2
    assert policy.manifest["migrated_from_format"] == 1
    assert policy.manifest["observation"]["layout_sha256"] == describe_env(env).layout_sha256
    assert FORMAT1_LAYOUTS[format1] == describe_env(env).layout_sha256

    # A format-1 hash of no layout this runtime knows: refused, naming the file.
    def unknown_format1(m: dict[str, Any], a: dict[str, np.ndarray]) -> None:
        m["format_version"] = 1
        m["observation"]["layout_sha256"] = "ab" * 32

    unknown = rewrite(draw_file, tmp_path / "unknown.npz", unknown_format1)
    with pytest.raises(PolicyFileError, match=r"unknown\.npz: a format-1 file whose observation"):
        load_policy(unknown)


# ----- refusals --------------------------------------------------------------------------------


def rewrite(
    src: Path, dst: Path, change: Callable[[dict[str, Any], dict[str, np.ndarray]], None]
) -> Path:
    """Copy a policy file with its manifest and arrays changed by ``change``."""
    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    manifest = json.loads(arrays.pop("manifest").tobytes().decode("utf-8"))
    change(manifest, arrays)
    blob = np.frombuffer(json.dumps(manifest).encode("utf-8"), np.uint8)
    with dst.open("wb") as f:
        np.savez(f, manifest=blob, **arrays)
    return dst


def test_a_rewritten_copy_still_loads(
    draw_file: Path, tmp_path: Path, draw_env: FiveCardDrawEnv
) -> None:
    # The refusal tests below change one thing each in such a copy.
    copy = rewrite(draw_file, tmp_path / "copy.npz", lambda m, a: None)
    assert np.array_equal(
        load_policy(copy, draw_env).logits(np.ones(DRAW_OBS)),
        load_policy(draw_file).logits(np.ones(DRAW_OBS)),
    )


def set_field(dotted: str, value: Any) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
    def change(m: dict[str, Any], a: dict[str, np.ndarray]) -> None:
        *head, last = dotted.split(".")
        cur = m
        for part in head:
            cur = cur[part]
        if value is KeyError:
            del cur[last]
        else:
            cur[last] = value

    return change


MANIFEST_CASES = [
    ("foreign format", set_field("format", "someone.else"), "foreign format 'someone.else'"),
    (
        "unknown format version",
        set_field("format_version", FORMAT_VERSION + 1),
        f"format version {FORMAT_VERSION + 1} is not supported",
    ),
    (
        "format version not an int",
        set_field("format_version", "1"),
        "format_version '1' is not an integer",
    ),
    ("missing field", set_field("network.layers", KeyError), "no field 'network.layers'"),
    ("missing env", set_field("env", KeyError), "no field 'env.id'"),
    ("mistyped field", set_field("observation.size", "124"), "'observation.size' is str"),
    ("unknown activation", set_field("network.layers", None), "'network.layers' is NoneType"),
    ("action names", set_field("actions.names", ["DROP"]), "actions.names must be 39 strings"),
]


@pytest.mark.parametrize(
    ("case", "change", "message"), MANIFEST_CASES, ids=[c[0] for c in MANIFEST_CASES]
)
def test_bad_manifests_are_refused(
    draw_file: Path, tmp_path: Path, case: str, change: Any, message: str
) -> None:
    bad = rewrite(draw_file, tmp_path / "bad.npz", change)
    with pytest.raises(PolicyFileError, match=message):
        load_policy(bad)


def test_bad_layers_are_refused(draw_file: Path, tmp_path: Path) -> None:
    def layer(
        i: int, key: str, value: Any
    ) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
        return lambda m, a: m["network"]["layers"][i].__setitem__(key, value)

    def array(name: str, value: Any) -> Callable[[dict[str, Any], dict[str, np.ndarray]], None]:
        def change(m: dict[str, Any], a: dict[str, np.ndarray]) -> None:
            if value is None:
                del a[name]
            else:
                a[name] = value(a[name])

        return change

    cases = [
        (layer(1, "activation", "swish2"), "activation 'swish2'; known: identity, tanh"),
        (layer(0, "activation", "leaky_relu"), r"takes parameters \['negative_slope'\]"),
        (layer(1, "in", 15), "layers\\[1\\] takes 15 inputs, the layer before gives 16"),
        (array("layer1.weight", None), "array 'layer1.weight' \\(layer 1 weight\\) is missing"),
        (
            array("layer0.weight", lambda w: w.T.copy()),
            r"'layer0.weight' has shape \(16, 124\), the manifest says \(124, 16\)",
        ),
        (
            array("layer2.bias", lambda b: b.astype(np.float64)),
            "'layer2.bias' is float64, expected float32",
        ),
        (
            array(
                "layer0.bias",
                lambda b: np.where(np.arange(b.size) == 3, np.nan, b).astype(np.float32),
            ),
            "NaN or infinite",
        ),
    ]
    for i, (change, message) in enumerate(cases):
        bad = rewrite(draw_file, tmp_path / f"bad{i}.npz", change)
        with pytest.raises(PolicyFileError, match=message):
            load_policy(bad)


def test_manifest_bytes_that_are_not_json_are_refused(draw_file: Path, tmp_path: Path) -> None:
    with np.load(draw_file, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    for i, (blob, message) in enumerate(
        [
            (np.frombuffer(b"\xff\xfe{", np.uint8), "not UTF-8"),
            (np.frombuffer(b'{"format": ', np.uint8), "not valid JSON"),
            (np.frombuffer(b"[1, 2]", np.uint8), "a JSON list, not an object"),
            (np.arange(4, dtype=np.int64), "'manifest' array is int64"),
        ]
    ):
        path = tmp_path / f"m{i}.npz"
        with path.open("wb") as f:
            np.savez(f, **{**arrays, "manifest": blob})
        with pytest.raises(PolicyFileError, match=message):
            load_policy(path)


def test_truncated_and_corrupt_files_are_refused(draw_file: Path, tmp_path: Path) -> None:
    data = draw_file.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 100):
        path = tmp_path / f"cut{cut}.npz"
        path.write_bytes(data[:cut])
        with pytest.raises(PolicyFileError, match="truncated or corrupt"):
            load_policy(path)
    # One flipped byte inside a weight array: the zip's CRC catches it.
    with zipfile.ZipFile(draw_file) as zf:
        info = zf.getinfo("layer0.weight.npy")
    offset = info.header_offset + 30 + len(info.filename) + len(info.extra) + 500
    flipped = bytearray(data)
    flipped[offset] ^= 0x40
    path = tmp_path / "flip.npz"
    path.write_bytes(bytes(flipped))
    with pytest.raises(PolicyFileError, match=r"truncated or corrupt.*CRC"):
        load_policy(path)


class _Tripwire:
    """Unpickling this creates a file: proof that a loader unpickled."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (Path(self.path),))


def test_foreign_files_are_refused_and_never_unpickled(draw_file: Path, tmp_path: Path) -> None:
    trip = tmp_path / "unpickled"
    cases: list[tuple[str, bytes | Callable[[Path], None], str]] = [
        ("empty.npz", b"", "empty file"),
        (
            "text.npz",
            b"hello, I am not a policy\n",
            "not a poker_env policy file \\(not an .npz archive",
        ),
        ("pickle.npz", pickle.dumps(_Tripwire(str(trip))), "pickled data, refused"),
        ("array.npy", lambda p: np.save(p, np.zeros(3)), "a single .npy array"),
        (
            "other.npz",
            lambda p: np.savez(p, weights=np.zeros(3)),
            "no 'manifest' array; members: weights",
        ),
    ]
    with np.load(draw_file, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}

    def with_object_array(p: Path) -> None:
        obj = np.empty(1, dtype=object)
        obj[0] = _Tripwire(str(trip))
        np.savez(p, **arrays, extra=obj)

    def object_manifest(p: Path) -> None:
        obj = np.empty(1, dtype=object)
        obj[0] = _Tripwire(str(trip))
        np.savez(p, **{**arrays, "manifest": obj})

    def sb3_zip(p: Path) -> None:
        with zipfile.ZipFile(p, "w") as zf:
            zf.writestr("data", "{}")
            zf.writestr("policy.pth", b"\x80\x02torch")

    cases += [
        ("objects.npz", with_object_array, "array 'extra' holds Python objects"),
        ("objmanifest.npz", object_manifest, "array 'manifest' holds Python objects"),
        ("model.zip", sb3_zip, "a stable-baselines3 model archive, not an exported policy"),
    ]
    for name, content, message in cases:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            content(path)
        with pytest.raises(PolicyFileError, match=message):
            load_policy(path)
        assert not trip.exists(), f"{name}: the loader unpickled"
    # The tripwire works: unpickling really would create the file.
    pickle.loads((tmp_path / "pickle.npz").read_bytes())
    assert trip.exists()
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "missing.npz")


def test_files_for_another_env_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    holdem6 = write_policy(tmp_path / "h6.npz", random_layers(rng, [162, 8, 8]), HoldemEnv(6))
    draw = write_policy(
        tmp_path / "d.npz", random_layers(rng, [DRAW_OBS, 8, DRAW_ACTIONS]), FiveCardDrawEnv()
    )
    red = write_policy(tmp_path / "r.npz", random_layers(rng, [166, 8, 6]), RedDogEnv())
    load_policy(holdem6, HoldemEnv(6))
    load_policy(draw, FiveCardDrawEnv())
    load_policy(red, gym.make("poker_env/RedDog-v0"))

    cases: list[tuple[Path, Any, str]] = [
        (
            holdem6,
            RedDogEnv(),
            "a policy for game 'holdem' \\(poker_env/Holdem-v0\\), not for this env's game 'red_dog'",
        ),
        (
            draw,
            DrawMatchEnv(),
            "a policy for env poker_env/FiveCardDraw-v0, not for poker_env/DrawMatch-v0",
        ),
        (
            holdem6,
            HoldemEnv(2),
            "env option num_players: file 6, env 2; observation size: file 162, env 130",
        ),
        (
            holdem6,
            HoldemEnv(6, raise_fractions=(0.5, 1.0)),
            r"raise_fractions: file \[0.5, 0.75, 1.0, 2.0\], env \[0.5, 1.0\].*action count: file 8, env 6",
        ),
        (
            holdem6,
            HoldemEnv(6, evaluator_features=True),
            "env option evaluator_features: file False, env True",
        ),
        (red, RedDogEnv(bet_fractions=(0.0, 0.5, 1.0, 0.25, 0.75)), "env option bet_fractions"),
        (red, RedDogEnv(rounds=9), "env option rounds: file 4, env 9; observation bounds differ"),
        (draw, FiveCardDrawEnv(deck="short"), "env option deck: file 'standard', env 'short'"),
        (
            draw,
            FiveCardDrawEnv(starting_money=1000),
            "env option starting_money: file 500, env 1000; observation bounds differ",
        ),
    ]
    for path, env, message in cases:
        with pytest.raises(PolicyFileError, match=message):
            load_policy(path, env)
        with pytest.raises(PolicyFileError, match=message):
            load_policy(path).check_env(env)
    # Which options the file was made for, as a command line's --option gives them.
    with pytest.raises(PolicyFileError, match=r"\(it was made for num_players=6: make the env"):
        load_policy(holdem6, HoldemEnv(2))
    with pytest.raises(PolicyFileError, match=r"made for raise_fractions=\[0.5, 0.75, 1.0, 2.0\]:"):
        load_policy(holdem6, HoldemEnv(6, raise_fractions=(0.5, 1.0)))
    with pytest.raises(
        PolicyFileError, match=r"made for deck=standard: make the env with those\)$"
    ):
        load_policy(draw, FiveCardDrawEnv(deck="short"))

    # A new env version: the file says v0, the env v1 (the id's suffix).
    v1 = rewrite(
        draw,
        tmp_path / "v1.npz",
        lambda m, a: m["env"].update(id="poker_env/FiveCardDraw-v1", version=1),
    )
    with pytest.raises(
        PolicyFileError,
        match="a policy for env version v1 \\(poker_env/FiveCardDraw-v1\\), the env is version v0",
    ):
        load_policy(v1, FiveCardDrawEnv())

    # A changed observation layout: the draw episode's fields say so (two fields swapped).
    from poker_env.episode import draw as draw_episode

    fields = draw_episode.observation_fields()
    own, opp = fields[5], fields[6]
    swapped = (*fields[:5], own._replace(name=opp.name), opp._replace(name=own.name), *fields[7:])
    monkeypatch.setattr(draw_episode, "observation_fields", lambda: swapped)
    with pytest.raises(
        PolicyFileError, match="observation layout: the env's observation fields differ"
    ):
        load_policy(draw, FiveCardDrawEnv())


def test_read_manifest_returns_what_was_written(draw_file: Path, draw_env: FiveCardDrawEnv) -> None:
    m = read_manifest(draw_file)
    d = describe_env(draw_env)
    assert m["format"] == "poker_env.policy" and m["format_version"] == FORMAT_VERSION
    assert m["game"] == "draw"
    assert m["env"] == {"id": "poker_env/FiveCardDraw-v0", "version": 0, "options": d.options}
    assert (
        m["observation"]["size"] == DRAW_OBS
        and m["observation"]["layout_sha256"] == d.layout_sha256
    )
    assert m["actions"] == {"count": DRAW_ACTIONS, "names": list(d.action_names)}
    assert [(x["in"], x["out"], x["activation"]) for x in m["network"]["layers"]] == [
        (124, 16, "relu"),
        (16, 8, "relu"),
        (8, 39, "identity"),
    ]
    assert m["provenance"] == {"command": "hand-made", "seed": 0, "steps": 0}
    # Plain arrays only: every member loads without pickle, float32 weights, uint8 manifest.
    with np.load(draw_file, allow_pickle=False) as z:
        kinds = {k: z[k].dtype for k in z.files}
    assert kinds.pop("manifest") == np.uint8
    assert set(kinds.values()) == {np.dtype(np.float32)}


def test_write_policy_refuses_bad_layers(tmp_path: Path, draw_env: FiveCardDrawEnv) -> None:
    rng = np.random.default_rng(0)
    good = random_layers(rng, [DRAW_OBS, 8, DRAW_ACTIONS])
    cases = [
        ([], "layers is empty"),
        (
            random_layers(rng, [100, 8, DRAW_ACTIONS]),
            "layers\\[0\\] takes 100 inputs, the observation size is 124",
        ),
        (
            random_layers(rng, [DRAW_OBS, 8, 7]),
            "the last layer gives 7 logits, the env poker_env/FiveCardDraw-v0 has 39",
        ),
        (
            [good[0], {**good[1], "weight": good[1]["weight"][:4]}],
            "layers\\[1\\] takes 4 inputs, layers\\[0\\]'s output is 8",
        ),
        ([{**good[0], "activation": "gelu"}, good[1]], "activation 'gelu' unknown"),
        ([{**good[0], "weight": good[0]["weight"] * np.inf}, good[1]], "NaN or infinite"),
        (
            [{**good[0], "bias": good[0]["bias"][:3]}, good[1]],
            "weight must be \\(in, out\\) and bias \\(out,\\)",
        ),
    ]
    for layers, message in cases:
        with pytest.raises(ExportError, match=message):
            write_policy(tmp_path / "x.npz", layers, draw_env)
        assert not (tmp_path / "x.npz").exists()
    with pytest.raises(ExportError, match="provenance is not plain JSON"):
        write_policy(tmp_path / "x.npz", good, draw_env, provenance={"when": object()})
    # A folder gets policy.npz inside it.
    (tmp_path / "run").mkdir()
    assert write_policy(tmp_path / "run", good, draw_env) == tmp_path / "run" / "policy.npz"


# ----- numpy alone --------------------------------------------------------------------------------

_BLOCKED_RUN = r"""
import importlib.abc, json, sys
BLOCKED = {"torch", "stable_baselines3", "sb3_contrib", "onnxruntime", "onnx"}
attempts = []

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            attempts.append(name)
            raise ImportError(f"import of {name} blocked by the test")
        return None

sys.meta_path.insert(0, Block())
import numpy as np
from poker_env_agents.runtime import load_policy
from poker_env.envs.draw import FiveCardDrawEnv

env = FiveCardDrawEnv()
greedy = load_policy(sys.argv[1], env)
sampled = load_policy(sys.argv[1], env, deterministic=False, seed=1)
steps = episodes = 0
obs, info = env.reset(seed=0)
while episodes < 20:
    policy = greedy if episodes % 2 else sampled
    obs, r, term, trunc, info = env.step(policy.act(obs, info["action_mask"]))
    steps += 1
    if term or trunc:
        episodes += 1
        obs, info = env.reset()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
tried = list(attempts)
try:
    import torch  # noqa: F401
    blocker_works = False
except ImportError:
    blocker_works = True
print(json.dumps({"attempts": tried, "loaded": loaded, "steps": steps, "blocker_works": blocker_works}))
"""


def test_runtime_plays_with_torch_sb3_and_onnx_blocked(draw_file: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _BLOCKED_RUN, str(draw_file)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["blocker_works"]
    assert result["attempts"] == []
    assert result["loaded"] == []
    assert result["steps"] >= 20


def test_a_policy_whose_logits_overflow_never_plays_a_masked_action(tmp_path: Path) -> None:
    """Security review: finite weights that overflow float32 (inf and NaN logits) made
    sampled play return action 0 in every row, masked or not; a NaN activation
    parameter (JSON reads NaN) loaded. Play stays legal; the NaN parameter is refused."""
    src = Path(__file__).resolve().parents[2] / "agents" / "models" / "red_dog.npz"
    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    manifest = json.loads(arrays["manifest"].tobytes())
    last = manifest["network"]["layers"][-1]
    arrays[last["weight"]] = (np.sign(arrays[last["weight"]]) * np.float32(3e38)).astype(np.float32)
    np.savez(tmp_path / "overflow.npz", **arrays)
    rng = np.random.default_rng(0)
    n = manifest["observation"]["size"]
    acts = manifest["network"]["layers"][-1]["out"]
    obs = rng.normal(size=(500, n)).astype(np.float32) * 10
    masks = np.ones((500, acts), np.int8)
    masks[:, 0] = 0
    for deterministic in (True, False):
        policy = load_policy(tmp_path / "overflow.npz", deterministic=deterministic, seed=1)
        with np.errstate(over="ignore", invalid="ignore"):
            chosen = policy.act_batch(obs, masks)
        assert (chosen != 0).all() and (chosen < acts).all()
    manifest["network"]["layers"][0]["activation"] = "leaky_relu"
    manifest["network"]["layers"][0]["activation_params"] = {"negative_slope": float("nan")}
    arrays["manifest"] = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
    np.savez(tmp_path / "nan.npz", **arrays)
    with pytest.raises(PolicyFileError, match="negative_slope"):
        load_policy(tmp_path / "nan.npz")


def test_a_small_file_that_unpacks_to_gigabytes_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Security review: a 1 MB .npz with an unused 1 GiB member was unpacked whole
    before the manifest was read. The sizes the archive declares are checked first."""
    import poker_env_agents.runtime as runtime

    src = Path(__file__).resolve().parents[2] / "agents" / "models" / "red_dog.npz"
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item.filename, zin.read(item.filename))
        zout.writestr("padding.npy", b"\0" * 4_000_000)  # compresses to a few kB
    monkeypatch.setattr(runtime, "MAX_UNPACKED_BYTES", 2_000_000)
    with pytest.raises(PolicyFileError, match="unpack to"):
        load_policy(bomb)
    load_policy(src)  # the real file is well below
