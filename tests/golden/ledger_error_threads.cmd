ledger --threads 0 report --db {tmp}/l.db
exit 2
