optimize tests/plans/optimize-serving-llama3-8b.yaml
