"""python -m tensorcalc: the tensorcalc command (assembled in convexcheck_cli, which
gives it convexcheck's reader of problem files)."""
import sys

from convexcheck_cli import tensorcalc_main

if __name__ == "__main__":
    sys.exit(tensorcalc_main())
