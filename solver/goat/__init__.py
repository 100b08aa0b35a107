"""Goat: the model, its notation, kernels and search."""
