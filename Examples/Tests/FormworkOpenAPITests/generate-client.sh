#!/usr/bin/env bash
# Regenerates Generated/ from openapi.yaml with swift-openapi-generator (not a dependency of the
# package, and never run in CI: the generated code is committed). Usage, from this folder:
#   ./generate-client.sh /path/to/swift-openapi-generator
# (build it once from https://github.com/apple/swift-openapi-generator, 1.14.3:
#  `swift build --product swift-openapi-generator`, about 2.5 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")"
generator=${1:?usage: $0 /path/to/swift-openapi-generator}
rm -rf Generated
"$generator" generate openapi.yaml --config openapi-generator-config.yaml --output-directory Generated
