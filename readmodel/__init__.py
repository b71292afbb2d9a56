"""The read model: store port and adapters, embedders, recall pipeline."""
