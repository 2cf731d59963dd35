"""What the program reads in a paper's text itself: sentences, their roles, names, terms."""
