"""The training package pins torch's CPU kernels to AVX2 on x86-64 (agents/training):
the same seed must train the same policy on an AVX2 and on an AVX-512 machine, and
torch's AVX-512 kernels round differently."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from tests.cpu import cpu_flags

pytest.importorskip("torch")


def _capability(env: dict[str, str], first: str) -> str:
    # A fresh process: torch reads the variable at its first CPU kernel.
    code = f"{first}\nimport torch\nprint(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64") or "avx2" not in cpu_flags(),
    reason="the pin is for x86-64 CPUs with AVX2",
)
def test_importing_the_training_package_pins_torch_to_avx2_kernels() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    assert _capability(env, "import poker_env_agents.training") == "AVX2"
    # Also when torch itself was imported first (nothing ran on it yet).
    assert _capability(env, "import torch\nimport poker_env_agents.training.train") == "AVX2"
    # A value the user set is kept.
    assert (
        _capability({**env, "ATEN_CPU_CAPABILITY": "default"}, "import poker_env_agents.training")
        == "DEFAULT"
    )
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= cpu_flags():
        # Without the package, torch takes its AVX-512 kernels here: the pin is what differs.
        assert _capability(env, "pass") == "AVX512"
