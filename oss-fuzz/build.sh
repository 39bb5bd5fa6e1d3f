#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite entry point: the build lives in the project.
exec "$SRC/mwcheck/fuzz/oss_fuzz_build.sh"
