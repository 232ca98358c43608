search examples/search-llama3-70b-90days.yaml
