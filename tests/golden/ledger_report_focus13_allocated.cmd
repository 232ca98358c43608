ledger report --db {tmp}/l.db --by tag:x_allocated_resource_id,tag:user_defined_tag_scheme1/team
setup ledger ingest --db {tmp}/l.db tests/data/ledger/focus-1.3-allocation.csv tests/data/ledger/focus-1.3-contract-commitment.csv
