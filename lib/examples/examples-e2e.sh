#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# The libperfctr examples on a kernel with perfctr, in TAP.  Run inside the
# test guest, where the examples are on $PATH.  Each example checks its
# own counts and exits non-zero when they are implausible; this adds the
# line it must print.

n=0
fail=0

# run NAME PATTERN: NAME exits 0 and prints a line matching PATTERN.
run() {
	n=$((n + 1))
	out=$("$1" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -Eq "$2"; then
		echo "ok $n $1"
	else
		fail=$((fail + 1))
		echo "not ok $n $1 (exit $rc)"
		echo "$out" | sed 's/^/# /'
	fi
}

echo "1..5"
run self_count '^fast read: +[0-9]+ tsc, [0-9]+ ns task-clock, [0-9]+ page-faults:u'
# At least 10 (the example checks that): one more may come before it stops.
run irq_count '^irq_count: [0-9]+ overflows of task-clock every 1000000 ns, [0-9]+ ns in all'
run remote_read '^remote_read: child [0-9]+: [0-9]+ tsc, [0-9]+ task-clock, [0-9]+ page-faults:u, [0-9]+ context-switches'
# perfctr 2.7's API, every function; one line a check, "FAIL" on a failed one.
run compat27 '^compat27: [0-9]+ checks passed, [0-9]+ skipped$'
# Code regions in 4 threads, thread i summing 50 * (i + 1) times.
run regions '^sum  : +500 calls in 4 threads, +[0-9]+ (instructions:u|task-clock), +[0-9]+ tsc$'
echo "# Totals: pass:$((n - fail)) fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ $fail -eq 0 ]
