"""The package list, which pyproject.toml cannot state as "found, plus one mapped folder":
every folder under odds/ with an __init__.py is found (a new ruleset's folder ships without
being listed anywhere), and data/ ships inside the package as odds.data (``package-dir`` in
pyproject.toml). Everything else about the build is in pyproject.toml."""
from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["odds", "odds.*"]), "odds.data"])
