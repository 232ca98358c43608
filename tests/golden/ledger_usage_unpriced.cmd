ledger ingest --db {tmp}/u.db --rate-card tests/data/usage/h100-only.yaml examples/usage/sacct-atlas-2025-06.txt
exit 2
