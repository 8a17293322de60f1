# args: tests/errors/cli_header_is_input.h -o tests/errors/cli_header_is_input --header
# (the input need not exist: the command line is refused before anything is read)
