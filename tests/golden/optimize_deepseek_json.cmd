optimize examples/deepseek-v3-h800.yaml -o json
