estimate tests/plans/optimize-serving-llama3-8b-steady.yaml --replicas-csv {tmp}/replicas.csv
exit 2
