"""Side-by-side benchmarks of fairkit against its peers (see benchmarks/README.md)."""
