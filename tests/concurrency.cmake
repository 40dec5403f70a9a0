# test_concurrency starts its own threads (pthreads) beside OpenMP's.
find_package(Threads REQUIRED)
target_link_libraries(test_concurrency PRIVATE Threads::Threads)
