diff examples/gpt3-175b-a100.yaml tests/plans/gpt3-175b-a100-ops.yaml
