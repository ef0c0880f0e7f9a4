"""OpenEnv test environment package (see ../README.md)."""
