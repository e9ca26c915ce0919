"""The package's version, at the bottom of the house: what an index records as its writer
and ``--version`` prints, read without importing the package's API."""

__version__ = "0.1.0"
