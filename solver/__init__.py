"""Koma's puzzle models and solvers: numpy + numba only, never Textual.

The first kernel module imported points numba's on-disk cache at a usable per-user directory keyed by the solver
sources (see :mod:`solver.engines.jit_cache`).  A program using the solver may say where its table cache is and
where its notices go (:mod:`solver.engines.cache_files`).
"""
