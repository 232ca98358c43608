optimize examples/serving-llama3-70b-chat.yaml -o json
