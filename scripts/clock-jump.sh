#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Read a kernel log on stdin; print how many whole seconds the clock
# jumped ahead at once, as the clocksource watchdog saw it, or 0.
#
# A TCG guest reads the host's TSC.  When the host is paused, or restored
# from a snapshot ("crng reseeded due to virtual machine fork" in its own
# log), that TSC can leap: the guest's clocks and jiffies jump with it,
# while the watchdog's clock (HPET or ACPI PM timer, which QEMU runs on
# its monotonic clock) does not, and the watchdog reports the two
# intervals.  Every timer, timeout and lockup detector of the guest then
# sees that time pass at once.  Less than a minute is not counted: a
# watchdog read late under load differs by seconds.
awk '/Long readout interval, skipping watchdog check/ {
	c = w = 0
	for (i = 1; i < NF; i++) {
		if ($i == "cs_nsec:") c = $(i + 1)
		if ($i == "wd_nsec:") w = $(i + 1)
	}
	if (c - w > j) j = c - w
}
END { printf "%d\n", (j > 60e9 ? j / 1e9 : 0) }'
