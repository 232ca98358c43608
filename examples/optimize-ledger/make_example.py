#!/usr/bin/env python3
"""Writes the ledger optimiser's example (docs/OPTIMIZE.md "Ledger"): a FOCUS 1.2 export of a GPU
fleet on AWS, 2025-03-10..2025-05-18, and a dcgm-exporter scrape of its dev pool over the last four
weeks. Made up (no real account behind it), seeded and deterministic, with a known truth that
README.md in this folder states and tests/unit/optimize/ledger_levers_test.cc checks:

- p4d.24xlarge in us-east-1: six instances always, a seventh on most days, bursts of one to four
  more now and then, all on demand;
- g6.48xlarge in us-west-2: three instances always, one or two more on some days; a reservation of
  four instances (CommitmentDiscountId ri-g6-4x) covers the first four, the rest of it is Unused;
- a dev pool of three g6.xlarge in us-west-2, billed around the clock, whose GPUs work weekdays
  08:00-20:00 UTC and idle nights and weekends, but for one job on i-dev1 on the night of
  Wednesday 2025-05-07, 22:00-02:00;
- an evaluation server i-eval0 (environment: dev), one p5.48xlarge (8 x H100 80GB) in us-east-1 on demand, billed
  around the clock from 2025-04-21, whose eight GPUs each run at SM_ACTIVE 0.06-0.10 with 5-6 GiB
  of memory used (DCGM_FI_DEV_FB_USED): at most 0.8 of one H100's work and 48 GiB in any hour, so
  one p5.4xlarge (1 x H100 80GB) carries it with the 10 % capacity and memory buffers free.

Prices are data/instances.yaml's us-east-1 on-demand and reserved-1y rates, used for both regions.

    python3 examples/optimize-ledger/make_example.py   # rewrites the two files beside this script
"""
import csv
import datetime as dt
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST = dt.date(2025, 3, 10)  # a Monday
LAST = dt.date(2025, 5, 18)   # a Sunday, inclusive
TELEMETRY_FIRST = dt.date(2025, 4, 21)  # four whole weeks before 2025-05-19
COLUMNS = [
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd",
    "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency",
    "ChargePeriodEnd", "ChargePeriodStart", "CommitmentDiscountId", "CommitmentDiscountStatus",
    "ConsumedQuantity", "ConsumedUnit", "ContractedCost", "EffectiveCost", "InvoiceIssuerName", "ListCost",
    "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName", "PublisherName", "RegionId",
    "ResourceId", "ResourceName", "ResourceType", "ServiceCategory", "ServiceName", "SkuId",
    "SkuPriceDetails", "SubAccountId", "SubAccountName", "Tags",
]
EC2 = "Amazon Elastic Compute Cloud"
# data/instances.yaml (vantage snapshot 2026-01-21), USD per instance-hour.
P4D = {"type": "p4d.24xlarge", "gpus": 8, "od": 21.957642}
P5 = {"type": "p5.48xlarge", "gpus": 8, "od": 55.04}
G6_48 = {"type": "g6.48xlarge", "gpus": 8, "od": 13.3504, "ri": 8.69111}
G6_1 = {"type": "g6.xlarge", "gpus": 1, "od": 0.8048}
RI = "arn:aws:ec2:us-west-2:111122223333:reserved-instances/ri-g6-4x"
RI_COUNT = 4


# The head of a dcgm-exporter scrape's SM_ACTIVE series.
SM_ACTIVE_HEAD = ["# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned.",
                  "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge"]


def dcgm_labels(host, gpu, model):
    """A GPU's labels as dcgm-exporter writes them."""
    return f'gpu="{gpu}",UUID="GPU-{host}-{gpu}",device="nvidia{gpu}",modelName="{model}",Hostname="{host}"'


def write_example(here, focus_name, columns, rows, dcgm_name, dcgm_text):
    """Writes an example's FOCUS export (`rows` under `columns`) and its dcgm-exporter scrape into
    the folder `here`."""
    with open(os.path.join(here, focus_name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(here, dcgm_name), "w") as f:
        f.write(dcgm_text)


def iso(d):
    return d.strftime("%Y-%m-%dT00:00:00Z")


def row(day, instance, region, resource, tags, *, hours=24.0, effective=None, billed=None, pricing="Standard",
        commitment="", status="", rtype="Instance", description=None):
    start = day.replace(day=1)
    end = (start + dt.timedelta(days=32)).replace(day=1)
    od = hours * instance["od"]
    eff = od if effective is None else effective
    return {
        "BilledCost": f"{eff if billed is None else billed:.6f}", "BillingAccountId": "999900002222",
        "BillingAccountName": "Example GPU Fleet", "BillingCurrency": "USD", "BillingPeriodEnd": iso(end),
        "BillingPeriodStart": iso(start), "ChargeCategory": "Usage", "ChargeClass": "",
        "ChargeDescription": description or f"{instance['type']} {'On Demand' if pricing == 'Standard' else 'Reserved'}",
        "ChargeFrequency": "Usage-Based", "ChargePeriodEnd": iso(day + dt.timedelta(days=1)),
        "ChargePeriodStart": iso(day), "CommitmentDiscountId": commitment, "CommitmentDiscountStatus": status,
        "ConsumedQuantity": f"{hours:g}", "ConsumedUnit": "Hours", "ContractedCost": f"{od:.6f}",
        "EffectiveCost": f"{eff:.6f}",
        "InvoiceIssuerName": "Amazon Web Services, Inc.", "ListCost": f"{od:.6f}", "PricingCategory": pricing,
        "PricingQuantity": f"{hours:g}", "PricingUnit": "Hours", "ProviderName": "AWS",
        "PublisherName": "Amazon Web Services, Inc.", "RegionId": region, "ResourceId": resource,
        "ResourceName": resource.rsplit("/", 1)[-1], "ResourceType": rtype, "ServiceCategory": "Compute",
        "ServiceName": EC2, "SkuId": instance["type"],
        "SkuPriceDetails": json.dumps({"InstanceType": instance["type"], "GpuCount": instance["gpus"]}),
        "SubAccountId": "111122223333", "SubAccountName": "ml", "Tags": json.dumps(tags),
    }


def arn(region, name):
    return f"arn:aws:ec2:{region}:111122223333:instance/{name}"


def charges():
    rng = random.Random(20250519)
    out = []
    bursts = []  # (first day, last day, p4d instances)
    day = FIRST
    while day <= LAST:
        # p4d, us-east-1: six always, a seventh on about four days in five, bursts of 1-4 more.
        p4d = 6 + (1 if rng.random() < 0.8 else 0)
        if rng.random() < 0.12:
            bursts.append((day, day + dt.timedelta(days=rng.randint(1, 4)), rng.randint(1, 4)))
        p4d += sum(n for first, last, n in bursts if first <= day <= last)
        for i in range(p4d):
            out.append(row(day, P4D, "us-east-1", arn("us-east-1", f"i-train{i}"),
                           {"team": "llm-train", "environment": "prod"}))
        # g6.48xlarge, us-west-2: three always, one or two more on about three days in ten; the
        # reservation covers four, the rest of it is billed as Unused.
        g6 = 3 + (rng.randint(1, 2) if rng.random() < 0.3 else 0)
        for i in range(g6):
            covered = i < RI_COUNT
            out.append(row(day, G6_48, "us-west-2", arn("us-west-2", f"i-serve{i}"),
                           {"team": "llm-serve", "environment": "prod"},
                           effective=24 * G6_48["ri"] if covered else None, billed=0.0 if covered else None,
                           pricing="Committed" if covered else "Standard", commitment=RI if covered else "",
                           status="Used" if covered else ""))
        if g6 < RI_COUNT:
            unused = 24.0 * (RI_COUNT - g6)
            out.append(row(day, G6_48, "us-west-2", RI, {}, hours=unused, effective=unused * G6_48["ri"],
                           billed=0.0, pricing="Committed", commitment=RI, status="Unused",
                           rtype="ReservedInstance", description="g6.48xlarge reservation, unused hours"))
        # The evaluation server, from the telemetry's first day.
        if day >= TELEMETRY_FIRST:
            out.append(row(day, P5, "us-east-1", arn("us-east-1", "i-eval0"), {"team": "llm-eval", "environment": "dev"}))
        # The dev pool: billed around the clock.
        for i in range(3):
            out.append(row(day, G6_1, "us-west-2", arn("us-west-2", f"i-dev{i}"),
                           {"team": "research", "environment": "dev"}))
        day += dt.timedelta(days=1)
    return out


def telemetry():
    """SM_ACTIVE of the dev pool, hourly: work weekdays 08:00-20:00 UTC, idle otherwise, and one
    night job on i-dev1 (2025-05-07 22:00 to 2025-05-08 02:00)."""
    rng = random.Random(7)
    lines = list(SM_ACTIVE_HEAD)
    start = dt.datetime.combine(TELEMETRY_FIRST, dt.time(), dt.timezone.utc)
    night_job = (dt.datetime(2025, 5, 7, 22, tzinfo=dt.timezone.utc), dt.datetime(2025, 5, 8, 2, tzinfo=dt.timezone.utc))
    for host in ("i-dev0", "i-dev1", "i-dev2"):
        labels = dcgm_labels(host, 0, "NVIDIA L4")
        for h in range(28 * 24):
            t = start + dt.timedelta(hours=h)
            busy = t.weekday() < 5 and 8 <= t.hour < 20
            if host == "i-dev1" and night_job[0] <= t < night_job[1]:
                busy = True
            sm = rng.uniform(0.3, 0.6) if busy else rng.uniform(0.0, 0.02)
            lines.append(f"DCGM_FI_PROF_SM_ACTIVE{{{labels}}} {sm:.3f} {int(t.timestamp()) * 1000}")
    # i-eval0: eight H100s, each lightly loaded around the clock (FB_USED in MiB, as dcgm-exporter writes it).
    rng = random.Random(11)
    memory = ["# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).", "# TYPE DCGM_FI_DEV_FB_USED gauge"]
    for g in range(8):
        labels = dcgm_labels("i-eval0", g, "NVIDIA H100 80GB HBM3")
        for h in range(28 * 24):
            ms = (int((start + dt.timedelta(hours=h)).timestamp())) * 1000
            lines.append(f"DCGM_FI_PROF_SM_ACTIVE{{{labels}}} {rng.uniform(0.06, 0.10):.3f} {ms}")
            memory.append(f"DCGM_FI_DEV_FB_USED{{{labels}}} {rng.randint(5 * 1024, 6 * 1024)} {ms}")
    return "\n".join(lines + memory) + "\n"


def main():
    write_example(HERE, "focus-gpu-fleet-2025-03-05.csv", COLUMNS, charges(),
                  "dcgm-dev-pool-2025-04-05.prom", telemetry())


if __name__ == "__main__":
    main()
