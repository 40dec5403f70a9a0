# test_cuda_lossy_enc1: the level-1 GPU writer's estimate, decision and
# sweeps against the CPU writer (docs/GPU.md "Level 1 on the GPU:
# compression"). Without CUDA it compiles to a program that reports itself
# skipped; with CUDA but no device it skips at run time.
if(SCZ_HAVE_CUDA AND TARGET test_cuda_lossy_enc1)
  target_compile_definitions(test_cuda_lossy_enc1 PRIVATE SCZ_TEST_CUDA SCZ_HAVE_CUDA)
  target_link_libraries(test_cuda_lossy_enc1 PRIVATE CUDA::cudart)
endif()

# The same program with every run-length set's used symbols sorted by the
# big-set path (esort_big: block-sorted tiles of 64 keys merged in global
# memory; by default only sets above 4096 keys take it), on the quick
# cases. Skips like the program itself without CUDA or a device.
if(TARGET test_cuda_lossy_enc1)
  add_test(NAME test_cuda_lossy_enc1_bigsort COMMAND test_cuda_lossy_enc1)
  set_tests_properties(test_cuda_lossy_enc1_bigsort PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1500
    ENVIRONMENT "SCZ_DATA_DIR=${SCZ_DATA_DIR};OMP_WAIT_POLICY=passive;SCZ_HSE_BIGSORT=1;SCZ_TEST_QUICK=2")
endif()
