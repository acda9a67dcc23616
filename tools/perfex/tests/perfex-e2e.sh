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

# The machine's hardware counters, general-purpose and fixed: none with
# the TSC only, as under QEMU without a virtual PMU.
hw=$(($(cat /sys/kernel/perfctr/nrctrs 2>/dev/null || echo 0) + $(cat /sys/kernel/perfctr/nrfixed 2>/dev/null || echo 0)))

# The driver as libperfctr's messages name it, by cpu_type: "x86 TSC" or,
# on arm64, "arm64 timer" for the counterless ones.
case $(cat /sys/kernel/perfctr/cpu_type 2>/dev/null) in
1) driver="Intel architectural perfmon" ;;
2) driver="AMD" ;;
3) driver="arm64 timer" ;;
4) driver="arm64 PMUv3" ;;
*) driver="x86 TSC" ;;
esac

# usage_error NAME EXPECTED ARGS...: perfex ARGS fails with exit 2, the
# one line EXPECTED and the hint, and nothing on standard output.
usage_error() {
	name=$1 expected=$2
	shift 2
	perfex "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" -eq 2 ] &&
		[ "$(sed -n 1p "$tmp/err")" = "$expected" ] &&
		[ "$(sed -n 2p "$tmp/err")" = "Try 'perfex --help' for more information." ]
	ok $? "$name: '$expected', the hint, exit 2 (got $rc)"
}

usage_error "no arguments" "perfex: no command given"
usage_error "-r 0" "perfex: option '-r': invalid number of runs (1 to 100000) '0'" -r 0 true
usage_error "-I 5" "perfex: option '-I': invalid interval (milliseconds, at least 10) '5'" -I 5 true
usage_error "-x with -j" "perfex: -x and --json cannot be used together" -x, -j true
usage_error "-p x" "perfex: option '-p': invalid thread id 'x'" -p x
usage_error "-r with -p" "perfex: -r cannot be used with -p" -r 2 -p 1
usage_error "unknown option" "perfex: unrecognized option '--frobnicate'" --frobnicate true
# Unknown to libperfctr, and to libpfm4 (which says why it knows no
# native names here, or that the PMU it found lacks this one).
perfex -e bogus true > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" -eq 2 ] &&
	sed -n 1p "$tmp/err" | grep -Eq '^perfex: bogus: (unknown event \(.+\)|not an event of PMU .+)$' &&
	[ "$(sed -n 2p "$tmp/err")" = "Try 'perfex --help' for more information." ]
ok $? "-e bogus: unknown, why, the hint, exit 2 (got $rc)"
usage_error "-e task-clock:u" "perfex: task-clock:u: task-clock takes no modifier (only hardware and fault events do)" -e task-clock:u true
if [ "$hw" -eq 0 ]; then
	usage_error "-e cycles, TSC only" "perfex: cycles: this CPU has no hardware counters (driver: $driver)" -e tsc,cycles true
	usage_error "-e r1c2, TSC only" "perfex: r1c2: this CPU has no hardware counters (driver: $driver)" -e r1c2 true
else
	skip_test "-e cycles, TSC only: this CPU's message" "this machine has $hw hardware counters"
	skip_test "-e r1c2, TSC only: this CPU's message" "this machine has $hw hardware counters"
fi

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

perfex -o "$tmp/out" sh -c 'kill -KILL $$' 2> "$tmp/err"
rc=$?
[ $rc -eq 137 ] && grep -qx "perfex: 'sh' was killed by signal 9 (Killed)" "$tmp/err" &&
	grep -qF "Performance counter stats for 'sh -c kill -KILL \$\$'" "$tmp/out"
ok $? "program killed by SIGKILL: said so, reported, exit 128+9 (got $rc)"

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
# A busy host that holds the guest up while a program runs only adds to
# its count, so each sleeper's is the least of three runs; a TSC that
# counted the sleep would add a second to every one of them.
least_tsc() {
	local out=$1 least= n v
	shift
	for n in 1 2 3; do
		perfex -o "$out" "$@" || return 1
		v=$(tsc_of "$out")
		[ -n "$v" ] || return 1
		[ -z "$least" ] || [ "$v" -lt "$least" ] && least=$v
	done
	echo "$least"
}
sleep=$(least_tsc "$tmp/sleep" sleeper 1) &&
	sleep0=$(least_tsc "$tmp/sleep0" sleeper 0) &&
	perfex -o "$tmp/spin0" spin 0
rc=$?
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

# The default events, as reported: perf stat's, with the hardware ones
# the counters hold; on a machine with the TSC only, those of the TSC
# and the kernel's software events.
perfex -x, -o "$tmp/defaults" true
rc=$?
defaults=$(awk -F, '{ printf "%s ", $3 }' "$tmp/defaults")
ndefaults=$(wc -l < "$tmp/defaults")
if [ "$hw" -eq 0 ]; then
	[ "$defaults" = "task-clock context-switches cpu-migrations page-faults tsc " ]
else
	echo "$defaults" | grep -Eqx "task-clock context-switches cpu-migrations page-faults (cycles )?(instructions )?(branches )?(branch-misses )?tsc "
fi
ok $? "default events, $hw hardware counters: $defaults(exit $rc)"

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

perfex -o "$tmp/events" -e tsc,task-clock,cs,migrations -e faults:u,minor-faults,major-faults:ku true
rc=$?
found=0
for e in tsc task-clock context-switches cpu-migrations page-faults:u minor-faults major-faults:uk; do
	[ -n "$(count_of "$tmp/events" "$e")" ] && found=$((found + 1))
done
[ $rc -eq 0 ] && [ $found -eq 7 ]
ok $? "-e with every software event name: all seven reported, aliases resolved ($found, exit $rc)"

if [ "$hw" -gt 0 ]; then
	perfex -o "$tmp/hw" -e instructions:u,cycles:u spin 0.1
	rc=$?
	insn=$(count_of "$tmp/hw" instructions:u)
	cycles=$(count_of "$tmp/hw" cycles:u)
	[ $rc -eq 0 ] && [ -n "$insn" ] && [ "$insn" -gt 0 ] && [ -n "$cycles" ] &&
		[ "$cycles" -gt 0 ] && grep -Eq "instructions:u +# +[0-9.]+ +insn per cycle\$" "$tmp/hw"
	ok $? "-e instructions:u,cycles:u: both counted ($insn, $cycles), insn per cycle (exit $rc)"
else
	# Without counters, refused before anything runs, naming the event.
	perfex -e instructions:u,cycles:u spin 0.1 > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] &&
		grep -qx "perfex: instructions:u: this CPU has no hardware counters (driver: $driver)" "$tmp/err"
	ok $? "-e instructions:u,cycles:u on a TSC-only machine: refused, naming the event (exit $rc)"
fi

# --topdown needs Intel's TopDown metrics, which no QEMU guest has:
# refused before the program runs, plainly, with perfex's failure status.
metrics=$(cat /sys/kernel/perfctr/nrmetrics 2>/dev/null || echo 0)
if [ "$metrics" -eq 0 ]; then
	rm -f "$tmp/ran"
	perfex --topdown touch "$tmp/ran" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -e "$tmp/ran" ] && [ ! -s "$tmp/out" ] &&
		[ "$(cat "$tmp/err")" = "perfex: --topdown needs Intel TopDown metrics (PERF_METRICS, Ice Lake or later); this CPU has none" ]
	ok $? "--topdown without TopDown metrics: refused plainly, the program not run (exit $rc)"
else
	perfex --topdown -o "$tmp/topdown" spin 0.1
	rc=$?
	[ $rc -eq 0 ] && grep -Eq "^ +retiring +bad speculation +frontend bound +backend bound\$" "$tmp/topdown"
	ok $? "--topdown with $metrics TopDown metrics: the level 1 table (exit $rc)"
fi

perfex --no-children -o "$tmp/nochildren" forker 4 256
rc=$?
self=$(count_of "$tmp/nochildren" page-faults)
[ $rc -eq 0 ] && [ -n "$self" ] && [ "$self" -lt 1024 ] &&
	! grep -q children "$tmp/nochildren"
ok $? "--no-children: forker 4 256 reports its own page faults only ($self), no columns"

# --- Output for machines: -x and --json -----------------------------------

# -x, with children: value,unit,event,run-time,pcnt,metric,metric-unit,
# self,children; the value the sum of the last two.
perfex -x, -o "$tmp/csv" forker 4 256
rc=$?
why=$(awk -F, -v defaults="$defaults" '
	function bad(what) { print NR ": " what; exit }
	NF != 9 { bad("fields: " NF) }
	$4 !~ /^[0-9]+$/ || $4 == 0 { bad("run-time " $4) }
	$5 != "100.00" { bad("pcnt " $5) }
	{ d = $1 - ($8 + $9); if (d < 0) d = -d; if (d > 0.011) bad("total " $1 " != " $8 " + " $9) }
	$3 == "task-clock" && ($2 != "msec" || $1 !~ /^[0-9]+\.[0-9][0-9]$/ || $7 != "CPUs utilized") { bad("task-clock") }
	$3 == "page-faults" && ($2 != "" || $7 !~ /\/sec$/ || $9 < 1024) { bad("page-faults") }
	$3 == "tsc" && ($6 != "" || $7 != "") { bad("tsc has a metric") }
	{ seen = seen " " $3 }
	END { if (seen " " != " " defaults) bad("events:" seen) }
' "$tmp/csv")
[ $rc -eq 0 ] && [ -z "$why" ]
ok $? "-x ,: one line per event, nine fields, value = self + children, figures as in the report ${why:+($why)}"

perfex -x ';' --no-children -o "$tmp/csv" spin 0.1
rc=$?
[ $rc -eq 0 ] && [ "$(awk -F';' 'NF == 7' "$tmp/csv" | wc -l)" -eq "$ndefaults" ]
ok $? "-x ';' --no-children: seven fields a line, $ndefaults lines (exit $rc)"

perfex --json -o "$tmp/json" spin 0.2
rc=$?
json_re='^\{"counter-value" : "[0-9]+\.[0-9]{6}", "unit" : "(msec)?", "event" : "[a-z:-]+", "event-runtime" : [0-9]+, "pcnt-running" : 100\.00(, "metric-value" : "[0-9]+\.[0-9]{6}", "metric-unit" : "[A-Za-z/ ]+")?\}$'
events=$(sed -n 's/.*"event" : "\([a-z:-]*\)".*/\1/p' "$tmp/json" | tr '\n' ' ')
clock=$(sed -n 's/^{"counter-value" : "\([0-9]*\)\.[0-9]*", "unit" : "msec", "event" : "task-clock".*/\1/p' "$tmp/json")
[ $rc -eq 0 ] && [ "$(wc -l < "$tmp/json")" -eq "$ndefaults" ] &&
	[ "$(grep -Ec "$json_re" "$tmp/json")" -eq "$ndefaults" ] &&
	[ "$events" = "$defaults" ] &&
	[ -n "$clock" ] && [ "$clock" -ge 100 ]
ok $? "--json: $ndefaults lines, each one JSON object of perf's members, task-clock $clock msec"

# --- Repeats and intervals --------------------------------------------------

perfex -r 3 -o "$tmp/repeat" spin 0.1
rc=$?
[ $rc -eq 0 ] && grep -q "^ Performance counter stats for 'spin 0.1' (3 runs):\$" "$tmp/repeat" &&
	grep -Eq "^ +[0-9,]+\.[0-9][0-9] msec task-clock +# +[0-9.]+ CPUs utilized +\( \+- *[0-9]+\.[0-9][0-9]% \)\$" "$tmp/repeat" &&
	grep -Eq "^ +[0-9]+\.[0-9]+ \+- [0-9]+\.[0-9]+ seconds time elapsed" "$tmp/repeat" &&
	! grep -q "seconds user" "$tmp/repeat"
ok $? "-r 3: 3 runs, task-clock ( +- x.xx% ), elapsed +- its deviation (exit $rc)"

perfex -r 2 -x, -o "$tmp/csv" spin 0.05
rc=$?
[ $rc -eq 0 ] && [ "$(awk -F, 'NF == 8 && $4 ~ /^[0-9]+\.[0-9][0-9]%$/' "$tmp/csv" | wc -l)" -eq "$ndefaults" ]
ok $? "-r 2 -x ,: the variance field after the event (exit $rc)"

# A single thread cannot be on a CPU for longer than an interval lasts
# (give or take the TSC's calibration against the clock).
perfex -I 100 -o "$tmp/interval" spin 0.55
rc=$?
why=$(awk '
	$3 == "msec" && $4 == "task-clock" && $1 ~ /^[0-9]+\.[0-9]+$/ {
		n++
		ms = $2; gsub(",", "", ms); ms += 0
		if (ms > ($1 - t) * 1100 + 5) { print "interval " n ": " ms " msec in " ($1 - t) " s"; exit }
		t = $1; sum += ms
	}
	$2 == "msec" && $3 == "task-clock" { total = $1; gsub(",", "", total); total += 0 }
	END {
		if (n < 4) print "only " n " intervals"
		else if (sum > total + 0.01 * n) print "intervals " sum " > total " total
	}' "$tmp/interval")
[ $rc -eq 0 ] && [ -z "$why" ] &&
	[ "$(sed -n 1p "$tmp/interval")" = "#           time             counts unit events" ] &&
	grep -q "^ Performance counter stats for 'spin 0.55':" "$tmp/interval"
ok $? "-I 100: interval lines, each task-clock within its interval, together within the total ${why:+($why)}"

# --- Counting a running thread: -p ------------------------------------------

# The thread exits: perfex sees it and reports.
spin 1.5 &
target=$!
perfex -p $target -o "$tmp/attach"
rc=$?
wait $target
clock=$(count_of "$tmp/attach" task-clock)
elapsed=$(awk '$3 == "time" && $4 == "elapsed" { print int($1) }' "$tmp/attach")
[ $rc -eq 0 ] && grep -q "^ Performance counter stats for thread id '$target':\$" "$tmp/attach" &&
	[ -n "$clock" ] && [ "${clock%%.*}" -ge 500 ] && [ "$elapsed" -ge 1 ] && [ "$elapsed" -lt 5 ] &&
	! grep -q "seconds user" "$tmp/attach"
ok $? "-p: spin 1.5 counted until it exits ($clock msec task-clock, ${elapsed}s, exit $rc)"

# ^C: perfex stops, reports, and leaves the thread running without
# counters (so a second perfex -p may count it).
spin 30 &
target=$!
perfex -p $target -o "$tmp/attach" &
watcher=$!
sleep 1
kill -INT $watcher
wait $watcher
rc=$?
clock=$(count_of "$tmp/attach" task-clock)
[ $rc -eq 0 ] && grep -q "^ Performance counter stats for thread id '$target':\$" "$tmp/attach" &&
	[ -n "$clock" ] && [ "${clock%%.*}" -ge 200 ] && kill -0 $target 2>/dev/null &&
	grep -q "^TracerPid:.0\$" /proc/$target/status
ok $? "-p, then ^C: reported ($clock msec task-clock), the thread runs on, untraced (exit $rc)"

# With a command: as long as it runs; -I reads the thread's state page.
perfex -p $target -I 100 -o "$tmp/attach" sleeper 0.45
rc=$?
why=$(awk '
	$3 == "msec" && $4 == "task-clock" && $1 ~ /^[0-9]+\.[0-9]+$/ {
		n++; ms = $2; gsub(",", "", ms)
		if (ms + 0 == 0) { print "interval " n " counted nothing"; exit }
	}
	END { if (n < 3) print "only " n " intervals" }' "$tmp/attach")
elapsed=$(awk '$3 == "time" && $4 == "elapsed" { print $1 }' "$tmp/attach")
[ $rc -eq 0 ] && [ -z "$why" ] && grep -q "thread id '$target'" "$tmp/attach" &&
	[ -n "$elapsed" ] && awk -v e="$elapsed" 'BEGIN { exit !(e >= 0.45) }'
ok $? "-p TID sleeper 0.45 -I 100: counted again, for ${elapsed}s, every interval of the spinning thread non-zero ${why:+($why)}"
kill $target
wait $target 2>/dev/null

sh -c 'exit 0' &
gone=$!
wait $gone
perfex -p $gone > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -qx "perfex: cannot count thread $gone: no such thread" "$tmp/err"
ok $? "-p of a thread that has exited: said so, exit 1 (got $rc)"

# --- perfex -i and -l -------------------------------------------------------

perfex -i > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(sed -n 1p "$tmp/out")" = "PerfCtr Info:" ] &&
	grep -Eq "^abi_version +$(cat /sys/kernel/perfctr/abi_version)\$" "$tmp/out" &&
	grep -Eq "^cpu_khz +$(cat /sys/kernel/perfctr/cpu_khz)\$" "$tmp/out" &&
	grep -Eq "^nrctrs +$(cat /sys/kernel/perfctr/nrctrs)\$" "$tmp/out" &&
	grep -Eq "^nrfixed +$(cat /sys/kernel/perfctr/nrfixed)\$" "$tmp/out" &&
	grep -Eq "^nrmetrics +$(cat /sys/kernel/perfctr/nrmetrics 2>/dev/null || echo 0)\$" "$tmp/out" &&
	sed -n 13p "$tmp/out" | grep -Eq '^native events: (libpfm4 PMU |none: )' &&
	[ "$(wc -l < "$tmp/out")" -eq 13 ]
ok $? "-i: the counters described as sysfs has them, a field a line, then native events (exit $rc)"

perfex -l > "$tmp/list"
rc=$?
listed=0
accepted=0
for e in $(awk '/^  [a-z].*\]$/ { print $1 }' "$tmp/list"); do
	listed=$((listed + 1))
	perfex -e "$e" -o /dev/null true && accepted=$((accepted + 1))
done
[ $rc -eq 0 ] && [ $listed -ge 7 ] && [ $accepted -eq $listed ] &&
	{ [ "$hw" -gt 0 ] || [ $listed -eq 7 ]; } &&
	grep -Eq "^  task-clock +\[Software event\]\$" "$tmp/list" &&
	[ "$(awk '/^  task-clock / { getline; print; exit }' "$tmp/list")" = "       time on a CPU, in ns" ]
ok $? "-l: $listed events listed, each described, $accepted of them taken by -e"

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

	if [ -n "$paranoid" ]; then
		want="perf_event_paranoid is $paranoid"
	else
		want="perf_event_paranoid unknown"
	fi
	[ "$(sed -n 2p "$tmp/err")" = "perfex: page-faults:k: kernel-mode counting needs CAP_PERFMON (missing; $want)" ]
	ok $? "unprivileged: says CAP_PERFMON is missing, and perf_event_paranoid ($(sed -n 2p "$tmp/err"))"

	$drop perfex spin 0 > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && [ -n "$(count_of "$tmp/err" page-faults:u)" ] &&
		[ -z "$(count_of "$tmp/err" page-faults)" ]
	ok $? "unprivileged: default page faults fall back to user mode, page-faults:u (exit $rc)"
else
	skip_test "unprivileged: -e page-faults:k fails with EACCES" "$why"
	skip_test "unprivileged: says CAP_PERFMON is missing" "$why"
	skip_test "unprivileged: default page faults fall back to page-faults:u" "$why"
fi

# --regions: the regions example's 4 threads.  Each region's total is the
# sum of its threads', and the run is reported outside the regions too.
perfex --regions -x, -e tsc,page-faults regions > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^sum,total,500,' "$tmp/err" &&
	grep -q '^,total,,' "$tmp/err" &&
	awk -F, '$1 != "" && $2 != "" && $3 != "" {
		if ($2 == "total") { total[$1 "," $6] = $4; calls[$1] = $3 }
		else { sum[$1 "," $6] += $4; n[$1 "," $6]++; c[$1 "," $6] += $3 }
	}
	END {
		for (k in total) {
			split(k, rk, ",")
			if (n[k] != 4 || sum[k] != total[k] ||
			    c[k] != calls[rk[1]])
				exit 1
			m++
		}
		exit m == 6 ? 0 : 1
	}' "$tmp/err"
ok $? "--regions: 3 regions in 4 threads, each total its threads' sum (exit $rc)"

rm -rf "$tmp"
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
