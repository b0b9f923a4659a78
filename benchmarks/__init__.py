"""Speed benchmarks, run on demand with ``python -m benchmarks`` (never timed asserts in tests)."""
