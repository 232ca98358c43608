optimize tests/plans/optimize-llama3-8b-h100.yaml -o csv
