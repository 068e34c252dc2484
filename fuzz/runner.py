"""``fuzz/run TARGET SECONDS``: fuzz one target for a wall-clock budget and keep what it finds.

libFuzzer stops at the first crash; this runner restarts it until the time is
up, so one finding does not end a long run. Everything goes under
``fuzz/findings/TARGET/`` (gitignored): the growing corpus, crash / timeout /
OOM inputs, libFuzzer's log, and ``stats.json`` with the executions, peak RSS
and findings of the run (summed over restarts).

An input libFuzzer saved is replayed in a fresh interpreter before it counts
as a finding: under atheris a long run's process grows by a few hundred
bytes per execution (replayed without atheris, the same inputs do not) until
the address-space cap (fuzz.contract.limit_address_space) stops it, and the
input it happened to be running is saved although it does nothing wrong.
Those are listed under ``unreproduced`` instead; a process that reaches the
cap without saving anything is restarted too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from fuzz.contract import HEADROOM
from fuzz.seeds import seed_dirs

FUZZ = Path(__file__).resolve().parent
FINDINGS = FUZZ / "findings"
TIMEOUT = 5  # seconds per input: a slower input is a hang
RSS_LIMIT_MB = 2048
MAX_LEN = {"read": 128 * 1024, "decrypt": 128 * 1024, "footer": 64 * 1024, "decode": 16 * 1024}
_STATUS = re.compile(r"^#(\d+)\s.*?(?:exec/s: (\d+))?.*?rss: (\d+)Mb", re.MULTILINE)
_TARGETS = ("read", "footer", "decode", "decrypt")


def _command(target: str, work: Path, seconds: int, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "fuzz.harness", target, f"-max_total_time={seconds}", f"-timeout={TIMEOUT}",
            f"-rss_limit_mb={RSS_LIMIT_MB}", f"-max_len={MAX_LEN[target]}", f"-artifact_prefix={work}/",
            "-print_final_stats=1", *extra, str(work / "corpus"), *map(str, seed_dirs(target))]


def _parse(log: str) -> tuple[int, int]:
    """(executions, peak RSS in MB) from one libFuzzer log."""
    execs = rss = 0
    for match in _STATUS.finditer(log):
        execs = max(execs, int(match.group(1)))
        rss = max(rss, int(match.group(3)))
    final = re.search(r"stat::number_of_executed_units: (\d+)", log)
    peak = re.search(r"stat::peak_rss_mb: (\d+)", log)
    return (int(final.group(1)) if final else execs), max(rss, int(peak.group(1)) if peak else 0)


def run(target: str, seconds: int, extra: list[str]) -> dict:
    work = FINDINGS / target
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + seconds
    stats = {"target": target, "seconds": seconds, "executions": 0, "peak_rss_mb": 0, "restarts": 0,
             "findings": [], "unreproduced": []}
    with open(work / "log.txt", "a") as log_file:
        while (left := int(deadline - time.monotonic())) > 1:
            before = set(os.listdir(work))
            proc = subprocess.run(_command(target, work, left, extra), capture_output=True, text=True,
                                  errors="replace", cwd=FUZZ.parent)
            log_file.write(proc.stderr)
            execs, rss = _parse(proc.stderr)
            stats["executions"] += execs
            stats["peak_rss_mb"] = max(stats["peak_rss_mb"], rss)
            new = sorted(set(os.listdir(work)) - before - {"log.txt", "stats.json"})
            for name in new:
                stats["findings" if _reproduces(target, work / name) else "unreproduced"].append(name)
            if proc.returncode == 0:
                break
            stats["restarts"] += 1
            if not new and not _grown_out(rss):  # failed without an input to show for it: do not spin
                stats["error"] = f"exit {proc.returncode}: {proc.stderr[-1500:]}"
                break
    (work / "stats.json").write_text(json.dumps(stats, indent=1))
    return stats


def _grown_out(rss_mb: int) -> bool:
    """Whether a process that ended without saving an input had reached the
    harness's address-space cap (the growth the module docstring describes):
    then the run goes on in a fresh process."""
    return rss_mb >= 0.9 * HEADROOM / 2**20


def _reproduces(target: str, path: Path) -> bool:
    """Whether ``path`` breaks the contract again in a fresh process (fuzz.replay),
    or takes it past the harness's time and memory limits."""
    try:
        replayed = subprocess.run([sys.executable, "-m", "fuzz.replay", target, "--limited", str(path)],
                                  capture_output=True,
                                  timeout=TIMEOUT * 4, cwd=FUZZ.parent)
    except subprocess.TimeoutExpired:
        return True
    return replayed.returncode != 0


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] not in _TARGETS or not argv[2].isdigit():
        print(f"usage: fuzz/run {{{','.join(_TARGETS)}}} SECONDS [libFuzzer options]", file=sys.stderr)
        return 2
    stats = run(argv[1], int(argv[2]), argv[3:])
    print(json.dumps(stats))
    return 1 if stats["findings"] or "error" in stats else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
