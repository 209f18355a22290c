# The shell examples of Markdown files, for tests/docs/doc.sh
# and .ci/run. For each fenced block whose info string is "sh" it writes the
# block, its fence's indentation removed, to DIR/N.sh and prints
#	N FILE LINE [TAG...]
# where the tags are the info string's words after "sh": "exit=N" (the block
# is expected to exit N), "ci" (the block builds or tests labrun itself and
# is run by .ci/run, not by make check) or "slow" (run by make check-slow only). A fence with a shell-like language
# other than "sh" is an error, so no example can slip past the harness.
#
# usage: awk -v dir=DIR -f doc-blocks.awk FILE...
FNR == 1 { inblock = 0 }
!inblock && /^ *```/ {
	info = $0
	sub(/^ *```/, "", info)
	split(info, word, " ")
	if (word[1] == "bash" || word[1] == "shell" || word[1] == "console" || word[1] == "zsh") {
		printf "%s:%d: a '%s' block: write it as 'sh' so that it is tested\n", FILENAME, FNR, word[1] > "/dev/stderr"
		bad = 1
	}
	inblock = 1
	indent = $0
	sub(/```.*/, "", indent)
	if (word[1] != "sh") {
		out = ""
		next
	}
	tags = info
	sub(/^sh */, "", tags)
	n++
	out = dir "/" n ".sh"
	printf "" > out
	print n, FILENAME, FNR, tags
	next
}
inblock && /^ *```$/ {
	inblock = 0
	if (out != "")
		close(out)
	next
}
inblock && out != "" {
	line = $0
	if (substr(line, 1, length(indent)) == indent)
		line = substr(line, length(indent) + 1)
	print line > out
}
END { exit bad ? 2 : 0 }
