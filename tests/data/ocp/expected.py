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

# koku-metrics-operator's upload of one hour (operator/, README.md), priced by operator_rates.yaml:
# GPU-hours = gpu_pod_uptime / 3600, times slices / gpu_max_slices for a MIG instance
# (profile "<n>g.<m>gb"); storage by class.
GPU = Decimal("0.95")
CLASS = {"gp3-csi": Decimal("0.085899346"), "gp2": Decimal("0.107374182")}
op = os.path.join(here, "operator")
gpus = list(csv.DictReader(open(os.path.join(op, "cm-openshift-nvidia-gpu-usage-202011.csv"))))
gpu_hours = []
for r in gpus:
    share = 1
    if r["mig_profile"]:
        share = int(r["mig_profile"].split("g.")[0]) / float(r["gpu_max_slices"])
    gpu_hours.append(float(r["gpu_pod_uptime"]) / 3600 * share)
print("operator GPU", len(gpus), "rows:", sum(gpu_hours), "GPU-hours,", sum(nanos(GPU, q) for q in gpu_hours), "USD")
pods = list(csv.DictReader(open(os.path.join(op, "cm-openshift-pod-usage-202011.csv"))))
cores = [max(float(r["pod_usage_cpu_core_seconds"] or 0), float(r["pod_request_cpu_core_seconds"] or 0)) / 3600
         for r in pods]
gib = [max(float(r["pod_usage_memory_byte_seconds"] or 0), float(r["pod_request_memory_byte_seconds"] or 0))
       / 3600 / 2**30 for r in pods]
pod_usd = sum(nanos(CPU, q) for q in cores) + sum(nanos(MEMORY, q) for q in gib)
print("operator pods", len(pods), "rows:", sum(cores), "core-hours,", sum(gib), "GiB-hours,", pod_usd, "USD")
vols = list(csv.DictReader(open(os.path.join(op, "cm-openshift-storage-usage-202011.csv"))))
vol_usd = Decimal(0)
for r in vols:
    held = max(float(r[c] or 0) for c in ("persistentvolumeclaim_capacity_byte_seconds",
                                           "volume_request_storage_byte_seconds",
                                           "persistentvolumeclaim_usage_byte_seconds"))
    q = held / 2**30 / 3600 / (24 * 30)  # November
    vol_usd += nanos(CLASS[r["storageclass"]], q)
    print("  volume", r["persistentvolume"], r["storageclass"], q, "GiB-months")
# Virtual machines: VM-hours = vm_uptime_total_seconds / 3600, at koku's development cost model's
# vm_cost_per_hour (operator_rates.yaml).
VM = Decimal("0.007")
vms = list(csv.DictReader(open(os.path.join(op, "cm-openshift-vm-usage-202011.csv"))))
vm_hours = [float(r["vm_uptime_total_seconds"]) / 3600 for r in vms]
vm_usd = sum(nanos(VM, q) for q in vm_hours)
print("operator VMs", len(vms), "rows:", sum(vm_hours), "VM-hours,", vm_usd, "USD")
print("operator upload:", 2 * len(pods) + len(vols) + len(gpus) + len(vms), "rows,",
      sum(nanos(GPU, q) for q in gpu_hours) + pod_usd + vol_usd + vm_usd, "USD")

# Node labels (node_labels.csv) on koku's pods (pod_usage.csv): the pod rows whose own labels lack
# key1, and so take it from their node's labels of the day.
node_keys = {}
for r in csv.DictReader(open(os.path.join(here, "node_labels.csv"))):
    day = (r["node"], r["interval_start"][:10])
    for item in r["node_labels"].split("|"):
        k, _, v = item.partition(":")
        node_keys.setdefault(day, {}).setdefault(k[6:], v)
pods = list(csv.DictReader(open(os.path.join(here, "pod_usage.csv"))))
lacking = [r for r in pods if "label_key1:" not in r["pod_labels"]]
print("pod_usage.csv rows without key1:", len(lacking), "; node alpha's labels each day:",
      sorted(set(tuple(sorted(v.items())) for v in node_keys.values())))
