ledger report --db @TMP@/l.db --by tag:team --alias team=owner --useful
setup ledger ingest --db @TMP@/l.db examples/ledger/focus-ai-lab-2025-06.csv examples/ledger/dcgm-ai-lab-2025-06-03.prom
