"""The offline demo substrate: synthetic corpora and SBIC file (DESIGN §6)."""
