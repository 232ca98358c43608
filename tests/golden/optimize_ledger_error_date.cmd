optimize --db {tmp}/f.db --as-of 2025-05-32
exit 2
setup ledger init --db {tmp}/f.db
