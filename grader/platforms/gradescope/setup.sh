#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image. The image
# must already have an NVIDIA GPU and the CUDA Toolkit (Gradescope's default
# images have neither: see handouts/instructors.md); this adds what the grader
# itself needs and builds it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq make gcc check pkg-config >/dev/null
cd /autograder/source
make grade
