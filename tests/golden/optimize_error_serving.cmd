optimize examples/serving-llama3-70b-chat.yaml --emit-plan {tmp}/never.yaml
exit 2
