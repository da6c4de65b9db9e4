#!/usr/bin/env bash
# The folders of src/ form layers: a file may include headers only from its own folder and the folders
# listed before it. Rules never see the driver's internals.
set -u
src=${1:?src dir}
order="ir analysis passes lower cxmath fft patterns rules"
status=0
rank() { local i=0; for d in $order; do [ "$d" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
for file in "$src"/*/*.[ch]; do
  dir=$(basename "$(dirname "$file")")
  own=$(rank "$dir")
  for inc in $(grep -o '^#include "[a-z_]*/' "$file" | sed 's/#include "//; s#/##'); do
    if [ "$(rank "$inc")" -gt "$own" ]; then
      echo "layering: ${file#"$src"/} includes $inc/, a later layer"; status=1
    fi
  done
done
if grep -l 'lower_internal.h' "$src"/rules/* "$src"/patterns/* "$src"/cxmath/* "$src"/fft/* 2>/dev/null; then
  echo "layering: the files above include lower/lower_internal.h, the driver's private state"; status=1
fi
[ $status -eq 0 ] && echo "layers ok: $order"
exit $status
