optimize --db {tmp}/none.db --as-of 2025-05-19
exit 2
