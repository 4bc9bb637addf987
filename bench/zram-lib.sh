# SPDX-License-Identifier: MIT
# bench/zram-lib.sh - sourced by the record benchmarks (record.sh,
# record-cpu.sh, record-kernel.sh): a private zram device of their own
# (hot_add), filled once, and its removal, after the checks and the
# temporary directory they all need.  Set the script's EXIT trap (calling
# zram_bench_cleanup) before zram_new.

# zram_bench_start NAME: root, fio and tracefs (mounted when it is not),
# else exit 77 naming the script NAME; sets tmp to a new temporary directory.
zram_bench_start() {
	[ "$(id -u)" -eq 0 ] || { echo "$1: needs root" >&2; exit 77; }
	command -v fio >/dev/null || { echo "$1: needs fio" >&2; exit 77; }
	[ -d /sys/kernel/tracing/events/block ] || mount -t tracefs nodev /sys/kernel/tracing
	tmp=$(mktemp -d)
}

# zram_bench_cleanup: removes the device (zram_remove) and $tmp.
zram_bench_cleanup() {
	zram_remove
	rm -rf "${tmp:?}"
}

# zram_new SIZE: a new zram device of SIZE, written once so that reads find
# data rather than empty pages; sets Z (its number) and DEV (/dev/zramZ).
zram_new() {
	[ -e /sys/class/zram-control/hot_add ] || modprobe zram
	Z=$(cat /sys/class/zram-control/hot_add)
	DEV=/dev/zram$Z
	echo "$1" >"/sys/block/zram$Z/disksize"
	fio --name=fill --filename="$DEV" --rw=write --bs=1M --direct=1 --size="$1" \
		--output=/dev/null
}

# zram_remove: resets and removes the device zram_new made, if any.
zram_remove() {
	[ -n "${Z:-}" ] || return 0
	echo 1 >"/sys/block/zram$Z/reset" 2>/dev/null || true
	echo "$Z" >/sys/class/zram-control/hot_remove 2>/dev/null || true
	Z=
}
