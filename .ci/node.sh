# Sourced by .ci/run: puts a Node.js of at least NODE_MIN first on PATH and builds
# native modules (better-sqlite3) against its headers.
#
# The machine's node is used when it is new enough. Else Node 24 (LTS) comes from
# the npm registry: the `node-linux-<arch>` package is the official build, headers
# included (npm checks the tarball against the registry's integrity hash). It is
# unpacked once into CI_NODE_DIR and reused.
NODE_MIN=22
NODE_CI_MAJOR=24

node_major() { node -p 'process.versions.node.split(".")[0]' 2> /dev/null || echo 0; }

if [ "$(node_major)" -lt "$NODE_MIN" ]; then
  CI_NODE_DIR="${CI_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard-ci/node-$NODE_CI_MAJOR}"
  if [ ! -x "$CI_NODE_DIR/bin/node" ]; then
    arch="$(uname -m)"
    case "$arch" in
      x86_64) arch=x64 ;;
      aarch64) arch=arm64 ;;
    esac
    pack_dir="$(mktemp -d)"
    tarball="$(cd "$pack_dir" && npm pack --silent "node-linux-$arch@$NODE_CI_MAJOR" | tail -n 1)"
    mkdir -p "$CI_NODE_DIR"
    tar -xzf "$pack_dir/$tarball" -C "$CI_NODE_DIR" --strip-components=1
    rm -rf "$pack_dir"
  fi
  export PATH="$CI_NODE_DIR/bin:$PATH"
fi

# node-gyp builds against the headers of the node that runs the tests (the machine's
# npm config names the system node's); a build without headers here would try to
# download them.
node_prefix="$(dirname "$(dirname "$(command -v node)")")"
if [ -f "$node_prefix/include/node/node_version.h" ]; then
  export npm_config_nodedir="$node_prefix"
fi
echo "[ci] node $(node --version) ($(command -v node)); native modules built against ${npm_config_nodedir:-the default headers}"
