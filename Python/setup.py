# SPDX-License-Identifier: Apache-2.0
"""Only what pyproject.toml cannot say: a wheel that bundles libaccessenabler.so is tied to this
platform (linux_x86_64, ...), not a pure-Python "py3-none-any" one."""
from pathlib import Path

from setuptools import setup
from setuptools.dist import Distribution

BUNDLED = any((Path(__file__).parent / "accessenabler").glob("libaccessenabler.so*"))


class LibraryDistribution(Distribution):
    def has_ext_modules(self):
        return BUNDLED


setup(distclass=LibraryDistribution)
