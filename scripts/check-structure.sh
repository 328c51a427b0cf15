#!/usr/bin/env bash
# check-structure.sh - the structure guards (docs/architecture.md): no call or
# include cycle inside any folder of src/, no folder using one it may not,
# no .c file over 1,200 lines, no function over 120 lines. Reads the built
# objects (nm), so run it after a build:
#   scripts/check-structure.sh [BUILD_DIR] [--graph]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec /usr/bin/python3 scripts/check_structure.py "$@"
