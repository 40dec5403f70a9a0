# The HDF5 filter (src/hdf5, docs/HDF5.md). test_hdf5 (a test_*.c, so
# registered by tests/CMakeLists.txt) gets the filter compiled in and libhdf5
# where they are found, and otherwise reports "skipped: HDF5 not installed".
# test_hdf5_plugin runs it again with the filter loaded from the plugin
# through HDF5_PLUGIN_PATH; test_hdf5_tools reads and writes through the
# plugin with h5dump and h5repack; test_hdf5_mpi writes one file from 4 MPI
# ranks collectively and reads it back on 3 (parallel HDF5, Open MPI).
if(TARGET h5z_scz AND TARGET test_hdf5)
  target_sources(test_hdf5 PRIVATE ${PROJECT_SOURCE_DIR}/src/hdf5/h5z_scz.c)
  target_include_directories(test_hdf5 PRIVATE ${PROJECT_SOURCE_DIR}/src/hdf5)
  target_link_libraries(test_hdf5 PRIVATE scz_hdf5_lib)
  target_compile_definitions(test_hdf5 PRIVATE SCZ_TEST_HDF5)
  add_dependencies(test_hdf5 h5z_scz)

  add_test(NAME test_hdf5_plugin COMMAND test_hdf5 --plugin)
  set_tests_properties(test_hdf5_plugin PROPERTIES TIMEOUT 600
    ENVIRONMENT "HDF5_PLUGIN_PATH=$<TARGET_FILE_DIR:h5z_scz>;OMP_WAIT_POLICY=passive")

  # The command-line tools are not built with the sanitizers, so they cannot
  # load a sanitized plugin: skipped in those builds.
  find_program(SCZ_H5DUMP h5dump)
  find_program(SCZ_H5REPACK h5repack)
  if(SCZ_SANITIZE OR CMAKE_C_FLAGS MATCHES "-fsanitize")
    add_test(NAME test_hdf5_tools COMMAND ${CMAKE_COMMAND} -E echo
             "skipped: h5dump cannot load a plugin built with the sanitizers")
    set_tests_properties(test_hdf5_tools PROPERTIES SKIP_REGULAR_EXPRESSION "skipped:")
  elseif(NOT SCZ_H5DUMP OR NOT SCZ_H5REPACK)
    add_test(NAME test_hdf5_tools COMMAND ${CMAKE_COMMAND} -E echo
             "skipped: h5dump / h5repack not installed (hdf5-tools)")
    set_tests_properties(test_hdf5_tools PROPERTIES SKIP_REGULAR_EXPRESSION "skipped:")
  else()
    add_test(NAME test_hdf5_tools
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hdf5_tools.sh $<TARGET_FILE:test_hdf5>
                     ${SCZ_H5DUMP} ${SCZ_H5REPACK})
    set_tests_properties(test_hdf5_tools PROPERTIES TIMEOUT 300
      ENVIRONMENT "HDF5_PLUGIN_PATH=$<TARGET_FILE_DIR:h5z_scz>;OMP_WAIT_POLICY=passive")
  endif()
else()
  foreach(t test_hdf5_plugin test_hdf5_tools)
    add_test(NAME ${t} COMMAND ${CMAKE_COMMAND} -E echo "skipped: HDF5 not installed (libhdf5-dev)")
    set_tests_properties(${t} PROPERTIES SKIP_REGULAR_EXPRESSION "skipped:")
  endforeach()
endif()

# Parallel: examples/hdf5_mpi.c against parallel HDF5 and MPI.
if(TARGET h5z_scz AND SCZ_HAVE_HDF5_MPI)
  add_executable(hdf5_mpi ${PROJECT_SOURCE_DIR}/examples/hdf5_mpi.c ${PROJECT_SOURCE_DIR}/src/hdf5/h5z_scz.c)
  target_include_directories(hdf5_mpi PRIVATE ${PROJECT_SOURCE_DIR}/src/hdf5)
  target_link_libraries(hdf5_mpi PRIVATE scz_static scz_hdf5_mpi_lib m)
  target_compile_options(hdf5_mpi PRIVATE ${SCZ_C_FLAGS})
  set(mpi_run ${MPIEXEC_EXECUTABLE} --oversubscribe)
  execute_process(COMMAND id -u OUTPUT_VARIABLE scz_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(scz_uid STREQUAL "0")
    list(APPEND mpi_run --allow-run-as-root)
  endif()
  list(JOIN mpi_run " " mpi_run)
  add_test(NAME test_hdf5_mpi
           COMMAND sh -c "${mpi_run} -np 4 $<TARGET_FILE:hdf5_mpi> write hdf5_mpi_test.h5 && ${mpi_run} -np 3 $<TARGET_FILE:hdf5_mpi> read hdf5_mpi_test.h5 && ${mpi_run} -np 1 $<TARGET_FILE:hdf5_mpi> read hdf5_mpi_test.h5")
  # OpenMP threads per rank: 1 (4 ranks on a few cores); Open MPI's own
  # allocations are not the leak checker's business.
  set(mpi_env "OMP_NUM_THREADS=1" "OMP_WAIT_POLICY=passive" "OMPI_MCA_rmaps_base_oversubscribe=1")
  if(SCZ_SANITIZE)
    list(APPEND mpi_env "ASAN_OPTIONS=detect_leaks=0")
  endif()
  set_tests_properties(test_hdf5_mpi PROPERTIES TIMEOUT 600 ENVIRONMENT "${mpi_env}")
else()
  add_test(NAME test_hdf5_mpi COMMAND ${CMAKE_COMMAND} -E echo
           "skipped: MPI or parallel HDF5 not installed (openmpi-bin, libhdf5-openmpi-dev)")
  set_tests_properties(test_hdf5_mpi PROPERTIES SKIP_REGULAR_EXPRESSION "skipped:")
endif()
