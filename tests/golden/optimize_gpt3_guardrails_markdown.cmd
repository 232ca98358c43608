optimize examples/gpt3-175b-a100.yaml --guardrails examples/guardrails.yaml -o markdown
