validate --cv data/validation/inference-dev.csv
