# Sourced by the corpus build scripts (kernels/, rdna/, host/): their --check mode. The
# sourcing script defines build OUT (write every output into folder OUT) and outputs DIR (the
# committed outputs of DIR, one per line, relative to it) and sets HERE to its folder.
#
# check_reproducible: rebuild into a temporary folder and compare the set of outputs and
# every output's bytes with what is committed; exit 0 when all match, 1 otherwise.
check_reproducible() {
    local scratch status=0 name
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    build "$scratch"
    if [[ "$(outputs "$scratch")" != "$(outputs "$HERE")" ]]; then
        echo "the set of outputs differs from a fresh build:" >&2
        diff <(outputs "$HERE") <(outputs "$scratch") >&2 || true
        status=1
    fi
    while read -r name; do
        if ! cmp -s "$scratch/$name" "$HERE/$name"; then
            echo "$name: differs from a fresh build" >&2
            status=1
        fi
    done < <(outputs "$scratch")
    [[ "$status" -eq 0 ]] && echo "all $(outputs "$scratch" | wc -l) outputs are reproducible"
    exit "$status"
}
