estimate examples/gpt3-175b-h100-owned.yaml -o json
