ledger check --db {tmp}/l.db --budgets tests/data/governance/stale.yaml --as-of 2025-07-09 --strict
exit 3
setup ledger ingest --db {tmp}/l.db examples/governance/focus-ai-lab-2025-05-06.csv
