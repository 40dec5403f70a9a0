# The installed library is usable through pkg-config and the CMake package
# (tests/install_test.sh installs into a temporary prefix).
find_program(SCZ_SH_INSTALL NAMES sh bash)
if(SCZ_SH_INSTALL AND NOT SCZ_SANITIZE) # a sanitized library needs its runtime in the consumer
  add_test(NAME install COMMAND ${SCZ_SH_INSTALL} ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${PROJECT_BINARY_DIR})
  set_tests_properties(install PROPERTIES TIMEOUT 300)
endif()
