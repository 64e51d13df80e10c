"""Spec Librarian: ingest 3GPP/ETSI specifications and quote them with citations."""
