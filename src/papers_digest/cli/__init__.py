"""The `papers` command: daily runs, the sample day, local servers, data maintenance."""
