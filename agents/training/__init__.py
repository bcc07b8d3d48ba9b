"""Training: SB3's masked PPO over the batched envs (:mod:`.train`), self-play, MMD,
RLlib and OpenSpiel's methods, checkpoints and export.

Importing this package pins torch's CPU kernels to their AVX2 versions on an x86-64
CPU that has AVX2 (``ATEN_CPU_CAPABILITY=avx2``, unless the variable is already set):
torch otherwise takes its AVX-512 kernels where the CPU has them, whose float results
differ in the last bits, and a run diverges from there. The same seed trained a
different policy on an AVX-512 machine than on an AVX2 one (``make demo`` on
2026-12-04: against the random bot +6.309 and +7.420 antes a hand); with the pin,
the AVX-512 machine gives the AVX2 machine's run to the last digit. torch reads
the variable at its first CPU kernel, so this holds as long as nothing ran on torch
before the import.
"""

from __future__ import annotations

import os
import platform


def _cpu_has_avx2() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return "avx2" in line.split(":", 1)[1].split()
    except OSError:
        pass
    return False


if (
    "ATEN_CPU_CAPABILITY" not in os.environ
    and platform.machine().lower() in ("x86_64", "amd64")
    and _cpu_has_avx2()
):
    os.environ["ATEN_CPU_CAPABILITY"] = "avx2"
