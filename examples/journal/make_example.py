#!/usr/bin/env python3
"""Writes the change journal's example (docs/OPTIMIZE.md "Change journal"): a FOCUS 1.2 export of
three training runs on AWS, 2025-04-07..2025-05-18, a dcgm-exporter scrape of run r5's hosts, and
truth.json, the daily unit costs as planted. Made up (no real account behind it), seeded and
deterministic, with a known truth that README.md in this folder states and
tests/unit/governance/journal_example_test.cc checks:

- run r3 (p4d.24xlarge, 2 to 5 instances a day): from 2025-04-21 every instance-hour costs 20 %
  less (a savings plan: lever pricing-reserved); daily noise of 3 % on the price;
- run r4 (g6.48xlarge, 2 or 3 instances): a change recorded on 2025-04-21 (comm-overlap) that
  changes nothing: the same price, the same noise;
- run r5 (g6.48xlarge, 2 instances, telemetry): from 2025-04-21 its GPUs are busy a quarter of the
  time instead of 60 % (a data-loader change gone wrong); its price does not move. The change is
  recorded with the guardrail min_gpu_activity=40%.

Prices are data/instances.yaml's us-east-1 on-demand rates (as examples/optimize-ledger uses).

    python3 examples/journal/make_example.py   # rewrites the three files beside this script
"""
import datetime as dt
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "optimize-ledger"))
import make_example as fleet  # noqa: E402  (the FOCUS row and instance prices)

FIRST = dt.date(2025, 4, 7)   # a Monday
LAST = dt.date(2025, 5, 18)   # a Sunday, inclusive
CHANGE = dt.date(2025, 4, 21)
NOISE = 0.03                  # relative sd of a day's price
TRUTH = {"r3": -0.20, "r4": 0.0, "r5": 0.0}  # the planted change of the price per GPU-hour
ACTIVITY = {"before": 0.60, "after": 0.25}   # r5's mean SM_ACTIVE


def charges(rng):
    out, truth = [], {}
    day = FIRST
    while day <= LAST:
        after = day >= CHANGE
        for run, instance, count in (("r3", fleet.P4D, rng.randint(2, 5)), ("r4", fleet.G6_48, rng.randint(2, 3)),
                                     ("r5", fleet.G6_48, 2)):
            factor = (1 + (TRUTH[run] if after else 0.0)) * (1 + rng.gauss(0, NOISE))
            for i in range(count):
                name = f"i-{run}-{i}"
                out.append(fleet.row(day, instance, "us-east-1", fleet.arn("us-east-1", name),
                                     {"team": "llm-train", "run": run},
                                     effective=24 * instance["od"] * factor))
            # The day's cost per GPU-hour as planted (all of the run's instances at one price).
            truth.setdefault(run, {})[day.isoformat()] = instance["od"] * factor / instance["gpus"]
        day += dt.timedelta(days=1)
    return out, truth


def telemetry(rng):
    """SM_ACTIVE of run r5's two hosts, hourly, one GPU each: about 60 % busy before the change,
    25 % after."""
    lines = list(fleet.SM_ACTIVE_HEAD)
    start = dt.datetime.combine(FIRST, dt.time(), dt.timezone.utc)
    change = dt.datetime.combine(CHANGE, dt.time(), dt.timezone.utc)
    hours = ((LAST - FIRST).days + 1) * 24
    for host in ("i-r5-0", "i-r5-1"):
        labels = fleet.dcgm_labels(host, 0, "NVIDIA A10G")
        for h in range(hours):
            t = start + dt.timedelta(hours=h)
            mean = ACTIVITY["after" if t >= change else "before"]
            sm = min(1.0, max(0.0, rng.gauss(mean, 0.05)))
            lines.append(f"DCGM_FI_PROF_SM_ACTIVE{{{labels}}} {sm:.3f} {int(t.timestamp()) * 1000}")
    return "\n".join(lines) + "\n"


def main():
    rng = random.Random(20250421)
    rows, truth = charges(rng)
    fleet.write_example(HERE, "focus-training-runs-2025-04.csv", fleet.COLUMNS, rows,
                        "dcgm-run-r5-2025-04.prom", telemetry(rng))
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump({"change_day": CHANGE.isoformat(), "planted_effect": TRUTH, "activity": ACTIVITY,
                   "cost_per_gpu_hour": truth}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
