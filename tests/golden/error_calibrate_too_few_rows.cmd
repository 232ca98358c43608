calibrate data/validation/inference-dev.csv --write {tmp}/my-profile.yaml
exit 2
