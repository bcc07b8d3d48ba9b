"""poker_env_agents.training.export and scripts/export.py: parity of SB3, ONNX Runtime and the numpy runtime.

MaskablePPO models are trained a few hundred steps on the real envs, exported, and
the three implementations are compared on observations and masks collected from
the envs under random legal play: 10,000 of FiveCardDraw-v0, a few hundred of
Hold'em 6-max and Red Dog.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")
ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

import poker_env  # noqa: E402, F401  (registers the ids)
from poker_env_agents.runtime import NumpyPolicy, load_policy  # noqa: E402
from poker_env_agents.training.export import (  # noqa: E402
    ONNX_MANIFEST_KEY,
    ExportError,
    export_onnx,
    export_policy,
    sb3_layers,
)
from poker_env_agents.training.sb3 import ScaledFlatten, observation_scale  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from poker_env_agents.cli import export as export_cli  # noqa: E402  (scripts/export.py runs it)

TOL = 1e-5  # the parity bound on logits


@dataclass
class Case:
    env_id: str
    options: dict[str, Any]
    policy_kwargs: dict[str, Any]
    num_obs: int
    steps: int


CASES = {
    "draw": Case("poker_env/FiveCardDraw-v0", {}, {}, 10_000, 256),
    "holdem6": Case(
        "poker_env/Holdem-v0",
        {"num_players": 6},
        {"net_arch": [32, 32], "activation_fn": torch.nn.ReLU},
        500,
        256,
    ),
    "red_dog": Case(
        "poker_env/RedDog-v0",
        {"num_players": 3},
        {"net_arch": {"pi": [48], "vf": [16]}, "share_features_extractor": False},
        500,
        192,
    ),
}


def make_env(case: Case) -> Any:
    return gym.make(case.env_id, disable_env_checker=True, **case.options).unwrapped


def collect(case: Case, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks met under random legal play."""
    env = make_env(case)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out_o, out_m = [], []
    while len(out_o) < case.num_obs:
        out_o.append(obs)
        out_m.append(info["action_mask"])
        obs, _r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    return np.stack(out_o).astype(np.float32), np.stack(out_m)


@dataclass
class Trained:
    case: Case
    env: Any
    model: Any
    npz: Path
    onnx: Path
    obs: np.ndarray
    masks: np.ndarray


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Trained]:
    torch.set_num_threads(1)
    out = {}
    for name, case in CASES.items():
        env = make_env(case)
        kwargs = dict(case.policy_kwargs)
        if name == "draw":
            # As poker_env_agents.training.train builds it: chip counts scaled by a fixed extractor, which
            # the export folds into the first layer (the files take raw observations).
            kwargs["features_extractor_class"] = ScaledFlatten
            kwargs["features_extractor_kwargs"] = {
                "scale": observation_scale(env.observation_space).tolist()
            }
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=64,
            batch_size=64,
            n_epochs=2,
            seed=0,
            policy_kwargs=kwargs,
            verbose=0,
        )
        model.learn(case.steps)
        folder = tmp_path_factory.mktemp(name)
        result = export_policy(
            model, folder / "policy.npz", env, provenance={"command": f"test {name}"}, onnx=True
        )
        assert result.onnx is not None
        assert Path(result) == result.npz  # the training script takes it as a path
        obs, masks = collect(case)
        out[name] = Trained(case, env, model, result.npz, result.onnx, obs, masks)
    return out


def sb3_logits(model: Any, obs: np.ndarray) -> np.ndarray:
    """The model's own action logits: the path SB3's predict takes, before masking."""
    from stable_baselines3.common.preprocessing import preprocess_obs

    policy = model.policy
    with torch.no_grad():
        t = preprocess_obs(torch.as_tensor(obs), policy.observation_space, policy.normalize_images)
        features = policy.pi_features_extractor(t)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()  # type: ignore[no-any-return]


def sb3_probs(model: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        return dist.distribution.probs.numpy()  # type: ignore[no-any-return]


def onnx_logits(path: Path, obs: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["logits"], {"observation": obs})[0]  # type: ignore[no-any-return]


def masked_argmax(z: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.argmax(np.where(masks != 0, z, -np.inf), axis=1)


@pytest.mark.parametrize("name", list(CASES))
def test_numpy_onnx_and_sb3_agree(trained: dict[str, Trained], name: str) -> None:
    t = trained[name]
    assert len(t.obs) == t.case.num_obs
    policy = load_policy(t.npz, t.env)
    # The runtime plays the env's masks less the dominated folds (a fold with nothing
    # to call, docs/agents.md "Self-play with MMD"); the others get the same masks.
    from poker_env_agents.runtime import without_dominated_folds

    masks = without_dominated_folds(policy.env_id, t.obs, t.masks)
    ref = sb3_logits(t.model, t.obs)
    z_np = policy.logits(t.obs)
    z_onnx = onnx_logits(t.onnx, t.obs)
    d_np = float(np.abs(z_np - ref).max())
    d_onnx = float(np.abs(z_onnx - ref).max())
    # SB3's masked distribution against the runtime's sampling distribution.
    d_prob = float(
        np.abs(policy.probabilities(t.obs, masks) - sb3_probs(t.model, t.obs, masks)).max()
    )

    a_sb3, _ = t.model.predict(t.obs, action_masks=masks, deterministic=True)
    a_np = policy.act_batch(t.obs, masks)
    a_onnx = masked_argmax(z_onnx, masks)
    # A masked argmax can only differ where two legal logits are within float32
    # rounding of each other; such rows are counted, not compared.
    legal_sorted = np.sort(np.where(masks != 0, ref, -np.inf), axis=1)
    near_tie = (legal_sorted[:, -1] - legal_sorted[:, -2]) < TOL
    agree = (a_sb3 == a_np) & (a_np == a_onnx)
    print(
        f"\n{name}: {len(t.obs)} obs, max|logit diff| numpy {d_np:.2e}, onnx {d_onnx:.2e}, "
        f"max|prob diff| {d_prob:.2e}, masked argmax agreement {agree.mean():.4%} "
        f"({int((~agree).sum())} differ, {int(near_tie.sum())} near ties)"
    )
    assert d_np < TOL and d_onnx < TOL and d_prob < TOL
    assert np.all(agree[~near_tie])
    assert near_tie.mean() < 0.001
    assert np.all(masks[np.arange(len(a_np)), a_np] == 1)
    # Several actions are chosen: the comparison is not between constant policies.
    assert len(np.unique(a_np)) >= 2


def test_exported_network_is_the_model_s_network(trained: dict[str, Trained]) -> None:
    shapes = {}
    for name, t in trained.items():
        m = load_policy(t.npz).manifest
        shapes[name] = [(x["in"], x["out"], x["activation"]) for x in m["network"]["layers"]]
    assert shapes["draw"] == [(124, 64, "tanh"), (64, 64, "tanh"), (64, 39, "identity")]
    assert shapes["holdem6"] == [(162, 32, "relu"), (32, 32, "relu"), (32, 8, "identity")]
    assert shapes["red_dog"] == [(165, 48, "tanh"), (48, 6, "identity")]


def test_manifest_records_env_and_provenance(trained: dict[str, Trained]) -> None:
    t = trained["holdem6"]
    m = load_policy(t.npz).manifest
    assert m["game"] == "holdem"
    assert m["env"] == {
        "id": "poker_env/Holdem-v0",
        "version": 0,
        "options": {
            "num_players": 6,
            "raise_fractions": [0.5, 0.75, 1.0, 2.0],
            "evaluator_features": False,
        },
    }
    assert m["actions"]["count"] == 8 and m["actions"]["names"][0] == "FOLD"
    p = m["provenance"]
    assert p["command"] == "test holdem6"  # given: it wins over the default
    assert p["seed"] == 0
    assert p["steps"] == t.model.num_timesteps >= t.case.steps
    assert p["algorithm"] == "sb3_contrib.MaskablePPO"
    assert p["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", p["git_commit"])
    assert dt.datetime.fromisoformat(p["date"]).tzinfo is not None
    assert {"numpy", "torch", "sb3_contrib"} <= set(p["versions"])


def test_onnx_model_carries_the_manifest_and_a_dynamic_batch(trained: dict[str, Trained]) -> None:
    t = trained["draw"]
    proto = onnx.load(str(t.onnx))
    meta = {p.key: p.value for p in proto.metadata_props}
    assert json.loads(meta[ONNX_MANIFEST_KEY]) == load_policy(t.npz).manifest
    one = onnx_logits(t.onnx, t.obs[:1])
    assert one.shape == (1, 39)
    np.testing.assert_allclose(one[0], sb3_logits(t.model, t.obs[:1])[0], atol=TOL)


ACTIVATIONS = [
    torch.nn.ReLU,
    torch.nn.Tanh,
    lambda: torch.nn.LeakyReLU(0.2),
    torch.nn.ELU,
    torch.nn.Sigmoid,
    torch.nn.SiLU,
]


@pytest.mark.parametrize(
    "activation", ACTIVATIONS, ids=["relu", "tanh", "leaky_relu", "elu", "sigmoid", "silu"]
)
@pytest.mark.parametrize("net_arch", [[], [16, 8]], ids=["no_hidden", "16-8"])
def test_every_supported_architecture_exports_exactly(
    trained: dict[str, Trained], tmp_path: Path, activation: Any, net_arch: list[int]
) -> None:
    t = trained["red_dog"]
    act_cls = activation if isinstance(activation, type) else type(activation())
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        t.env,
        seed=1,
        policy_kwargs={"net_arch": net_arch, "activation_fn": act_cls},
    )
    if not isinstance(activation, type):  # LeakyReLU with a non-default slope
        for i, module in enumerate(model.policy.mlp_extractor.policy_net):
            if isinstance(module, torch.nn.LeakyReLU):
                model.policy.mlp_extractor.policy_net[i] = activation()
    result = export_policy(model, tmp_path / "p.npz", t.env, onnx=bool(net_arch))
    ref = sb3_logits(model, t.obs)
    assert np.abs(load_policy(result.npz, t.env).logits(t.obs) - ref).max() < TOL
    if result.onnx is not None:
        assert np.abs(onnx_logits(result.onnx, t.obs) - ref).max() < TOL
    assert len(sb3_layers(model)) == len(net_arch) + 1


def test_models_that_cannot_be_exported_are_refused(
    trained: dict[str, Trained], tmp_path: Path
) -> None:
    t = trained["red_dog"]
    gelu = sb3_contrib.MaskablePPO(
        "MlpPolicy", t.env, policy_kwargs={"activation_fn": torch.nn.GELU}
    )
    with pytest.raises(ExportError, match="policy_net\\[1\\] is GELU"):
        export_policy(gelu, tmp_path / "g.npz", t.env)
    with pytest.raises(ExportError, match="policy_net\\[1\\] is GELU"):
        export_onnx(gelu, tmp_path / "g.onnx")
    with pytest.raises(ExportError, match="has no actor-critic MLP policy"):
        export_policy(object(), tmp_path / "o.npz", t.env)
    # The model's spaces against another env's.
    with pytest.raises(
        ExportError,
        match="the model has 165 observations and 6 actions, the env poker_env/Holdem-v0 162 and 8",
    ):
        export_policy(t.model, tmp_path / "w.npz", trained["holdem6"].env)
    assert not list(tmp_path.iterdir())


def test_training_vec_env_describes_as_the_single_env(
    trained: dict[str, Trained], tmp_path: Path
) -> None:
    from poker_env.vector.holdem import HoldemVectorEnv
    from poker_env_agents.training.sb3 import PokerVecEnv

    venv = PokerVecEnv([HoldemVectorEnv(2, num_players=6), HoldemVectorEnv(2, num_players=6)])
    t = trained["holdem6"]
    result = export_policy(t.model, tmp_path / "v.npz", venv)
    assert load_policy(result.npz).manifest["env"] == load_policy(t.npz).manifest["env"]
    load_policy(result.npz, t.env)


def test_command_line_export(
    trained: dict[str, Trained], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = trained["holdem6"]
    zip_path = tmp_path / "model.zip"
    t.model.save(zip_path)
    out = tmp_path / "out"
    argv = [
        str(zip_path),
        "--env",
        "poker_env/Holdem-v0",
        "--env-option",
        "num_players=6",
        "--out",
        str(out),
        "--onnx",
        "--provenance",
        "command=train.py holdem",
    ]
    assert export_cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "policy.npz" in printed and "policy.onnx" in printed
    policy: NumpyPolicy = load_policy(out / "policy.npz", t.env)
    ref = sb3_logits(t.model, t.obs)
    assert np.abs(policy.logits(t.obs) - ref).max() < TOL
    assert np.abs(onnx_logits(out / "policy.onnx", t.obs) - ref).max() < TOL
    prov = policy.manifest["provenance"]
    assert prov["command"] == "train.py holdem"
    assert prov["source_model"] == str(zip_path)
    assert prov["export_command"].startswith("scripts/export.py ")
    assert prov["steps"] == t.model.num_timesteps

    # Other options than the model's: refused with the reason, nothing written.
    assert (
        export_cli.main(
            [str(zip_path), "--env", "poker_env/Holdem-v0", "--out", str(tmp_path / "o2")]
        )
        == 2  # a user's mistake: exit 2, as every command's
    )
    assert (
        "the model has 162 observations and 8 actions, the env poker_env/Holdem-v0 130"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "o2" / "policy.npz").exists()
    assert (
        export_cli.main(
            [
                str(zip_path),
                "--env",
                "poker_env/Holdem-v0",
                "--env-option",
                "num_players=11",
                "--out",
                str(tmp_path / "o3"),
            ]
        )
        == 2
    )
    assert "cannot make poker_env/Holdem-v0" in capsys.readouterr().err
    assert (
        export_cli.main(
            [
                str(tmp_path / "none.zip"),
                "--env",
                "poker_env/Holdem-v0",
                "--out",
                str(tmp_path / "o4"),
            ]
        )
        == 2
    )
    assert "no such model file" in capsys.readouterr().err

    # An exported policy already in --out (another run's, say) is not replaced without
    # --force: refused before any work, the file unchanged.
    before = (out / "policy.npz").read_bytes()
    again = [str(zip_path), "--env", "poker_env/Holdem-v0", "--env-option", "num_players=6"]
    assert export_cli.main([*again, "--out", str(out), "--provenance", "command=x"]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'policy.npz'} already there; give another --out, or --force" in err, err
    assert (out / "policy.npz").read_bytes() == before
    assert export_cli.main([*again, "--out", str(out), "--force", "--provenance", "command=x"]) == 0
    replaced: NumpyPolicy = load_policy(out / "policy.npz", t.env)
    assert replaced.manifest["provenance"]["command"] == "x"


def test_option_values_are_read_as_json_where_they_parse() -> None:
    assert export_cli.parse_option("num_players=6") == ("num_players", 6)
    assert export_cli.parse_option("raise_fractions=[0.5, 1]") == ("raise_fractions", [0.5, 1])
    assert export_cli.parse_option("deck=short") == ("deck", "short")
    assert export_cli.parse_option("evaluator_features=true") == ("evaluator_features", True)
