"""One day's artefacts read back together, and the run's metrics computed from them (pure)."""
