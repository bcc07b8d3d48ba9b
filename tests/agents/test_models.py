"""The shipped computer opponents (agents/models/): files, tables, and that they play.

Every shipped file loads with the numpy runtime, matches the env its manifest names,
carries the evaluation table that was measured on it (same sha256), and on a short
seeded duplicate match beats the random baseline with its 95% interval above zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import poker_env  # noqa: F401  (registers the ids)
from poker_env_agents.evaluate import draw_match_wins, head_to_head
from poker_env_agents.opponent import MODELS_DIR, ComputerOpponent
from poker_env_agents.registry import get_game, make_baseline
from poker_env_agents.runtime import PolicyFileError, load_policy

REPO = Path(__file__).resolve().parents[2]

# name -> (game, options): the seat each file was trained for.
SHIPPED: dict[str, tuple[str, dict[str, Any]]] = {
    "draw52": ("draw", {"deck": 52}),
    "draw32": ("draw", {"deck": 32}),
    "draw_match52": ("draw-match", {"deck": 52}),
    "red_dog": ("red-dog", {"num_players": 4}),
    "holdem_hu": ("holdem", {"num_players": 2}),
    "holdem_6max": ("holdem", {"num_players": 6}),
}


def _file(name: str) -> Path:
    path = MODELS_DIR / f"{name}.npz"
    assert path.is_file(), f"{path} is not shipped (python scripts/ship_model.py {name})"
    return path


@pytest.mark.parametrize("name", list(SHIPPED))
def test_shipped_file_loads_and_matches_its_env(name: str) -> None:
    game, options = SHIPPED[name]
    path = _file(name)
    assert path.stat().st_size < 1_000_000
    env = get_game(game).make_env(options)
    policy = load_policy(path, env)  # refuses a file made for another env
    manifest = policy.manifest
    # Made by the documented command from its config, with its seed.
    prov = manifest["provenance"]
    assert f"agents/configs/{name}.toml" in prov["command"]
    config = (REPO / "agents" / "configs" / f"{name}.toml").read_text()
    assert f"seed = {prov['seed']}" in config
    # Its evaluation table was measured on this very file.
    table = json.loads(path.with_suffix(".eval.json").read_text())
    import hashlib

    assert table["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert table["game"] == game


@pytest.mark.parametrize("name", [n for n in SHIPPED if n != "draw_match52"])
def test_shipped_policy_beats_random_on_a_short_duplicate_match(name: str) -> None:
    game, options = SHIPPED[name]
    policy = load_policy(_file(name))
    hands = {"draw": 4000, "red-dog": 8000, "holdem": 3000}[game]

    def match(a: Any) -> Any:
        return head_to_head(
            a,
            make_baseline(game, "random", seed=11, **options),
            game=game,
            options=options,
            hands=hands,
            seed=2026,
            num_tables=64,
        )

    result = match(policy)
    if game == "red-dog":
        # Red Dog is not zero-sum for one seat (every seat's own result is negative
        # on average: the pot left at the end is nobody's): compare with random play
        # in the same seat on the same deals.
        baseline = match(make_baseline(game, "random", seed=12, **options))
        assert result.ci_low > baseline.ci_high, (result, baseline)
    else:
        assert result.ci_low > 0, result


def test_shipped_match_seat_wins_matches_against_random() -> None:
    wins = draw_match_wins(
        load_policy(_file("draw_match52")),
        make_baseline("draw-match", "random", seed=11, deck=52),
        options={"deck": 52},
        matches=200,
        seed=2026,
        num_tables=64,
    )
    assert wins.share - wins.half_width > 0.5, wins


def test_a_stale_file_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = _file("draw52")
    # The same file against another deck: the manifest's options differ.
    with pytest.raises(PolicyFileError, match="deck"):
        load_policy(path, get_game("draw").make_env({"deck": 32}))
    # A file whose observation layout is not the env's any more (as after a change
    # of the env's observation table): refused, naming the layout.
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    manifest = json.loads(arrays.pop("manifest").tobytes().decode("utf-8"))
    manifest["observation"]["layout_sha256"] = "0" * 64
    stale = tmp_path / "stale.npz"
    blob = np.frombuffer(json.dumps(manifest).encode("utf-8"), np.uint8)
    with stale.open("wb") as f:
        np.savez(f, manifest=blob, **arrays)
    with pytest.raises(PolicyFileError, match="layout"):
        load_policy(stale, get_game("draw").make_env({"deck": 52}))


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("draw", {"deck": 52}),
        ("draw", {"deck": 32}),
        ("red-dog", {}),
        ("holdem", {"num_players": 2}),
        ("holdem", {"num_players": 6}),
    ],
)
@pytest.mark.parametrize("level", ["normal", "hard"])
def test_normal_and_hard_play_every_game_as_an_env_opponent(
    game: str, options: dict[str, Any], level: str
) -> None:
    spec = get_game(game)
    her = ComputerOpponent(game, level, options=options, seed=3)
    assert str(MODELS_DIR) in her.source
    env = spec.make_env(options, opponent=her)
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _obs, _r, term, trunc, info = env.step(a)
        assert not info.get("illegal_action", False)
        if term or trunc:
            _obs, info = env.reset()


def test_her_shipped_buy_backs_obey_the_rule_book() -> None:
    from tests.agents.test_opponent import ITEM_VALUE, RESERVE, _play_her_seat

    her = ComputerOpponent("draw-match", "hard", seed=1)
    assert her.learned_buy_back
    seen = [s for seed in range(4) for s in _play_her_seat(her, seed)]
    offered = [s for s in seen if s[0]]
    assert offered, "the short matches should reach buy-backs"
    # RULES.md §1: a buy-back is offered (and taken) only when she can afford it and
    # has lost an item; she never takes one that was not offered.
    for _offered, _took, money, lost, _worn in offered:
        assert money >= ITEM_VALUE + RESERVE and lost >= 1
    assert not any(took and not off for off, took, *_ in seen)


def test_ship_model_lists_the_six_and_refuses_unknown_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("ship_model", REPO / "scripts" / "ship_model.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert set(mod.MODELS) == set(SHIPPED)
    assert mod.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert all(f"agents/models/{n}.npz (" in out for n in SHIPPED) and "not shipped" not in out
    assert mod.main(["draw64"]) == 2
    assert "unknown model 'draw64'" in capsys.readouterr().err


def _ship_model_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("ship_model", REPO / "scripts" / "ship_model.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", ["draw52", "draw32", "holdem_hu", "holdem_6max"])
def test_shipped_tables_hold_the_exploitability_of_their_own_file(name: str) -> None:
    """Issue 25: the retrained files ship with BR (and heads-up LBR) figures in their
    ``.eval.json``, measured on that very file with the budgets ship_model names."""
    import hashlib

    mod = _ship_model_module()
    path = _file(name)
    table = json.loads(path.with_suffix(".eval.json").read_text())
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert table["sha256"] == sha
    ex = table["exploitability"]
    assert ex["sha256"] == sha, "the figures were measured on another file"
    steps, hands = mod.EXPLOIT[name]["br"]
    br = ex["best_response"]
    assert br["timesteps"] == steps and br["steps"] >= steps
    assert br["result"]["hands"] >= hands and br["result"]["ci_low"] <= br["result"]["mean"]
    assert br["result"]["mean"] <= br["result"]["ci_high"]
    if "lbr" in mod.EXPLOIT[name]:
        settings = [r["settings"]["preflop_raises"] for r in ex["lbr"]]
        assert settings == [False, True]
        assert all(r["hands"] == mod.EXPLOIT[name]["lbr"] for r in ex["lbr"])


def test_ship_model_exploit_refuses_a_table_of_another_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mod = _ship_model_module()
    target = tmp_path / "draw52.npz"
    target.write_bytes(_file("draw52").read_bytes())
    table = json.loads(_file("draw52").with_suffix(".eval.json").read_text())
    table["sha256"] = "0" * 64
    target.with_suffix(".eval.json").write_text(json.dumps(table))
    before = target.with_suffix(".eval.json").read_text()
    with pytest.raises(mod.ConfigError, match="sha256 differs"):
        mod.add_exploitability("draw52", target)
    assert target.with_suffix(".eval.json").read_text() == before
