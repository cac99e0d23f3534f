# SPDX-License-Identifier: GPL-2.0
"""Named checks in a fixed order, one PASS or FAIL line each.

A script lists its checks up front (its --count prints how many, so the
shell test can give the TAP plan before anything runs) and calls
check(name, cond) in that order; tap_verdicts in lib.sh turns the lines
into TAP results and fails the checks that never ran.
"""


class Verdicts:
    def __init__(self, names):
        self.names = names
        self.ran = 0
        self.failed = 0

    def check(self, name, cond, detail=""):
        """One verdict; a check out of the listed order fails."""
        names, ran = self.names, self.ran
        if ran >= len(names) or names[ran] != name:
            cond, detail = False, "check out of order: expected %s" % (
                names[ran] if ran < len(names) else "no more checks")
        self.ran += 1
        if cond:
            print("PASS", name, flush=True)
        else:
            self.failed += 1
            print("FAIL %s: %s" % (name, detail), flush=True)

    def complete(self):
        """Every listed check ran."""
        return self.ran == len(self.names)
