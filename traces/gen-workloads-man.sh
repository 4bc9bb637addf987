#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-workloads-man.sh - rewrites the PROFILES section of a copy of
# iostorm-workloads(7) from `iostorm synth --describe`, so that the manual
# and the code agree (tests/cli/synth.sh checks that they do).
# Usage: traces/gen-workloads-man.sh IOSTORM PAGE > NEWPAGE
set -eu
IOSTORM=$1
PAGE=$2
sed -n '1,/^\.SH PROFILES$/p' "$PAGE"
"$IOSTORM" synth --list | while read -r name summary; do
	printf '.SS %s\n%s.\n' "$name" "$summary" | sed 's/\\/\\\\/g'
	"$IOSTORM" synth "$name" --describe | awk 'NR > 3 {
		name = $1; def = $2; unit = $3
		$1 = $2 = $3 = ""
		text = substr($0, 4)
		gsub(/\\/, "\\\\", text)
		src = text; sub(/^.*\[/, "", src); sub(/\]$/, "", src)
		mean = text; sub(/ \[[^[]*\]$/, "", mean)
		gsub(/-/, "\\-", name)
		printf ".TP\n.BR %s \" = %s%s\"\n", name, def, unit != "-" ? " (" unit ")" : ""
		printf "%s.\nSource: %s.\n", mean, src
	}'
done
sed -n '/^\.SH SEE ALSO$/,$p' "$PAGE"
