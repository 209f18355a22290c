#!/bin/sh
# An unchanged untracked file is not read again by the next record (its hash comes from the
# store's cache, as git's index does); a changed one is, whatever its size and times say.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || { echo "strace is needed (Debian package 'strace')"; exit 77; }
# LeakSanitizer cannot run under ptrace: a sanitizer build keeps its other checks
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
make_repo repo
cd repo
# not random: the change below must change a byte (a random file held 'X' there once in 256)
head -c 3000000 /dev/zero | tr '\0' a >big.bin
touch -d '1 minute ago' big.bin
expect_exit 0 "the first record reads the untracked file" strace -f -qq -e trace=openat -o "$T/trace1" "$LABRUN" record -q -- true
grep -q 'big.bin' "$T/trace1" || fail "the first record did not open big.bin"
ok "opened it"
sum=$(sha256sum big.bin | cut -d' ' -f1)
equals "$(q "SELECT sha256 FROM source_file WHERE path = 'big.bin' ORDER BY run_id DESC LIMIT 1")" "$sum" "and stored its hash"
expect_exit 0 "the second record" strace -f -qq -e trace=openat -o "$T/trace2" "$LABRUN" record -q -- true
! grep -q 'big.bin' "$T/trace2" || fail "the second record opened big.bin again"
ok "does not open it: the hash comes from the cache"
equals "$(q "SELECT sha256 FROM source_file WHERE path = 'big.bin' ORDER BY run_id DESC LIMIT 1")" "$sum" "with the same hash"
# same size, same modification time, new content: the change time still tells
printf 'X' | dd of=big.bin bs=1 seek=100 conv=notrunc 2>/dev/null
touch -d '1 minute ago' big.bin
expect_exit 0 "after a change that keeps size and mtime" "$LABRUN" record -q -- true
equals "$(q "SELECT sha256 FROM source_file WHERE path = 'big.bin' ORDER BY run_id DESC LIMIT 1")" \
	"$(sha256sum big.bin | cut -d' ' -f1)" "the file is read again"
# the diff hash covers untracked files by path and hash, so it follows the change too
equals "$(q "SELECT count(DISTINCT diff_sha256) FROM source_state")" "2" "the diff hash changed with the file, and only then"

# Start-up: commands that read no sources do not start libgit2 at all. libgit2's TLS backend
# still parses the system's CA bundle when it starts: the executable once defined mbedTLS's CA
# loader itself to skip that, which replaced it for every library in the process (a libcurl built
# on mbedTLS would have trusted nothing). It defines no function of the libraries it uses.
command -v nm >/dev/null || { echo "nm is needed (Debian package 'binutils')"; exit 77; }
foreign=$(nm -D --defined-only "$LABRUN" | grep -E ' (mbedtls_|git_|curl_|archive_|sqlite3_|json_|PQ|EVP_|SSL_)' || true)
[ -z "$foreign" ] || fail "labrun defines functions of the libraries it uses: $foreign"
ok "labrun interposes no function of another library"
expect_exit 0 "list" strace -f -qq -e trace=openat -o "$T/trace3" "$LABRUN" list
! grep -q '\.git/' "$T/trace3" || fail "list opened the git repository"
ok "list does not start libgit2"

# outside any work tree record does not load libgit2 at all (a '.git' in the directory or above it is
# what could make one): about 3 ms of a 'record -- true'
mkdir -p "$T/nogit/deeper"
(cd "$T/nogit/deeper" && strace -f -qq -e trace=openat -o "$T/trace4" "$LABRUN" --store "$T/nogit/store" record -q -- true) ||
	fail "record outside a work tree"
! grep -q 'libgit2' "$T/trace4" || fail "record loaded libgit2 outside any work tree"
ok "record outside a work tree does not load libgit2"
equals "$(LABRUN_STORE="$T/nogit/store" q "SELECT count(*) FROM source_state")" "0" "and records no sources there"
: >"$T/nogit/.git" # a linked work tree's .git is a file: libgit2 is asked again
(cd "$T/nogit/deeper" && strace -f -qq -e trace=openat -o "$T/trace5" "$LABRUN" --store "$T/nogit/store" record -q -- true) ||
	true
grep -q 'libgit2' "$T/trace5" || fail "a .git above the directory did not bring libgit2 in"
ok "a .git file above the directory brings libgit2 in"
