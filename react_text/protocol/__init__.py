"""The text protocol: reading a model turn into a Step, and what we write back to the model."""
