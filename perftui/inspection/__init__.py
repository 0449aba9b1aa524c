"""Reading model files: validation, inputs and outputs, parameters and theoretical FLOPs."""
