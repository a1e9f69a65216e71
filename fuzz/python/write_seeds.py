"""Writes the Python fuzz targets' seed corpus: python write_seeds.py DIR (DIR/<target>/seed*)."""

import sys

import common

if __name__ == "__main__":
    common.write_seeds(sys.argv[1])
