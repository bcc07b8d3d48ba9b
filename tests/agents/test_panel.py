"""The held-out panel: its names, legality, hand-worked decisions, and each style showing.

Styles are checked on seeded hands against a fixed opponent by how they bet (the
share of first-round bets they continue against, bets and raises over calls, folds
to a bet), and by hand-worked decisions on observations built from the documented
layouts. Nothing here checks a result against a trained policy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from poker_env.cards import parse_cards
from poker_env.errors import ConfigError
from poker_env.policy import BatchPolicy, Policy
from poker_env_agents.analysis.panel import _collect, evaluate_panel, style_stats
from poker_env_agents.baselines.heldout import PANEL_NAMES, is_panel_name
from poker_env_agents.baselines.panel import make_panel_bot, panel_names, panel_summaries
from poker_env_agents.baselines.panel.draw import (
    DrawPanelBot,
    post_draw_class,
    pre_draw_class,
    standard_discard,
)
from poker_env_agents.baselines.panel.holdem import (
    HoldemPanelBot,
    chen_score,
    draws,
    made_level,
)
from poker_env_agents.registry import get_game, make_baseline

K = 4  # draw: bet sizes of the default pot fractions (0.5, 1, 2) plus all-in
DRAW0 = 2 + K


def _cards(text: str) -> NDArray[np.int64]:
    return parse_cards(text).astype(np.int64)[None]


# ------------------------------------------------------------------------- the names
def test_each_game_has_at_least_eight_named_styles_and_the_refusal_list_is_theirs() -> None:
    for game, fam in (("draw", "draw"), ("draw-match", "draw"), ("holdem", "holdem")):
        names = panel_names(game)
        assert len(names) >= 8 and len(set(names)) == len(names)
        assert names == PANEL_NAMES[fam]
        assert set(panel_summaries(game)) == set(names)
        assert all(is_panel_name(n) and is_panel_name("panel:" + n) for n in names)
    assert not any(is_panel_name(n) for n in ("random", "call", "heuristic", "pool", "a.npz"))
    with pytest.raises(ConfigError, match="one of"):
        make_panel_bot("draw", "shark")
    with pytest.raises(ConfigError, match="a game with a panel"):
        make_panel_bot("red-dog", "nit")


def test_the_training_config_refuses_panel_names() -> None:
    from poker_env_agents.training.train import TrainConfig

    for kw in (
        {"warm_start": "panel:tight-aggressive"},
        {"warm_start": "nit"},
        {"fixed_opponent": "panel:pot-bully", "opponents": {"fixed": 1.0}},
        {"opponents": {"maniac": 1.0}},
    ):
        with pytest.raises(ConfigError, match="held-out panel"):
            TrainConfig(game="draw", **kw)  # type: ignore[arg-type]
    TrainConfig(game="draw", warm_start="heuristic")  # a baseline is fine


# ------------------------------------------------------------------------- legality
CONFIGS = [
    ("draw", {"deck": 52}, None),
    ("draw", {"deck": 32}, None),
    ("draw-match", {"deck": 52}, 0),  # the human seat
    ("holdem", {"num_players": 2}, None),
    ("holdem", {"num_players": 6}, None),
]


@pytest.mark.parametrize(("game", "options", "seat"), CONFIGS)
def test_only_legal_actions_and_act_equals_act_batch(
    game: str, options: dict[str, int], seat: int | None
) -> None:
    spec = get_game(game)
    for j, name in enumerate(panel_names(game)):
        bot = make_panel_bot(game, name, seed=j, **options)
        twin = make_panel_bot(game, name, seed=j, **options)
        assert isinstance(bot, Policy) and isinstance(bot, BatchPolicy)
        opponent = make_baseline(
            game, "heuristic" if game != "holdem" else "random", seed=1, **options
        )
        env = spec.make_vector(32, options, opponent=opponent, seat=seat)
        obs, info = env.reset(seed=3)
        try:
            for _ in range(40):
                masks = info["action_mask"]
                acts = bot.act_batch(obs, masks)
                assert (masks[np.arange(len(acts)), acts] == 1).all(), name
                one = [twin.act(obs[i], masks[i]) for i in range(len(acts))]
                assert one == acts.tolist(), name
                obs, _r, _t, _tr, info = env.step(acts)
        finally:
            env.close()


# ------------------------------------------------------------------------- draw by hand
def test_pre_and_post_draw_hand_classes_worked_by_hand() -> None:
    cases = [
        ("5c 6d 7h 8s 9c", 9, 9),  # a pat straight
        ("Kc Kd Kh 8s 2c", 8, 8),  # trips
        ("Kc Kd 8h 8s 2c", 7, 7),  # two pair
        ("Ac Ad 8h 5s 2c", 6, 6),  # aces
        ("Jc Jd 8h 5s 2c", 5, 5),  # jacks
        ("Ah 9h 6h 2h Kc", 4, 1),  # four to a flush; ace high after
        ("5c 6d 7h 8s Kc", 4, 1),  # open-ended straight draw
        ("9c 9d 8h 5s 2c", 3, 3),  # a middle pair
        ("3c 3d 8h 5s 2c", 2, 3),  # a low pair
        ("Kc Jd 8h 5s 2c", 1, 1),  # king high
        ("Qc Jd 8h 5s 2c", 0, 0),  # nothing
        ("Ac Kd Qh Js 3c", 1, 1),  # A-K-Q-J is one-ended: no draw
    ]
    for cards, pre, post in cases:
        assert pre_draw_class(_cards(cards))[0] == pre, cards
        assert post_draw_class(_cards(cards))[0] == post, cards
    # 32 cards (7 and 8 the lowest ranks): 8-8 is a low pair there, 9-9 a middle one;
    # 7-8-9-T is open-ended (the ace below the 7, or the jack).
    assert pre_draw_class(_cards("8c 8d Ah Ks 7c"), "short")[0] == 2
    assert pre_draw_class(_cards("9c 9d Ah Ks 7c"), "short")[0] == 3
    assert pre_draw_class(_cards("7c 8d 9h Ts Kc"), "short")[0] == 4


def test_the_standard_draw_worked_by_hand() -> None:
    cases = [
        ("5c 6d 7h 8s 9c", 0),  # pat straight: stand pat
        ("Kc Kd 7h 5s 2h", 0b11100),  # a pair: draw three
        ("Kc Kd Kh 5s 2h", 0b11000),  # trips: draw two
        ("Kc Kd 7h 7s 2h", 0b10000),  # two pair: draw one
        ("Ah 9h 6h 2h Kc", 0b10000),  # four to a flush: draw one
        ("Kc 5c 6d 7h 8s", 0b00001),  # open-ended straight draw: draw one
        ("Ks 9d 6c 4h 2s", 0b11110),  # nothing: keep the king, draw four
    ]
    for cards, mask in cases:
        assert standard_discard(_cards(cards))[0] == mask, cards
    # With a kicker: a pair keeps its highest other card (the loose-passive's draw).
    assert standard_discard(_cards("7c 7d Ah 5s 2h"), kicker=True)[0] == 0b11000


def _draw_obs(
    cards: str, phase: int, *, pot: int = 10, to_call: int = 0, raises: int = 0, first: int = 1
) -> NDArray[np.float32]:
    o = np.zeros(124, np.float32)
    hand = parse_cards(cards)
    o[0:5] = hand
    o[5 + hand.astype(np.int64)] = 1
    o[57], o[58], o[59] = phase, first, pot
    o[60] = o[61] = 400
    o[64], o[65] = to_call, raises
    o[66] = o[67] = -1
    return o


BET_MASK = np.array([1] * (2 + K) + [0] * 33, np.int8)
DRAW_MASK = np.array([0] * (2 + K) + [1] * 32 + [0], np.int8)


def test_draw_decisions_worked_by_hand() -> None:
    pair_k = _draw_obs("Kc Kd 7h 5s 2h", 0)
    junk = _draw_obs("Qc Jd 8h 5s 2c", 0)
    facing = _draw_obs("Qc Jd 8h 5s 2c", 0, pot=20, to_call=10)
    trips_facing = _draw_obs("Kc Kd Kh 5s 2h", 0, pot=20, to_call=10)

    def act(style: str, o: NDArray[np.float32], mask: NDArray[np.int8] = BET_MASK) -> int:
        return DrawPanelBot(style, 0).act(o, mask)

    assert act("tight-aggressive", pair_k) == 3  # bets kings: the pot (index 3 = 1.0)
    assert act("tight-passive", pair_k) == 1  # stays with kings
    assert act("nit", junk) == 1 and act("nit", facing) == 0  # checks junk; drops it to a bet
    assert act("calling-station", facing) == 1  # calls anything
    assert act("nit", trips_facing) == 3  # raises trips (the pot)
    assert act("pot-bully", junk) == 3  # the pot, whatever it holds
    assert act("pot-bully", trips_facing) == 0  # drops to every bet
    # The check-raiser checks kings first to act, raises a bet with them.
    assert act("check-raiser", pair_k) == 1
    assert act("check-raiser", _draw_obs("Kc Kd 7h 5s 2h", 0, pot=20, to_call=10)) == 3
    assert act("check-raiser", _draw_obs("Kc Kd 7h 5s 2h", 0, first=0)) == 3  # checked to
    # Pot odds: a pat flush (equity ~0.97 against a random hand) raises; a king-high
    # hand after the draw (well under a third) drops to a pot-sized bet.
    flush_post = _draw_obs("2h 5h 9h Jh Kh", 2, pot=20, to_call=10)
    weak_post = _draw_obs("Kc Jd 8h 5s 2c", 2, pot=20, to_call=20)
    assert act("pot-odds-caller", flush_post) == 3
    assert act("pot-odds-caller", weak_post) == 0
    # The draw: standard for the tight player, by equity for the pot-odds caller.
    assert act("tight-aggressive", _draw_obs("Kc Kd 7h 5s 2h", 1), DRAW_MASK) == DRAW0 + 0b11100


def test_the_stand_pat_bluffer_stands_pat_with_junk_and_bets_the_pot_after() -> None:
    from poker_env_agents.baselines.panel.draw import _hand_hash

    bot = DrawPanelBot("stand-pat-bluffer", 0)
    rng = np.random.default_rng(0)
    hands = np.argsort(rng.random((4000, 52)), axis=1)[:, :5]
    junk = pre_draw_class(hands) <= 1
    bluffs = junk & (_hand_hash(hands) < 0.35)
    # About 35% of the junk hands (a hash of the cards, the same in every phase).
    assert 0.3 < bluffs.sum() / junk.sum() < 0.4
    obs = np.zeros((hands.shape[0], 124), np.float32)
    obs[:, 0:5] = hands
    obs[np.arange(hands.shape[0])[:, None], 5 + hands] = 1
    obs[:, 57], obs[:, 59], obs[:, 60], obs[:, 61] = 1, 10, 400, 400
    drawn = bot.act_batch(obs, np.tile(DRAW_MASK, (hands.shape[0], 1))) - DRAW0
    assert (drawn[bluffs] == 0).all()  # stands pat on every bluff
    assert (drawn[junk & ~bluffs] != 0).all()  # draws to the others
    post = obs.copy()
    post[:, 57], post[:, 66] = 2, 0  # after the draw, having drawn no card
    bets = bot.act_batch(post, np.tile(BET_MASK, (hands.shape[0], 1)))
    assert (bets[bluffs] == 3).all()  # the pot
    post[:, 64] = 10  # facing a bet: the bluff gives up
    assert (bot.act_batch(post, np.tile(BET_MASK, (hands.shape[0], 1)))[bluffs] == 0).all()


# ------------------------------------------------------------------------- Hold'em by hand
def test_chen_scores_worked_by_hand() -> None:
    # Bill Chen's published examples.
    for hole, score in [
        ("As Ad", 20),
        ("Ks Kd", 16),
        ("Qs Qd", 14),
        ("Js Jd", 12),
        ("As Ks", 12),
        ("As Kd", 10),
        ("Ts 9s", 8),
        ("2s 2d", 5),
        ("7s 2d", -1),
        ("5s 7s", 6),
    ]:
        assert chen_score(_cards(hole))[0] == score, hole


def _board(text: str) -> NDArray[np.int64]:
    b = np.full((1, 5), -1, np.int64)
    c = parse_cards(text).astype(np.int64)
    b[0, : c.size] = c
    return b


def test_made_levels_and_draws_worked_by_hand() -> None:
    cases = [
        ("Ah Kd", "Ks 7c 2d", 2, False),  # top pair
        ("Qh Qd", "Js 7c 2d", 2, False),  # overpair
        ("7h 7d", "Ks 7c 2d", 4, False),  # a set
        ("8h 7d", "Ks 7c 2d", 1, False),  # middle pair
        ("Kh 7d", "Ks 7c 2d", 3, False),  # two pair with both cards
        ("2h 3d", "As Ac Kd", 0, False),  # only the board's pair
        ("Ah 5h", "Kh 9h 2c", 0, True),  # four to the flush
        ("9c 8d", "7s 6h Kc", 0, True),  # open-ended
        ("9c 8d", "7s 6h 5c", 5, False),  # a straight
        ("3c 4d", "As Ks Qs Js Ts", 0, False),  # the board's royal flush plays
    ]
    for hole, board, level, draw in cases:
        assert made_level(_cards(hole), _board(board))[0] == level, (hole, board)
        assert draws(_cards(hole), _board(board))[0] == draw, (hole, board)


def _holdem_obs(
    n: int,
    hole: str,
    *,
    board: str = "",
    pot_bb: float,
    to_call_bb: float,
    position: int,
    raises: int = 0,
) -> NDArray[np.float32]:
    o = np.zeros(114 + 8 * n, np.float32)
    o[parse_cards(hole).astype(np.int64)] = 1
    if board:
        o[52 + parse_cards(board).astype(np.int64)] = 1
    street = {0: 0, 3: 1, 4: 2, 5: 3}[len(board.split())]
    o[104 + street] = 1
    o[108], o[109] = pot_bb / 100, to_call_bb / 100
    o[110 : 110 + n] = 1.0
    o[110 + 2 * n] = position / (n - 1)
    o[110 + 3 * n : 110 + 3 * n + 2] = 1
    o[110 + 8 * n + street] = raises / 10
    return o


ALL8 = np.ones(8, np.int8)
NO_FOLD8 = np.array([0, 1, 1, 1, 1, 1, 1, 1], np.int8)


def test_holdem_decisions_worked_by_hand() -> None:
    def act(style: str, o: NDArray[np.float32], mask: NDArray[np.int8] = ALL8) -> int:
        return HoldemPanelBot(style, 0).act(o, mask)

    # Heads-up, big blind (position 1), the button raised to 3 bb: 2 to call.
    aces = _holdem_obs(2, "As Ad", pot_bb=4, to_call_bb=2, position=1, raises=1)
    trash = _holdem_obs(2, "7s 2d", pot_bb=4, to_call_bb=2, position=1, raises=1)
    ak = _holdem_obs(2, "As Kd", pot_bb=4, to_call_bb=2, position=1, raises=1)
    assert act("tight-aggressive", aces) >= 2 and act("nit", aces) >= 2  # re-raise aces
    assert act("tight-aggressive", trash) == 0 and act("nit", trash) == 0  # fold 7-2
    assert act("calling-station", trash) == 1 and act("loose-passive", ak) == 1
    assert act("short-stack-shover", ak) == 7  # AKo (Chen 10) shoves against a raise
    assert act("short-stack-shover", trash) == 0
    # After the flop, checked to (nothing to call): the tight player bets top pair.
    top = _holdem_obs(2, "Ah Kd", board="Ks 7c 2d", pot_bb=6, to_call_bb=0, position=0)
    air = _holdem_obs(2, "4h 3d", board="Ks 9c 2d", pot_bb=6, to_call_bb=0, position=1)
    assert act("tight-aggressive", top, NO_FOLD8) >= 2
    assert act("tight-aggressive", air, NO_FOLD8) == 1  # checks air, never folds for free
    assert act("nit", air, NO_FOLD8) == 1 and act("calling-station", top, NO_FOLD8) == 1
    # The check-raiser checks its set out of position, and raises the bet that follows.
    sets = _holdem_obs(2, "7h 7d", board="Ks 7c 2d", pot_bb=6, to_call_bb=0, position=1)
    assert act("check-raiser", sets, NO_FOLD8) == 1
    bet = _holdem_obs(2, "7h 7d", board="Ks 7c 2d", pot_bb=10, to_call_bb=4, position=1, raises=1)
    assert act("check-raiser", bet) >= 2
    # Pot odds: four-high on K-9-2 (about a quarter of the pot against a random hand)
    # calls 1 bb into 10 (price 1/11), folds to a bet of the pot (price 1/2).
    cheap = _holdem_obs(2, "4h 3d", board="Ks 9c 2d", pot_bb=10, to_call_bb=1, position=1, raises=1)
    dear = _holdem_obs(2, "4h 3d", board="Ks 9c 2d", pot_bb=20, to_call_bb=20, position=1, raises=1)
    assert act("pot-odds-caller", cheap) == 1
    assert act("pot-odds-caller", dear) == 0


# ------------------------------------------------------------------------- styles show
@pytest.fixture(scope="module")
def holdem_stats() -> dict[str, dict[str, float]]:
    out = {}
    for j, name in enumerate(panel_names("holdem")):
        bot = make_panel_bot("holdem", name, seed=j)
        out[name] = style_stats(
            bot,
            "holdem",
            {"num_players": 2},
            opponent=make_baseline("holdem", "heuristic", seed=99),
            decisions=3000,
            seed=11,
        )
    return out


def test_holdem_styles_show_in_their_play(holdem_stats: dict[str, dict[str, float]]) -> None:
    s = holdem_stats
    vpip = {n: v["continue_first"] for n, v in s.items()}
    agg = {n: v["aggression"] for n, v in s.items()}
    # Tight < loose: the share of pre-flop bets they play on.
    assert vpip["nit"] < vpip["tight-aggressive"] < vpip["loose-aggressive"]
    assert vpip["tight-passive"] < vpip["loose-passive"]
    assert vpip["nit"] < 0.15 and vpip["loose-passive"] > 0.6
    # Never folds: the calling station and the maniac.
    assert s["calling-station"]["fold_facing"] == 0 and s["maniac"]["fold_facing"] == 0
    # Passive < aggressive; the maniac the most aggressive of all.
    assert agg["tight-passive"] < agg["tight-aggressive"]
    assert agg["loose-passive"] < agg["loose-aggressive"]
    assert agg["calling-station"] < 0.5
    # (Push or fold has next to no calls: the shover's ratio is the largest of all.)
    assert agg["maniac"] == max(v for n, v in agg.items() if n != "short-stack-shover")
    assert agg["short-stack-shover"] > agg["maniac"]
    # The barrel bluffer bets later streets more than the tight player; the check-raiser
    # less (it checks unless on the button).
    later = {n: v["bet_later"] for n, v in s.items()}
    assert later["barrel-bluffer"] > later["tight-aggressive"] > later["check-raiser"]


def test_the_shover_raises_only_all_in() -> None:
    bot = make_panel_bot("holdem", "short-stack-shover", seed=0)
    d = _collect(
        bot, "holdem", {"num_players": 2}, make_baseline("holdem", "random", seed=1), 2000, 3
    )
    raised = d["action"] >= 2
    assert raised.sum() > 50 and (d["action"][raised] == 7).all()


@pytest.fixture(scope="module")
def draw_stats() -> dict[str, dict[str, float]]:
    out = {}
    for j, name in enumerate(panel_names("draw")):
        out[name] = style_stats(
            make_panel_bot("draw", name, seed=j),
            "draw",
            {"deck": 52},
            opponent=make_baseline("draw", "heuristic", seed=99),
            decisions=3000,
            seed=11,
        )
    return out


def test_draw_styles_show_in_their_play(draw_stats: dict[str, dict[str, float]]) -> None:
    s = draw_stats
    cont = {n: v["continue_first"] for n, v in s.items()}
    agg = {n: v["aggression"] for n, v in s.items()}
    opens = {n: v["open"] for n, v in s.items()}
    assert cont["nit"] < cont["tight-aggressive"] < cont["loose-aggressive"]
    assert cont["tight-passive"] < cont["loose-passive"]
    assert opens["nit"] < opens["tight-aggressive"] < opens["loose-aggressive"] < opens["maniac"]
    # Passive < aggressive at the same looseness (the loose player calls more, so its
    # bets-to-calls ratio need not top the tight player's: its bets are more frequent).
    assert agg["tight-passive"] < agg["tight-aggressive"]
    assert agg["loose-passive"] < agg["loose-aggressive"]
    assert s["calling-station"]["fold_facing"] == 0 and s["maniac"]["fold_facing"] == 0
    # The pot bully bets every time it may and drops to every bet.
    assert opens["pot-bully"] == 1.0 and s["pot-bully"]["fold_facing"] == 1.0
    assert agg["maniac"] == max(v for v in agg.values() if math.isfinite(v))


def test_the_pot_bully_bets_exactly_the_pot_and_the_check_raiser_never_leads() -> None:
    opp = make_baseline("draw", "heuristic", seed=1)
    d = _collect(make_panel_bot("draw", "pot-bully", seed=0), "draw", {"deck": 52}, opp, 2000, 5)
    bets = (d["action"] >= 2) & (d["action"] <= 5)
    assert bets.sum() > 100 and (d["action"][bets] == 3).all()  # index 3: 1.0 x the pot
    # The check-raiser never bets first to act with nothing to call (observation 58):
    # its bets are raises, or bets after the other player checked.
    bot = make_panel_bot("draw", "check-raiser", seed=0)
    env = get_game("draw").make_vector(64, {"deck": 52}, opponent=opp)
    obs, info = env.reset(seed=2)
    led = raised = 0
    try:
        for _ in range(80):
            acts = bot.act_batch(obs, info["action_mask"])
            betting = np.isin(obs[:, 57], (0, 2)) & (acts >= 2) & (acts <= 5)
            led += int((betting & (obs[:, 58] == 1) & (obs[:, 64] == 0)).sum())
            raised += int((betting & (obs[:, 64] > 0)).sum())
            obs, _r, _t, _tr, info = env.step(acts)
    finally:
        env.close()
    assert led == 0 and raised > 0


# ------------------------------------------------------------------------- the evaluation
def test_evaluate_panel_on_a_tiny_budget_finds_the_worst_case() -> None:
    # The call station against the draw panel: it loses to every bot that bets for
    # value; the worst case is the lowest of the rows, each with its hands.
    call = make_baseline("draw", "call", seed=0)
    rep = evaluate_panel(call, "draw", {"deck": 52}, hands=256, num_tables=16)
    assert [r.bot for r in rep.rows] == list(panel_names("draw"))
    assert all(r.hands >= 256 and r.ci_low <= r.mean <= r.ci_high for r in rep.rows)
    assert rep.worst["heads-up"].mean == min(r.mean for r in rep.rows)
    assert rep.worst["heads-up"].mean < 0
    assert any("WORST CASE" in line for line in rep.worst_lines())
    # 6-max: both directions, the bot's best result among policies is the worst case.
    six = evaluate_panel(
        make_baseline("holdem", "call", seed=0),
        "holdem",
        {"num_players": 6},
        hands=96,
        num_tables=16,
        bots=["nit", "calling-station"],
    )
    kinds = [r.kind for r in six.rows]
    assert kinds == ["bot among policies", "policy among bots"] * 2
    among = [r for r in six.rows if r.kind == "bot among policies"]
    assert six.worst["bot among policies"].mean == max(r.mean for r in among)


def test_ship_model_evaluation_holds_the_panel_and_the_play_measures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "ship_model_panel", root / "scripts/ship_model.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tiny = {"hands": 1, "strong_hands": 1, "discards": 200, "panel": 64, "measures": 400}
    monkeypatch.setitem(mod.MODELS, "draw52", tiny)
    doc = mod.evaluate("draw52", root / "agents/models/draw52.npz", seed=0)
    assert [r["bot"] for r in doc["panel"]["rows"]] == list(panel_names("draw"))
    worst = doc["panel"]["worst"]["heads-up"]
    assert worst["mean"] == min(r["mean"] for r in doc["panel"]["rows"])
    for who in ("never_betting", "panel"):
        dom = doc["measures"][who]["dominated_folds"]
        assert set(dom["phases"]) == {"pre-draw", "post-draw"}
        assert dom["free"] > 0 and 0.0 <= dom["share"] <= 1.0
        sizes = doc["measures"][who]["bet_sizes"]
        assert sum(h["share"] for h in sizes["histogram"]) == pytest.approx(1.0)
    assert set(doc["measures"]["panel"]["dominated_share_by_bot"]) == set(panel_names("draw"))


def test_the_evaluate_command_plays_the_panel_on_a_tiny_budget(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    from pathlib import Path

    from poker_env_agents.cli.evaluate import main

    out = Path(str(tmp_path)) / "panel.json"
    root = Path(__file__).resolve().parents[2]
    policy = str(root / "agents/models/draw52.npz")
    code = main(
        ["draw", policy, "--panel", "--hands", "64", "--measures", "200", "--json", str(out)]
    )
    text = capsys.readouterr().out
    assert code == 0
    for name in panel_names("draw"):
        assert f"policy vs {name}:" in text
    assert "WORST CASE (the policy's lowest):" in text
    assert "dominated folds (nothing to call) against a never-betting opponent" in text
    doc = json.loads(out.read_text())
    assert len(doc["panel"]["rows"]) == len(panel_names("draw"))
    assert doc["panel"]["worst"]["heads-up"]["hands"] >= 64
    assert doc["measures"]["panel"]["bet_sizes"]["bets"] >= 0
    # A panel bot by name as a player; a game without a panel is refused.
    assert main(["draw", "panel:nit", "call", "--hands", "64", "--tables", "16"]) == 0
    with pytest.raises(SystemExit):
        main(["red-dog", policy, "--panel"])


def test_panel_worst_case_of_a_policy_file_for_learning_curves() -> None:
    from pathlib import Path

    from poker_env_agents.analysis.panel import panel_worst_case

    root = Path(__file__).resolve().parents[2]
    out = panel_worst_case(
        root / "agents/models/draw52.npz", hands=64, bots=["nit", "calling-station"]
    )
    assert out["game"] == "draw" and out["options"] == {"deck": 52}
    worst = out["worst"]["heads-up"]
    assert out["bot"] == worst["bot"] in ("nit", "calling-station")
    assert out["value"] == worst["mean"] and out["unit"] == "antes/hand"
    assert worst["hands"] >= 64 and worst["ci_low"] <= worst["mean"] <= worst["ci_high"]
    with pytest.raises(ConfigError, match="a draw, draw-match or Hold'em policy"):
        panel_worst_case(root / "agents/models/red_dog.npz", hands=64)
