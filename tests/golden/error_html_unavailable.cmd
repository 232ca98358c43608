catalog gpus -o html
exit 2
