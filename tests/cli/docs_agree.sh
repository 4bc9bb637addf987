#!/bin/sh
# SPDX-License-Identifier: MIT
# docs_agree.sh - the command documentation that help_man.sh (the option
# sets of the code, --help and the man pages) does not compare:
#  - iostorm(1)'s COMMANDS and README.md's usage table name exactly the
#    commands of 'iostorm --help';
#  - iostorm's own options (-V, --version, -h, --help, help) are in the
#    usage of 'iostorm --help' and the SYNOPSIS of iostorm(1);
#  - each option of a README usage row is one its command accepts (the
#    table's rows are not 'iostorm CMD' lines, which help_man.sh checks);
#  - the examples that go on over several lines ("\\" or "\e" at the end)
#    in README.md and the man pages: each option of the command is one it
#    accepts;
#  - each "-x, --name" of a command's --help has the tag "-x, --name" in
#    its man page's OPTIONS;
#  - the exit statuses a command's --help names are those of the EXIT
#    STATUS section of its man page.
. "$top_srcdir/tests/cli/lib.sh"
S="$top_srcdir"

expect_status 0 "$IOSTORM" --help
awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }' \
	"$TMP/out" | sort >"$TMP/cmds"
[ -s "$TMP/cmds" ] || fail "no command list in iostorm --help"
cmds=$(echo $(cat "$TMP/cmds"))

# setdiff A B : the lines of file A missing from file B
setdiff() { comm -23 "$1" "$2" | tr '\n' ' '; }

# iostorm(1): the first word of each tag of COMMANDS
sed 's/\\-/-/g' "$S/man/iostorm.1" |
	awk '/^\.SH/ { o = ($0 ~ /^\.SH "?COMMANDS/) } o && t { print } { t = o && /^\.TP/ }' |
	sed -E 's/^\.[A-Z]+ +"?([a-z]+).*/\1/' | sort -u >"$TMP/mancmds"
d=$(setdiff "$TMP/cmds" "$TMP/mancmds")
[ -z "$d" ] || fail "commands missing from the COMMANDS of man/iostorm.1: $d"
d=$(setdiff "$TMP/mancmds" "$TMP/cmds")
[ -z "$d" ] || fail "man/iostorm.1 COMMANDS names what iostorm --help does not: $d"
ok

# iostorm's own options (main.c's argv[1] words) in its --help's usage
# and iostorm(1)'s SYNOPSIS (-V and -h were in neither)
sed 's/\\-/-/g' "$S/man/iostorm.1" |
	awk '/^\.SH/ { o = ($0 ~ /^\.SH "?SYNOPSIS/); next } o' >"$TMP/mansyn"
awk '/^Usage:/ { f = 1 } f && /^$/ { exit } f' "$TMP/out" >"$TMP/usage"
for w in $(grep -oE 'strcmp\(argv\[1\], "[^"]+"\)' "$S/src/cli/main.c" |
	   sed -E 's/.*"([^"]+)".*/\1/' | sort -u); do
	grep -qE -- "(^|[ |])$w([ |]|\$)" "$TMP/usage" ||
		fail "iostorm accepts '$w', its --help's usage does not show it"
	grep -qE -- "(^|[ |])$w([ |\"]|\$)" "$TMP/mansyn" ||
		fail "iostorm accepts '$w', the SYNOPSIS of man/iostorm.1 does not show it"
	ok
done

# README.md: the rows of the usage table ("| `cmd ...` | ...")
grep -E '^\| `[a-z]+[ `]' "$S/README.md" >"$TMP/rows" || fail "no usage table in README.md"
grep -oE '`[a-z]+[ `]' "$TMP/rows" | tr -d '` ' | sort -u >"$TMP/rowcmds"
d=$(setdiff "$TMP/cmds" "$TMP/rowcmds")
[ -z "$d" ] || fail "commands missing from README.md's usage table: $d"
while IFS= read -r row; do
	cmd=$(printf '%s\n' "$row" | sed -E 's/^\| `([a-z]+).*/\1/')
	case " $cmds " in *" $cmd "*) ;; *) fail "README.md usage row of no command: $row" ;; esac
	for o in $(printf '%s\n' "$row" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qE "\{ *\"${o#--}\"," "$S/src/cli/cmd_$cmd.c" ||
			fail "README.md usage row of $cmd: $cmd has no option $o"
	done
	ok
done <"$TMP/rows"

# the examples of README.md and the manual pages, lines continued ("\\" or
# "\e" at the end) joined: every --option of a line 'iostorm CMD ...' is one
# that CMD accepts
for f in "$S/README.md" "$S"/man/*.[157]; do
	sed 's/\\-/-/g' "$f" |
		awk '{ l = $0; sub(/ *(\\\\|\\e)$/, "", l) }
		     c { j = j " " l } !c { j = l; n = NR }
		     { c = ($0 ~ /(\\\\|\\e)$/) }
		     !c && j ~ /iostorm +[a-z]+( |$)/ { print n ":" j }' >"$TMP/ex"
	while IFS= read -r line; do
		cmd=$(printf '%s\n' "${line#*:}" | sed -E 's/.*iostorm +([a-z]+).*/\1/')
		case " $cmds " in *" $cmd "*) ;; *) continue ;; esac
		for o in $(printf '%s\n' "${line#*:}" | sed -E "s/.*iostorm +$cmd//; s/#.*//" |
			   grep -oE -- '(^| )--[a-z][a-z0-9-]*'); do
			grep -qE "\{ *\"${o#--}\"," "$S/src/cli/cmd_$cmd.c" ||
				fail "${f#$S/}:${line%%:*}: iostorm $cmd has no option $o"
		done
	done <"$TMP/ex"
	ok
done

# statuses: the digits 0-4 that begin an item ("0 success, 1 ...; 2 ...")
statuses() { grep -oE '(^|[:,;]) *[0-4] [a-z(]' | grep -oE '[0-4]' | sort -u | tr -d '\n'; }

nohelp=""
for cmd in $cmds; do
	man="$S/man/iostorm-$cmd.1"
	[ -f "$man" ] || fail "$cmd: no manual page man/iostorm-$cmd.1"
	expect_status 0 "$IOSTORM" "$cmd" --help
	cp "$TMP/out" "$TMP/help"
	sed 's/\\-/-/g' "$man" >"$TMP/man"

	# short options: "-x, --name" in --help, the same pair in a tag
	grep -oE -- '^ +-[a-zA-Z0-9], --[a-z][a-z0-9-]*' "$TMP/help" | sed 's/^ *//' |
	while IFS= read -r pair; do
		awk '/^\.SH/ { o = ($0 ~ /^\.SH "?OPTIONS/) } o && t { print } { t = o && /^\.T[PQ]/ }' \
			"$TMP/man" | sed -E 's/\\f[BIRP]//g; s/"//g; s/^\.[A-Z]+ +//; s/ +,/,/g' |
			grep -qE -- "(^|[^a-z0-9-])${pair%%,*}, +${pair#*, }([^a-z0-9-]|$)" ||
			fail "$cmd: --help has '$pair', no OPTIONS tag of man/iostorm-$cmd.1 does"
	done || exit 1
	ok

	# exit statuses: --help's "Exit status: ..." paragraph against the
	# man page's EXIT STATUS (its .TP tags, else its prose)
	h=$(awk '/Exit status/ { f = 1; sub(/.*Exit status/, "") } f && /^$/ { exit } f' \
		"$TMP/help" | tr '\n' ' ' | statuses)
	awk '/^\.SH/ { o = ($0 ~ /^\.SH "?EXIT STATUS/); next } o' "$TMP/man" >"$TMP/exit"
	m=$(awk 't && /^\.B [0-9]+$/ { print $2 } { t = /^\.TP/ }' "$TMP/exit" | sort -u | tr -d '\n')
	[ -n "$m" ] || m=$( (printf ': '; grep -v '^\.' "$TMP/exit") | tr '\n' ' ' | statuses)
	[ -n "$m" ] || fail "$cmd: no exit status in man/iostorm-$cmd.1"
	if [ -z "$h" ]; then
		nohelp="$nohelp $cmd"
	else
		expect_eq "$h" "$m" "$cmd: exit statuses of --help against man/iostorm-$cmd.1"
	fi
done
# a --help without the statuses is allowed (annotate's, for now) but said
[ -z "$nohelp" ] || echo "note: no exit status in the --help of:$nohelp"
done_ok
