#!/usr/bin/env python3
"""Writes the usage example: six weeks (2025-05-04..2025-06-14) of an on-prem GPU cluster "atlas"
as Slurm accounting (`sacct --parsable2`, jobs and their steps) and of a Kubernetes cluster as an
OpenCost allocation export. Made up (no real cluster behind it), deterministic. The Kubernetes
costs use OpenCost's default prices (configs/default.json in github.com/opencost/opencost, "based
on GCP us-central1": GPU 0.95 USD/GPU-h, CPU 0.031611 USD/core-h, RAM 0.004237 USD/GiB-h;
../shared/data/billing-samples/opencost/default_pricing.json). The Slurm usage has no prices:
rates.yaml gives them.

    python3 examples/usage/make_example.py   # rewrites the two files beside this script

sacct was run as
    TZ=UTC sacct --allusers --parsable2 --starttime 2025-05-04 --endtime 2025-06-15 \
        --format=JobID,JobName,User,Account,Partition,Start,End,Elapsed,AllocTRES,State
at 2025-06-15T00:00:00Z: one job is still running (End Unknown).
"""
import datetime as dt
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST = dt.datetime(2025, 5, 4)
DAYS = (dt.datetime(2025, 6, 15) - FIRST).days
NOW = dt.datetime(2025, 6, 15)  # when sacct ran
GPU_H, CPU_H, GIB_H = 0.95, 0.031611, 0.004237  # OpenCost defaults, USD per hour


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def elapsed(seconds):
    days, rest = divmod(int(seconds), 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return (f"{days}-" if days else "") + f"{h:02d}:{m:02d}:{s:02d}"


def tres(gpus, gpu_type, nodes, cpus_per_gpu=8, mem_per_node="1000G"):
    cpus = max(gpus, 1) * cpus_per_gpu if gpus else 16
    parts = [f"billing={cpus}", f"cpu={cpus}"]
    if gpus:
        parts.append(f"gres/gpu={gpus}")
        if gpu_type:
            parts.append(f"gres/gpu:{gpu_type}={gpus}")
    parts += [f"mem={mem_per_node}", f"node={nodes}"]
    return ",".join(parts)


def slurm():
    rng = random.Random(18)
    jobs = []  # (start, seconds or None while running, name, user, account, partition, gpus, type, nodes, state)
    # llm: 16-GPU pre-training runs back to back (the last still going), nightly 8-GPU evaluations.
    start = FIRST + dt.timedelta(hours=8)
    while True:
        hours = rng.randrange(96, 132)
        if start + dt.timedelta(hours=hours) >= NOW:
            jobs.append((start, None, "pretrain", "ana", "llm", "h100", 16, "h100", 2, "RUNNING"))
            break
        jobs.append((start, hours * 3600, "pretrain", "ana", "llm", "h100", 16, "h100", 2, "COMPLETED"))
        start += dt.timedelta(hours=hours + rng.randrange(12, 40))
    for day in range(DAYS - 1):  # the last night's run ends after sacct ran
        start = FIRST + dt.timedelta(days=day, hours=22, minutes=rng.randrange(0, 30))
        jobs.append((start, rng.randrange(90, 150) * 60, "nightly-eval", "bo", "llm", "h100", 8, "h100", 1, "COMPLETED"))
    # vision: two or three 4-GPU fine-tunes a day, one of them failing early.
    for day in range(DAYS):
        for _ in range(rng.choice([2, 3])):
            start = FIRST + dt.timedelta(days=day, hours=rng.randrange(7, 17))
            jobs.append((start, rng.randrange(3, 7) * 3600, "finetune-vit", "chen", "vision", "a100", 4, "a100", 1,
                         "COMPLETED"))
    jobs.append((dt.datetime(2025, 6, 9, 9), 420, "finetune-vit", "chen", "vision", "a100", 4, "a100", 1, "FAILED"))
    # teaching: the old nodes, whose gres has no type (AllocTRES gres/gpu=2 alone).
    for day in range(0, DAYS, 2):
        start = FIRST + dt.timedelta(days=day, hours=10)
        jobs.append((start, 3 * 3600, "lab", "dev", "teaching", "legacy", 2, "", 1, "COMPLETED"))
    # A CPU job and a job still pending: neither is GPU usage.
    jobs.append((dt.datetime(2025, 6, 5, 12), 5 * 3600, "preprocess", "chen", "vision", "cpu", 0, "", 1, "COMPLETED"))
    jobs.sort(key=lambda j: j[0])
    lines = ["JobID|JobName|User|Account|Partition|Start|End|Elapsed|AllocTRES|State"]
    for n, (start, secs, name, user, account, partition, gpus, gpu_type, nodes, state) in enumerate(jobs):
        job = str(4100 + n)
        run = secs if secs is not None else (NOW - start).total_seconds()
        end = stamp(start + dt.timedelta(seconds=run)) if secs is not None else "Unknown"
        alloc = tres(gpus, gpu_type, nodes)
        lines.append(f"{job}|{name}|{user}|{account}|{partition}|{stamp(start)}|{end}|{elapsed(run)}|{alloc}|{state}")
        # The steps: each holds the job's GPUs again; only the job's own line counts.
        step_state = "CANCELLED" if state == "RUNNING" else state
        for step, step_name in (("batch", "batch"), ("extern", "extern"), ("0", "python")):
            lines.append(f"{job}.{step}|{step_name}||{account}||{stamp(start)}|{end}|{elapsed(run)}|"
                         f"{alloc.replace('billing=', 'x=').split(',', 1)[1]}|"
                         f"{'RUNNING' if state == 'RUNNING' else step_state}")
    lines.append("4199|sweep||llm|h100|Unknown|Unknown|00:00:00|billing=64,cpu=64,gres/gpu=8,node=1|PENDING")
    with open(os.path.join(HERE, "sacct-atlas-2025-06.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def opencost():
    header = ("Date,Namespace,ControllerKind,ControllerName,Pod,Container,CPUCoreUsageAverage,CPUCoreRequestAverage,"
              "RAMBytesUsageAverage,RAMBytesRequestAverage,NetworkReceiveBytes,NetworkTransferBytes,GPUs,PVBytes,"
              "CPUCost,RAMCost,NetworkCost,PVCost,GPUCost,TotalCost,Labels")
    rng = random.Random(9)
    pods = [  # namespace, kind, controller, pod, container, GPUs, CPU cores requested, RAM GiB requested, team
        ("llm-serve", "deployment", "vllm-70b", "vllm-70b-6d9f-x2k4q", "vllm", 4, 32, 256, "llm"),
        ("llm-serve", "deployment", "vllm-70b", "vllm-70b-6d9f-p7c2m", "vllm", 4, 32, 256, "llm"),
        ("notebooks", "statefulset", "jupyter-chen", "jupyter-chen-0", "notebook", 1, 8, 64, "vision"),
        ("monitoring", "daemonset", "dcgm-exporter", "dcgm-exporter-5xq8w", "dcgm-exporter", 0, 0.5, 1, "platform"),
    ]
    rows = [header]
    for day in range(DAYS):
        date = (FIRST + dt.timedelta(days=day)).strftime("%Y-%m-%d")
        for ns, kind, controller, pod, container, gpus, cpu, ram, team in pods:
            cpu_used = round(cpu * rng.uniform(0.2, 0.7), 4)
            ram_used = ram * rng.uniform(0.3, 0.8)
            cpu_cost = round(cpu * 24 * CPU_H, 6)
            ram_cost = round(ram * 24 * GIB_H, 6)
            gpu_cost = round(gpus * 24 * GPU_H, 6)
            total = round(cpu_cost + ram_cost + gpu_cost, 6)
            labels = '"{""app"":""' + controller + '"",""team"":""' + team + '""}"'
            rows.append(f"{date},{ns},{kind},{controller},{pod},{container},{cpu_used},{cpu},"
                        f"{int(ram_used * 2**30)},{ram * 2**30},{rng.randrange(10**8, 10**9)},"
                        f"{rng.randrange(10**8, 10**9)},{gpus},0,{cpu_cost},{ram_cost},0,0,{gpu_cost},{total},{labels}")
    with open(os.path.join(HERE, "opencost-2025-06.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    slurm()
    opencost()
