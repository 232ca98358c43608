"""CPU time of `import aicost` and of its first and second estimate of examples/gpt3-175b-a100.yaml,
in a fresh process per run (docs/PYTHON.md "Speed"; target: import and one estimate < 50 ms).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_import_estimate.py [RUNS]

Run from the repository root. CPU time (resource.getrusage: user + system) rather than wall time,
so a machine shared with other work inflates it less; the load average is printed with it."""

import os
import subprocess
import sys

ONE_RUN = r"""
import resource
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t0 = cpu()
import aicost
t1 = cpu()
aicost.estimate("examples/gpt3-175b-a100.yaml")
t2 = cpu()
aicost.estimate("examples/gpt3-175b-a100.yaml")
t3 = cpu()
print((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3)
"""


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rows = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", ONE_RUN], check=True, capture_output=True, text=True)
        rows.append([float(x) for x in out.stdout.split()])
    together = sorted(r[0] + r[1] for r in rows)
    print("load average %.1f; %d runs, CPU ms: import %.1f-%.1f, first estimate %.1f-%.1f, next %.1f-%.1f; "
          "import + first estimate median %.1f (min %.1f, max %.1f)" % (
              os.getloadavg()[0], runs, min(r[0] for r in rows), max(r[0] for r in rows),
              min(r[1] for r in rows), max(r[1] for r in rows), min(r[2] for r in rows), max(r[2] for r in rows),
              together[len(together) // 2], together[0], together[-1]))


if __name__ == "__main__":
    main()
