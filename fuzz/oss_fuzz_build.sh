#!/bin/bash -eu
# Builds every fuzz target as OSS-Fuzz and ClusterFuzzLite do (their build.sh
# calls this): with $CC, $CXX, $CXXFLAGS and $LIB_FUZZING_ENGINE, into $OUT,
# each target beside <target>_seed_corpus.zip, <target>.options and, for the
# text parser, <target>.dict. Only the model, the replay engine and the
# targets are built: no test framework, Z3 or rapidcheck (OSS-Fuzz links
# libc++).
set -euo pipefail  # also when run as `bash oss_fuzz_build.sh`
src="$(cd "$(dirname "$0")/.." && pwd -P)"
build="${WORK:-/tmp}/mwcheck-fuzz-build"
targets=(fuzz_text fuzz_binary fuzz_model fuzz_diff fuzz_fastpath fuzz_replay)

cmake -S "$src" -B "$build" -G Ninja -Wno-dev \
  -DCMAKE_BUILD_TYPE=Release -DMWCHECK_FUZZ=ON \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DMWCHECK_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" >/dev/null
cmake --build "$build" --target "${targets[@]}" fuzz_assets

assets="$build/fuzz/assets"
for t in "${targets[@]}"; do
  cp "$build/$t" "$OUT/"
  seeds="$assets/mwb"
  [ "$t" = fuzz_text ] && seeds="$src/corpus/conformance"
  rm -f "$OUT/${t}_seed_corpus.zip"
  zip -q -j "$OUT/${t}_seed_corpus.zip" "$seeds"/*
  if [ -d "$src/fuzz/regressions/$t" ]; then
    zip -q -j "$OUT/${t}_seed_corpus.zip" "$src/fuzz/regressions/$t"/*
  fi
  {
    echo "[libfuzzer]"
    echo "max_len = 4096"
    [ "$t" = fuzz_text ] && echo "dict = $t.dict"
  } >"$OUT/$t.options"
done
cp "$assets/text.dict" "$OUT/fuzz_text.dict"
