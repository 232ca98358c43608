ledger --db {tmp}/j.db change add --date 2025-02-29 --scope tag:run=r3 --lever precision-fp8
exit 2
setup ledger init --db {tmp}/j.db
