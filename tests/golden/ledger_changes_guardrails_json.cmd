ledger --db {tmp}/j.db changes --as-of 2025-05-19 --guardrails examples/journal/guardrails.yaml -o json
setup ledger ingest --db {tmp}/j.db examples/journal/focus-training-runs-2025-04.csv examples/journal/dcgm-run-r5-2025-04.prom
setup ledger --db {tmp}/j.db change add --date 2025-04-21 --scope tag:run=r3 --lever pricing-reserved --note 'savings plan on r3'
setup ledger --db {tmp}/j.db change add --date 2025-04-21 --scope tag:run=r4 --lever comm-overlap
setup ledger --db {tmp}/j.db change add --date 2025-04-21 --scope tag:run=r5 --lever data-loader --guardrail min_gpu_activity=40%
setup ledger --db {tmp}/j.db change add --date 2025-05-12 --scope tag:run=r3 --lever checkpoint-interval
