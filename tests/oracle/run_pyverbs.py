#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Run a pyverbs test suite (rdma-core's tests/ directory) and write each
test's outcome, one "<outcome> <test id>" line per test, to a file: pass,
skip, fail, error, xfail or xpass.  The console output stays unittest's.

usage: run_pyverbs.py RESULTS TESTS_DIR [--dev D --port P --gid G] [-v] [TEST...]
"""
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader

results_path, tests_dir = sys.argv[1], os.path.abspath(sys.argv[2])
del sys.argv[1:3]
sys.path.insert(0, tests_dir)
from args_parser import parser  # noqa: E402  (the suite's own options)

tests = SourceFileLoader(
    'tests', os.path.join(tests_dir, '__init__.py')).load_module()
parser.parse_args()  # takes --dev, --port, --gid; leaves unittest's
outcomes = []


def recorder(outcome, name):
    """The TextTestResult method 'name', recording 'outcome' as well."""
    def method(self, test, *args):
        getattr(unittest.TextTestResult, name)(self, test, *args)
        outcomes.append((outcome, test.id()))
    return method


class Recorder(unittest.TextTestResult):
    addSuccess = recorder('pass', 'addSuccess')
    addSkip = recorder('skip', 'addSkip')
    addFailure = recorder('fail', 'addFailure')
    addError = recorder('error', 'addError')
    addExpectedFailure = recorder('xfail', 'addExpectedFailure')
    addUnexpectedSuccess = recorder('xpass', 'addUnexpectedSuccess')


runner = unittest.TextTestRunner(resultclass=Recorder, verbosity=2)
unittest.main(module=tests, testRunner=runner, exit=False)
with open(results_path, 'w') as f:
    for outcome, name in outcomes:
        f.write('%s %s\n' % (outcome, name))
