# test_python: the Python package's tests (python/tests, pytest) against the
# module of this build (BUILD/python). Skipped, with the reason, where the
# module is not built (no Python development files) or where numpy or
# pytest are missing from its interpreter (`make python-env` installs them;
# CI does). docs/PYTHON.md.
if(SCZ_HAVE_PYTHON)
  add_test(NAME test_python
           COMMAND ${Python_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/run_python_tests.py
                   ${PROJECT_BINARY_DIR}/python ${PROJECT_SOURCE_DIR}/python/tests)
  set(py_env "SCZ_DATA_DIR=${SCZ_DATA_DIR}" "OMP_WAIT_POLICY=passive")
  if(TARGET scz)
    list(APPEND py_env "SCZ_TOOL=$<TARGET_FILE:scz>")
  endif()
  set_tests_properties(test_python PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 ENVIRONMENT "${py_env}")
else()
  add_test(NAME test_python COMMAND ${CMAKE_COMMAND} -E echo
           "skipped: the Python module is not built (Python development files not found; SCZ_PYTHON=${SCZ_PYTHON})")
  set_tests_properties(test_python PROPERTIES SKIP_REGULAR_EXPRESSION "skipped:")
endif()
