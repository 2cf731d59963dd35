"""Where papers come from: the Hugging Face Daily Papers API, arXiv's HTML pages and their LaTeXML markup."""
