optimize examples/gpt3-175b-a100.yaml --guardrails tests/plans/bad_guardrails_unitless.yaml -o json
exit 2
