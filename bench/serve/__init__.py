"""The server benchmarks: a private ``koma serve`` or ``koma web`` and its players (:mod:`bench.serve.scenarios`,
driven over SSH by :mod:`bench.serve.ssh` and over WebSockets by :mod:`bench.serve.web`), races included."""
