diff examples/serving-llama3-70b-chat.yaml tests/plans/serving-llama3-70b-chat-busier.yaml
