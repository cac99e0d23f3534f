# SPDX-License-Identifier: GPL-2.0
# Native self-tests of the test harness (scripts/).
UNIT_TESTS += selftests/harness/test_harness.sh
