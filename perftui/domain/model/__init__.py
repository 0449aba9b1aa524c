"""What a model file holds: inputs and shapes, layers, FLOPs, INT8 coverage."""
