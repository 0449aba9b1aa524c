"""The dashboard screens."""
