ledger report --db {tmp}/l.db --by service,pricing_category --granularity week -o csv
setup ledger ingest --db {tmp}/l.db examples/ledger/focus-ai-lab-2025-06.csv
