# Command-line tests: tests/cli_test.sh drives the `scz` tool (round trips,
# stdin/stdout, `info`, `demo`, and the exit code and message of each kind of
# bad argument or bad stream). It exits 77 (skipped) when no POSIX shell is found.
if(TARGET scz)
  find_program(SCZ_SH NAMES sh bash)
  if(SCZ_SH)
    add_test(NAME cli COMMAND ${SCZ_SH} ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh $<TARGET_FILE:scz>)
    set_tests_properties(cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "OMP_WAIT_POLICY=passive")
  endif()
endif()
