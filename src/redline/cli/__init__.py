"""The `redline` command line: one module per subcommand."""
