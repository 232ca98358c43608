ledger ingest --db {tmp}/l.db examples/ledger/focus-ai-lab-2025-06.csv
setup ledger ingest --db {tmp}/l.db examples/ledger/focus-ai-lab-2025-06.csv
