"""Open-loop traffic: requests arriving at a rate whatever the engine is doing."""
