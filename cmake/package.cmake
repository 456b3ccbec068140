# The .deb, made by scripts/package (a Release build in build/package, then cpack): CPack's DEB
# generator over the install rules (cmake/install.cmake), installing under /usr.
# Depends: the shared libraries the binaries link (dpkg-shlibdeps finds libc6, libstdc++6,
# libglfw3, libopengl0, libstb0, ...), OpenGL's libgl1, and the fonts the app draws with.
# The CUDA driver is only recommended: it is opened at run time (dlopen), and everything but
# bench, probe and devices runs on the CPU model without it.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gemmscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the gemmscope authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop microscope for GEMM kernels on NVIDIA GPUs")
# CPack puts the summary above this text as the description's first line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "gemmscope shows what the fastest GEMM kernels do, from a naive SIMT kernel to
Hopper TMA + wgmma: the PTX, the warps, shared-memory banks and swizzles, TMA
stages, mbarrier phases and fragment maps. Every kernel runs on an instrumented
CPU model of the hardware, so no GPU is needed; with an NVIDIA GPU and driver it
also runs and times the kernels against cuBLAS.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "the gemmscope authors")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gemmscope_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(GEMMSCOPE_GUI)
  # GLFW opens libGL.so.1 at run time (dlopen), so dpkg-shlibdeps cannot see it: libgl1 (with
  # Mesa behind it) is named here, with the fonts the app draws with.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libgl1, fonts-dejavu-core")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "xvfb, xauth")  # headless screenshots: xvfb-run gemmscope gui --screenshot
endif()
# libcuda.so.1 is packaged as libcuda1 in Debian's non-free section and in NVIDIA's repositories.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcuda1")
set(CPACK_STRIP_FILES ON)
include(CPack)
