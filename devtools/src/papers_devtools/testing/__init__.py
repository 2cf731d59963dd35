"""Helpers shared by the tests and the benchmarks: free ports, project copies, DVC runs, local servers."""
