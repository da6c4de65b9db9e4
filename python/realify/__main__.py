"""`python -m realify`: the same command as the `realify` console script."""

from realify.cli import entry

if __name__ == "__main__":
    entry()
