estimate examples/gpt3-175b-a100.yaml --simulate 500 --seed 3
