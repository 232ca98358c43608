ledger report --db {tmp}/l.db --by tag:team,resource_name --from 2025-06-03 --to 2025-06-04 --useful -o json
setup ledger ingest --db {tmp}/l.db examples/ledger/focus-ai-lab-2025-06.csv examples/ledger/dcgm-ai-lab-2025-06-03.prom
