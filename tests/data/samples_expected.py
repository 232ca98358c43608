#!/usr/bin/env python3
"""What every billing sample should ingest as, computed apart from aicost's readers with Python's
csv module and exact decimals: rows loaded, rows rejected and BilledCost per currency. Prints the
table of tests/unit/billing/samples_test.cc (paste it there when a sample changes).

Rules, per format (docs/LEDGER.md, "What it reads"): FOCUS BilledCost in BillingCurrency (XXX when
the file has none); AWS CUR lineItem/NetUnblendedCost else lineItem/UnblendedCost; Azure the first
cost column of CostInBillingCurrency, Cost, PreTaxCost (a localised header 'Kosten (PreTaxCost)'
counts as its English name in parentheses; case ignored), a row without one rejected; GCP cost;
OCI cost/myCost; OpenCost TotalCost in USD; Slurm GPU-hours (jobs, not steps) x the card below,
one row per UTC day and GPU type; OpenShift as tests/data/ocp/expected.py (usage priced by the
card); dcgm CSV: the samples of the metrics the ledger keeps, no money."""
import calendar
import csv
import datetime
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.path.join(root, "..", "shared", "data", "billing-samples")
# The test's rate card (samples_test.cc kRates).
RATES = {"h100": Decimal("2.10"), "a100": Decimal("1.29"), "": Decimal("1.29"), "cpu": Decimal("0.031611"),
         "memory": Decimal("0.004237"), "storage": Decimal("0.04")}
NANO = Decimal("1e-9")


def rows_of(path, delimiter=","):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f, delimiter=delimiter))


def column(header, *names):
    for n in names:
        for i, h in enumerate(header):
            h = h.strip()
            if h.lower() == n.lower() or h.lower().endswith("(" + n.lower() + ")"):
                return i
    return -1


def money(text):
    text = text.strip().strip('"')
    return None if text in ("", "NULL", "null") else Decimal(text)


def by_cost(path, cost_names, currency_names, fixed_currency=None):
    rows = rows_of(path)
    header, body = rows[0], [r for r in rows[1:] if r and any(c.strip() for c in r)]
    costs = [column(header, n) for n in cost_names]
    currency = column(header, *currency_names) if currency_names else -1
    totals, loaded, rejected = {}, 0, 0
    for r in body:
        value = None
        for c in costs:
            if c >= 0 and c < len(r) and money(r[c]) is not None:
                value = money(r[c])
                break
        if value is None:
            rejected += 1
            continue
        cur = fixed_currency or (r[currency].strip().upper() if 0 <= currency < len(r) and r[currency].strip() else "XXX")
        totals[cur] = totals.get(cur, Decimal(0)) + value
        loaded += 1
    return loaded, rejected, totals


def slurm(path):
    rows = rows_of(path, "|")
    header = rows[0]
    at = {n: header.index(n) for n in header}
    totals, loaded = Decimal(0), 0
    for r in rows[1:]:
        if not r or "." in r[at["JobID"]] or r[at["Start"]] in ("Unknown", "None", ""):
            continue
        gpus, typed = {}, 0
        total = None
        for item in r[at["AllocTRES"]].split(","):
            name, _, count = item.partition("=")
            if name == "gres/gpu":
                total = int(count)
            elif name.startswith("gres/gpu:"):
                gpus[name[len("gres/gpu:"):]] = int(count)
                typed += int(count)
        total = max(total if total is not None else typed, typed)
        if total > typed:
            gpus[""] = total - typed
        if not total:
            continue
        d, _, hms = r[at["Elapsed"]].rpartition("-")
        h, m, s = (int(x) for x in hms.split(":"))
        seconds = (int(d or 0) * 24 + h) * 3600 + m * 60 + s
        start = datetime.datetime.fromisoformat(r[at["Start"]]).replace(tzinfo=datetime.timezone.utc).timestamp()
        t, stop = int(start), int(start) + seconds
        while t < stop:
            end = min(stop, (t // 86400 + 1) * 86400)
            for gpu_type, count in gpus.items():
                hours = Decimal(count) * Decimal(end - t) / Decimal(3600)
                totals += (RATES[gpu_type.lower()] * hours).quantize(NANO, rounding=ROUND_HALF_UP)
                loaded += 1
            t = end
    return loaded, 0, {"USD": totals}


def ocp(path):
    rows = list(csv.DictReader(open(path, newline="")))
    total, loaded = Decimal(0), 0
    for r in rows:
        if "pod_usage_cpu_core_seconds" in r:
            cores = max(float(r["pod_usage_cpu_core_seconds"]), float(r["pod_request_cpu_core_seconds"])) / 3600
            gib = max(float(r["pod_usage_memory_byte_seconds"]), float(r["pod_request_memory_byte_seconds"])) / 3600 / 2**30
            total += (RATES["cpu"] * Decimal(cores)).quantize(NANO, rounding=ROUND_HALF_UP)
            total += (RATES["memory"] * Decimal(gib)).quantize(NANO, rounding=ROUND_HALF_UP)
            loaded += 2
        else:
            held = max(float(r[c]) for c in ("persistentvolumeclaim_capacity_byte_seconds",
                                               "volume_request_storage_byte_seconds",
                                               "persistentvolumeclaim_usage_byte_seconds"))
            days = calendar.monthrange(int(r["interval_start"][:4]), int(r["interval_start"][5:7]))[1]
            total += (RATES["storage"] * Decimal(held / 2**30 / 3600 / (24 * days))).quantize(NANO, rounding=ROUND_HALF_UP)
            loaded += 1
    return loaded, 0, {"USD": total}


KEPT = re.compile(r"^(DCGM_FI_DEV_GPU_UTIL|DCGM_FI_PROF_SM_ACTIVE|DCGM_FI_PROF_GR_ENGINE_ACTIVE|"
                  r"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE|DCGM_FI_PROF_DRAM_ACTIVE|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_FREE|"
                  r"DCGM_FI_DEV_POWER_USAGE|DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION)$")


def dcgm_csv(path):
    rows = list(csv.DictReader(open(path, newline="")))
    return sum(1 for r in rows if KEPT.match(r["metric"])), 0, {}


FILES = [
    # (where, path, format version, rule)
    ("shared", "focus-sample-data/focus_sample.csv", "focus-1.0", lambda p: by_cost(p, ["BilledCost"], ["BillingCurrency"])),
] + [("shared", "focus-spec-examples/" + f, None, lambda p: by_cost(p, ["BilledCost"], ["BillingCurrency"]))
     for f in sorted(os.listdir(os.path.join(shared, "focus-spec-examples")))] + [
    ("shared", "focus-converters/aws_cur_legacy_sample-anonymous-aws-export-dataset.csv", "aws-cur",
     lambda p: by_cost(p, ["lineItem/NetUnblendedCost", "lineItem/UnblendedCost"], ["lineItem/CurrencyCode"])),
    ("shared", "koku/aws_test_cur.csv", "aws-cur",
     lambda p: by_cost(p, ["lineItem/NetUnblendedCost", "lineItem/UnblendedCost"], ["lineItem/CurrencyCode"])),
] + [("shared", f, "azure", lambda p: by_cost(p, ["CostInBillingCurrency", "Cost", "PreTaxCost"],
                                             ["BillingCurrencyCode", "BillingCurrency", "Currency"]))
     for f in ["focus-converters/azure_ea_sample-anonymous-ea-export-dataset.csv", "koku/azure_costreport_legacy.csv",
               "koku/azure_version_2.csv", "microsoft-finops-toolkit/EA_ActualCost_Small.csv",
               "microsoft-finops-toolkit/EA_AmortizedCost_Small.csv"] +
        ["opencost/azure_billingexport_headersets_%s.csv" % s
         for s in ("BOM", "Enterprise", "EnterpriseCamel", "German", "PayAsYouGo", "YA")] +
        ["opencost/azure_billingexport_values_%s.csv" % s for s in ("MissingBrackets", "Template", "VirtualMachine")]] + [
    ("shared", "koku/gcp_billing_export_202011_2020-11-08_2020-11-11.csv", "gcp", lambda p: by_cost(p, ["cost"], ["currency"])),
    ("shared", "koku/gcp_billing_export_2022-08-01_5.csv", "gcp", lambda p: by_cost(p, ["cost"], ["currency"])),
    ("shared", "focus-converters/oci_reports_cost-csv_0000000030000269.csv", "oci",
     lambda p: by_cost(p, ["cost/myCost"], ["cost/currencyCode"])),
    ("shared", "koku/ocp_pod_usage_February-2019-my-ocp-cluster-1.csv", "ocp-pod", ocp),
    ("shared", "koku/ocp_storage_usage.csv", "ocp-storage", ocp),
    ("shared", "datadog-dcgm-fixture/dcgm_exporter_metrics_fixture.csv", "dcgm-csv", dcgm_csv),
    ("repo", "tests/data/ocp/pod_usage.csv", "ocp-pod", ocp),
    ("repo", "tests/data/ocp/storage_usage.csv", "ocp-storage", ocp),
    ("repo", "tests/data/opencost/export.csv", "opencost", lambda p: by_cost(p, ["TotalCost"], [], "USD")),
    ("repo", "examples/usage/opencost-2025-06.csv", "opencost", lambda p: by_cost(p, ["TotalCost"], [], "USD")),
    ("repo", "examples/usage/sacct-atlas-2025-06.txt", "slurm", slurm),
    ("repo", "examples/ledger/focus-ai-lab-2025-06.csv", None, lambda p: by_cost(p, ["BilledCost"], ["BillingCurrency"])),
]

for where, rel, version, rule in FILES:
    path = os.path.join(shared if where == "shared" else root, rel)
    loaded, rejected, totals = rule(path)
    money_text = ",".join("%s=%s" % (k, format(v.quantize(NANO) if v != v.to_integral() or True else v, "f"))
                          for k, v in sorted(totals.items()))
    print('    {"%s", "%s", %d, %d, "%s"},' % (where, rel, loaded, rejected, money_text))
