reliability examples/llama3-405b-16k.yaml --simulate 300
