"""Nothing of this project imports the bare ``agents`` package.

The repository folder ``agents/`` is installed and imported as ``poker_env_agents``
(README "Installed from the wheel"): ``agents`` is another package's top-level name
(openai-agents), so an import of it would load that package, or nothing, once installed.
Every tracked source, notebook and page is read for an import of ``agents`` or a
dotted name of one of its modules (``agents.<module>``, as a mock's target names one).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".ipynb", ".md", ".toml", ".cfg", ".ini", ".txt", ".yml", ".yaml"}

#: The modules and subpackages of the repository folder (agents/opponent.py, agents/play/...).
SUBMODULES = sorted(
    p.stem
    for p in (ROOT / "agents").iterdir()
    if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
)
BARE = "agents"
PATTERNS = [
    # `import agents`, `import agents.x`, `from agents import`, `from agents.x import`
    # (a statement: at the start of a line, or of a notebook's JSON source string)
    re.compile(rf'^\s*"?\s*(?:import|from)\s+{BARE}(?![\w/-])'),
    # a dotted module name as text (agents.<module>: a mock's target, a docs page)
    re.compile(rf"(?<![\w./-]){BARE}\.(?:{'|'.join(SUBMODULES)})\b"),
]


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [
        ROOT / f
        for f in out.split("\0")
        if f and Path(f).suffix in SUFFIXES and (ROOT / f).is_file()
    ]


def test_the_patterns_catch_a_bare_import() -> None:
    """The check itself: the forms that load the bare package are caught, this
    project's own name and the repository paths are not."""
    caught = [
        f"import {BARE}",
        f"from {BARE}.opponent import MODELS_DIR",
        f"    from {BARE} import runtime",
        f'    "from {BARE}.registry import GAMES\\n",',
        f'monkeypatch.setattr("{BARE}.opponent.MODELS_DIR", tmp_path)',
        f"import numpy, {BARE}.runtime",
    ]
    passed = [
        "from poker_env_agents.opponent import MODELS_DIR",
        "import poker_env_agents.runtime",
        f"python scripts/train.py --config {BARE}/configs/draw52.toml",
        f"see docs/{BARE}.md",
        '"poker_env_agents.opponent.MODELS_DIR"',
        "the pages, loaded from agents on the web",
    ]
    assert "opponent" in SUBMODULES and "play" in SUBMODULES
    for line in caught:
        assert any(p.search(line) for p in PATTERNS), line
    for line in passed:
        assert not any(p.search(line) for p in PATTERNS), line


def test_no_tracked_file_imports_the_bare_agents_package() -> None:
    files = _tracked()
    assert any(f.name == "opponent.py" for f in files)
    hits = []
    for path in files:
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(p.search(line) for p in PATTERNS):
                hits.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert hits == [], "\n".join(hits)
