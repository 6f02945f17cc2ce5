#!/usr/bin/env bash
# symbol_check.sh LIB NVML_H: the simulator's symbols against NVIDIA's nvml.h and src/entry_points.def.
#  1. LIB exports exactly the NVML_ENTRY names (nothing more, nothing less).
#  2. Every NVML_ENTRY is a function of nvml.h, with the same prototype (test/proto_check.c, compiled against it).
#  3. Every function of nvml.h is an NVML_ENTRY or an NVML_ABSENT; NVML_ABSENT names only nvml.h functions, and
#     no name is both. A new nvml.h therefore fails here until each new function is sorted into one list.
set -euo pipefail
lib=$1 hdr=$2
here=$(cd "$(dirname "$0")/.." && pwd)
def=$here/src/entry_points.def
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "symbol_check: $(tr "\n" " " <<<"$*")" >&2; bad=1; }

sed -n 's/^NVML_ENTRY([^,]*, *\([A-Za-z0-9_]*\),.*/\1/p' "$def" | sort >"$tmp/entries"
sed -n 's/^NVML_ABSENT([a-z]*, *\([A-Za-z0-9_]*\)).*/\1/p' "$def" | sort >"$tmp/absent"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWw]$/ {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
grep -oE 'DECLDIR[[:space:]]+(char[[:space:]]*\*[[:space:]]*)?nvml[A-Za-z0-9_]+[[:space:]]*\(' "$hdr" \
  | sed -E 's/.*(nvml[A-Za-z0-9_]+)[[:space:]]*\($/\1/' | sort -u >"$tmp/header"

for f in entries absent; do
  dups=$(uniq -d "$tmp/$f")
  [ -z "$dups" ] || fail "named twice in entry_points.def ($f): $dups"
done
both=$(comm -12 "$tmp/entries" "$tmp/absent")
[ -z "$both" ] || fail "both NVML_ENTRY and NVML_ABSENT: $both"
x=$(comm -23 "$tmp/exported" "$tmp/entries"); [ -z "$x" ] || fail "exported but not an NVML_ENTRY: $x"
x=$(comm -13 "$tmp/exported" "$tmp/entries"); [ -z "$x" ] || fail "NVML_ENTRY not exported: $x"
x=$(comm -23 "$tmp/entries" "$tmp/header"); [ -z "$x" ] || fail "NVML_ENTRY not in nvml.h: $x"
x=$(comm -23 "$tmp/absent" "$tmp/header"); [ -z "$x" ] || fail "NVML_ABSENT not in nvml.h: $x"
x=$(comm -23 "$tmp/header" <(sort -u "$tmp/entries" "$tmp/absent"))
[ -z "$x" ] || fail "in nvml.h, neither NVML_ENTRY nor NVML_ABSENT (sort each into src/entry_points.def): $x"

if ! "${CC:-gcc}" -std=c11 -fsyntax-only -Werror -DNVML_NO_UNVERSIONED_FUNC_DEFS -include "$hdr" \
  -I"$here/src" "$here/test/proto_check.c" 2>"$tmp/cc.err"; then
  grep -E 'error|note: previous' "$tmp/cc.err" | head -40 >&2
  fail "prototypes differ from nvml.h (above)"
fi

[ "$bad" = 0 ] || exit 1
echo "symbol_check: $(wc -l <"$tmp/entries") exported, $(wc -l <"$tmp/absent") deliberately absent," \
  "$(wc -l <"$tmp/header") functions in nvml.h"
