"""The offline demo substrate: synthetic corpora and SBIC file (docs/design.md §6)."""
