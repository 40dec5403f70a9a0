# test_xxh64 checks the project's XXH64 against reference values, and against
# libxxhash as well where that is installed (optional; the library itself
# never needs it).
if(TARGET test_xxh64)
  if(XXHASH_INCLUDE_DIR AND XXHASH_LIBRARY)
    target_compile_definitions(test_xxh64 PRIVATE SCZ_TEST_LIBXXHASH)
    target_include_directories(test_xxh64 PRIVATE ${XXHASH_INCLUDE_DIR})
    target_link_libraries(test_xxh64 PRIVATE ${XXHASH_LIBRARY})
  endif()
endif()
