"""The run report and the analyst notebooks' tables, and the capacity planner's serving model."""
