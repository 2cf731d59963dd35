"""What each DVC stage does, and the thin runner every stage script uses."""
