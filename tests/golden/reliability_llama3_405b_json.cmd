reliability examples/llama3-405b-16k.yaml --simulate 100 --no-spares -o json
