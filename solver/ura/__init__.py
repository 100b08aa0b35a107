"""Ura-omote: the model, its orbit layout and kernels."""
