"""The English digest asked in steps (llm.asking: steps): the program chooses, the model words."""
