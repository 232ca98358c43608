ledger validate examples/usage/sacct-atlas-2025-06.txt
