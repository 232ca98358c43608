optimize examples/gpt3-175b-a100.yaml --db {tmp}/f.db
exit 2
