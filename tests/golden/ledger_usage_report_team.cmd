ledger report --db {tmp}/u.db --by tag:team,provider --alias team=account --from 2025-06-01
setup ledger ingest --db {tmp}/u.db --rate-card examples/usage/rates.yaml examples/usage/sacct-atlas-2025-06.txt examples/usage/opencost-2025-06.csv
