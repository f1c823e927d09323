#!/usr/bin/env bash
# Prints the URI of the first Debian source that is not a security mirror in the given apt source
# files: deb822 ("URIs: URI") or one-line ("deb [options] URI suite components"; the options,
# when present, come before the URI). Prints nothing when there is none.
#
# usage: scripts/deps/debian_mirror.sh FILE...   (missing files are passed over)
set -uo pipefail
cat "$@" 2>/dev/null |
  awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}
       /^deb / && $0 !~ /security/ {i = 2; if ($i ~ /^\[/) {while (i < NF && $i !~ /\]$/) i++; i++}
                                    print $i; exit}'
exit 0
