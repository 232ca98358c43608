ledger check --db {tmp}/l.db --budgets examples/governance/budgets.yaml --as-of 2025-06-28 -o csv
exit 3
setup ledger ingest --db {tmp}/l.db examples/governance/focus-ai-lab-2025-05-06.csv examples/governance/dcgm-ai-lab-2025-06-26.prom
