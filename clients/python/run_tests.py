"""Runs the client's unit tests and prints a closing line for CI:
"python-client: N passed, N failed, N skipped". Exits 1 when a test failed
or errored, or when no test ran."""

import sys
import unittest
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    suite = unittest.defaultTestLoader.discover(str(here / "tests"), top_level_dir=str(here / "tests"))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"python-client: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
