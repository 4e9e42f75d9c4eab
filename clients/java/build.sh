#!/usr/bin/env bash
# Builds the Java client from protos/ with Debian's packages only (no Maven, no Gradle download):
#   protoc (protobuf-compiler) --java_out, grpc_java_plugin (protobuf-compiler-grpc-java-plugin),
#   javac against the jars of libprotobuf-java, libgrpc-java, libnetty-java, libguava-java, libperfmark-java.
# Output (not committed: regenerated from the protos when they or the sources change): clients/java/build/
#   gen/ generated sources, classes/ compiled classes, classpath.txt the runtime classpath,
#   jvm-options.txt the JVM flags TLS needs (see below).
# Usage: clients/java/build.sh [--stamp]  then: java @clients/java/build/jvm-options.txt \
#          -cp "$(cat clients/java/build/classpath.txt)" dev.tabletop.example.PlayExample localhost:50051
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="$HERE/build"
JARS=${TABLETOP_JAVA_JARS:-/usr/share/java}
PLUGIN=${GRPC_JAVA_PLUGIN:-$(command -v grpc_java_plugin || true)}
if [ -z "$PLUGIN" ] || ! command -v protoc >/dev/null || ! command -v javac >/dev/null; then
  echo "java client: needs protoc, grpc_java_plugin and javac (apt-get install protobuf-compiler" \
       "protobuf-compiler-grpc-java-plugin libgrpc-java libprotobuf-java libnetty-java libperfmark-java" \
       "libguava-java default-jdk-headless; for TLS also libnetty-tcnative-java libnetty-tcnative-jni)" >&2
  exit 2
fi
# Debian's unversioned jar names. grpc-netty is the transport here; Android apps put grpc-okhttp there.
CP=""
for jar in protobuf grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub \
           guava perfmark-api error_prone_annotations jsr305 geronimo-annotation-1.3-spec \
           netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-common netty-handler \
           netty-resolver netty-transport netty-codec-socks netty-handler-proxy; do
  [ -f "$JARS/$jar.jar" ] || { echo "java client: missing $JARS/$jar.jar" >&2; exit 2; }
  CP="$CP:$JARS/$jar.jar"
done
CP=${CP#:}
# Up to date: the build is skipped when nothing it is made from changed since the last one (the protos, the
# Java sources, this script, the tools and the jars), so a second caller (scripts/release_artefacts.sh, a
# second test) costs nothing. TABLETOP_JAVA_REBUILD=1 builds anyway. The stamp is written last: a build that
# failed half-way has none and is redone.
inputs() {
  (cd "$ROOT" && find protos third_party/protos clients/java/protos clients/java/src clients/java/example \
     -type f \( -name '*.proto' -o -name '*.java' \) | LC_ALL=C sort | xargs sha256sum)
  sha256sum "$HERE/build.sh" "$PLUGIN"
  protoc --version; javac -version 2>&1
  tr ':' '\n' <<< "$CP" | xargs stat -L -c '%n %s %Y'
  ls -l /usr/lib/*/jni/libnetty-tcnative.so 2>/dev/null || true
}
STAMP=$(inputs | sha256sum | cut -d' ' -f1)
if [ "${1:-}" = --stamp ]; then  # what the next build would be stamped with (the tests compare it)
  echo "$STAMP"
  exit 0
fi
if [ "${TABLETOP_JAVA_REBUILD:-0}" != 1 ] && [ -f "$OUT/classpath.txt" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$STAMP" ]; then
  echo "java client: up to date in $OUT/classes (nothing it is built from changed; TABLETOP_JAVA_REBUILD=1 rebuilds)"
  exit 0
fi
rm -rf "$OUT" && mkdir -p "$OUT/gen" "$OUT/classes"
# tabletop.v1, the google/api annotations it imports, and google/rpc error details (third_party/protos,
# shared with the TypeScript client) and Status (clients/java/protos) so TabletopError can read the reason
# from grpc-status-details-bin.
(cd "$ROOT" && protoc -I protos -I third_party/protos -I clients/java/protos \
  --java_out="$OUT/gen" --plugin=protoc-gen-grpc-java="$PLUGIN" --grpc-java_out="$OUT/gen" \
  protos/tabletop/v1/*.proto third_party/protos/google/api/*.proto third_party/protos/google/rpc/*.proto clients/java/protos/google/rpc/*.proto)
# TLS: Debian's grpc-java 1.41 with Netty 4.1.48 gets no ALPN from the JDK provider ("JDK provider does not
# support ALPN protocol"), so TLS needs netty-tcnative (OpenSSL; libnetty-tcnative-java, -jni). Netty loads the
# JNI library only under the name netty_tcnative (Debian installs libnetty-tcnative.so), so a copy goes in
# build/jni; `java @build/jvm-options.txt` points the JVM at it. Plaintext works without any of this.
mkdir -p "$OUT/jni" && : > "$OUT/jvm-options.txt"
TCNATIVE_SO=$(ls /usr/lib/*/jni/libnetty-tcnative.so 2>/dev/null | head -n 1 || true)
if [ -f "$JARS/netty-tcnative.jar" ] && [ -n "$TCNATIVE_SO" ]; then
  CP="$CP:$JARS/netty-tcnative.jar"
  cp "$TCNATIVE_SO" "$OUT/jni/libnetty_tcnative.so"  # a copy: the library checks the name it was loaded by
  echo "-Djava.library.path=$OUT/jni" > "$OUT/jvm-options.txt"
fi
find "$OUT/gen" "$HERE/src" "$HERE/example" -name '*.java' > "$OUT/sources.txt"
javac -nowarn -encoding UTF-8 --release 11 -d "$OUT/classes" -cp "$CP" @"$OUT/sources.txt"
echo "$OUT/classes:$CP" > "$OUT/classpath.txt"
echo "$STAMP" > "$OUT/stamp"
echo "java client: $(wc -l < "$OUT/sources.txt") sources compiled into $OUT/classes"
