# Shared by every script: puts the project's Node (>= 22) first on PATH.
# Sourced, not run. Never downloads anything; scripts/setup does that.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -x "$root/.node/bin/node" ]; then
  export PATH="$root/.node/bin:$PATH"
fi
node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
