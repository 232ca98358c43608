estimate --conservative examples/serving-llama3-70b-chat.yaml
