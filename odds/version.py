"""The package's version (its own module, so that code deep in the package can name it
without importing the whole package)."""
__version__ = "0.2.0"
