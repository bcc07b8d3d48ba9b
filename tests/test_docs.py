"""The user docs against the code: the rule book's options, the envs' action tables, the links.

- ``docs/rules.md``: every option table row (name, default, where it lives) against
  the config dataclasses' fields and defaults and the functions' signatures, and
  every field of each config in its table.
- ``docs/draw.md``, ``docs/red_dog.md``, ``docs/holdem.md``: the action table's
  indices (formulas in ``K`` / ``k`` evaluated for the default and other sizes)
  cover the env's ``Discrete(n)`` exactly once; each index means what the env's
  docstring table says and what the env does with it.
- Links: nothing points at the rule book outside the repository
  (``../shared/RULES.md``); every relative link of README.md and docs/*.md reaches
  a file, and every ``rules.md#anchor`` a heading.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import poker_env  # noqa: F401  (registers the env ids)
from poker_env.envs.draw import DrawMatchEnv, FiveCardDrawEnv
from poker_env.envs.holdem import HoldemEnv
from poker_env.envs.red_dog import RedDogEnv
from poker_env.evaluator import evaluate
from poker_env.games.draw import DrawConfig, DrawGame
from poker_env.games.holdem import HoldemConfig
from poker_env.games.red_dog import RedDogConfig

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"

Table = tuple[list[str], list[list[str]]]


def md_tables(text: str) -> list[Table]:
    """Every markdown table in ``text``: (header cells, rows of cells)."""
    out: list[Table] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if (
            line.startswith("|")
            and i + 1 < len(lines)
            and re.match(r"^\|[\s\-|:]+\|$", lines[i + 1].strip())
        ):
            header = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i].strip()))
                i += 1
            out.append((header, rows))
        else:
            i += 1
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


# --- docs/rules.md: options and defaults ---------------------------------------------

CONFIGS: dict[str, type] = {
    "DrawConfig": DrawConfig,
    "RedDogConfig": RedDogConfig,
    "HoldemConfig": HoldemConfig,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {"DrawGame": DrawGame.__init__, "evaluate": evaluate}
# Which section of the rule book documents which class (its numbering mirrors RULES.md).
SECTION_OF = {
    "evaluate": "0",
    "DrawConfig": "1",
    "DrawGame": "1",
    "RedDogConfig": "2",
    "HoldemConfig": "3",
}


def rules_options() -> list[tuple[str, str, str, str]]:
    """(section number, option, default cell, where) for every option table row."""
    text = RULES.read_text(encoding="utf-8")
    out = []
    for match in re.finditer(r"^## (\d+)\. .*?(?=^## |\Z)", text, flags=re.M | re.S):
        for header, rows in md_tables(match.group(0)):
            if header[:3] != ["option", "default", "where"]:
                continue
            for row in rows:
                out.append((match.group(1), row[0].strip("`"), row[1], row[2].strip("`")))
    return out


def _literal(cell: str) -> object:
    # The default is the cell's first backticked span, a Python literal.
    span = re.match(r"`([^`]*)`", cell)
    assert span, f"default cell {cell!r} does not start with a `literal`"
    return ast.literal_eval(span.group(1))


def _default_in_code(where: str, name: str) -> object:
    if where in CONFIGS:
        fields = {f.name: f for f in dataclasses.fields(CONFIGS[where])}
        assert name in fields, (
            f"docs/rules.md lists {name!r} under {where}, which has no such field"
        )
        return fields[name].default
    params = inspect.signature(FUNCTIONS[where]).parameters
    assert name in params, (
        f"docs/rules.md lists {name!r} under {where}, which takes no such argument"
    )
    return params[name].default


def test_rules_md_option_tables_exist_for_every_game() -> None:
    wheres = {where for _, _, _, where in rules_options()}
    assert wheres == set(SECTION_OF), wheres


@pytest.mark.parametrize("row", rules_options(), ids=lambda r: f"{r[3]}.{r[1]}")
def test_rules_md_option_default_is_the_codes(row: tuple[str, str, str, str]) -> None:
    section, name, cell, where = row
    assert SECTION_OF.get(where) == section, f"{where}.{name} documented in §{section}"
    doc, code = _literal(cell), _default_in_code(where, name)
    # Equal and of the same type (5 is not 5.0, None is not "None").
    assert (doc, type(doc)) == (code, type(code)), (
        f"{where}.{name}: docs/rules.md says {doc!r}, the code {code!r}"
    )


@pytest.mark.parametrize("where", sorted(CONFIGS))
def test_rules_md_lists_every_config_field(where: str) -> None:
    documented = [name for _, name, _, w in rules_options() if w == where]
    fields = [f.name for f in dataclasses.fields(CONFIGS[where])]
    assert sorted(documented) == sorted(fields), (
        f"{where}: documented {documented}, fields {fields}"
    )
    assert len(documented) == len(set(documented))


@pytest.mark.parametrize(
    ("env_class", "config", "renamed"),
    [(RedDogEnv, RedDogConfig, {}), (HoldemEnv, HoldemConfig, {"num_players": "num_seats"})],
)
def test_env_keyword_defaults_agree_with_the_config(
    env_class: type, config: type, renamed: dict[str, str]
) -> None:
    # The rule book says the envs take the engine's options: same names, same defaults
    # (except Holdem-v0's num_players, heads-up by default, as docs/rules.md says).
    fields = {f.name: f.default for f in dataclasses.fields(config)}
    params = inspect.signature(env_class.__init__).parameters
    shared = [p for p in params if p in fields]
    assert shared, env_class
    for name in shared:
        assert params[name].default == fields[name], (env_class.__name__, name)
    for env_name, field in renamed.items():
        assert env_name in params and field in fields


def test_draw_envs_pass_rule_options_to_the_config() -> None:
    env = FiveCardDrawEnv(deck=32, ante=7, buyback_reserve=3)
    assert (env.config.deck, env.config.ante, env.config.buyback_reserve) == (32, 7, 3)
    assert DrawMatchEnv().config == DrawConfig()


# --- The docs' action tables against the envs -----------------------------------------


def _eval_index(expr: str, names: Mapping[str, object]) -> int:
    """An index formula of a docs table (``2+K-1``, ``len(bet_fractions)``), evaluated."""
    tree = ast.parse(expr.strip().strip("`"), mode="eval")

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = ev(node.left), ev(node.right)
            return (
                a + b
                if isinstance(node.op, ast.Add)
                else a - b
                if isinstance(node.op, ast.Sub)
                else a * b
            )
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            return len(ev(node.args[0]))
        raise AssertionError(f"cannot read index formula {expr!r}")

    return int(ev(tree))


def indices(cell: str, names: Mapping[str, object]) -> list[int]:
    """The indices a table's first cell names: ``3``, ``3 .. 2+k``, ``k = 1..len(f)``."""
    cell = re.sub(r"^\s*\w+\s*=\s*", "", cell.strip().strip("`"))
    if ".." in cell:
        lo, hi = cell.split("..")
        return list(range(_eval_index(lo, names), _eval_index(hi, names) + 1))
    return [_eval_index(cell, names)]


def action_table(text: str) -> list[list[str]]:
    """Rows of the first table headed ``action | meaning`` or ``index | action``."""
    for header, rows in md_tables(text):
        if [h.lower() for h in header[:2]] in (["action", "meaning"], ["index", "action"]):
            return rows
    raise AssertionError("no action table (| action | meaning |) found")


def meanings(rows: list[list[str]], names: Mapping[str, object], n: int) -> list[str]:
    """Each index's meaning cell; every index 0..n-1 named by exactly one row."""
    found: dict[int, str] = {}
    for row in rows:
        for i in indices(row[0], names):
            assert i not in found, f"index {i} in two rows ({row[0]!r})"
            found[i] = row[1]
    assert sorted(found) == list(range(n)), (
        f"the table names {sorted(found)}, the space is Discrete({n})"
    )
    return [found[i] for i in range(n)]


def classify(text: str, keywords: Mapping[str, str]) -> str:
    """The kind of action a meaning cell describes: its first keyword."""
    hits = [(text.find(k), kind) for k, kind in keywords.items() if k in text]
    assert hits, f"no known kind of action in {text!r}"
    return min(hits)[1]


DRAW_KINDS = {
    "DROP": "drop",
    "passive": "passive",
    "fraction": "size",
    "all-in": "all-in",
    "discard": "discard",
    "BUY_BACK": "buy-back",
}
HOLDEM_KINDS = {
    "fold": "fold",
    "check": "call",
    "min-raise": "min-raise",
    "raise to": "size",
    "all-in": "all-in",
}
RED_DOG_KINDS = {"FORFEIT": "forfeit", "bet": "bet"}


def _draw_names(env: FiveCardDrawEnv) -> dict[str, object]:
    return {"K": len(env.pot_fractions) + 1}


def _holdem_names(env: HoldemEnv) -> dict[str, object]:
    return {"k": len(env.fractions)}


def _red_dog_names(env: RedDogEnv) -> dict[str, object]:
    return {"bet_fractions": tuple(env.fractions.tolist())}


GAMES = {
    "draw": (
        "draw.md",
        [
            FiveCardDrawEnv,
            lambda: FiveCardDrawEnv(pot_fractions=(1.0,)),
            lambda: DrawMatchEnv(pot_fractions=(0.25, 0.5, 0.75, 1.0, 1.5)),
        ],
        _draw_names,
        DRAW_KINDS,
    ),
    "red_dog": (
        "red_dog.md",
        [RedDogEnv, lambda: RedDogEnv(bet_fractions=(0.5, 1.0))],
        _red_dog_names,
        RED_DOG_KINDS,
    ),
    "holdem": (
        "holdem.md",
        [HoldemEnv, lambda: HoldemEnv(raise_fractions=(1.0,))],
        _holdem_names,
        HOLDEM_KINDS,
    ),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_docs_action_table_covers_the_action_space(game: str) -> None:
    page, makers, names_of, kinds = GAMES[game]
    text = (DOCS / page).read_text(encoding="utf-8")
    rows = action_table(text)
    for make in makers:
        env = make()
        n = int(env.action_space.n)
        for meaning in meanings(rows, names_of(env), n):
            classify(meaning, kinds)
        # Every Discrete(formula) the page and the env's docstring state.
        for source in (text, type(env).__doc__ or ""):
            for formula in re.findall(r"Discrete\(((?:[^()]|\([^()]*\))*)\)", source):
                assert _eval_index(formula, names_of(env)) == n, (page, formula)
    default_n = int(makers[0]().action_space.n)
    stated_counts = re.findall(r"(?:so|by default) (\d+) actions", text)
    assert stated_counts, f"{page} does not say how many actions the default space has"
    for stated in stated_counts:
        assert int(stated) == default_n, (
            f"{page} says {stated} actions; the default space is Discrete({default_n})"
        )


@pytest.mark.parametrize("game", ["draw", "holdem"])
def test_docs_action_table_means_what_the_env_docstring_says(game: str) -> None:
    page, makers, names_of, kinds = GAMES[game]
    doc_rows = action_table((DOCS / page).read_text(encoding="utf-8"))
    for make in makers:
        env = make()
        n, names = int(env.action_space.n), names_of(env)
        ours = [classify(m, kinds) for m in meanings(doc_rows, names, n)]
        theirs = [
            classify(m, kinds) for m in meanings(action_table(type(env).__doc__ or ""), names, n)
        ]
        assert ours == theirs, (page, type(env).__name__)


def _kinds(game: str, env: Any) -> list[str]:
    page, _, names_of, kinds = GAMES[game]
    rows = action_table((DOCS / page).read_text(encoding="utf-8"))
    return [classify(m, kinds) for m in meanings(rows, names_of(env), int(env.action_space.n))]


@pytest.mark.parametrize("pot_fractions", [(0.5, 1.0, 2.0), (1.0,)])
def test_draw_doc_indices_do_what_they_say(pot_fractions: tuple[float, ...]) -> None:
    # Random legal play in the match env as the computer (so her buy-backs come up):
    # what the mask allows in each phase is what the docs' kinds say.
    env = DrawMatchEnv(agent_seat="computer", pot_fractions=pot_fractions)
    kinds = np.array(_kinds("draw", env))
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    seen = set()
    for step in range(4000):
        legal = set(np.flatnonzero(info["action_mask"]).tolist())
        phase = int(obs[57])  # 0 pre-draw, 1 draw, 2 post-draw, 4 buy-back
        seen.add(phase)
        by_kind = {k: set(np.flatnonzero(kinds == k).tolist()) for k in set(kinds)}
        if phase == 1:
            assert legal == by_kind["discard"]
        elif phase == 4:
            assert legal == by_kind["passive"] | by_kind["buy-back"]
        else:
            assert {0, 1} <= legal and not legal & (by_kind["discard"] | by_kind["buy-back"])
            assert (
                legal <= by_kind["drop"] | by_kind["passive"] | by_kind["size"] | by_kind["all-in"]
            )
        obs, _, terminated, truncated, info = env.step(int(rng.choice(sorted(legal))))
        if terminated or truncated:
            obs, info = env.reset(seed=step)
    assert {0, 1, 2, 4} <= seen, seen


@pytest.mark.parametrize("bet_fractions", [(0.0, 0.25, 0.5, 0.75, 1.0), (0.5, 1.0)])
def test_red_dog_doc_indices_do_what_they_say(bet_fractions: tuple[float, ...]) -> None:
    env = RedDogEnv(num_players=3, bet_fractions=bet_fractions)
    kinds = _kinds("red_dog", env)
    total = 3 * 50
    for seed in range(12):
        obs, _ = env.reset(seed=seed)
        action = seed % len(kinds)
        largest = min(round(obs[156] * total), round(obs[157] * total))
        _, _, _, _, info = env.step(action)
        settled = info["last_bet"]
        assert settled["kind"] == kinds[action]
        if kinds[action] == "forfeit":
            assert settled["amount"] == 1
        else:  # docs: the fraction of the largest legal bet, rounded down, at least 1
            assert settled["amount"] == max(1, int(bet_fractions[action - 1] * largest))


def test_holdem_doc_indices_do_what_they_say() -> None:
    env = HoldemEnv(num_players=3, seat=0)
    kinds = _kinds("holdem", env)
    folds = calls = 0
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        mask = info["action_mask"]
        to_call = float(obs[109])
        assert mask[kinds.index("call")] == 1
        assert mask[kinds.index("fold")] == (to_call > 0)  # fold only when facing a bet
        action = (
            kinds.index("fold") if mask[kinds.index("fold")] and seed % 2 else kinds.index("call")
        )
        _, _, terminated, _, info = env.step(action)
        assert not info["illegal_action"]
        if kinds[action] == "fold":
            folds += 1
            assert terminated
            assert [s.outcome for s in info["last_hand"].seats if s.seat == 0] == ["folded"]
        else:
            calls += 1
    assert folds and calls


# --- Links ---------------------------------------------------------------------------


def _user_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _slug(heading: str) -> str:
    # GitHub's anchors: lower case, punctuation dropped (hyphens kept), spaces to hyphens.
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_no_page_points_at_the_rule_book_outside_the_repository() -> None:
    for path in [*_user_pages(), ROOT / "pyproject.toml"]:
        text = path.read_text(encoding="utf-8")
        assert "shared/RULES.md" not in text, (
            f"{path.name} points at shared/RULES.md, outside the repository"
        )
    assert "(docs/rules.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", _user_pages(), ids=lambda p: p.name)
def test_relative_links_reach_files_and_headings(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto
        file_part, _, anchor = target.partition("#")
        path = (page.parent / file_part).resolve() if file_part else page
        assert path.exists(), f"{page.name}: link {target!r} reaches no file"
        assert ROOT in path.parents or path == ROOT, (
            f"{page.name}: link {target!r} leaves the repository"
        )
        if anchor and path.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
            assert anchor in {_slug(h) for h in headings}, f"{page.name}: no heading for {target!r}"


# --- docs/rules.md's worked examples against the engines ------------------------------


def _escape_examples() -> list[tuple[int, int, tuple[int, int, int]]]:
    """(seats, leaver, (dealer, small blind, big blind) after) from rules.md §3's examples."""
    text = " ".join(RULES.read_text(encoding="utf-8").split())  # one line: examples wrap
    out = []
    for label, body in re.findall(
        r"(six seats|Three-handed), dealer 0, small blind 1, big blind 2: (.*?\.)(?: |$)", text
    ):
        seats = 6 if label == "six seats" else 3
        for leaver, after in re.findall(r"seat (\d+) leaves -> ([^;]*?)(?:;|\.$)", body):
            roles = {"dealer": 0, "small blind": 1, "big blind": 2}  # unchanged unless named
            for name, seat in re.findall(
                r"(dealer and small blind|dealer|small blind|big blind) (\d+)", after
            ):
                for role in (
                    ("dealer", "small blind") if name == "dealer and small blind" else (name,)
                ):
                    roles[role] = int(seat)
            out.append(
                (seats, int(leaver), (roles["dealer"], roles["small blind"], roles["big blind"]))
            )
    return out


def test_rules_md_escape_examples_are_what_the_engine_does() -> None:
    from poker_env.games.holdem import HoldemGame

    examples = _escape_examples()
    assert len(examples) == 6, examples  # three at six seats, three three-handed
    for seats, leaver, want in examples:
        game = HoldemGame(HoldemConfig(num_seats=seats), rng=np.random.default_rng(0))
        game.start_hand(button=0)
        assert game.roles() == (0, 1, 2)
        game.leave(leaver)
        assert game.roles() == want, (seats, leaver)


@pytest.mark.parametrize(
    ("doc", "heading"),
    [("holdem.md", "## Engine API"), ("draw.md", "## The engine"), ("red_dog.md", "## Engine API")],
)
def test_the_engine_examples_run(
    doc: str, heading: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first Python block under each game's engine heading runs as written (the
    Hold'em one once ended in a call that raises for the hand it had just played)."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    block = text[text.index(heading) :].split("```python", 1)[1].split("```", 1)[0]
    exec(compile(block, f"{doc} ({heading})", "exec"), {"__name__": "__doc_example__"})
