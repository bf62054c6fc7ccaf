"""python -m convexcheck: the convexcheck command (assembled in convexcheck_cli)."""
import sys

from convexcheck_cli import convexcheck_main

if __name__ == "__main__":
    sys.exit(convexcheck_main())
