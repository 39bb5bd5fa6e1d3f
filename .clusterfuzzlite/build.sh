#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite entry point: the build lives in the project.
set -euo pipefail
exec "$SRC/mwcheck/fuzz/oss_fuzz_build.sh"
