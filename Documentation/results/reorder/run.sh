#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The A/B behind ab.txt, in one VM boot (scripts/vm-run.sh -- THIS), from
# the tree's root after `make`, with the previous rack built as
# build/ab/rack-before.bpf.o (README): previous against new rack on
# reorder, loss1 and loss5, then two variants of the new one on reorder.
cd "$(dirname "$0")/../../.." || exit 1
AB=Documentation/results/ackratio/ab.sh
AB_AT=ingress AB_PROGS="rack@build/ab/rack-before.bpf.o rack" AB_RATIOS=16 \
AB_REPS=${REPS:-3} AB_PATHS="reorder|delay 100us reorder 10% 50%
loss1|delay 100us loss 1%
loss5|delay 100us loss 5%" $AB
AB_AT=ingress AB_PROGS=rack \
AB_RATIOS="16,rack_reo_measure=0 16,rack_reo_mult_max=16" \
AB_REPS=${REPS2:-3} AB_PATHS="reorder|delay 100us reorder 10% 50%" $AB
