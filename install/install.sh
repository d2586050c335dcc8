#!/usr/bin/env bash
# Installs assay into $RUNNER_TEMP/assay-bin and puts it on $GITHUB_PATH:
# the step of the GitHub Actions action.yml and install/action.yml.
#
#   ASSAY_VERSION   a release (v1.2.3 or 1.2.3): its linux or darwin archive
#                   for this runner is downloaded with checksums.txt, and
#                   installed only when its SHA-256 is the one listed;
#                   "source" (or empty): built from the action's own source
#                   (the checkout of the action's ref this script is part
#                   of) with the release build's flags, which needs Go.
#   ASSAY_DOWNLOAD  the releases' base URL (default GitHub's for
#                   assay-eval/assay); the archive is ASSAY_DOWNLOAD/vX.Y.Z/NAME.
set -euo pipefail
bin="${RUNNER_TEMP:?}/assay-bin"
mkdir -p "$bin"
version="${ASSAY_VERSION:-source}"
if [ "$version" = source ]; then
	src="$(dirname "$0")/.."
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$bin/assay" ./cmd/assay)
else
	v="${version#v}"
	case "${RUNNER_OS:-Linux}" in
	Linux) os=linux ;;
	macOS) os=darwin ;;
	*)
		echo "::error::assay's action installs on Linux and macOS runners, not ${RUNNER_OS}"
		exit 1
		;;
	esac
	case "${RUNNER_ARCH:-X64}" in
	X64) arch=amd64 ;;
	ARM64) arch=arm64 ;;
	*)
		echo "::error::no assay release for runner architecture ${RUNNER_ARCH}"
		exit 1
		;;
	esac
	name="assay_${v}_${os}_${arch}.tar.gz"
	url="${ASSAY_DOWNLOAD:-https://github.com/assay-eval/assay/releases/download}/v${v}"
	tmp=$(mktemp -d)
	curl -fsSL --retry 3 -o "$tmp/$name" "$url/$name"
	curl -fsSL --retry 3 -o "$tmp/checksums.txt" "$url/checksums.txt"
	# Only the archive's own line is checked; a missing line is a failure.
	if ! (cd "$tmp" && grep -E "^[0-9a-f]{64}  ${name//./\\.}\$" checksums.txt | sha256sum -c --strict -); then
		echo "::error::$name does not match its SHA-256 in $url/checksums.txt: not installed"
		exit 1
	fi
	tar -xzf "$tmp/$name" -C "$bin" assay
	rm -rf "$tmp"
fi
echo "$bin" >> "${GITHUB_PATH:?}"
"$bin/assay" version
