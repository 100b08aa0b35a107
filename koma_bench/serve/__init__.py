"""The server benchmarks: a private ``koma serve`` or ``koma web`` and its players (:mod:`koma_bench.serve.scenarios`,
driven over SSH by :mod:`koma_bench.serve.ssh` and over WebSockets by :mod:`koma_bench.serve.web`), races included."""
