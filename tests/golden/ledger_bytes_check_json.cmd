ledger check --db {tmp}/l.db --budgets tests/data/governance/stale.yaml --as-of 2025-06-03 -o json
setup ledger ingest --db {tmp}/l.db tests/data/ledger/latin1-and-nul.csv -o json
