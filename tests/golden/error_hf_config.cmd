estimate tests/plans/bad_hf_config.yaml
exit 2
