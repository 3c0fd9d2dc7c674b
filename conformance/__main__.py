"""``python -m luthier.conformance``: the same as the ``luthier-conformance`` console script."""

from luthier.conformance.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
