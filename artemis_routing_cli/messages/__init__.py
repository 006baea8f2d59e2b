"""messages package."""
