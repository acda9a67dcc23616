#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1
#
# native-test.sh ENCODER_X86 JSON_ROOT [ENCODER_ARM64]
#
# libperfctr's native event names against Linux's perf event tables, for
# every PMU native_vs_perf.py knows: the x86 ones with ENCODER_X86 (this
# host's native_encode), the arm64 ones with ENCODER_ARM64, a static
# aarch64 native_encode, run under qemu-aarch64 unless this host is
# aarch64 (QEMU_AARCH64 names another runner).  Without ENCODER_ARM64 the
# arm64 PMUs are left out, and said so.  JSON_ROOT is
# tools/perf/pmu-events/arch of a Linux tree.  Each PMU's TAP is printed
# as it comes, then the line
#
#	native encodings: P passed, F failed
#
# counting the tests of every PMU.  Exit status 0 if none failed.
#
# Building the encoders, with libpfm4 (Debian: libpfm4-dev; for arm64,
# libpfm4-dev:arm64 unpacked with dpkg-deb -x into $ARM):
#
#	make -C lib O=/tmp/native
#	cc -std=gnu11 -Ilib/include -Ikernel/include/uapi -Ilib/tests \
#		-o /tmp/native/native_encode lib/tests/native_encode.c \
#		/tmp/native/lib/libperfctr.a -lpfm
#	make -C lib O=/tmp/native-arm64 CC=aarch64-linux-gnu-gcc \
#		AR=aarch64-linux-gnu-ar LIBPFM=yes \
#		LIBPFM_CFLAGS=-I$ARM/usr/include \
#		LIBPFM_LIBS=$ARM/usr/lib/aarch64-linux-gnu/libpfm.a
#	aarch64-linux-gnu-gcc -static -std=gnu11 -Ilib/include \
#		-Ikernel/include/uapi -Ilib/tests \
#		-o /tmp/native-arm64/native_encode lib/tests/native_encode.c \
#		/tmp/native-arm64/lib/libperfctr.a \
#		$ARM/usr/lib/aarch64-linux-gnu/libpfm.a
#	lib/tests/native-test.sh /tmp/native/native_encode \
#		linux/tools/perf/pmu-events/arch /tmp/native-arm64/native_encode

set -u

X86_PMUS="skl icl spr amd64_fam19h_zen3 amd64_fam19h_zen4"
ARM_PMUS="arm_ac57 arm_n1"

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ENCODER_X86 JSON_ROOT [ENCODER_ARM64]" >&2
	exit 2
fi
enc_x86=$1
json_root=$2
enc_arm=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
script=$here/native_vs_perf.py

passed=0
failed=0

# run_pmu PMU ENCODER [RUNNER]
run_pmu() {
	local pmu=$1 enc=$2 runner=${3:-} out status p f

	echo "# ==== $pmu ===="
	out=$(python3 "$script" --encoder "$enc" --json-root "$json_root" \
		--pmu "$pmu" --runner "$runner" 2>&1)
	status=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	# A run that could not test (Bail out!, a crash) counts as a failure.
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $pmu: native_vs_perf.py exited with $status"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

for pmu in $X86_PMUS; do
	run_pmu "$pmu" "$enc_x86"
done

if [ -n "$enc_arm" ]; then
	runner=
	if [ "$(uname -m)" != aarch64 ]; then
		runner=${QEMU_AARCH64:-qemu-aarch64}
		if ! command -v "${runner%% *}" >/dev/null 2>&1; then
			echo "# $runner not found (Debian: qemu-user)"
			for pmu in $ARM_PMUS; do
				echo "# ==== $pmu ===="
				echo "not ok - $pmu: no $runner to run $enc_arm"
				failed=$((failed + 1))
			done
			runner=none
		fi
	fi
	if [ "$runner" != none ]; then
		for pmu in $ARM_PMUS; do
			run_pmu "$pmu" "$enc_arm" "$runner"
		done
	fi
else
	echo "# $ARM_PMUS: left out, no arm64 encoder given"
fi

echo "native encodings: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
