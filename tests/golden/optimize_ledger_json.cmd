optimize --db {tmp}/f.db --as-of 2025-05-19 -o json
setup ledger ingest --db {tmp}/f.db examples/optimize-ledger/focus-gpu-fleet-2025-03-05.csv examples/optimize-ledger/dcgm-dev-pool-2025-04-05.prom
