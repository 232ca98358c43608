ledger --db {tmp}/j.db change add --date 2025-04-21 --scope servce=EC2 --lever precision-fp8 --guardrail min_gpu_activity=40%
exit 2
setup ledger init --db {tmp}/j.db
