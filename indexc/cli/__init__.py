"""The command line: one module per subcommand (``vocab_cmd``, ``compile_cmd``, ...)."""
