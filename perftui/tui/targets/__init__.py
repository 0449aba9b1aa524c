"""The Targets screen: the machines a benchmark can run on."""
