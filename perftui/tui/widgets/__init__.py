"""Dashboard widgets: charts and the model summary."""
