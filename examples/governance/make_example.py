#!/usr/bin/env python3
"""Writes the governance example's ledger: a FOCUS 1.2 export and a dcgm-exporter scrape for a
small AI lab on AWS, 2025-04-28..2025-06-27. Made up (no real account behind it), deterministic,
with one case of every budget alert, anomaly and waste type `aicost ledger check` finds
(README.md in this folder lists them). Prices follow data/instances.yaml (p5.48xlarge on demand
55.04 USD/h, as in atlas-70b-plan.json) and AWS list prices.

    python3 examples/governance/make_example.py   # rewrites the two files beside this script
"""
import datetime as dt
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "optimize-ledger"))
import make_example as fleet  # noqa: E402  (dcgm-exporter labels, writing the two files)

FIRST = dt.date(2025, 4, 28)
LAST = dt.date(2025, 6, 27)  # inclusive
COLUMNS = [
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd",
    "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency",
    "ChargePeriodEnd", "ChargePeriodStart", "CommitmentDiscountId", "CommitmentDiscountStatus",
    "ConsumedQuantity", "ConsumedUnit", "ContractedCost", "EffectiveCost", "InvoiceIssuerName", "ListCost",
    "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName", "PublisherName", "RegionId",
    "ResourceId", "ResourceName", "ResourceType", "ServiceCategory", "ServiceName", "ServiceSubcategory",
    "SkuId", "SkuPriceDetails", "SubAccountId", "SubAccountName", "Tags", "InvoiceId",
]
EC2 = "Amazon Elastic Compute Cloud"
P5_HOUR = 55.04       # p5.48xlarge on demand, USD/h (8 H100)
P4D_HOUR = 32.7726    # p4d.24xlarge on demand (8 A100)
G5_12XL_HOUR = 5.672  # g5.12xlarge (4 A10G)
SM_P4D_HOUR = 37.688  # ml.p4d.24xlarge on SageMaker
SM_G5_HOUR = 1.515    # ml.g5.2xlarge notebook


def iso(d):
    return d.strftime("%Y-%m-%dT00:00:00Z")


def month_bounds(d):
    start = d.replace(day=1)
    end = (start + dt.timedelta(days=32)).replace(day=1)
    return start, end


def row(day, cost, service, category, resource, rtype, description, tags, *, quantity=24, unit="Hours",
        region="us-east-1", account=("111122223333", "ml-training"), sku="", gpus=None, instance="",
        pricing="Standard", commitment="", status="", billed=None, list_cost=None):
    start, end = month_bounds(day)
    details = {"InstanceType": instance, "GpuCount": gpus} if gpus else {}
    return {
        "BilledCost": f"{cost if billed is None else billed:.6f}", "BillingAccountId": "999900001111",
        "BillingAccountName": "Example AI Lab", "BillingCurrency": "USD", "BillingPeriodEnd": iso(end),
        "BillingPeriodStart": iso(start), "ChargeCategory": "Usage", "ChargeClass": "",
        "ChargeDescription": description, "ChargeFrequency": "Usage-Based",
        "ChargePeriodEnd": iso(day + dt.timedelta(days=1)), "ChargePeriodStart": iso(day),
        "CommitmentDiscountId": commitment, "CommitmentDiscountStatus": status,
        "ConsumedQuantity": f"{quantity:g}", "ConsumedUnit": unit, "ContractedCost": f"{cost:.6f}",
        "EffectiveCost": f"{cost:.6f}", "InvoiceIssuerName": "Amazon Web Services, Inc.",
        "ListCost": f"{cost if list_cost is None else list_cost:.6f}", "PricingCategory": pricing,
        "PricingQuantity": f"{quantity:g}", "PricingUnit": unit, "ProviderName": "AWS",
        "PublisherName": "Amazon Web Services, Inc.", "RegionId": region, "ResourceId": resource,
        "ResourceName": resource.rsplit("/", 1)[-1].rsplit(":", 1)[-1], "ResourceType": rtype,
        "ServiceCategory": category, "ServiceName": service, "ServiceSubcategory": "", "SkuId": sku,
        "SkuPriceDetails": json.dumps(details) if details else "", "SubAccountId": account[0],
        "SubAccountName": account[1], "Tags": json.dumps(tags) if tags else "", "InvoiceId": "INV-" + start.strftime("%Y-%m"),
    }


def charges():
    rng = random.Random(20250628)
    out = []
    day = FIRST
    while day <= LAST:
        weekend = day.weekday() >= 5
        # Inference fleet (llm-serve): three p4d on weekdays, two at weekends.
        for i in range(2 if weekend else 3):
            out.append(row(day, 24 * P4D_HOUR, EC2, "Compute", f"arn:aws:ec2:us-east-1:444455556666:instance/i-serve{i}",
                           "Instance", "p4d.24xlarge On Demand", {"team": "llm-serve", "project": "atlas", "service": "chat",
                           "environment": "prod"}, account=("444455556666", "ml-serving"), sku="P4D-24XL", gpus=8,
                           instance="p4d.24xlarge"))
        # Pre-training run atlas-70b-pretrain-r3 on four p5 from 2025-06-16 (the plan said 10.3 days).
        if day >= dt.date(2025, 6, 16):
            for i in range(4):
                out.append(row(day, 24 * P5_HOUR, EC2, "Compute", f"arn:aws:ec2:us-east-1:111122223333:instance/i-atlas{i}",
                               "Instance", "p5.48xlarge On Demand", {"team": "llm-train", "project": "atlas",
                               "model": "atlas-70b", "run": "atlas-70b-pretrain-r3", "environment": "prod"},
                               sku="P5-48XL", gpus=8, instance="p5.48xlarge"))
        # Research notebooks every weekday, and a SageMaker training burst on 06-23 and 06-24.
        if not weekend:
            for i in range(3):
                out.append(row(day, 10 * SM_G5_HOUR, "Amazon SageMaker", "AI and Machine Learning",
                               f"arn:aws:sagemaker:us-east-1:111122223333:notebook-instance/nb-research{i}",
                               "Notebook", "ml.g5.2xlarge notebook", {"team": "research", "environment": "dev"},
                               quantity=10, sku="ML-G5-2XL"))
        if day in (dt.date(2025, 6, 23), dt.date(2025, 6, 24)):
            for i in range(8):
                out.append(row(day, 24 * SM_P4D_HOUR, "Amazon SageMaker", "AI and Machine Learning",
                               f"arn:aws:sagemaker:us-east-1:111122223333:training-job/sweep-lr-{i}", "TrainingJob",
                               "ml.p4d.24xlarge training", {"team": "research", "environment": "dev",
                               "experiment": "lr-sweep"}, sku="ML-P4D-24XL", gpus=8, instance="ml.p4d.24xlarge"))
        # A dev GPU box started 2025-05-02 and never stopped: dev-tagged, no team.
        if day >= dt.date(2025, 5, 2):
            out.append(row(day, 24 * G5_12XL_HOUR, EC2, "Compute", "arn:aws:ec2:us-east-1:111122223333:instance/i-devbox",
                           "Instance", "g5.12xlarge On Demand", {"environment": "dev", "owner": "alice"},
                           sku="G5-12XL", gpus=4, instance="g5.12xlarge"))
        # Checkpoints: S3 volume growing 2.5 % a day; the dataset stored twice (two regions).
        n = (day - FIRST).days
        gb = 4000 * 1.025 ** n
        out.append(row(day, gb * 0.023 / 30, "Amazon Simple Storage Service", "Storage", "arn:aws:s3:::atlas-checkpoints",
                       "Bucket", "S3 Standard storage", {"team": "llm-train", "project": "atlas", "data": "checkpoints"},
                       quantity=round(gb / 30, 3), unit="GB-Months"))
        for bucket, region in (("lab-datasets-use1", "us-east-1"), ("lab-datasets-usw2", "us-west-2")):
            out.append(row(day, 52000 * 0.023 / 30, "Amazon Simple Storage Service", "Storage", f"arn:aws:s3:::{bucket}",
                           "Bucket", "S3 Standard storage", {"team": "data", "dataset": "redpajama-v2"},
                           quantity=round(52000 / 30, 3), unit="GB-Months", region=region))
        # Training logs in CloudWatch: 40 GB a day ingested, nothing ever expires.
        stored = 40 * (n + 1) + 900
        out.append(row(day, stored * 0.03 / 30, "AmazonCloudWatch", "Management and Governance",
                       "arn:aws:logs:us-east-1:111122223333:log-group:/atlas/train", "LogGroup", "CloudWatch Logs storage",
                       {"team": "llm-train", "data": "logs"}, quantity=round(stored / 30, 3), unit="GB-Months"))
        # A compute Savings Plan, 2,000 USD a day committed; the fleet uses 1,300 of it (the rest: Unused).
        used = 1300 + rng.uniform(-40, 40)
        out.append(row(day, 2000 - used, EC2, "Compute", "arn:aws:savingsplans::999900001111:savingsplan/sp-7",
                       "SavingsPlan", "Savings Plan unused commitment", {}, quantity=24, billed=0.0, list_cost=0.0,
                       pricing="Committed", commitment="arn:aws:savingsplans::999900001111:savingsplan/sp-7",
                       status="Unused"))
        out.append(row(day, used, EC2, "Compute", "arn:aws:ec2:us-east-1:444455556666:instance/i-batch",
                       "Instance", "m7i fleet covered by Savings Plan", {"team": "data", "environment": "prod"},
                       billed=0.0, list_cost=used * 1.38, pricing="Committed",
                       commitment="arn:aws:savingsplans::999900001111:savingsplan/sp-7", status="Used"))
        # Egress, untagged.
        out.append(row(day, 18.0 + rng.uniform(-2, 2), EC2, "Networking", "", "", "Data transfer out to internet", {},
                       quantity=200, unit="GB"))
        day += dt.timedelta(days=1)
    return out


def telemetry():
    """dcgm-exporter text, hourly on 2025-06-26: training busy at a low SM activity, the serving
    fleet mostly idle, the dev box idle with one GPU stuck at GPU_UTIL 100 (a hung job)."""
    rng = random.Random(7)
    start = int(dt.datetime(2025, 6, 26, tzinfo=dt.timezone.utc).timestamp())
    sm_lines = list(fleet.SM_ACTIVE_HEAD)
    util_lines = ["# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).", "# TYPE DCGM_FI_DEV_GPU_UTIL gauge"]
    hosts = [(f"i-atlas{i}", 8, "NVIDIA H100 80GB HBM3", lambda g, h: (0.36, 97)) for i in range(4)]
    hosts += [(f"i-serve{i}", 8, "NVIDIA A100-SXM4-40GB", lambda g, h: (0.12 if 8 <= h < 20 else 0.04, 35)) for i in range(3)]
    hosts += [("i-devbox", 4, "NVIDIA A10G", lambda g, h: (0.0, 100 if g == 0 else 0))]
    for host, gpus, model, activity in hosts:
        for g in range(gpus):
            for h in range(24):
                sm, util = activity(g, h)
                sm = max(0.0, sm + rng.uniform(-0.02, 0.02)) if sm else 0.0
                labels = fleet.dcgm_labels(host, g, model)
                t = (start + h * 3600) * 1000
                sm_lines.append(f"DCGM_FI_PROF_SM_ACTIVE{{{labels}}} {sm:.3f} {t}")
                util_lines.append(f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {util} {t}")
    return "\n".join(sm_lines + util_lines) + "\n"


def main():
    fleet.write_example(HERE, "focus-ai-lab-2025-05-06.csv", COLUMNS, charges(),
                        "dcgm-ai-lab-2025-06-26.prom", telemetry())


if __name__ == "__main__":
    main()
