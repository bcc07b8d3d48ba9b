"""Check that the committed notebooks hold no outputs (``make lint``).

Usage: ``python scripts/check_notebooks.py [NOTEBOOK_OR_FOLDER ...]`` (default:
``notebooks/``). Fails (exit 1), naming the notebook and the cell, when a code cell
has outputs or an execution count, or when a notebook has no cell tagged
``parameters`` (the tests inject their small budgets after it). Clear a notebook
with ``jupyter nbconvert --clear-output --inplace NOTEBOOK`` (or "Clear All Outputs"
in Jupyter) before committing it.

Reads the notebook JSON with the standard library only, so it runs anywhere.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def problems(path: Path) -> list[str]:
    """What is wrong with the notebook at ``path`` (an empty list when nothing)."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [f"{path}: not a readable notebook ({exc})"]
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return [f"{path}: not a notebook (no list of cells)"]
    found = []
    tagged = 0
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            found.append(f"{path}: cell {i} is not an object")
            continue
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            tagged += 1
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            found.append(f"{path}: cell {i} has outputs (clear them before committing)")
        if cell.get("execution_count") is not None:
            found.append(f"{path}: cell {i} has an execution count (clear it before committing)")
    if tagged != 1:
        found.append(f"{path}: {tagged} cells tagged 'parameters', want exactly 1")
    return found


def main(argv: list[str]) -> int:
    targets = [Path(a) for a in argv] or [ROOT / "notebooks"]
    paths: list[Path] = []
    for t in targets:
        paths.extend(sorted(t.glob("*.ipynb")) if t.is_dir() else [t])
    if not paths:
        print(f"no notebooks found in {', '.join(map(str, targets))}")
        return 1
    found = [p for path in paths for p in problems(path)]
    for line in found:
        print(line)
    if not found:
        print(f"{len(paths)} notebooks, no outputs, each with a parameters cell")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
