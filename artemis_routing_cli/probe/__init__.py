"""probe package."""
