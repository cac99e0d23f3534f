#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run one TAP-producing test program, showing its output and keeping it.
#   tap-run.sh RESULT_DIR NAME TIMEOUT -- COMMAND [ARGS...]
# Writes RESULT_DIR/NAME.tap (the output) and RESULT_DIR/NAME.rc (exit code).
set -u
dir=$1 name=$2 limit=$3
shift 4
mkdir -p "$dir"
echo "# ---- $name"
timeout -k 5 "$limit" "$@" 2>&1 | tee "$dir/$name.tap"
rc=${PIPESTATUS[0]}
[ "$rc" -ne 124 ] || echo "# $name: timed out after ${limit}s" | tee -a "$dir/$name.tap"
echo "$rc" >"$dir/$name.rc"
exit 0
