# Shared set-up for scripts/run and scripts/test (sourced, not run).
# Installs the Debian/Ubuntu packages gemmscope needs when any is missing (sudo when not
# root; nothing at all when every package is present), and finds the CUDA toolkit.

GEMMSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Build tools and header/library dependencies (all from Debian's archive).
GEMMSCOPE_BUILD_PACKAGES=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev catch2)
# The Dear ImGui app: GLFW, OpenGL, ImGui (with its GLFW/OpenGL3 back ends; it needs stb at
# link time), a font, and Xvfb for the headless GUI tests.
GEMMSCOPE_GUI_PACKAGES=(libimgui-dev libglfw3-dev libgl-dev libstb-dev fonts-dejavu-core xvfb xauth)

gemmscope_missing_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]}"
}

gemmscope_install_packages() {
  local missing
  missing=$(gemmscope_missing_packages "$@")
  [ -z "$missing" ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "gemmscope: missing packages ($missing) and no apt-get here: install them by hand." >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "gemmscope: need root (or sudo) to install: $missing" >&2
      return 1
    fi
  fi
  echo "gemmscope: installing $missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

# What keeps a fresh build short (cmake/build_speed.cmake), for scripts/run and scripts/test:
# unity batches, precompiled headers, and ccache when it is installed (not installed for you).
# ccache caches files compiled with precompiled headers only with this sloppiness.
gemmscope_build_speed_flags() {
  GEMMSCOPE_BUILD_SPEED_FLAGS=(-DCMAKE_UNITY_BUILD=ON -DGEMMSCOPE_PCH=ON)
  if command -v ccache >/dev/null 2>&1; then
    GEMMSCOPE_BUILD_SPEED_FLAGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    local sloppiness
    sloppiness=$(ccache --get-config sloppiness 2>/dev/null || true)
    export CCACHE_SLOPPINESS="${sloppiness:+$sloppiness,}pch_defines,time_macros"
  else
    GEMMSCOPE_BUILD_SPEED_FLAGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=)  # forget one no longer there
  fi
}

# The CUDA toolkit is not a Debian package we can rely on (ptxas must know sm_90a): use the
# one in /usr/local/cuda when present. Without it gemmscope still builds and models kernels;
# ptxas checks are skipped unless GEMMSCOPE_REQUIRE_PTXAS=1.
gemmscope_find_cuda() {
  local d
  for d in "${CUDA_HOME:-}" /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12.9; do
    if [ -n "$d" ] && [ -x "$d/bin/ptxas" ]; then
      export PATH="$d/bin:$PATH"
      export CUDAToolkit_ROOT="$d"
      return 0
    fi
  done
  echo "gemmscope: no CUDA toolkit found (looked for ptxas in /usr/local/cuda): building without the GPU runner." >&2
  return 0
}
