#!/usr/bin/env python3
"""The quantities and prices tests/unit/billing/ocp_test.cc and samples_test.cc expect of koku's
OpenShift reports, computed with Python's csv module, apart from aicost's reader: pods hold
max(usage, request) (koku's effective usage), memory and storage in GiB (2^30 bytes), storage in
GiB-months of the calendar month of each hour. Prices: rates.yaml, summed in exact decimals after
rounding each row to the nano-unit (half away from zero), as a ledger row is."""
import calendar
import csv
import os
from decimal import Decimal, ROUND_HALF_UP

here = os.path.dirname(os.path.abspath(__file__))
CPU, MEMORY, STORAGE = Decimal("0.031611"), Decimal("0.004237"), Decimal("0.04")


def nanos(rate, quantity):
    return (rate * Decimal(quantity)).quantize(Decimal("1e-9"), rounding=ROUND_HALF_UP)


pods = list(csv.DictReader(open(os.path.join(here, "pod_usage.csv"))))
cores = [max(float(r["pod_usage_cpu_core_seconds"]), float(r["pod_request_cpu_core_seconds"])) / 3600 for r in pods]
gib = [max(float(r["pod_usage_memory_byte_seconds"]), float(r["pod_request_memory_byte_seconds"])) / 3600 / 2**30
       for r in pods]
print("pod_usage.csv", len(pods), "rows:", sum(cores), "core-hours,", sum(gib), "GiB-hours,",
      sum(nanos(CPU, q) for q in cores) + sum(nanos(MEMORY, q) for q in gib), "USD")

vols = list(csv.DictReader(open(os.path.join(here, "storage_usage.csv"))))
months = []
for r in vols:
    held = max(float(r[c]) for c in ("persistentvolumeclaim_capacity_byte_seconds",
                                       "volume_request_storage_byte_seconds",
                                       "persistentvolumeclaim_usage_byte_seconds"))
    days = calendar.monthrange(int(r["interval_start"][:4]), int(r["interval_start"][5:7]))[1]
    months.append(held / 2**30 / 3600 / (24 * days))
print("storage_usage.csv", len(vols), "rows:", sum(months), "GiB-months,",
      sum(nanos(STORAGE, q) for q in months), "USD")
