#!/usr/bin/env bash
# Installs the pinned, real vendor agent CLIs into .cache/real-clis (gitignored) so that the
# integration tests can run them against the fake model server (test/support/fake-model.ts).
#
#   bash scripts/install-real-clis.sh           # install what is missing (quick when all present)
#   bash scripts/install-real-clis.sh --force   # reinstall everything
#
# Needs only the npm registry. One package failing does not fail the others: the script prints which
# ones failed and exits 0 (exit 1 only when none at all could be installed). The pins match the versions
# the protocols in shared/protocols (and docs/protocols/pi.md for pi) were recorded with.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.cache/real-clis"
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1

# name|package|version  (name = the bin it provides)
PINS=(
  "claude|@anthropic-ai/claude-code|2.1.197"
  "codex|@openai/codex|0.169.0"
  "gemini|@google/gemini-cli|0.61.0"
  "opencode|opencode-ai|1.18.33"
  "copilot|@github/copilot|1.0.102"
  # Pi: 0.74.2 is the newest release whose engines allow Node 20 (0.75.1 and later need Node >= 22.19).
  "pi|@earendil-works/pi-coding-agent|0.74.2"
)

mkdir -p "$PREFIX"
# Keep npm from walking up to the project's package.json: give the prefix its own (never saved into).
[ -f "$PREFIX/package.json" ] || echo '{"name":"svc-real-clis","private":true}' >"$PREFIX/package.json"

installed_version() { # package -> version installed in the prefix, or empty
  local pj="$PREFIX/node_modules/$1/package.json"
  [ -f "$pj" ] && node -e 'process.stdout.write(require(process.argv[1]).version||"")' "$pj" 2>/dev/null
}

have_bin() { [ -x "$PREFIX/node_modules/.bin/$1" ]; }

start=$(date +%s)
ok_specs=()      # already installed at the pinned version (kept in every npm call: --no-save prunes the rest)
missing_specs=()
for pin in "${PINS[@]}"; do
  IFS='|' read -r name pkg ver <<<"$pin"
  if [ "$FORCE" = 0 ] && [ "$(installed_version "$pkg")" = "$ver" ] && have_bin "$name"; then
    ok_specs+=("$pkg@$ver")
  else
    missing_specs+=("$pkg@$ver")
  fi
done

if [ "${#missing_specs[@]}" -eq 0 ]; then
  echo "real CLIs: all ${#ok_specs[@]} already installed in $PREFIX"
  exit 0
fi

npm_install() {
  (cd "$PREFIX" && npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error "$@")
}

echo "real CLIs: installing ${missing_specs[*]} into $PREFIX"
failed=()
# One npm call for everything first (fastest); when it fails, one package at a time.
if ! npm_install "${ok_specs[@]}" "${missing_specs[@]}"; then
  echo "real CLIs: combined install failed, retrying one package at a time" >&2
  for spec in "${missing_specs[@]}"; do
    if npm_install "${ok_specs[@]}" "$spec"; then
      ok_specs+=("$spec")
    else
      failed+=("$spec")
      echo "real CLIs: FAILED to install $spec" >&2
    fi
  done
fi

echo "real CLIs: done in $(($(date +%s) - start)) s"
status=0
n_ok=0
for pin in "${PINS[@]}"; do
  IFS='|' read -r name pkg ver <<<"$pin"
  got="$(installed_version "$pkg")"
  if [ "$got" = "$ver" ] && have_bin "$name"; then
    echo "  ok      $name  $pkg@$got"
    n_ok=$((n_ok + 1))
  else
    echo "  MISSING $name  $pkg@$ver${got:+ (found $got)}"
  fi
done
[ "${#failed[@]}" -gt 0 ] && echo "real CLIs: failed: ${failed[*]}" >&2
[ "$n_ok" -eq 0 ] && status=1
exit $status
