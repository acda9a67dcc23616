#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of perfex on a kernel with perfctr, in TAP.  Run inside
# the test guest, where perfex and the example programs are on $PATH.

n=0
pass=0
fail=0
skip=0

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

# skip_test NAME WHY
skip_test() {
	n=$((n + 1))
	skip=$((skip + 1))
	echo "ok $n $1 # SKIP $2"
}

# count_of FILE EVENT [self|children|total]: a count in a perfex report,
# without thousands separators (task-clock keeps its decimals).  With
# children the report has the columns self, children and total; without,
# one count, which is both self and total (children are 0).
count_of() {
	awk -v event="$2" -v col="${3:-total}" '
	{
		n = 0
		for (i = 1; i <= NF && $i ~ /^[0-9][0-9,.]*$/; i++)
			v[++n] = $i
		if ($i == "msec")
			i++
		if (n == 0 || $i != event)
			next
		if (col == "self")
			x = v[1]
		else if (col == "children")
			x = (n > 1) ? v[2] : 0
		else
			x = v[n]
		gsub(",", "", x)
		print x
		exit
	}' "$1"
}

tsc_of() {
	count_of "$1" tsc
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

# --- Software counters ------------------------------------------------------

perfex -o "$tmp/spin03" spin 0.3
rc=$?
clock=$(count_of "$tmp/spin03" task-clock)
[ $rc -eq 0 ] && [ -n "$clock" ] && [ "${clock%%.*}" -ge 150 ]
ok $? "spin 0.3: task-clock of at least 150 msec ($clock msec)"

grep -Eq "^ +[0-9,]+\.[0-9][0-9] msec task-clock +# +[0-9]+\.[0-9]{3} CPUs utilized\$" "$tmp/spin03" &&
	grep -Eq "^ +[0-9,]+ +context-switches +# +[0-9]+\.[0-9]{3} [KMG]?/sec\$" "$tmp/spin03" &&
	grep -Eq "^ +[0-9,]+ +cpu-migrations +# +[0-9]+\.[0-9]{3} [KMG]?/sec\$" "$tmp/spin03" &&
	grep -Eq "^ +[0-9,]+ +page-faults +# +[0-9]+\.[0-9]{3} [KMG]?/sec\$" "$tmp/spin03" &&
	grep -Eq "^ +[0-9,]+ +tsc\$" "$tmp/spin03" &&
	! grep -q "children" "$tmp/spin03"
ok $? "default events: task-clock, context-switches, cpu-migrations, page-faults (root: user and kernel mode), tsc; no children column"

perfex -o "$tmp/sleep02" sleeper 0.2
rc=$?
cs=$(count_of "$tmp/sleep02" context-switches)
[ $rc -eq 0 ] && [ -n "$cs" ] && [ "$cs" -ge 1 ]
ok $? "sleeper 0.2: switched out at least once ($cs context switches)"

forker_faults() {
	what=$1
	shift
	perfex -o "$tmp/forker" forker "$@"
	rc=$?
	self=$(count_of "$tmp/forker" page-faults self)
	children=$(count_of "$tmp/forker" page-faults children)
	total=$(count_of "$tmp/forker" page-faults total)
	[ $rc -eq 0 ] && [ -n "$self" ] && [ -n "$children" ] &&
		[ -n "$total" ] && grep -Eq "^ +self +children +total\$" "$tmp/forker" &&
		[ "$children" -ge $((4 * 256)) ] && [ "$self" -lt "$children" ] &&
		[ "$total" -eq $((self + children)) ]
	ok $? "forker $*: the $what's page faults are children's, at least 4*256 ($children), self fewer ($self), total the sum ($total)"
}
forker_faults "child processes" 4 256
forker_faults "threads" -t 4 256

perfex -o "$tmp/events" -e tsc,task-clock,cs,migrations -e faults:u,minor-faults,major-faults:uk true
rc=$?
found=0
for e in tsc task-clock cs migrations faults:u minor-faults major-faults:uk; do
	[ -n "$(count_of "$tmp/events" "$e")" ] && found=$((found + 1))
done
[ $rc -eq 0 ] && [ $found -eq 7 ]
ok $? "-e with every event name: all seven reported, as named ($found, exit $rc)"

perfex -e bogus true > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -qx "perfex: unknown event 'bogus'" "$tmp/err"
ok $? "-e bogus: unknown event, exit 2 (got $rc)"

# --- Kernel mode needs privilege --------------------------------------------

# How to run a command as an unprivileged user (uid and gid 65534, no
# supplementary groups, no capabilities), if we can: util-linux setpriv,
# else busybox nsenter -S/-G (busybox's setpriv has no --reuid; with no
# namespace to enter, nsenter just clears the groups and sets the ids).
drop=
why=
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" -ne 0 ]; then
	why="not running as root: cannot switch to an unprivileged user"
elif [ -n "$paranoid" ] && [ "$paranoid" -lt 2 ]; then
	why="kernel.perf_event_paranoid is $paranoid: kernel mode is open to all"
elif [ "$(setpriv --reuid=65534 --regid=65534 --clear-groups id -u 2>/dev/null)" = 65534 ]; then
	drop="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif [ "$(nsenter -S 65534 -G 65534 id -u 2>/dev/null)" = 65534 ]; then
	drop="nsenter -S 65534 -G 65534"
else
	why="neither setpriv --reuid nor nsenter -S works here"
fi

if [ "$(id -u)" -eq 0 ]; then
	perfex -e page-faults:k true > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && [ -n "$(count_of "$tmp/err" page-faults:k)" ]
	ok $? "root: -e page-faults:k is allowed (exit $rc)"
else
	skip_test "root: -e page-faults:k is allowed" "not running as root"
fi

if [ -n "$drop" ]; then
	# The shell opens the files as root; perfex only writes to them.
	$drop perfex -e page-faults:k true > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -ne 0 ] && grep -q "vperfctr_control: Permission denied" "$tmp/err"
	ok $? "unprivileged: -e page-faults:k fails with EACCES (exit $rc)"

	$drop perfex spin 0 > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && [ -n "$(count_of "$tmp/err" page-faults:u)" ] &&
		[ -z "$(count_of "$tmp/err" page-faults)" ]
	ok $? "unprivileged: default page faults fall back to user mode, page-faults:u (exit $rc)"
else
	skip_test "unprivileged: -e page-faults:k fails with EACCES" "$why"
	skip_test "unprivileged: default page faults fall back to page-faults:u" "$why"
fi

rm -rf "$tmp"
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
