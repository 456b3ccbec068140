# What `cmake --install BUILD --prefix P` puts where (GNUInstallDirs; any prefix works, and the
# installed tree still works after it is moved: the app finds share/gemmscope from its binary).
#   bin/gemmscope, bin/gemmscope_model_bench
#   share/gemmscope/icons/gemmscope-N.png              the window icon, read by the app
#   share/gemmscope/reference/*.json                   the shipped measurements of the speed ladder
#   share/applications/gemmscope.desktop               the application menu's entry
#   share/icons/hicolor/NxN/apps/gemmscope.png         the entry's icon, and scalable/ the SVG
#   share/doc/gemmscope/README.md, LICENSE
# The fonts are not installed: they come from fonts-dejavu-core (the .deb depends on it).
# tests/install/test_install.cpp installs a build into a temporary prefix and checks all this.

install(TARGETS gemmscope gemmscope_model_bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The icon, the menu entry and the app's assets only mean something when the app is built.
if(GEMMSCOPE_GUI)
  # Rendered from assets/gemmscope.svg by scripts/render-icons; the app loads the same sizes
  # (kIconSizes in gui/app/assets.hpp, which the install test compares with this list).
  set(icon_sizes 16 32 48 64 128 256)
  foreach(size IN LISTS icon_sizes)
    set(png ${PROJECT_SOURCE_DIR}/assets/icons/gemmscope-${size}.png)
    install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/gemmscope/icons)
    install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME gemmscope.png)
  endforeach()
  # Our own `bench --json` runs the Ladder view's speed ladder shows (assets/reference/README.md).
  file(GLOB reference_runs ${PROJECT_SOURCE_DIR}/assets/reference/*.json)
  install(FILES ${reference_runs} DESTINATION ${CMAKE_INSTALL_DATADIR}/gemmscope/reference)
  install(FILES assets/gemmscope.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES assets/gemmscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
endif()
