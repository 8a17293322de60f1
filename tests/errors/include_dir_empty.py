# args: tests/errors/include_dir_empty.py -I ""
