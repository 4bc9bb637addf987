#!/bin/sh
# SPDX-License-Identifier: MIT
# help_man.sh - for every command that 'iostorm --help' lists, the long
# options in its option table (src/cli/cmd_NAME.c), in its --help and in the
# OPTIONS section of man/iostorm-NAME.1 are the same set, and the short
# options of its getopt string are those --help shows; every command has
# its man page and 'iostorm help NAME' shows its --help.
. "$top_srcdir/tests/cli/lib.sh"
S="$top_srcdir"

expect_status 0 "$IOSTORM" --help
cmds=$(awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }' "$TMP/out")
[ -n "$cmds" ] || fail "no command list in iostorm --help"
cmds=$(echo $cmds) # one line
ok
# 'iostorm help' is --help; an unknown word before the command is named
# as what it looks like (--bogus was an "unknown command")
expect_status 0 "$IOSTORM" help
"$IOSTORM" --help | cmp -s - "$TMP/out" ||
	fail "'iostorm help' differs from 'iostorm --help'"
expect_status 2 "$IOSTORM" --bogus
expect_eq "$(cat "$TMP/err")" "iostorm: unknown option '--bogus'
Try 'iostorm --help' for more information." "iostorm --bogus"
expect_status 2 "$IOSTORM" help synth replay
expect_eq "$(cat "$TMP/err")" "iostorm: help takes one command, not 'replay'
Try 'iostorm --help' for more information." "iostorm help synth replay"
expect_status 2 "$IOSTORM" bogus
expect_eq "$(cat "$TMP/err")" "iostorm: unknown command 'bogus'
Try 'iostorm --help' for more information." "iostorm bogus"

# setdiff A B : the lines of file A missing from file B
setdiff() { comm -23 "$1" "$2" | tr '\n' ' '; }

for cmd in $cmds; do
	src="$S/src/cli/cmd_$cmd.c"
	man="$S/man/iostorm-$cmd.1"
	[ -f "$src" ] || fail "$cmd: no $src"
	[ -f "$man" ] || fail "$cmd: no manual page man/iostorm-$cmd.1"
	ok
	expect_status 0 "$IOSTORM" "$cmd" --help
	cp "$TMP/out" "$TMP/help"
	expect_status 0 "$IOSTORM" help "$cmd"
	cmp -s "$TMP/out" "$TMP/help" || fail "$cmd: 'iostorm help $cmd' differs from --help"
	ok
	# the code: { "name", no_argument|required_argument|optional_argument
	grep -oE '\{ *"[a-z][a-z0-9-]*", *(no|required|optional)_argument' "$src" |
		sed -E 's/\{ *"([^"]*)".*/--\1/' | sort -u >"$TMP/code"
	# --help: lines that define an option ("  -x, --name ..." or "      --name")
	grep -E -- '^ +(-[a-zA-Z0-9], )?--[a-z]' "$TMP/help" |
		grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/helpopts"
	# the man page: the tags (.TP / .TQ lines' next line) of OPTIONS
	awk '/^\.SH/ { o = ($0 ~ /^\.SH "?OPTIONS/) } o && t { print } { t = o && /^\.T[PQ]/ }' "$man" |
		grep -oE -- '\\-\\-[a-z][a-z0-9\\-]*' | sed 's/\\-/-/g' | sort -u >"$TMP/manopts"
	[ -s "$TMP/code" ] || fail "$cmd: no option table found in $src"
	d=$(setdiff "$TMP/code" "$TMP/helpopts")
	[ -z "$d" ] || fail "$cmd: accepted but not in --help: $d"
	d=$(setdiff "$TMP/helpopts" "$TMP/code")
	[ -z "$d" ] || fail "$cmd: in --help but not accepted: $d"
	d=$(setdiff "$TMP/code" "$TMP/manopts")
	[ -z "$d" ] || fail "$cmd: accepted but not in the OPTIONS of man/iostorm-$cmd.1: $d"
	d=$(setdiff "$TMP/manopts" "$TMP/code")
	[ -z "$d" ] || fail "$cmd: in the OPTIONS of man/iostorm-$cmd.1 but not accepted: $d"
	ok
	# short options: getopt_long's string against "  -x, --name" lines
	code=$(grep -oE 'getopt_long\([^"]*"[^"]*"' "$src" | sed -E 's/.*"([^"]*)"$/\1/' |
		tr -d ':+-' | fold -w1 | sort -u | tr -d '\n')
	help=$(grep -oE -- '^ +-[a-zA-Z0-9][, ]' "$TMP/help" | tr -d ' ,-' | sort -u | tr -d '\n')
	expect_eq "$help" "$code" "$cmd: short options in --help against getopt_long's"
	# an unknown option is a usage error naming it, in one message and
	# the hint (getopt's own message came first in replay, sweep,
	# precondition and demo, and theirs did not name the option)
	expect_status 2 "$IOSTORM" "$cmd" --no-such-option
	expect_eq "$(head -1 "$TMP/err" | grep -c "^iostorm $cmd: unknown option '--no-such-option'")" 1 \
		"$cmd: the unknown option's message"
	expect_eq "$(sed -n 2p "$TMP/err")" "Try 'iostorm $cmd --help' for more information." "$cmd: the hint"
	expect_eq "$(wc -l <"$TMP/err")" 2 "$cmd: lines on stderr for an unknown option"
done

# the examples' options (README.md and the manual pages, lines continued
# with a backslash joined): docs_agree.sh
done_ok
