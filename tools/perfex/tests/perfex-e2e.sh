#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of perfex on a kernel with perfctr, in TAP.  Run inside
# the test guest, where perfex and the example programs are on $PATH.

n=0
pass=0
fail=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok $n $2"
	else
		fail=$((fail + 1))
		echo "not ok $n $2"
	fi
}

tsc_of() {
	awk '$2 == "tsc" { gsub(",", "", $1); print $1 }' "$1"
}

tmp=$(mktemp -d)

perfex > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -qi usage "$tmp/err" && grep -q "perfex --help" "$tmp/err"
ok $? "no arguments: usage and exit 2 (got $rc)"

perfex /no/such/program > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 127 ] &&
	grep -qx "perfex: cannot run '/no/such/program': No such file or directory" "$tmp/err"
ok $? "missing program: plain message and exit 127 (got $rc)"

printf 'not a program\n' > "$tmp/noexec"
chmod 644 "$tmp/noexec"
perfex "$tmp/noexec" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 126 ] && grep -q "^perfex: cannot run '$tmp/noexec': Permission denied" "$tmp/err"
ok $? "program not executable: exit 126 (got $rc)"

perfex sh -c 'exit 3' 2> "$tmp/err"
rc=$?
[ $rc -eq 3 ]
ok $? "exit status of the program is perfex's (got $rc)"

perfex sh -c 'kill -TERM $$' 2> "$tmp/err"
rc=$?
[ $rc -eq 143 ]
ok $? "program killed by SIGTERM: exit 128+15 (got $rc)"

perfex -o "$tmp/spin" spin 1
rc=$?
spin=$(tsc_of "$tmp/spin")
[ $rc -eq 0 ] && [ -n "$spin" ] && [ "$spin" -gt 0 ]
ok $? "spin 1: report has a TSC count ($spin)"

grep -q "Performance counter stats for 'spin 1'" "$tmp/spin" &&
	grep -q "seconds time elapsed" "$tmp/spin"
ok $? "report names the command and the elapsed time"

# What a second of sleeping adds to a program's count, against what a
# second of spinning adds: the startup of each program is subtracted.
perfex -o "$tmp/sleep" sleeper 1 &&
	perfex -o "$tmp/sleep0" sleeper 0 &&
	perfex -o "$tmp/spin0" spin 0
rc=$?
sleep=$(tsc_of "$tmp/sleep")
sleep0=$(tsc_of "$tmp/sleep0")
spin0=$(tsc_of "$tmp/spin0")
[ $rc -eq 0 ] && [ -n "$sleep" ] && [ -n "$sleep0" ] && [ -n "$spin0" ] &&
	[ $(((sleep - sleep0) * 10)) -lt $((spin - spin0)) ]
ok $? "a second asleep adds under a tenth of what a second spinning adds ($((sleep - sleep0)) vs $((spin - spin0)) TSC cycles)"

self_count > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ]
ok $? "self_count example: fast read and system call agree (exit $rc)"

rm -rf "$tmp"
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
