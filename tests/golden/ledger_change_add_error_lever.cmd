ledger --db {tmp}/j.db change add --date 2025-04-21 --scope tag:run=r3 --lever presicion-fp8
exit 2
setup ledger init --db {tmp}/j.db
