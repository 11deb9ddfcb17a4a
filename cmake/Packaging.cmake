# `cpack -G DEB` (from the build folder): a Debian package of everything `cmake --install` puts in place, under /usr.
# Its Depends line comes from dpkg-shlibdeps over the installed binaries and plugins, so it names exactly the Debian
# packages whose libraries they link (Qt, ONNX, protobuf, libssh, oneDNN, XNNPACK, ...); nothing is listed by hand.
set(CPACK_PACKAGE_NAME npuwb)
set(CPACK_PACKAGE_VENDOR "NPU Workbench")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Workbench for putting ONNX networks onto Rockchip NPU boards")
set(CPACK_PACKAGE_DESCRIPTION
    "Qt GUI (npuwb), headless CLI (npuwb-cli) and board agent (npuwb-agent) to inspect, optimize, quantize, run, "
    "profile and estimate ONNX models for Rockchip RK3588/RK3576/RK3566/RK3568/RK3562/RV1106 NPUs, locally on fast "
    "CPU backends or on a board over SSH.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "NPU Workbench developers <npuwb@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
