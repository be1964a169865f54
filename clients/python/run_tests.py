"""Runs the client's unit tests and prints a closing line for CI:
"python-client: N passed, N failed, N skipped". Exits 1 when a test failed
or errored, or when no test ran. An argument picks the test files by
pattern (default "test*.py"), e.g. "test_optuna.py".

With CBANDIT_TEST_INSTALLED=1 the tests use the installed package (pip
install ./clients/python), not the copy beside this file, and say where it
was found."""

import os
import sys
import unittest
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    if os.environ.get("CBANDIT_TEST_INSTALLED"):
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
        import cbandit
        where = Path(cbandit.__file__).resolve()
        if here in where.parents:
            print(f"python-client: cbandit was imported from {where}, not an installed copy")
            return 1
        print(f"python-client: testing the installed cbandit {cbandit.__version__} at {where.parent}")
    pattern = sys.argv[1] if len(sys.argv) > 1 else "test*.py"
    suite = unittest.defaultTestLoader.discover(str(here / "tests"), pattern=pattern, top_level_dir=str(here / "tests"))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"python-client: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
