"""The analysis notebooks (notebooks/*.ipynb) run top to bottom, on small budgets.

Each notebook has one cell tagged ``parameters`` (papermill's convention); the test
inserts a cell after it with the small budgets below (as papermill injects its
parameters) and runs the notebook in a fresh kernel with nbclient. A cell that
raises fails the test; so does a notebook that shows fewer figures than it promises.
The runner is ``scripts/run_notebooks.py`` (which people use too). Outputs are never
written back: the committed notebooks stay without outputs (``scripts/check_notebooks.py``,
run by ``make lint`` and by a test below).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

# The notebooks extra (make install): no skip when missing, the notebooks must run.
import ipykernel  # noqa: F401
import matplotlib  # noqa: F401
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def _load_runner() -> Any:
    # scripts/ is not a package: load scripts/run_notebooks.py by its path.
    spec = importlib.util.spec_from_file_location(
        "run_notebooks", ROOT / "scripts" / "run_notebooks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = _load_runner()

#: The small budgets of the test runs, and the figures each notebook must show.
SMALL: dict[str, tuple[dict[str, Any], int]] = {
    "01_hands_and_equity.ipynb": (
        {"seven_card_samples": 100_000, "preflop_samples": 500},
        6,
    ),
    "02_red_dog.ipynb": (
        {
            "train_timesteps": 2048,
            "decisions": 1500,
            "value_decisions": 4096,
            "long_game_rounds": 12,
        },
        4,
    ),
    "03_training.ipynb": (
        {
            "timesteps": 4096,
            "checkpoint_every": 2048,
            "eval_hands": 256,
            "lbr_hands": 8,
            "train_options": {"num_tables": 32, "n_steps": 32, "batch_size": 256},
        },
        4,
    ),
    "04_how_the_agents_play.ipynb": (
        {
            "train_timesteps": 2048,
            "draw_tables": 64,
            "draw_steps": 40,
            "match_tables": 32,
            "match_steps": 150,
            "holdem_hands": 120,
        },
        5,
    ),
    "05_head_to_head.ipynb": (
        {"train_timesteps": 2048, "hands": 256},
        2,
    ),
}


def test_every_notebook_has_a_test_budget() -> None:
    found = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert found == sorted(SMALL)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_the_test_budgets_name_real_parameters(name: str) -> None:
    # A renamed parameter would otherwise leave the test running the full budget.
    assert set(SMALL[name][0]) <= runner.parameter_names(NOTEBOOKS / name)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_on_a_small_budget(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kernel inherits the environment: one BLAS thread (the notebooks set it too),
    # and matplotlib's cache in the test's folder.
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    parameters, figures = SMALL[name]
    nb, seconds = runner.run_notebook(NOTEBOOKS / name, parameters, tmp_path, timeout=600)
    images = sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )
    print(f"{name}: {seconds:.0f} s, {images} figures")
    assert images >= figures, f"{name} showed {images} figures, expected at least {figures}"


def test_committed_notebooks_hold_no_outputs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_notebooks.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_check_refuses_outputs_and_execution_counts(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    ok = nbformat.v4.new_code_cell("x = 1")
    ok.metadata["tags"] = ["parameters"]
    nb.cells = [ok]
    clean = tmp_path / "clean.ipynb"
    nbformat.write(nb, clean)
    ran = nbformat.v4.new_code_cell("print(1)", execution_count=3)
    ran.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells.append(ran)
    dirty = tmp_path / "dirty.ipynb"
    nbformat.write(nb, dirty)
    script = str(ROOT / "scripts" / "check_notebooks.py")

    def check(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, script, str(path)], capture_output=True, text=True)

    assert check(clean).returncode == 0
    bad = check(dirty)
    assert bad.returncode == 1
    assert "dirty.ipynb" in bad.stdout and "cell 1" in bad.stdout
    assert "outputs" in bad.stdout and "execution count" in bad.stdout
    # A notebook without a parameters cell is refused too (the tests inject budgets there).
    nb.cells = [nbformat.v4.new_code_cell("x = 1")]
    untagged = tmp_path / "untagged.ipynb"
    nbformat.write(nb, untagged)
    out = check(untagged)
    assert out.returncode == 1 and "parameters" in out.stdout
