ledger report --db {tmp}/l.db --by tag:team --alias team=owner --useful
setup ledger ingest --db {tmp}/l.db examples/ledger/focus-ai-lab-2025-06.csv examples/ledger/dcgm-ai-lab-2025-06-03.prom
