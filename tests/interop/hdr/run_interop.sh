#!/bin/sh
# Interoperability of benchgate's HdrHistogram with the reference Java implementation
# (Debian's libhdrhistogram-java, 2.1.11). For each case it checks, exactly:
#   1. both sides record the same values into the same figures (percentiles, min, max, total,
#      mean and stddev as raw double bits);
#   2. the uncompressed V2 encodings are byte-identical;
#   3. C++ decodes Java's compressed encoding into the same figures;
#   4. Java decodes C++'s compressed encoding into the same figures.
# Exits 77 (CTest SKIP_RETURN_CODE) when java, javac or the jar is missing.
#
# The commands it runs, per case (default, coarse, positive, empty):
#   javac -cp /usr/share/java/hdrhistogram.jar -d $WORK HdrInterop.java
#   java -cp /usr/share/java/hdrhistogram.jar:$WORK HdrInterop write $case $WORK/j.bin
#   hdr_interop_driver write $case $WORK/c.bin
#   cmp $WORK/j.bin.raw $WORK/c.bin.raw
#   hdr_interop_driver read $case $WORK/j.bin
#   java -cp /usr/share/java/hdrhistogram.jar:$WORK HdrInterop read $case $WORK/c.bin
#
# usage: run_interop.sh <hdr_interop_driver> <dir of HdrInterop.java> <work dir>
set -u
DRIVER=$1
SRC=$2
WORK=$3
JAR=${HDRHISTOGRAM_JAR:-/usr/share/java/hdrhistogram.jar}

for tool in java javac; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: '$tool' not found; install default-jdk-headless to run the HdrHistogram interop test"
    exit 77
  fi
done
if [ ! -r "$JAR" ]; then
  echo "SKIP: $JAR not found; install libhdrhistogram-java (or set HDRHISTOGRAM_JAR)"
  exit 77
fi

rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
javac -cp "$JAR" -d "$WORK" "$SRC/HdrInterop.java" || { echo "FAIL: javac"; exit 1; }
CP="$JAR:$WORK"
status=0

check() {  # check <description> <file a> <file b>
  if diff -u "$2" "$3"; then
    echo "ok: $1"
  else
    echo "FAIL: $1"
    status=1
  fi
}

for case in default coarse positive empty; do
  d="$WORK/$case"
  mkdir -p "$d"
  java -cp "$CP" HdrInterop write "$case" "$d/j.bin" >"$d/java_write.txt" || status=1
  "$DRIVER" write "$case" "$d/c.bin" >"$d/cpp_write.txt" || status=1
  check "$case: same values give the same figures" "$d/java_write.txt" "$d/cpp_write.txt"
  if cmp "$d/j.bin.raw" "$d/c.bin.raw"; then
    echo "ok: $case: uncompressed encodings are byte-identical"
  else
    echo "FAIL: $case: uncompressed encodings differ"
    status=1
  fi
  "$DRIVER" read "$case" "$d/j.bin" >"$d/cpp_read.txt" || status=1
  check "$case: C++ decodes Java's encoding" "$d/java_write.txt" "$d/cpp_read.txt"
  java -cp "$CP" HdrInterop read "$case" "$d/c.bin" >"$d/java_read.txt" || status=1
  check "$case: Java decodes C++'s encoding" "$d/cpp_write.txt" "$d/java_read.txt"
done
[ "$status" -eq 0 ] && echo "HdrHistogram interop: all checks passed"
exit "$status"
