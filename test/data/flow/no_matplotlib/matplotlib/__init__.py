# Stands in for a machine without matplotlib (test/apps/mcpi: mcpi_cli.flow_without_matplotlib).
raise ImportError("no matplotlib here (a test's stand-in)")
