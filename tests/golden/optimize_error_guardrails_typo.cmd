optimize examples/gpt3-175b-a100.yaml --guardrails tests/plans/bad_guardrails_typo.yaml --emit-plan {tmp}/never.yaml
exit 2
