optimize examples/gpt3-175b-a100.yaml -o json
