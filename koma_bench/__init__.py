"""Measuring Koma: every benchmark case, scenario, client and floor app, and the ``koma bench`` command.

The product (``solver``, ``tui``) never imports this package (an import contract in pyproject.toml): ``koma bench``
reaches the ``koma`` command line through the ``koma.commands`` entry point group (:mod:`koma_bench.cli`), and a scenario
drives Koma from outside, as a player or an operator would (processes, terminals, SSH and WebSocket clients), or
through the APIs the product offers (the store, the race link).
"""
