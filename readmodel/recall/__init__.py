"""Recall: small stages over a list of candidates; only the fetch stages talk to the store."""
