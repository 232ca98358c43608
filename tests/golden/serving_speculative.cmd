estimate tests/plans/serving_speculative.yaml
