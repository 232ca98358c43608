optimize tests/plans/optimize-serving-llama3-8b-steady.yaml --guardrails examples/guardrails.yaml -o markdown
