"""The bench's reading of another process's CPU time (bench/processes.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from bench.processes import cpu_seconds


def test_another_processs_cpu_is_read_finer_than_procs_ticks() -> None:
    spin = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass\n"
    child = subprocess.Popen([sys.executable, "-c", spin + "time.sleep(5)"])
    try:
        readings = []
        for _ in range(50):
            readings.append(cpu_seconds(child.pid))
            time.sleep(0.02)
            if readings[-1] >= 0.2:
                break
        # /proc's ticks are 10 ms apart; the CPU-time clock reads between them.
        ticks = 1 / os.sysconf("SC_CLK_TCK")
        assert any(round(reading / ticks, 6) % 1 for reading in readings if reading)
        assert readings[-1] >= 0.2
    finally:
        child.kill()
        child.wait()


def test_this_process_reads_as_its_own_cpu_clock() -> None:
    before = time.process_time()
    read = cpu_seconds(os.getpid())
    assert before <= read <= time.process_time()
