"""The offline demo substrate: synthetic corpora, SBIC file, treebank and parser (DESIGN §6)."""
