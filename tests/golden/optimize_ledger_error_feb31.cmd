optimize --db {tmp}/f.db --as-of 2025-02-31
exit 2
setup ledger init --db {tmp}/f.db
