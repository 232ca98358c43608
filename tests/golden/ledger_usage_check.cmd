ledger check --db {tmp}/u.db --budgets examples/usage/budgets.yaml --as-of 2025-06-15
exit 3
setup ledger ingest --db {tmp}/u.db --rate-card examples/usage/rates.yaml examples/usage/sacct-atlas-2025-06.txt examples/usage/opencost-2025-06.csv
