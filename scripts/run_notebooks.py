"""Run the analysis notebooks top to bottom, without a Jupyter front end.

Usage::

    python scripts/run_notebooks.py                              # every notebook, its defaults
    python scripts/run_notebooks.py 02_red_dog --set decisions=50000 --set num_players=6
    python scripts/run_notebooks.py 03_training --params '{"timesteps": 1000000}' --out runs/nb

Each notebook's cell tagged ``parameters`` holds its budget (papermill's convention);
``--set NAME=VALUE`` (a Python literal, else text) and ``--params JSON`` override it
with a cell inserted right after it, as papermill does. The executed notebooks, with
their outputs and figures, are written to ``--out`` (default ``runs/notebooks/``, which
git ignores), and the time each took is printed. Exit status 1 when a notebook fails
(its error is printed). ``tests/test_notebooks.py`` runs every notebook through
:func:`run_notebook` with small budgets.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def parameters_cell(nb: Any, name: str = "notebook") -> int:
    """The index of the notebook's one cell tagged ``parameters``."""
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    if len(tagged) != 1:
        raise ValueError(f"{name}: {len(tagged)} cells tagged 'parameters', want exactly 1")
    return tagged[0]


def parameter_names(path: Path) -> set[str]:
    """The names that the notebook's ``parameters`` cell assigns."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    cell = nb.cells[parameters_cell(nb, path.name)]
    names = set()
    for node in ast.parse(cell.source).body:
        if not isinstance(node, ast.Assign):
            raise ValueError(f"{path.name}: the parameters cell holds more than assignments")
        names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def run_notebook(
    path: Path, parameters: dict[str, Any], cwd: Path, timeout: int = 3600
) -> tuple[Any, float]:
    """Execute the notebook at ``path`` in a fresh kernel whose working folder is
    ``cwd``, with ``parameters`` injected after its ``parameters`` cell.

    Returns the executed notebook (outputs included) and the seconds it took.

    Raises:
        ValueError: a parameter the ``parameters`` cell does not assign, or not exactly
            one such cell.
        nbclient.exceptions.CellExecutionError: a cell raised (its traceback included).
    """
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    at = parameters_cell(nb, path.name)
    unknown = sorted(set(parameters) - parameter_names(path))
    if unknown:
        raise ValueError(
            f"{path.name} has no parameter {unknown}; it has {sorted(parameter_names(path))}"
        )
    if parameters:
        cell = nbformat.v4.new_code_cell("\n".join(f"{k} = {v!r}" for k, v in parameters.items()))
        cell.metadata["tags"] = ["injected-parameters"]
        nb.cells.insert(at + 1, cell)
    client = nbclient.NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    )
    t0 = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - t0


def _value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _find(name: str) -> Path:
    for p in (Path(name), NOTEBOOKS / name, NOTEBOOKS / f"{name}.ipynb"):
        if p.is_file():
            return p
    known = ", ".join(p.stem for p in sorted(NOTEBOOKS.glob("*.ipynb")))
    raise SystemExit(f"no notebook {name!r}; known: {known}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebooks", nargs="*", help="names (02_red_dog) or paths; default: all")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--params", default="{}", help="a JSON object of parameters")
    p.add_argument("--out", default=str(ROOT / "runs" / "notebooks"))
    p.add_argument("--timeout", type=int, default=3600, help="seconds per cell")
    args = p.parse_args(argv)
    params = json.loads(args.params)
    if not isinstance(params, dict):
        raise SystemExit("--params must be a JSON object")
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"--set wants NAME=VALUE, got {item!r}")
        params[key] = _value(value)
    paths = [_find(n) for n in args.notebooks] or sorted(NOTEBOOKS.glob("*.ipynb"))
    names = {path: parameter_names(path) for path in paths}
    unknown = sorted(set(params) - set().union(*names.values()))
    if unknown:
        raise SystemExit(f"no notebook among those run has the parameters {unknown}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # One BLAS thread for the kernels (the notebooks set it too; see their first cell).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import nbformat
    from nbclient.exceptions import CellExecutionError

    failed = 0
    for path in paths:
        mine = {k: v for k, v in params.items() if k in names[path]}
        try:
            nb, seconds = run_notebook(path, mine, out, timeout=args.timeout)
        except CellExecutionError as exc:
            failed += 1
            print(f"{path.name}: FAILED\n{exc}")
            continue
        nbformat.write(nb, out / path.name)
        print(f"{path.name}: {seconds:.0f} s -> {out / path.name}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
