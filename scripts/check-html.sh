#!/bin/sh
# check-html: render kidx's HTML reports in headless Chromium and fail on a broken page.
#
# Usage: scripts/check-html.sh KIDX OUTDIR   (make check-html runs it)
#
# Pages: the default `kidx whatif`, a two-key grid sweep (the heatmap), and `kidx analyze` of
# three golden partitions copied into a temporary log dir. Each page carries its own check
# (reports/html.go, selfCheck): once loaded it sets data-kidx-check="ok N charts" on <body>
# when every <svg> has a non-zero size and the count matches what the report drew, and
# data-kidx-error on a script error. This script dumps each page's DOM after load, greps for
# those markers, and writes a 1280x2400 screenshot per page into OUTDIR to look at.
set -eu

kidx=$1
out=$2
chromium=${CHROMIUM:-}
if [ -z "$chromium" ]; then
	for c in chromium chromium-browser google-chrome; do
		if command -v "$c" >/dev/null 2>&1; then chromium=$(command -v "$c"); break; fi
	done
fi
if [ -z "$chromium" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "check-html: no chromium; installing Debian's chromium with apt-get"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
		chromium=$(command -v chromium)
	else
		echo "check-html: FAILED: no chromium found (not root, or no apt-get, so not installed)." >&2
		echo "  Install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM=/path/to/chrome." >&2
		exit 1
	fi
fi

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The pages.
"$kidx" whatif --format html --out "$out/whatif.html"
"$kidx" whatif --sweep index.interval.bytes=1,4096,20000,1048576 --sweep segment.bytes=65536,262144,1048576 \
	--format html --out "$out/whatif-grid.html"
i=0
for c in blog-i4096 blog-i20000 random-i512-per-append; do
	mkdir -p "$work/logdir/golden-$i"
	cp testdata/kafka-golden/$c/files/* "$work/logdir/golden-$i/"
	i=$((i + 1))
done
rc=0
"$kidx" analyze "$work/logdir" --format html --out "$out/analyze.html" || rc=$?
if [ "$rc" -gt 1 ]; then
	echo "check-html: FAILED: kidx analyze exited $rc" >&2
	exit 1
fi

# Chromium with nothing of its own running: no network, no updates, no profile kept.
render() {
	profile=$1
	shift
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile-$profile" --virtual-time-budget=5000 "$@" 2>"$work/chromium.log"
}

failed=0
for page in whatif whatif-grid analyze; do
	url="file://$(cd "$out" && pwd)/$page.html"
	render "$page" --dump-dom "$url" >"$work/$page.dom" || { echo "check-html: $page: chromium failed:"; tail -5 "$work/chromium.log"; failed=1; continue; }
	# Headless Chromium now and then exits non-zero on a screenshot it did take (seen once
	# in a `make test` run on a 2-vCPU machine): one retry before calling it a failure.
	render "$page-shot" --window-size=1280,2400 --screenshot="$out/$page.png" "$url" >/dev/null ||
		render "$page-shot2" --window-size=1280,2400 --screenshot="$out/$page.png" "$url" >/dev/null ||
		{ echo "check-html: $page: no screenshot"; tail -5 "$work/chromium.log"; failed=1; }
	status=$(sed -n 's/.*data-kidx-check="\([^"]*\)".*/\1/p' "$work/$page.dom" | head -1)
	error=$(sed -n 's/.*data-kidx-error="\([^"]*\)".*/\1/p' "$work/$page.dom" | head -1)
	svgs=$(grep -o '<svg' "$work/$page.dom" | wc -l)
	case "$status" in
	ok*)
		if [ -n "$error" ]; then
			echo "check-html: $page: BROKEN: script error: $error"; failed=1
		else
			echo "check-html: $page: $status ($svgs <svg> in the DOM; screenshot $out/$page.png)"
		fi
		;;
	"")
		echo "check-html: $page: BROKEN: the page's self-check never ran (no data-kidx-check in the DOM)${error:+; script error: $error}"; failed=1
		;;
	*)
		echo "check-html: $page: BROKEN: $status"; failed=1
		;;
	esac
done
exit $failed
